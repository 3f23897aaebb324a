"""Human-readable output, like ruff's `full` and `concise` formats."""
from __future__ import annotations

from collections import Counter
from typing import Dict, List

from hyblint.diagnostics import Diagnostic, physical_lines


def _line(d: Diagnostic) -> str:
    marker = "[*] " if d.fix is not None else ""
    return "%s:%d:%d: %s %s%s" % (d.filename, d.location.row, d.location.column, d.code, marker, d.message)


def _count(number: int, noun: str) -> str:
    return "%d %s%s" % (number, noun, "" if number == 1 else "s")


def found(diagnostics: List[Diagnostic]) -> str:
    """'Found 3 errors.', or with warnings among them, how many of each."""
    warnings = sum(1 for d in diagnostics if d.severity.value == "warning")
    if not warnings:
        return "Found %s." % _count(len(diagnostics), "error")
    if warnings == len(diagnostics):
        return "Found %s." % _count(warnings, "warning")
    return "Found %s: %s, %s." % (_count(len(diagnostics), "diagnostic"), _count(len(diagnostics) - warnings, "error"),
                                  _count(warnings, "warning"))


def summary(diagnostics: List[Diagnostic], fix_hint: str = "--fix") -> str:
    if not diagnostics:
        return "All checks passed!"
    lines = [found(diagnostics)]
    safe = sum(1 for d in diagnostics if d.fix is not None and d.fix.applicability.value == "safe")
    unsafe = sum(1 for d in diagnostics if d.fix is not None and d.fix.applicability.value == "unsafe")
    if safe:
        lines.append("[*] %d fixable with the `%s` option." % (safe, fix_hint))
    if unsafe:
        lines.append("(%d hidden fix%s can be enabled with the `--unsafe-fixes` option.)"
                     % (unsafe, "" if unsafe == 1 else "es"))
    return "\n".join(lines)


def _called_from(d: Diagnostic) -> List[str]:
    return ["  %s %s:%d" % (r.message, r.filename, r.location.row) for r in d.related]


def concise(diagnostics: List[Diagnostic], sources: Dict) -> str:
    body = [line for d in diagnostics for line in [_line(d)] + _called_from(d)]
    return "\n".join(body + [summary(diagnostics)])


def full(diagnostics: List[Diagnostic], sources: Dict) -> str:
    out = []
    split: Dict[str, List[str]] = {}  # each file's lines, split once: not once per diagnostic
    for d in diagnostics:
        out.append(_line(d))
        source = sources.get(d.filename)
        if source is not None and not d.code.startswith("HYB9"):
            lines = split.get(d.filename)
            if lines is None:
                lines = split[d.filename] = physical_lines(source.text)
            if 0 < d.location.row <= len(lines):
                text = lines[d.location.row - 1]
                width = (d.end_location.column if d.end_location.row == d.location.row else len(text) + 1) \
                    - d.location.column
                gutter = "%d" % d.location.row
                out.append("%s | %s" % (gutter, text))
                out.append("%s | %s%s" % (" " * len(gutter), " " * (d.location.column - 1), "^" * max(width, 1)))
            if d.fix is not None:
                out.append("%s = fix%s: %s" % (" " * len("%d" % d.location.row),
                                               " (unsafe)" if d.fix.applicability.value == "unsafe" else "",
                                               d.fix.message))
        out.extend(_called_from(d))
        out.append("")
    out.append(summary(diagnostics))
    return "\n".join(out)


def statistics(diagnostics: List[Diagnostic]) -> str:
    from hyblint.rules import ALL_RULES
    counts = Counter(d.code for d in diagnostics)
    fixable = Counter(d.code for d in diagnostics if d.fix is not None)
    rows = []
    for code, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        rule = ALL_RULES.get(code)
        name = rule.name if rule is not None else "input-error"
        rows.append("%5d\t%s\t%s%s" % (count, code, "[*] " if fixable[code] else "[ ] ", name))
    return "\n".join(rows)
