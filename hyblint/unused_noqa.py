"""HYB018's check: `# noqa` codes of hyblint's rules that silence nothing on their line.

A code is used when its rule reports on that line with the comment taken away: the file is
checked again, with the comments' `noqa` blanked out (same length, so every position holds) and
only the rules the comments name selected. That second check runs only for files whose comments
name a hyblint rule, and only while HYB018 is selected (it is off by default). Bare `# noqa`
comments and other tools' codes are not judged: hyblint cannot know what they silence."""
from __future__ import annotations

from dataclasses import replace
from typing import Dict, FrozenSet, List, Tuple

from hyblint.diagnostics import INPUT_ERROR_CODES, Applicability, Diagnostic, Edit, Fix, Location, physical_lines
from hyblint.selection import RULE_CODES, selected_codes
from hyblint.settings import Settings
from hyblint.triage import NOQA

CODE = "HYB018"


def _ours(code: str) -> bool:
    """A code of hyblint's to judge: input errors are never silenced by a comment."""
    return code.startswith("HYB") and code not in INPUT_ERROR_CODES


def _judged(settings: Settings) -> bool:
    return CODE in selected_codes(settings)


def _comments(text: str) -> Dict[int, Tuple[int, int, List[str]]]:
    """row -> (start, end, codes) of each noqa comment naming codes of hyblint's rules."""
    found = {}
    for row, line in enumerate(physical_lines(text), 1):
        match = NOQA.search(line)
        if match is None or match.group("codes") is None:
            continue
        codes = [c.strip().upper() for c in match.group("codes").split(",")]
        if any(_ours(c) for c in codes):
            found[row] = (match.start(), match.end(), codes)
    return found


def _blanked(text: str, rows) -> str:
    lines = physical_lines(text, keepends=True)
    for row in rows:
        line = lines[row - 1]
        match = NOQA.search(line)
        lines[row - 1] = line[:match.start()] + "#" + " " * (match.end() - match.start() - 1) + line[match.end():]
    return "".join(lines)


def with_unused_noqa(diagnostics: List[Diagnostic], text: str, filename: str, settings: Settings,
                     extra_hybrid_classes: FrozenSet[str] = frozenset(), package=None) -> List[Diagnostic]:
    """`diagnostics`, with a HYB018 diagnostic for each noqa comment naming codes that silence nothing."""
    if not _judged(settings) or ("noqa" not in text and NOQA.search(text) is None):
        return diagnostics
    comments = _comments(text)
    if not comments:
        return diagnostics
    from hyblint.engine import check_source
    named = sorted({c for _, _, codes in comments.values() for c in codes if c in RULE_CODES and c != CODE})
    used = set()
    if named:
        again = check_source(_blanked(text, comments), filename, replace(settings, select=tuple(named),
                             extend_select=(), ignore=()), extra_hybrid_classes=extra_hybrid_classes,
                             package=package)
        used = {(d.location.row, d.code) for d in again}
    lines = physical_lines(text)
    found = list(diagnostics)
    for row, (start, end, codes) in sorted(comments.items()):
        if CODE in codes:
            continue  # the comment silences this rule itself
        unused = [c for c in codes if _ours(c) and (row, c) not in used]
        if not unused:
            continue
        from hyblint.noqa_edit import with_codes
        kept = [c for c in codes if c not in unused]
        line = lines[row - 1]
        new_line = with_codes(line, kept)
        unknown = [c for c in unused if c not in RULE_CODES]
        message = "unused `noqa` code%s: %s%s" % ("" if len(unused) == 1 else "s", ", ".join(unused),
                                                  " (unknown: %s)" % ", ".join(unknown) if unknown else "")
        fix = Fix(Applicability.SAFE, "remove %s from the comment" % ", ".join(unused),
                  (Edit(new_line, Location(row, 1), Location(row, len(line) + 1)),))
        from hyblint.rules import ALL_RULES
        rule = ALL_RULES[CODE]
        found.append(Diagnostic(CODE, message, filename, Location(row, start + 1), Location(row, end + 1),
                                rule.severity, fix, rule.url()))
    found.sort(key=Diagnostic.sort_key)
    return found
