"""Resolved settings for one linted file set (`[tool.hyblint]`, then command-line flags)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import FrozenSet, Tuple

# The Gluon classes whose subclasses run hybrid_forward (MXNet 1.x names).
DEFAULT_HYBRID_BASES: FrozenSet[str] = frozenset(
    {"HybridBlock", "HybridSequential", "HybridConcurrent", "SymbolBlock", "HybridRecurrentCell",
     "RecurrentCell", "HybridSequentialRNNCell", "ModifierCell", "BidirectionalCell",
     "_BaseRNNCell"}
)


@dataclass(frozen=True)
class Settings:
    select: Tuple[str, ...] | None = None          # None: every rule selected by default
    ignore: Tuple[str, ...] = ()
    extend_select: Tuple[str, ...] = ()
    per_file_ignores: Tuple[Tuple[str, Tuple[str, ...]], ...] = ()  # (glob, codes)
    exclude: Tuple[str, ...] = ()
    extend_exclude: Tuple[str, ...] = ()
    hybrid_bases: FrozenSet[str] = field(default=DEFAULT_HYBRID_BASES)
    respect_gitignore: bool = True  # skip what .gitignore, .ignore and .git/info/exclude ignore
    fixable: Tuple[str, ...] | None = None         # None: every rule's fix may be applied
    unfixable: Tuple[str, ...] = ()
