"""A cheap scan of class definitions across files, so that base classes in other files count."""
from __future__ import annotations

from typing import FrozenSet, Iterable, List, Tuple

from hyblint.analysis.module import scan_classes


def scan_class_bases(source: str, path: str = "") -> List[Tuple[str, Tuple[str, ...]]]:
    """(class name, last component of each base) for each class statement, without parsing (with
    `path`, through the package index, which keeps the scan)."""
    if path:
        from hyblint.analysis.index import file_info
        lines = file_info(path, source).class_lines
    else:
        lines = scan_classes(source, decorators=False)
    return [(c.name, c.bases) for c in lines if c.bases]


def hybrid_class_names(scans: Iterable[Tuple[str, Tuple[str, ...]]], bases: FrozenSet[str]) -> FrozenSet[str]:
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
    return frozenset(hybrid - set(bases))
