"""Editing `# noqa` comments: adding the codes a line's diagnostics need (`--add-noqa`, to adopt
hyblint on code that is not clean yet), and the unused-noqa rule's removal of codes that silence
nothing. Other tools' codes in a comment are kept as they are."""
from __future__ import annotations

import io
import tokenize
from typing import Dict, Iterable, List, Optional, Set, Tuple

from hyblint.diagnostics import Diagnostic, physical_lines
from hyblint.triage import NOQA


def comment_codes(line: str) -> Optional[List[str]]:
    """The codes a line's `# noqa: ...` names, in order; [] for a bare `# noqa`; None without one."""
    match = NOQA.search(line)
    if match is None:
        return None
    codes = match.group("codes")
    return [] if codes is None else [c.strip().upper() for c in codes.split(",")]


def with_codes(line: str, codes: List[str]) -> str:
    """`line` (without its line ending) with its noqa comment naming `codes` (added when it has none;
    removed with the two spaces before it when `codes` is empty)."""
    match = NOQA.search(line)
    if match is None:
        return line.rstrip() + "  # noqa: " + ", ".join(codes) if codes else line
    if not codes:
        head, rest = line[:match.start()].rstrip(), line[match.end():].strip()
        if not rest:
            return head
        return head + ("  " if head else "") + (rest if rest.startswith("#") else "# " + rest)
    return line[:match.start()] + "# noqa: " + ", ".join(codes) + line[match.end():]


def _rows_without_room(text: str) -> Set[int]:
    """Rows a comment cannot end: inside a string that spans lines, or continued with a backslash."""
    rows: Set[int] = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.STRING and token.end[0] > token.start[0]:
                rows.update(range(token.start[0], token.end[0]))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        pass
    for row, line in enumerate(physical_lines(text), 1):
        if line.rstrip().endswith("\\"):
            rows.add(row)
    return rows


def add_noqa(text: str, diagnostics: Iterable[Diagnostic]) -> Tuple[str, int, List[int]]:
    """`text` with each diagnostic's code in a noqa comment on its first row. Returns the new text,
    the number of comments added or extended, and the rows where no comment could go."""
    wanted: Dict[int, List[str]] = {}
    for d in diagnostics:
        if not d.code.startswith("HYB9"):  # a file that cannot be checked is not silenced by a comment
            codes = wanted.setdefault(d.location.row, [])
            if d.code not in codes:
                codes.append(d.code)
    if not wanted:
        return text, 0, []
    lines = physical_lines(text, keepends=True)
    blocked = _rows_without_room(text)
    edited, skipped = 0, []
    for row, codes in sorted(wanted.items()):
        if row > len(lines):
            continue
        if row in blocked:
            skipped.append(row)
            continue
        raw = lines[row - 1]
        body = raw.rstrip("\r\n")
        present = comment_codes(body)
        if present == []:
            continue  # a bare noqa silences every code already
        merged = list(present or []) + [c for c in sorted(codes) if c not in (present or [])]
        if merged == present:
            continue
        lines[row - 1] = with_codes(body, merged) + raw[len(body):]
        edited += 1
    return "".join(lines), edited, skipped
