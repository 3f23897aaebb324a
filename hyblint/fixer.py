"""Apply the fixes that rules attach to their diagnostics, until nothing more applies.

Fixes are text edits, so everything outside the rewritten expressions stays byte-identical.
One round lints, picks fixes whose edits do not overlap, applies them, and checks that the
result still parses; a fix that breaks parsing is dropped (and reported), never written. Fixes
nested in one another or several in one statement are picked up by the next round, which lints
the new text again; the number of rounds is bounded.

Everything here is linear in the number of fixes: picking and applying sort the edits once, the
re-parse reads the whole text with Python's parser but gives libcst only the methods (or top-level
statements) that changed, and a round that does not parse is split in halves to find the fixes
that break it. A round whose fixes leave imports unused drops them (fixes/imports.py) before the
round's check.
"""
from __future__ import annotations

import ast
import bisect
import re
from dataclasses import dataclass, field
from typing import Callable, FrozenSet, Iterable, List, Optional, Sequence, Tuple

from hyblint.diagnostics import Applicability, Diagnostic, Edit
from hyblint.engine import check_source
from hyblint.guard import guarded
from hyblint.recent import Recent
from hyblint.triage import SYNTAX_ERROR
from hyblint.settings import Settings

MAX_ROUNDS = 10

_NEWLINE = re.compile(r"\r\n|\r|\n")


@dataclass
class FixResult:
    source: str                                   # the fixed text (the input if nothing applied)
    applied: List[Diagnostic] = field(default_factory=list)
    remaining: List[Diagnostic] = field(default_factory=list)
    dropped: List[Tuple[Diagnostic, str]] = field(default_factory=list)
    announced: int = 0    # fixable diagnostics of the input: what a check counts as fixable
    revealed: int = 0     # of `applied`, those that appeared only after other fixes were applied

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
    return _replace(source, _sorted_spans(source, edits))[0]


def _sorted_spans(source: str, edits: Iterable[Edit]) -> List[Tuple[int, int, str]]:
    starts = line_starts(source)
    spans = sorted(((*edit_span(source, e, starts), e.content) for e in edits), key=lambda s: (s[0], s[1]))
    widest = None  # the earlier span reaching furthest: any clash with an earlier span is a clash with it
    for index, (begin, end, _) in enumerate(spans):
        if index and (_overlaps((begin, end), [spans[index - 1][:2]])
                      or (widest is not None and _overlaps((begin, end), [widest]))):
            raise ValueError("overlapping edits")
        if widest is None or end > widest[1]:
            widest = (begin, end)
    return spans


def _replace(source: str, spans: Sequence[Tuple[int, int, str]]) -> Tuple[str, List[Tuple[int, int]]]:
    """The text with the sorted, disjoint spans replaced, and where each replacement lies in it."""
    out, cursor, shift, placed = [], 0, 0, []
    for begin, end, content in spans:
        out.append(source[cursor:begin])
        out.append(content)
        cursor = end
        placed.append((begin + shift, begin + shift + len(content)))
        shift += len(content) - (end - begin)
    out.append(source[cursor:])
    return "".join(out), placed


def parses(source: str) -> bool:
    """Whether Python's parser and libcst both read the whole text."""
    return _python_tree(source) is not None and _libcst_reads(source)


# The texts of the file being fixed parsed last, and their trees: a fix reads a text's tree several
# times (to check that it parses, then to prune its imports); the trees are only read. A tree takes
# over a hundred times its text's size: those of large files are not kept.
_TREES: "Recent[str, Optional[ast.Module]]" = Recent(3)
_TREE_KEPT_CHARACTERS = 200_000


def _python_tree(source: str) -> Optional[ast.Module]:
    if source in _TREES:
        return _TREES[source]
    try:
        tree: Optional[ast.Module] = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        tree = None
    if len(source) <= _TREE_KEPT_CHARACTERS:
        _TREES.keep(source, tree)
    return tree


