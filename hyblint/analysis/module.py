"""Module-level facts: which names are MXNet's modules, and which classes run hybrid_forward."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, FrozenSet, List, Optional, Set

import libcst as cst

ND_MODULES = {"mxnet.ndarray", "mxnet.nd"}
SYM_MODULES = {"mxnet.symbol", "mxnet.sym"}
# Base classes that never run hybrid_forward, so a class deriving only from these is out of scope.
PLAIN_BASES = {"Block", "object", "Sequential", "Concurrent"}
RELATIVE_MODULES = {"ndarray": "mxnet.ndarray", "nd": "mxnet.ndarray", "symbol": "mxnet.symbol",
                    "sym": "mxnet.symbol", "autograd": "mxnet.autograd"}
NUMPY_DECORATORS = {"use_np", "use_np_array", "use_np_shape"}


def dotted(expr: cst.BaseExpression) -> Optional[str]:
    """`a.b.c` for a chain of names and attributes, else None."""
    parts: List[str] = []
    while isinstance(expr, cst.Attribute):
        parts.append(expr.attr.value)
        expr = expr.value
    if not isinstance(expr, cst.Name):
        return None
    parts.append(expr.value)
    return ".".join(reversed(parts))


@dataclass
class ModuleFacts:
    """What the imports of one module bind: local name -> dotted module or object path."""

    aliases: Dict[str, str] = field(default_factory=dict)

    def resolve(self, expr: cst.BaseExpression, shadowed: FrozenSet[str] = frozenset()) -> Optional[str]:
        """The fully qualified dotted path of `expr`, through import aliases, or None."""
        name = dotted(expr)
        if name is None:
            return None
        head, _, rest = name.partition(".")
        if head in shadowed or head not in self.aliases:
            return None
        full = self.aliases[head]
        return full + "." + rest if rest else full

    def is_nd_module(self, expr, shadowed=frozenset()) -> bool:
        return self.resolve(expr, shadowed) in ND_MODULES

    def is_sym_module(self, expr, shadowed=frozenset()) -> bool:
        return self.resolve(expr, shadowed) in SYM_MODULES


def collect_imports(module: cst.Module) -> ModuleFacts:
    facts = ModuleFacts()
    for statement in module.body:
        for node in _import_nodes(statement):
            if isinstance(node, cst.Import):
                for alias in node.names:
                    full = dotted(alias.name)
                    if full is None:
                        continue
                    if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                        facts.aliases[alias.asname.name.value] = full
                    else:
                        head = full.split(".")[0]
                        facts.aliases[head] = head
            elif isinstance(node, cst.ImportFrom) and node.relative and not isinstance(node.names, cst.ImportStar):
                # inside MXNet itself: `from ... import ndarray, symbol`
                for alias in node.names:
                    name = dotted(alias.name)
                    if name in RELATIVE_MODULES:
                        local = alias.asname.name.value if alias.asname is not None else name
                        facts.aliases[local] = RELATIVE_MODULES[name]
            elif isinstance(node, cst.ImportFrom) and node.module is not None and not node.relative:
                base = dotted(node.module)
                if base is None or isinstance(node.names, cst.ImportStar):
                    continue
                for alias in node.names:
                    name = dotted(alias.name)
                    if name is None:
                        continue
                    local = alias.asname.name.value if alias.asname is not None else name
                    facts.aliases[local] = base + "." + name
    return facts


def _import_nodes(statement):
    """Imports at module level, also those inside `try:` blocks (optional imports)."""
    if isinstance(statement, cst.SimpleStatementLine):
        yield from (s for s in statement.body if isinstance(s, (cst.Import, cst.ImportFrom)))
    elif isinstance(statement, cst.Try):
        for inner in statement.body.body:
            yield from _import_nodes(inner)


def base_names(classdef: cst.ClassDef) -> List[str]:
    """The last component of each base: `nn.HybridBlock` -> `HybridBlock`."""
    names = []
    for arg in classdef.bases:
        name = dotted(arg.value)
        if name is not None:
            names.append(name.rsplit(".", 1)[-1])
    return names


def uses_numpy_semantics(classdef: cst.ClassDef) -> bool:
    for decorator in classdef.decorators:
        target = decorator.decorator
        if isinstance(target, cst.Call):
            target = target.func
        name = dotted(target)
        if name is not None and name.rsplit(".", 1)[-1] in NUMPY_DECORATORS:
            return True
    return False


def in_scope_classes(module: cst.Module, hybrid_bases: FrozenSet[str],
                     extra_hybrid: FrozenSet[str]) -> Set[str]:
    """Names of the module's classes whose hybrid_forward is traced by hybridize().

    A class is in scope when it derives from a known hybrid class, or when none of its bases is
    known at all (a base from an unlisted package: a hybrid_forward there is still Gluon's).
    A class deriving only from plain `Block`-like bases, or using numpy semantics, is not.
    """
    classes = {c.name.value: c for c in _all_classes(module)}
    hybrid: Set[str] = set(hybrid_bases) | set(extra_hybrid)
    numpy_style = {name for name, c in classes.items() if uses_numpy_semantics(c)}
    changed = True
    while changed:  # the module's own hierarchy, in any order of definition
        changed = False
        for name, c in classes.items():
            if name not in hybrid and any(b in hybrid for b in base_names(c)):
                hybrid.add(name)
                changed = True
            if name not in numpy_style and any(b in numpy_style for b in base_names(c)):
                numpy_style.add(name)
                changed = True
    scope = set()
    for name, c in classes.items():
        if name in numpy_style:
            continue
        bases = base_names(c)
        known_plain = bases and all(b in PLAIN_BASES for b in bases)
        if name in hybrid or not known_plain:
            scope.add(name)
    return scope


def _all_classes(node: cst.CSTNode):
    for child in node.children:
        if isinstance(child, cst.ClassDef):
            yield child
        if isinstance(child, (cst.ClassDef, cst.IndentedBlock, cst.If, cst.Try, cst.Else,
                              cst.FunctionDef, cst.SimpleStatementSuite)):
            yield from _all_classes(child)
