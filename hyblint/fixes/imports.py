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

The decision reads Python's own tree of the module (a fraction of libcst's cost on a large file);
libcst rewrites only the lines of the import statements that lose a name, so everything else,
comments included, stays byte-identical.
"""
from __future__ import annotations

import ast
import os
import re
from collections import Counter
from typing import Iterable, List, Optional, Sequence, Set, Tuple

import libcst as cst

# calls that reach module names by their strings: any import may be used through them
_DYNAMIC = frozenset({"globals", "locals", "vars", "dir", "eval", "exec", "__import__"})
_KEEP_COMMENT = re.compile(r"#.*\b(noqa|unused-import)\b", re.IGNORECASE)
# module-level functions through which any module name may be looked up by its string
_MODULE_HOOKS = frozenset({"__getattr__", "__dir__"})
_BOM = "\ufeff"
_NEWLINE = re.compile(r"\r\n|\r|\n")

_Import = (ast.Import, ast.ImportFrom)


def _bound_name(alias: ast.alias) -> str:
    """The name an import binds: `import a.b` binds `a`, `import a.b as c` binds `c`."""
    return alias.asname or alias.name.split(".")[0]


def _is_reexport(alias: ast.alias) -> bool:
    """`import nd as nd` / `from mxnet import nd as nd`: the explicit re-export idiom."""
    return alias.asname is not None and alias.name.split(".")[-1] == alias.asname


def _aliases(statement: ast.stmt) -> List[ast.alias]:
    return [a for a in statement.names if a.name != "*"]


class _Uses:
    """What a module's code (its import statements aside) says about the names it uses: one pass
    over Python's tree, which is most of the cost of pruning a large module."""

    def __init__(self, tree: ast.Module) -> None:
        self.counts: Counter = Counter()
        self.dynamic = False  # names may be reached by their strings
        self.strings: List[str] = []
        counts, strings, node_type = self.counts, self.strings, ast.AST
        stack: list = [tree]
        while stack:
            node = stack.pop()
            kind = type(node)
            if kind is ast.Name:
                counts[node.id] += 1
                continue
            if kind is ast.Constant:
                if isinstance(node.value, str):
                    strings.append(node.value)
                continue
            if kind is ast.Call:
                if type(node.func) is ast.Name and node.func.id in _DYNAMIC:
                    self.dynamic = True
            else:
                # any other identifier the code spells (a definition, a parameter, a keyword
                # argument, `global`, `except ... as`, a match capture) counts as a use too, so
                # that a doubt keeps the import
                spelled = _SPELLED.get(kind)
                if spelled is not None:
                    for name in spelled(node):
                        if name:
                            counts[name] += 1
            for field in node._fields:
                value = getattr(node, field, None)
                if type(value) is list:
                    stack.extend(item for item in value if isinstance(item, node_type))
                elif isinstance(value, node_type) and field != "ctx":
                    stack.append(value)


_SPELLED = {
    ast.FunctionDef: lambda node: (node.name,),
    ast.AsyncFunctionDef: lambda node: (node.name,),
    ast.ClassDef: lambda node: (node.name,),
    ast.arg: lambda node: (node.arg,),
    ast.keyword: lambda node: (node.arg,),
    ast.Global: lambda node: node.names,
    ast.Nonlocal: lambda node: node.names,
    ast.ExceptHandler: lambda node: (node.name,),
    ast.MatchAs: lambda node: (node.name,),
    ast.MatchStar: lambda node: (node.name,),
    ast.MatchMapping: lambda node: (node.rest,),
    ast.MatchClass: lambda node: node.kwd_attrs,
}


def _names_in_strings(strings: Iterable[str]) -> Counter:
    """Names used by the strings that read as Python expressions (string annotations,
    `typing.cast("nd.NDArray", x)`, text for `eval`); prose does not parse and names nothing."""
    counts: Counter = Counter()
    for text in strings:
        try:
            tree = ast.parse(text.strip(), mode="eval")
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                counts[node.id] += 1
    return counts


class _Lines:
    """The physical lines of a text (ended by \\n, \\r\\n or \\r, as Python counts them)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0] + [m.end() for m in _NEWLINE.finditer(text)]

    def span(self, first: int, last: int) -> Tuple[int, int]:
        """Offsets of lines first..last (1-based, inclusive, with their line ends)."""
        end = self.starts[last] if last < len(self.starts) else len(self.text)
        return self.starts[first - 1], end

    def get(self, first: int, last: int) -> str:
        begin, end = self.span(first, last)
        return self.text[begin:end]


def _kept_names(tree: ast.Module, lines: _Lines) -> Optional[Set[str]]:
    """Module-level imported names that must stay whether used or not (see the module docs);
    None when every name must stay."""
    kept: Set[str] = set()
    for statement in tree.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and statement.name in _MODULE_HOOKS:
            return None
        text = lines.get(statement.lineno, statement.end_lineno or statement.lineno)
        if "__all__" in text:
            kept.update(_exported_strings(statement))
        if isinstance(statement, _Import):
            marked = _KEEP_COMMENT.search(text) is not None  # on any line of the statement
            for alias in _aliases(statement):
                if marked or _is_reexport(alias):
                    kept.add(_bound_name(alias))
    return kept


def _exported_strings(statement: ast.stmt) -> Set[str]:
    """The strings in a statement that builds `__all__` (`__all__ = [...]`, `__all__ += [...]`,
    `__all__.extend([...])`): they name the module's public API."""
    return {node.value for node in ast.walk(statement)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)}


