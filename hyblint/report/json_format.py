"""JSON output with ruff's field names, plus `severity`."""
from __future__ import annotations

import json
from typing import Dict, List

from hyblint.diagnostics import Diagnostic
from hyblint.docs_links import link


def _location(location) -> dict:
    return {"row": location.row, "column": location.column}


def to_json(d: Diagnostic) -> dict:
    fix = None
    if d.fix is not None:
        fix = {"applicability": d.fix.applicability.value, "message": d.fix.message,
               "edits": [{"content": e.content, "location": _location(e.location),
                          "end_location": _location(e.end_location)} for e in d.fix.edits]}
    found = {"code": d.code, "message": d.message, "filename": d.filename, "location": _location(d.location),
             "end_location": _location(d.end_location), "fix": fix, "url": link(d.url), "noqa_row": d.location.row,
             "severity": d.severity.value}
    if d.related:  # a diagnostic in a helper: the calls in hybrid_forward that trace it
        found["related"] = [{"filename": r.filename, "location": _location(r.location), "message": r.message}
                            for r in d.related]
    return found


def render(diagnostics: List[Diagnostic], sources: Dict) -> str:
    return json.dumps([to_json(d) for d in diagnostics], indent=2)
