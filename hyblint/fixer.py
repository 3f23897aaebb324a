"""Apply fixes to a source text: repeatedly, without overlaps, and never into code that won't parse."""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import FrozenSet, List, Sequence, Tuple

from hyblint.diagnostics import Applicability, Diagnostic, Edit, Location
from hyblint.engine import check_source
from hyblint.settings import Settings

MAX_ROUNDS = 10
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass
class FixResult:
    source: str
    applied: List[Diagnostic] = field(default_factory=list)
    remaining: List[Diagnostic] = field(default_factory=list)
    dropped: List[Tuple[Diagnostic, str]] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.applied)


def line_starts(source: str) -> List[int]:
    """Offsets where each 1-based row begins (libcst's notion of lines)."""
    return [0] + [m.end() for m in _LINE_BREAK.finditer(source)]


def offset(starts: Sequence[int], source: str, location: Location) -> int:
    if location.row - 1 >= len(starts):
        return len(source)
    return min(starts[location.row - 1] + location.column - 1, len(source))


def apply_edits(source: str, edits: Sequence[Edit]) -> str:
    starts = line_starts(source)
    spans = sorted(((offset(starts, source, e.location), offset(starts, source, e.end_location), e.content)
                    for e in edits), reverse=True)
    for begin, end, content in spans:
        source = source[:begin] + content + source[end:]
    return source


def parses(source: str) -> bool:
    try:
        ast.parse(source)
    except (SyntaxError, ValueError):
        return False
    return True


def fixable(diagnostic: Diagnostic, unsafe: bool) -> bool:
    fix = diagnostic.fix
    return fix is not None and (fix.applicability is Applicability.SAFE or unsafe)


def fix_source(source: str, filename: str, settings: Settings = Settings(), *, unsafe: bool = False,
               extra_hybrid_classes: FrozenSet[str] = frozenset()) -> FixResult:
    result = FixResult(source)
    if not parses(source):
        result.remaining = check_source(source, filename, settings, extra_hybrid_classes=extra_hybrid_classes)
        return result
    refused = set()  # (code, message, text of the edits) of fixes that would not parse
    for _ in range(MAX_ROUNDS):
        diagnostics = check_source(result.source, filename, settings, extra_hybrid_classes=extra_hybrid_classes)
        candidates = [d for d in diagnostics if fixable(d, unsafe) and _identity(d) not in refused]
        if not candidates:
            result.remaining = diagnostics
            return result
        applied_now = _apply_round(result, candidates, refused)
        if not applied_now:
            result.remaining = diagnostics
            return result
    result.remaining = check_source(result.source, filename, settings, extra_hybrid_classes=extra_hybrid_classes)
    return result


def _apply_round(result: FixResult, candidates: List[Diagnostic], refused) -> int:
    """Apply every candidate whose edits overlap no earlier one; check that the result parses."""
    starts = line_starts(result.source)
    taken: List[Tuple[int, int]] = []
    chosen = []
    for diagnostic in candidates:
        spans = [(offset(starts, result.source, e.location), offset(starts, result.source, e.end_location))
                 for e in diagnostic.fix.edits]
        if any(b < te and tb < e or (b == e == tb == te) for b, e in spans for tb, te in taken):
            continue
        taken.extend(spans)
        chosen.append(diagnostic)
    new = apply_edits(result.source, [e for d in chosen for e in d.fix.edits])
    if parses(new):
        result.source = new
        result.applied.extend(chosen)
        return len(chosen)
    # Some fix broke the module: try them one at a time and drop the culprits.
    count = 0
    for diagnostic in chosen:
        attempt = apply_edits(result.source, diagnostic.fix.edits)
        if parses(attempt):
            result.source = attempt
            result.applied.append(diagnostic)
            count += 1
            break  # positions of the others are stale now: re-lint
        refused.add(_identity(diagnostic))
        result.dropped.append((diagnostic, "the fixed code would not parse"))
    return count


def _identity(diagnostic: Diagnostic):
    return (diagnostic.code, diagnostic.message, tuple(e.content for e in diagnostic.fix.edits))