def _unused_imports(tree: ast.Module, uses: _Uses) -> Set[str]:
    """Names bound by module-level imports that nothing in the module's code reads or writes."""
    names = {_bound_name(a) for s in tree.body if isinstance(s, _Import) for a in _aliases(s)}
    return {name for name in names if uses.counts[name] == 0}


def _parse(text: str) -> Optional[ast.Module]:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError):
        return None


def prune_unused_imports(before: str, after: str, filename: str = "", before_tree: Optional[ast.Module] = None,
                         after_tree: Optional[ast.Module] = None) -> str:
    """`after` without the module-level imports that `before` used and `after` provably no
    longer does; `filename` tells a package's `__init__.py`, whose imports are all kept. The
    texts' trees, where the caller has them, are only read."""
    if os.path.basename(filename) == "__init__.py":
        return after
    if after.startswith(_BOM):  # Python's parser reads the text without it
        return _BOM + prune_unused_imports(before[before.startswith(_BOM):], after[1:], filename)
    new = after_tree or _parse(after)
    if new is None:
        return after
    uses = _Uses(new)
    candidates = _unused_imports(new, uses)
    if not candidates or uses.dynamic:
        return after
    lines = _Lines(after)
    kept = _kept_names(new, lines)
    if kept is None:
        return after
    candidates -= kept
    candidates -= set(_names_in_strings(uses.strings))
    if not candidates:
        return after
    old = before_tree or _parse(before)
    if old is None:
        return after
    used_before = _Uses(old).counts
    gone = {name for name in candidates if used_before[name] > 0}
    if not gone:
        return after
    return _drop(after, new, lines, gone)


def _drop(text: str, tree: ast.Module, lines: _Lines, gone: Set[str]) -> str:
    """`text` without the module-level imports of the names `gone`: each group of lines that
    holds such an import (with any statement sharing its lines) is rewritten alone by libcst."""
    replacements: List[Tuple[int, int, str]] = []
    for first, last in _groups(tree.body, gone):
        begin, end = lines.span(first, last)
        rewritten = _drop_in(text[begin:end], gone)
        if rewritten is not None:
            replacements.append((begin, end, rewritten))
    out, cursor = [], 0
    for begin, end, rewritten in replacements:
        out.append(text[cursor:begin])
        out.append(rewritten)
        cursor = end
    out.append(text[cursor:])
    return "".join(out)


def _groups(body: Sequence[ast.stmt], gone: Set[str]) -> List[Tuple[int, int]]:
    """Line ranges (first, last) of the top-level statements, merged where statements share a
    line, that hold an import of a name in `gone`."""
    groups: List[List] = []  # [first, last, holds an import to drop]
    for statement in body:
        first = min([statement.lineno] + [d.lineno for d in getattr(statement, "decorator_list", ())])
        last = statement.end_lineno or statement.lineno
        wanted = isinstance(statement, _Import) and any(_bound_name(a) in gone for a in _aliases(statement))
        if groups and first <= groups[-1][1]:
            groups[-1][1] = max(groups[-1][1], last)
            groups[-1][2] = groups[-1][2] or wanted
        else:
            groups.append([first, last, wanted])
    return [(first, last) for first, last, wanted in groups if wanted]


def _drop_in(segment: str, gone: Set[str]) -> Optional[str]:
    """A group of whole top-level statements without the imports of `gone` (None: unchanged)."""
    try:
        module = cst.parse_module(segment)
    except (cst.ParserSyntaxError, ValueError):  # e.g. text libcst reads only in context
        return None
    pruned = module.visit(_Drop(gone))
    if not pruned.body:  # nothing left: the lines go, with the comment at their end
        return ""
    return pruned.code


def _bound_cst_name(alias: cst.ImportAlias) -> str:
    if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
        return alias.asname.name.value
    node = alias.name
    while isinstance(node, cst.Attribute):
        node = node.value
    return node.value


def _ended_by(statement, kept: List[cst.ImportAlias]):
    """`statement` with the aliases `kept`, of which the last was not last before: it takes the
    place of the names dropped after it, keeping a comment that follows it."""
    last = kept[-1]
    space = last.comma.whitespace_after if isinstance(last.comma, cst.Comma) else None
    if not (isinstance(statement, cst.ImportFrom) and statement.lpar is not None
            and isinstance(space, cst.ParenthesizedWhitespace) and space.first_line.comment is not None):
        kept[-1] = last.with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return statement.with_changes(names=kept)
    ending = statement.names[-1].comma  # what followed the old last name, up to `)`
    rpar = statement.rpar
    if isinstance(ending, cst.Comma) and isinstance(ending.whitespace_after, cst.ParenthesizedWhitespace):
        space = ending.whitespace_after.with_changes(first_line=space.first_line)
    else:
        space = space.with_changes(empty_lines=[], indent=False, last_line=cst.SimpleWhitespace(""))
        rpar = rpar.with_changes(whitespace_before=cst.SimpleWhitespace(""))
    kept[-1] = last.with_changes(comma=last.comma.with_changes(whitespace_after=space))
    return statement.with_changes(names=kept, rpar=rpar)


class _Drop(cst.CSTTransformer):
    def __init__(self, names: Set[str]) -> None:
        self.names = names

    def _keep(self, original, updated):
        if isinstance(updated.names, cst.ImportStar):
            return updated
        kept = [a for a in updated.names if _bound_cst_name(a) not in self.names]
        if len(kept) == len(updated.names):
            return updated
        if not kept:
            return cst.RemoveFromParent()
        if kept[-1] is updated.names[-1]:
            return updated.with_changes(names=kept)
        return _ended_by(updated, kept)

    def leave_Import(self, original, updated):
        return self._keep(original, updated)

    def leave_ImportFrom(self, original, updated):
        return self._keep(original, updated)
