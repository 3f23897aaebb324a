"""Drop imports that the fixes left unused (`from mxnet import nd` once every `nd.op` is `F.op`).

Only a name that was used before fixing and is used nowhere after is dropped: an import the
user had left unused is theirs to keep.
"""
from __future__ import annotations

from collections import Counter
from typing import Set

import libcst as cst


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

    def visit_Import(self, node) -> bool:
        return False

    def visit_ImportFrom(self, node) -> bool:
        return False

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)  # the `.attr` part names no variable
        return False

    def visit_Name(self, node: cst.Name) -> None:
        self.counts[node.value] += 1


def _uses(module: cst.Module) -> Counter:
    visitor = _Uses()
    module.visit(visitor)
    return visitor.counts


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


def prune_unused_imports(before: str, after: str) -> str:
    """`after` without the module-level imports that `before` used and `after` no longer does."""
    try:
        old, new = cst.parse_module(before), cst.parse_module(after)
    except cst.ParserSyntaxError:
        return after
    used_before, used_after = _uses(old), _uses(new)
    gone = {name for name in _imported_names(new)
            if used_before[name] > 0 and used_after[name] == 0}
    if not gone:
        return after
    return new.visit(_Drop(gone)).code
