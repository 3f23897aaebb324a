"""Which rules a run selects, decided from their codes alone, so that the processes that only
screen files never import a rule module (nor, through it, libcst)."""
from __future__ import annotations

import os
import re
from typing import Dict, Iterable, Tuple

from hyblint.settings import Settings

_RULE_MODULE = re.compile(r"^(hyb\d{3})_\w+\.py$")


def _rule_modules() -> Tuple[Tuple[str, str], ...]:
    """(code, module name) of each rule module in hyblint/rules, in code order: a listing of one
    directory, so that knowing the codes costs no import."""
    directory = os.path.join(os.path.dirname(os.path.abspath(__file__)), "rules")
    found = sorted((match.group(1).upper(), name[:-3]) for name in os.listdir(directory)
                   for match in [_RULE_MODULE.match(name)] if match)
    return tuple(found)


RULE_MODULES = _rule_modules()
# Every rule's code, in order, and those a run leaves out unless asked; the rule classes carry the
# latter fact (`default_selected`) too, and a test keeps the two equal.
RULE_CODES: Tuple[str, ...] = tuple(code for code, _ in RULE_MODULES)
OFF_BY_DEFAULT = frozenset({"HYB012", "HYB018"})


def _specificity(code: str, patterns: Iterable[str]) -> int:
    """The length of the longest pattern matching `code` (0 for ALL, -1 for none): like ruff,
    the more specific pattern wins."""
    best = -1
    for pattern in patterns:
        pattern = pattern.strip().upper()
        if pattern == "ALL":
            best = max(best, 0)
        elif pattern and code.startswith(pattern):
            best = max(best, len(pattern))
    return best


_SELECTED: Dict[tuple, Tuple[str, ...]] = {}


def selected_codes(settings: Settings) -> Tuple[str, ...]:
    """Codes enabled by select / extend-select / ignore, matched by code prefix (asked for every
    file of a run: remembered per selection)."""
    key = (settings.select, settings.extend_select, settings.ignore)
    try:
        found = _SELECTED.get(key)
    except TypeError:  # lists, from a caller building settings by hand
        return _selected_codes(settings)
    if found is None:
        found = _SELECTED[key] = _selected_codes(settings)
    return found


def _selected_codes(settings: Settings) -> Tuple[str, ...]:
    chosen = []
    for code in RULE_CODES:
        if settings.select is None:
            level = _specificity(code, settings.extend_select)
            on = code not in OFF_BY_DEFAULT or level >= 0
        else:
            level = max(_specificity(code, settings.select), _specificity(code, settings.extend_select))
            on = level >= 0
        ignored = _specificity(code, settings.ignore)
        if on and (ignored < 0 or ignored < level):
            chosen.append(code)
    return tuple(chosen)
