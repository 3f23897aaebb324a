"""A cheap scan of class definitions across files, so that base classes in other files count."""
from __future__ import annotations

from typing import FrozenSet, Iterable, List, Tuple

from hyblint.analysis.module import PLAIN_BASES, scan_classes


def scan_class_bases(source: str, path: str = "") -> List[Tuple[str, Tuple[str, ...]]]:
    """(class name, last component of each base) for each class statement, without parsing (with
    `path`, through the package index, which keeps the scan)."""
    if path:
        from hyblint.analysis.index import file_info
        lines = file_info(path, source).class_lines
    else:
        lines = scan_classes(source, decorators=False)
    return [(c.name, c.bases) for c in lines if c.bases]


class ClassNames(frozenset):
    """The names of the run's classes that derive from a hybrid base (the set), and in `plain`
    those that derive only from plain `Block`-like bases, through the run's own classes: a
    hybrid_forward there is never traced."""

    plain: FrozenSet[str] = frozenset()


def hybrid_class_names(scans: Iterable[Tuple[str, Tuple[str, ...]]], bases: FrozenSet[str]) -> ClassNames:
    """Every class name that derives, through any chain of scanned classes, from one of `bases`."""
    scans = list(scans)
    hybrid = set(bases)
    changed = True
    while changed:
        changed = False
        for name, parents in scans:
            if name not in hybrid and any(p in hybrid for p in parents):
                hybrid.add(name)
                changed = True
    found = ClassNames(hybrid - set(bases))
    found.plain = _plain_class_names(scans, frozenset(hybrid))
    return found


def _plain_class_names(scans, hybrid: FrozenSet[str]) -> FrozenSet[str]:
    """Names whose every definition derives only from plain bases (a name defined twice, once on
    a hybrid base, is not plain)."""
    definitions: dict = {}
    for name, parents in scans:
        definitions.setdefault(name, []).append(parents)
    plain: set = set()
    changed = True
    while changed:
        changed = False
        for name, all_parents in definitions.items():
            if name in plain or name in hybrid:
                continue
            if all(parents and all(p in PLAIN_BASES or p in plain for p in parents) for parents in all_parents):
                plain.add(name)
                changed = True
    return frozenset(plain)
