"""--color auto|always|never for the text formats, with the NO_COLOR and FORCE_COLOR conventions
(no-color.org, force-color.org): a flag wins over the environment, which wins over the terminal
test."""
from __future__ import annotations

import os
import re
from typing import Mapping, TextIO

_BOLD, _RED, _CYAN, _RESET = "\x1b[1m", "\x1b[31m", "\x1b[36m", "\x1b[0m"
# path:row:col: CODE [*] -- the head of each diagnostic line of the text formats
_HEAD = re.compile(r"^(?P<path>.+?):(?P<row>\d+):(?P<column>\d+): (?P<code>HYB\d{3})(?P<fix> \[\*\])?(?= )")
_CARETS = re.compile(r" *\| *\^+")


def wants_color(choice: str, stream: TextIO, environ: Mapping[str, str] = os.environ) -> bool:
    if choice != "auto":
        return choice == "always"
    if environ.get("NO_COLOR"):
        return False
    if environ.get("FORCE_COLOR"):
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and environ.get("TERM") != "dumb"


def _head(match: "re.Match") -> str:
    fix = match.group("fix") or ""
    return "%s%s%s:%s:%s: %s%s%s%s" % (
        _BOLD, match.group("path"), _RESET, match.group("row"), match.group("column"),
        _BOLD + _RED, match.group("code"), _RESET, (" " + _CYAN + "[*]" + _RESET) if fix else "")


def colored(report: str) -> str:
    """The text report with its paths in bold, codes in red, fix markers in cyan, carets in red."""
    out = []
    for line in report.split("\n"):
        line = _HEAD.sub(_head, line, count=1)
        if _CARETS.fullmatch(line):
            stripped = line.rstrip("^")
            line = stripped + _RED + line[len(stripped):] + _RESET
        out.append(line)
    return "\n".join(out)
