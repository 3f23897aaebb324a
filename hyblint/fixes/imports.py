"""Drop imports that the fixes left unused (`from mxnet import nd` once every `nd.op` is `F.op`).

Only a name that was used before fixing and is provably unused after is dropped: an import the
user had left unused is theirs to keep, and an unused import is harmless, so any doubt keeps it.
A name is kept when the module
- is a package's `__init__.py` (its imports are the package's API),
- lists it in `__all__`, or re-exports it explicitly (`from mxnet import nd as nd`),
- marks its import line with a `# noqa` (any code) or pylint's `unused-import`,
- can reach its names by their strings (`globals()`, `locals()`, `vars()`, `dir()`, `eval`,
  `exec`, a module-level `__getattr__`),
- names it in a string that reads as an expression (`x: "nd.NDArray"`, `cast("nd.NDArray", y)`),
- or uses it anywhere else, outside the rewritten code.
"""
from __future__ import annotations

import ast
import os
import re
from collections import Counter
from typing import Set

import libcst as cst

# calls that reach module names by their strings: any import may be used through them
_DYNAMIC = frozenset({"globals", "locals", "vars", "dir", "eval", "exec", "__import__"})
_KEEP_COMMENT = re.compile(r"#.*\b(noqa|unused-import)\b", re.IGNORECASE)


def _imported_names(module: cst.Module) -> Set[str]:
    names: Set[str] = set()
    for statement in module.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if isinstance(small, (cst.Import, cst.ImportFrom)) and not isinstance(
                    small.names, cst.ImportStar):
                for alias in small.names:
                    names.add(_bound_name(alias))
    return names


def _bound_name(alias: cst.ImportAlias) -> str:
    if alias.asname is not None:
        return alias.asname.name.value
    node = alias.name
    while isinstance(node, cst.Attribute):
        node = node.value
    return node.value


class _Uses(cst.CSTVisitor):
    def __init__(self) -> None:
        self.counts: Counter = Counter()
        self.dynamic = False  # names may be reached by their strings
        self.strings: list = []

    def visit_Import(self, node) -> bool:
        return False

    def visit_ImportFrom(self, node) -> bool:
        return False

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)  # the `.attr` part names no variable
        return False

    def visit_Name(self, node: cst.Name) -> None:
        self.counts[node.value] += 1

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value in _DYNAMIC:
            self.dynamic = True

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        try:
            value = node.evaluated_value
        except (ValueError, SyntaxError):  # an escape libcst cannot evaluate: read the raw text
            value = node.raw_value
        if isinstance(value, str):
            self.strings.append(value)


def _uses(module: cst.Module) -> _Uses:
    visitor = _Uses()
    module.visit(visitor)
    return visitor


def _names_in_strings(strings) -> Counter:
    """Names used by the strings that read as Python expressions (string annotations,
    `typing.cast("nd.NDArray", x)`, text for `eval`); prose does not parse and names nothing."""
    counts: Counter = Counter()
    for text in strings:
        try:
            tree = ast.parse(text.strip(), mode="eval")
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                counts[node.id] += 1
    return counts


def _kept_names(module: cst.Module) -> Set[str]:
    """Module-level imported names that must stay whether used or not (see the module docs)."""
    kept: Set[str] = set()
    for statement in module.body:
        if isinstance(statement, (cst.FunctionDef,)) and statement.name.value in ("__getattr__", "__dir__"):
            return _imported_names(module)
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        text = module.code_for_node(statement)
        if "__all__" in text:
            kept.update(_exported_strings(statement))
        for small in statement.body:
            if not isinstance(small, (cst.Import, cst.ImportFrom)) or isinstance(small.names, cst.ImportStar):
                continue
            for alias in small.names:
                if _KEEP_COMMENT.search(text) or _is_reexport(alias):
                    kept.add(_bound_name(alias))
    return kept


def _exported_strings(statement: cst.SimpleStatementLine) -> Set[str]:
    """The strings in a statement that builds `__all__` (`__all__ = [...]`, `__all__ += [...]`,
    `__all__.extend([...])`): they name the module's public API."""
    visitor = _Uses()
    statement.visit(visitor)
    return set(visitor.strings)


def _is_reexport(alias: cst.ImportAlias) -> bool:
    """`import nd as nd` / `from mxnet import nd as nd`: the explicit re-export idiom."""
    if alias.asname is None or not isinstance(alias.asname.name, cst.Name):
        return False
    name = alias.name
    last = name.attr.value if isinstance(name, cst.Attribute) else name.value
    return last == alias.asname.name.value


class _Drop(cst.CSTTransformer):
    def __init__(self, names: Set[str]) -> None:
        self.names = names

    def _keep(self, original, updated):
        if isinstance(updated.names, cst.ImportStar):
            return updated
        kept = [a for a in updated.names if _bound_name(a) not in self.names]
        if len(kept) == len(updated.names):
            return updated
        if not kept:
            return cst.RemoveFromParent()
        kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return updated.with_changes(names=kept)

    def leave_Import(self, original, updated):
        return self._keep(original, updated)

    def leave_ImportFrom(self, original, updated):
        return self._keep(original, updated)


def prune_unused_imports(before: str, after: str, filename: str = "") -> str:
    """`after` without the module-level imports that `before` used and `after` provably no
    longer does; `filename` tells a package's `__init__.py`, whose imports are all kept."""
    if os.path.basename(filename) == "__init__.py":
        return after
    try:
        old, new = cst.parse_module(before), cst.parse_module(after)
    except cst.ParserSyntaxError:
        return after
    used_before, used_after = _uses(old).counts, _uses(new)
    if used_after.dynamic:
        return after
    in_strings = _names_in_strings(used_after.strings)
    kept = _kept_names(new)
    gone = {name for name in _imported_names(new)
            if used_before[name] > 0 and used_after.counts[name] == 0 and in_strings[name] == 0
            and name not in kept}
    if not gone:
        return after
    return new.visit(_Drop(gone)).code
