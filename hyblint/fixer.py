"""Apply the fixes that rules attach to their diagnostics, until nothing more applies.

Fixes are text edits, so everything outside the rewritten expressions stays byte-identical.
One round lints, picks fixes whose edits do not overlap, applies them, and checks that the
result still parses; a fix that breaks parsing is dropped (and reported), never written. Fixes
nested in one another or several in one statement are picked up by the next round, which lints
the new text again; the number of rounds is bounded.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Callable, FrozenSet, Iterable, List, Optional, Sequence, Tuple

from hyblint.diagnostics import Applicability, Diagnostic, Edit
from hyblint.engine import check_source
from hyblint.guard import guarded
from hyblint.settings import Settings

MAX_ROUNDS = 10

_NEWLINE = re.compile(r"\r\n|\r|\n")


@dataclass
class FixResult:
    source: str                                   # the fixed text (the input if nothing applied)
    applied: List[Diagnostic] = field(default_factory=list)
    remaining: List[Diagnostic] = field(default_factory=list)
    dropped: List[Tuple[Diagnostic, str]] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.applied)


def line_starts(source: str) -> List[int]:
    """Offset of the first character of each line (lines end at \\n, \\r\\n or \\r)."""
    return [0] + [m.end() for m in _NEWLINE.finditer(source)]


def _offset(starts: Sequence[int], source: str, row: int, column: int) -> int:
    if not 1 <= row <= len(starts) + 1:
        raise ValueError(f"row {row} outside the text ({len(starts)} lines)")
    if row == len(starts) + 1:  # the position just past a final newline
        if column != 1:
            raise ValueError(f"column {column} past the end of the text")
        return len(source)
    offset = starts[row - 1] + column - 1
    line_end = starts[row] if row < len(starts) else len(source)
    if column < 1 or offset > line_end:
        raise ValueError(f"column {column} outside line {row}")
    return offset


def edit_span(source: str, edit: Edit, starts: Optional[Sequence[int]] = None) -> Tuple[int, int]:
    starts = starts if starts is not None else line_starts(source)
    begin = _offset(starts, source, edit.location.row, edit.location.column)
    end = _offset(starts, source, edit.end_location.row, edit.end_location.column)
    if end < begin:
        raise ValueError("edit ends before it begins")
    return begin, end


def apply_edits(source: str, edits: Iterable[Edit]) -> str:
    """Apply non-overlapping edits (1-based rows and columns, end exclusive) to `source`."""
    starts = line_starts(source)
    spans = sorted(((*edit_span(source, e, starts), e.content) for e in edits),
                   key=lambda s: (s[0], s[1]))
    for index, (begin, end, _) in enumerate(spans):
        if _overlaps((begin, end), [(b, e) for b, e, _ in spans[:index]]):
            raise ValueError("overlapping edits")
    out, cursor = [], 0
    for begin, end, content in spans:
        out.append(source[cursor:begin])
        out.append(content)
        cursor = end
    out.append(source[cursor:])
    return "".join(out)


def parses(source: str) -> bool:
    try:
        ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    try:
        import libcst as cst
        cst.parse_module(source)
    except Exception:  # libcst raises its own ParserSyntaxError, or others on odd input
        return False
    return True


def _fix_key(diagnostic: Diagnostic):
    fix = diagnostic.fix
    return (diagnostic.code, fix.message, tuple((e.content, e.location, e.end_location)
                                                for e in fix.edits))


def fixable(diagnostic: Diagnostic, unsafe: bool) -> bool:
    """Whether `--fix` (with `--unsafe-fixes` when `unsafe`) would apply this diagnostic's fix."""
    fix = diagnostic.fix
    if fix is None or not fix.edits:
        return False
    return unsafe or fix.applicability == Applicability.SAFE


def _spans(source, starts, diagnostic) -> Optional[List[Tuple[int, int]]]:
    try:
        return [edit_span(source, e, starts) for e in diagnostic.fix.edits]
    except ValueError:
        return None


def _overlaps(span, taken) -> bool:
    """Spans clash when they share text, or one inserts at a point inside the other."""
    b1, e1 = span
    for b2, e2 in taken:
        if b1 < e2 and b2 < e1:
            return True
        if (b1 == e1 and b2 < b1 < e2) or (b2 == e2 and b1 < b2 < e1):
            return True
        if b1 == e1 == b2 == e2:
            return True
    return False


