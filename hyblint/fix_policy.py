"""`fixable` / `unfixable`: which rules' fixes a run may apply (and mark with [*]), matched by code
prefix as `select` / `ignore` are, the more specific pattern winning."""
from __future__ import annotations

from dataclasses import replace
from typing import List

from hyblint.diagnostics import Diagnostic
from hyblint.selection import _specificity
from hyblint.settings import Settings


def fix_allowed(code: str, settings: Settings) -> bool:
    allowed = 0 if settings.fixable is None else _specificity(code, settings.fixable)
    refused = _specificity(code, settings.unfixable)
    return allowed >= 0 and (refused < 0 or refused < allowed)


def without_refused_fixes(diagnostics: List[Diagnostic], settings: Settings) -> List[Diagnostic]:
    """The diagnostics, those of rules whose fixes are not allowed stripped of their fix."""
    if settings.fixable is None and not settings.unfixable:
        return diagnostics
    return [d if d.fix is None or fix_allowed(d.code, settings) else replace(d, fix=None) for d in diagnostics]
