"""GitHub Actions workflow commands: one annotation per diagnostic."""
from __future__ import annotations

from typing import Dict, List

from hyblint.diagnostics import Diagnostic


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render(diagnostics: List[Diagnostic], sources: Dict) -> str:
    lines = []
    for d in diagnostics:
        level = "error" if d.severity.value == "error" else "warning"
        props = "title=%s,file=%s,line=%d,col=%d,endLine=%d,endColumn=%d" % (
            _escape_property("hyblint (%s)" % d.code), _escape_property(d.filename), d.location.row,
            d.location.column, d.end_location.row, d.end_location.column)
        lines.append("::%s %s::%s" % (level, props, _escape_data("%s %s" % (d.code, d.message))))
    return "\n".join(lines)