def _libcst_reads(text: str) -> bool:
    try:
        import libcst as cst
        cst.parse_module(text)
    except Exception:  # libcst raises its own ParserSyntaxError, or others on odd input
        return False
    return True


def parses_where_changed(source: str, changed: Sequence[Tuple[int, int]]) -> bool:
    """Whether `source` parses, read by Python's parser whole, and by libcst (which the next check
    and the next run use) where it holds the `changed` offsets: the methods that hold them, or
    else the top-level statements; the rest is text that was there before. Parsing a large module
    with libcst costs several checks of it."""
    tree = _python_tree(source)
    if tree is None:
        return False
    if not changed:
        return True
    starts = line_starts(source)
    pieces = set()  # (first line, last line, indented: a method of a top-level class)
    for statement, row, last in _statements_at(tree.body, starts, changed):
        method = None
        if isinstance(statement, ast.ClassDef):
            methods = [(_first_line(s), s.end_lineno or s.lineno) for s in statement.body
                       if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))]
            method = next(((first, end) for first, end in methods if first <= row and last <= end), None)
        if method is not None:
            pieces.add((*method, True))
        else:
            pieces.add((_first_line(statement), statement.end_lineno or statement.lineno, False))
    return all(_libcst_reads_lines(source, starts, *piece) for piece in sorted(pieces))


def _first_line(statement: ast.stmt) -> int:
    return min([statement.lineno] + [d.lineno for d in getattr(statement, "decorator_list", ())])


def _statements_at(body: Sequence[ast.stmt], starts: Sequence[int], changed: Sequence[Tuple[int, int]]):
    """(top-level statement, first row, last row) of each change within it."""
    statements = [(_first_line(s), s.end_lineno or s.lineno, s) for s in body]
    firsts = [first for first, _, _ in statements]
    for begin, end in changed:
        row = bisect.bisect_right(starts, begin)
        last = bisect.bisect_right(starts, max(begin, end - 1))
        index = max(bisect.bisect_right(firsts, row) - 1, 0)
        while index < len(statements) and statements[index][0] <= last:
            first, final, statement = statements[index]
            if final >= row:
                yield statement, max(row, first), min(last, final)
            index += 1


# Method texts that libcst has read: the methods a fix rewrites alike (each block of a file, each
# file of a tree, each round) are parsed once.
_READ_METHODS: "Recent[str, bool]" = Recent(1024)


def _libcst_reads_lines(source: str, starts: Sequence[int], first: int, last: int, method: bool) -> bool:
    """Whether libcst reads lines first..last: a top-level statement, or a `method` of a
    top-level class (read in a class of its own, as it is indented)."""
    text = source[starts[first - 1]:starts[last] if last < len(starts) else len(source)]
    if not method:
        return _libcst_reads(text)
    text = "class _:\n" + text
    if _READ_METHODS.recall(text):
        return True
    if not _libcst_reads(text):
        return False
    return _READ_METHODS.keep(text, True)


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


def _clashes(span: Tuple[int, int], taken: List[Tuple[int, int]]) -> bool:
    """Whether `span` clashes with a span of `taken`, which is sorted and free of clashes: then
    only the span before it and the few that start inside it can clash with it."""
    index = bisect.bisect_left(taken, span)
    if index and _overlaps(span, taken[index - 1:index]):
        return True
    while index < len(taken) and taken[index][0] <= span[1]:
        if _overlaps(span, taken[index:index + 1]):
            return True
        index += 1
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
        if any(_clashes(span, taken) for span in spans):
            continue
        mine: List[Tuple[int, int]] = []
        if any(_overlaps(span, mine) for span in spans):
            continue
        for span in spans:
            mine.append(span)
        for span in mine:
            bisect.insort(taken, span)
        picked.append(diagnostic)
    return picked


def _edits_of(fixes: Sequence[Diagnostic]) -> List[Edit]:
    return [e for d in fixes for e in d.fix.edits]