def _pick(source: str, diagnostics: Sequence[Diagnostic], unsafe: bool, banned: set,
          dropped: List[Tuple[Diagnostic, str]]) -> List[Diagnostic]:
    """Fixes to apply this round: wanted, not banned, edits that overlap no earlier pick.
    Smaller fixes go first, so nested rewrites are done inside out."""
    starts = line_starts(source)
    candidates = []
    for diagnostic in diagnostics:
        if not fixable(diagnostic, unsafe) or _fix_key(diagnostic) in banned:
            continue
        spans = _spans(source, starts, diagnostic)
        if spans is None:
            banned.add(_fix_key(diagnostic))
            dropped.append((diagnostic, "its edits fall outside the text"))
            continue
        size = sum(e - b for b, e in spans)
        candidates.append((size, min(b for b, _ in spans), diagnostic, spans))
    candidates.sort(key=lambda c: (c[0], c[1]))
    taken: List[Tuple[int, int]] = []
    picked = []
    for _, _, diagnostic, spans in candidates:
        if any(_overlaps(span, taken) for span in spans):
            continue
        mine: List[Tuple[int, int]] = []
        if any(_overlaps(span, mine) for span in spans):
            continue
        for span in spans:
            mine.append(span)
        taken.extend(mine)
        picked.append(diagnostic)
    return picked


def _apply(source: str, picked: List[Diagnostic], banned: set,
           dropped: List[Tuple[Diagnostic, str]]) -> Tuple[str, List[Diagnostic]]:
    """Apply the picked fixes; if the result does not parse, find the fixes that break it."""
    edits = [e for d in picked for e in d.fix.edits]
    new = apply_edits(source, edits)
    if parses(new):
        return new, picked
    good: List[Diagnostic] = []
    for diagnostic in picked:
        trial = apply_edits(source, [e for d in good + [diagnostic] for e in d.fix.edits])
        if parses(trial):
            good.append(diagnostic)
        else:
            banned.add(_fix_key(diagnostic))
            dropped.append((diagnostic, "the fixed code would not parse"))
    if not good:
        return source, []
    return apply_edits(source, [e for d in good for e in d.fix.edits]), good


Checker = Callable[[str, str], List[Diagnostic]]


def _default_checker(settings: Settings, extra_hybrid_classes: FrozenSet[str], package=None) -> Checker:
    def check(source: str, filename: str) -> List[Diagnostic]:
        return list(check_source(source, filename, settings,
                                 extra_hybrid_classes=extra_hybrid_classes, package=package))
    return check


def fix_source(source: str, filename: str, settings: Settings = Settings(), *,
               unsafe: bool = False, extra_hybrid_classes: FrozenSet[str] = frozenset(),
               checker: Optional[Checker] = None, package=None) -> FixResult:
    """Fix `source` until stable. The returned text always parses when the input did; a file
    that does not parse is returned unchanged with its syntax error among `remaining`. `package`
    is the index of the run's files, so that the checks between fixes see what the first one saw."""
    check = checker or _default_checker(settings, extra_hybrid_classes, package)
    result = FixResult(source=source)
    diagnostics = check(source, filename)
    if not parses(source):
        result.remaining = diagnostics
        return result
    banned: set = set()
    current = source
    for _ in range(MAX_ROUNDS):
        picked = _pick(current, diagnostics, unsafe, banned, result.dropped)
        if not picked:
            break
        new, applied = _apply(current, picked, banned, result.dropped)
        if new == current:
            break
        current = new
        result.applied.extend(applied)
        diagnostics = check(current, filename)
    if any(d.code == "HYB009" for d in result.applied):
        from hyblint.fixes.imports import prune_unused_imports
        # deep code is pruned on a larger stack, or not at all (the file's own failure, not the run's)
        pruned = guarded(prune_unused_imports, filename, lambda _: current, source, current, filename)
        if pruned != current and parses(pruned):
            current = pruned
            diagnostics = check(current, filename)
    result.source = current
    result.remaining = diagnostics
    return result
