"""The values that flow from the checker to every front end (CLI, reports, LSP, verify).

Positions follow ruff's JSON output: rows and columns are 1-based, columns count characters
(not bytes) and the end is exclusive.
"""
from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field
from typing import List, Optional, Tuple


class Severity(str, enum.Enum):
    ERROR = "error"      # fails, or silently changes results, after hybridize()
    WARNING = "warning"  # hybridizes, but behaves differently


class Applicability(str, enum.Enum):
    SAFE = "safe"        # same result for every input the original accepted
    UNSAFE = "unsafe"    # applied only with --unsafe-fixes


@dataclass(frozen=True, order=True)
class Location:
    row: int     # 1-based line
    column: int  # 1-based character column


@dataclass(frozen=True)
class Edit:
    """Replace the text between `location` and `end_location` with `content`."""

    content: str
    location: Location
    end_location: Location


@dataclass(frozen=True)
class Fix:
    applicability: Applicability
    message: str
    edits: Tuple[Edit, ...]


@dataclass(frozen=True)
class Related:
    """Another place that explains a diagnostic: the call in hybrid_forward of the helper it is in."""

    filename: str
    location: Location
    message: str


@dataclass(frozen=True)
class Diagnostic:
    code: str
    message: str
    filename: str
    location: Location
    end_location: Location
    severity: Severity
    fix: Optional[Fix] = None
    url: Optional[str] = field(default=None, compare=False)
    related: Tuple[Related, ...] = ()

    @property
    def fixable(self) -> bool:
        return self.fix is not None

    def sort_key(self):
        return (self.filename, self.location, self.code)


# Codes for input that could not be checked at all. Any of them makes the run exit 2.
INPUT_ERROR_CODES = {
    "HYB900": "syntax-error",       # the file does not parse
    "HYB901": "not-utf8",           # the file is not valid UTF-8 (or its declared encoding)
    "HYB902": "binary-file",        # the file holds NUL bytes
    "HYB903": "unreadable-file",    # permission denied or another I/O error
    "HYB904": "symlink-loop",       # a symbolic link that resolves to itself
    "HYB905": "file-vanished",      # listed, then gone before it could be read
    "HYB906": "cannot-check",       # too deeply nested, too large, or an internal error
    "HYB907": "not-a-regular-file", # a FIFO, device or socket, or a file over the size limit
}


_LINE_END = re.compile(r"(?<=\n)|(?<=\r)(?!\n)")


def physical_lines(source: str, keepends: bool = False) -> List[str]:
    """Lines as Python and libcst count them: only \\n, \\r\\n and \\r end one
    (str.splitlines also breaks on form feeds and U+2028, which may sit in comments and strings)."""
    if "\r" not in source:  # the common case, split without the slower regular expression
        lines = source.split("\n")
        last = lines.pop()
        if keepends:
            lines = [line + "\n" for line in lines]
        if last:
            lines.append(last)
        return lines
    lines = [line for line in _LINE_END.split(source) if line]
    return lines if keepends else [line.rstrip("\r\n") for line in lines]