def _apply(source: str, picked: List[Diagnostic], banned: set,
           dropped: List[Tuple[Diagnostic, str]]) -> Tuple[str, List[Diagnostic], List[Tuple[int, int, str]]]:
    """Apply the picked fixes; if the result does not parse, find the fixes that break it, by
    halves: a few bad fixes among many cost a few parses each, not one parse per fix. Returns the
    new text, the fixes applied and their edits' spans in the old text."""
    def attempt(fixes: Sequence[Diagnostic]):
        spans = _sorted_spans(source, _edits_of(fixes))
        new, placed = _replace(source, spans)
        return (new, spans) if parses_where_changed(new, placed) else None

    whole = attempt(picked)
    if whole is not None:
        return whole[0], list(picked), whole[1]
    good: List[Diagnostic] = []

    def sift(group: List[Diagnostic]) -> None:
        if attempt(good + group) is not None:
            good.extend(group)
        elif len(group) == 1:
            banned.add(_fix_key(group[0]))
            dropped.append((group[0], "the fixed code would not parse"))
        else:
            middle = len(group) // 2
            sift(group[:middle])
            sift(group[middle:])

    sift(list(picked))
    if not good:
        return source, [], []
    new, spans = attempt(good)
    return new, good, spans


def _shifted(offsets: List[int], spans: Sequence[Tuple[int, int, str]], to_end: bool) -> List[int]:
    """Where offsets of the old text are in the new one; an offset inside a replaced span moves
    to where the replacement starts (or ends, `to_end`)."""
    order = sorted(range(len(offsets)), key=offsets.__getitem__)
    moved = [0] * len(offsets)
    shift, index = 0, 0
    for position in order:
        offset = offsets[position]
        while index < len(spans) and spans[index][1] <= offset and spans[index][0] < offset:
            begin, end, content = spans[index]
            shift += len(content) - (end - begin)
            index += 1
        if index < len(spans) and spans[index][0] < offset:  # inside a replaced span
            begin, end, content = spans[index]
            moved[position] = begin + shift + (len(content) if to_end else 0)
        else:
            moved[position] = offset + shift
    return moved


Checker = Callable[[str, str], List[Diagnostic]]


def _default_checker(settings: Settings, extra_hybrid_classes: FrozenSet[str], package=None) -> Checker:
    from hyblint.fix_policy import without_refused_fixes

    def check(source: str, filename: str) -> List[Diagnostic]:
        return without_refused_fixes(list(check_source(source, filename, settings,
                                                       extra_hybrid_classes=extra_hybrid_classes,
                                                       package=package)), settings)
    return check


def fix_source(source: str, filename: str, settings: Settings = Settings(), *,
               unsafe: bool = False, extra_hybrid_classes: FrozenSet[str] = frozenset(),
               checker: Optional[Checker] = None, package=None,
               diagnostics: Optional[Sequence[Diagnostic]] = None) -> FixResult:
    """Fix `source` until stable. The returned text always parses when the input did; a file
    that does not parse is returned unchanged with its syntax error among `remaining`. `package`
    is the index of the run's files, so that the checks between fixes see what the first one saw.
    `diagnostics`: the input's, when a check already found them."""
    check = checker or _default_checker(settings, extra_hybrid_classes, package)
    result = FixResult(source=source)
    diagnostics = list(diagnostics) if diagnostics is not None else check(source, filename)
    result.announced = sum(1 for d in diagnostics if fixable(d, unsafe))
    if not result.announced or any(d.code == SYNTAX_ERROR for d in diagnostics) \
            or _python_tree(source) is None:
        _TREES.clear()
        result.remaining = diagnostics
        return result
    banned: set = set()
    current = source
    # (code, offset) of the announced fixes not applied yet, where they are in `current`
    announced = [(code, offset, offset) for code, offset in
                 _keys(current, [d for d in diagnostics if fixable(d, unsafe)])]
    for _ in range(MAX_ROUNDS):
        picked = _pick(current, diagnostics, unsafe, banned, result.dropped)
        if not picked:
            break
        new, applied, spans = _apply(current, picked, banned, result.dropped)
        if new == current:
            break
        announced, revealed = _claim(announced, _keys(current, applied))
        result.revealed += revealed
        announced = _moved(announced, spans)
        current = new
        result.applied.extend(applied)
        if any(d.code == "HYB009" for d in applied):
            # the imports the round's calls left unused go before the round's check, which then
            # sees the text as it will be
            pruned = _pruned(source, current, filename)
            if pruned is not None:
                announced = _moved(announced, [pruned[1]])
                current = pruned[0]
        diagnostics = check(current, filename)
    _TREES.clear()
    result.source = current
    result.remaining = diagnostics
    return result


def _pruned(source: str, current: str, filename: str) -> Optional[Tuple[str, Tuple[int, int, str]]]:
    """`current` without the imports that `source` used and it no longer does, and the span of
    `current` replaced, with its replacement (None: nothing to drop)."""
    from hyblint.fixes.imports import prune_unused_imports
    # deep code is pruned on a larger stack, or not at all (the file's own failure, not the run's)
    pruned = guarded(prune_unused_imports, filename, lambda _: current, source, current, filename,
                     _python_tree(source), _python_tree(current))
    if pruned == current:
        return None
    begin, end = _changed_part(current, pruned)
    if not parses_where_changed(pruned, [(begin, end)]):
        return None
    return pruned, (begin, len(current) - (len(pruned) - end), pruned[begin:end])


def _changed_part(old: str, new: str) -> Tuple[int, int]:
    """The part of `new` that differs from `old`: all but their common beginning and end."""
    limit = min(len(old), len(new))
    begin = _common(lambda a, b: old[a:b] == new[a:b], limit)
    end = _common(lambda a, b: old[len(old) - b:len(old) - a] == new[len(new) - b:len(new) - a], limit - begin)
    return begin, len(new) - end


def _common(same, limit: int) -> int:
    """How long a common run is: blocks of 4096 characters at once, then smaller ones."""
    length, step = 0, 4096
    while step:
        while length + step <= limit and same(length, length + step):
            length += step
        step //= 8
    while length < limit and same(length, length + 1):
        length += 1
    return length


def _keys(source: str, fixes: Sequence[Diagnostic]) -> List[Tuple[str, int]]:
    starts = line_starts(source)
    keys = []
    for d in fixes:
        try:
            keys.append((d.code, _offset(starts, source, d.location.row, d.location.column)))
        except ValueError:
            keys.append((d.code, -1))
    return keys


def _moved(entries: List[Tuple[str, int, int]],
           spans: Sequence[Tuple[int, int, str]]) -> List[Tuple[str, int, int]]:
    """Announced diagnostics (code, where it starts at the earliest, at the latest), moved through
    a round's edits: one inside a rewritten span may now start anywhere in its replacement."""
    lows = _shifted([low for _, low, _ in entries], spans, to_end=False)
    highs = _shifted([high for _, _, high in entries], spans, to_end=True)
    return [(code, low, high) for (code, _, _), low, high in zip(entries, lows, highs)]


def _claim(entries: List[Tuple[str, int, int]], keys: List[Tuple[str, int]]):
    """The announced entries that the applied fixes (code, offset) do not account for, and how
    many of those fixes no entry accounts for (fixes that other fixes revealed)."""
    by_code: dict = {}
    for entry in sorted(entries, key=lambda e: (e[1], e[2])):
        by_code.setdefault(entry[0], []).append(entry)
    revealed = 0
    for code, offset in keys:
        candidates = by_code.get(code, [])
        index = bisect.bisect_right(candidates, (code, offset, float("inf"))) - 1
        for back in range(index, max(index - 8, -1), -1):  # the few that start at or before it
            _, low, high = candidates[back]
            if low <= offset <= high:
                del candidates[back]
                break
        else:
            revealed += 1
    return [entry for found in by_code.values() for entry in found], revealed
