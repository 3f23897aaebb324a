"""SARIF 2.1.0, as code-scanning services read it."""
from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote
from typing import Dict, List, Optional

from hyblint import __version__
from hyblint.diagnostics import INPUT_ERROR_CODES, Diagnostic
from hyblint.docs_links import link

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def _rules():
    from hyblint.rules import ALL_RULES
    rules = []
    for code, rule in ALL_RULES.items():
        rules.append({
            "id": code, "name": rule.name,
            "shortDescription": {"text": rule.message.split(":")[0].replace("{", "").replace("}", "")},
            "fullDescription": {"text": rule.render_docs()},
            "defaultConfiguration": {"level": "error" if rule.severity.value == "error" else "warning",
                                     "enabled": rule.default_selected},
        })
        page = link(rule.url())
        rules[-1]["help"] = {"text": "See %s" % page}
        if "://" in page:  # SARIF wants an absolute URI: only with a base URL set
            rules[-1]["helpUri"] = page
    for code, name in INPUT_ERROR_CODES.items():
        rules.append({"id": code, "name": name, "shortDescription": {"text": name.replace("-", " ")},
                      "defaultConfiguration": {"level": "error"}})
    return rules


def _driver(rules) -> dict:
    driver = {"name": "hyblint", "version": __version__, "semanticVersion": __version__, "rules": rules}
    readme = link("README.md")
    if "://" in readme:
        driver["informationUri"] = readme
    return driver


def _uri(filename: str) -> str:
    """A URI reference: a relative path percent-encoded (`#`, `%`, spaces, and `:`, which would
    make its first segment read as a scheme), or a file: URI."""
    path = Path(filename)
    return quote(path.as_posix(), safe="/-._~!$&'()*+,;=@") if not path.is_absolute() else path.as_uri()


# A verify verdict as SARIF's result kind (2.1.0, 3.27.9): a run that failed at the line is a
# confirmed problem ("fail"); a line that ran and agreed everywhere is a diagnostic a person should
# look at again ("review": a lead for a false positive); a line no run judged stays "open".
# (baselineState is not used: it compares with an earlier run's log, which verify does not read.)
VERDICT_KINDS = {"confirmed": "fail", "refuted": "review", "not reached": "open", "inconclusive": "open"}


def _region(start, end) -> dict:
    return {"startLine": start.row, "startColumn": start.column, "endLine": end.row, "endColumn": end.column}


def render(diagnostics: List[Diagnostic], sources: Dict, verdicts: Optional[List[Optional[dict]]] = None) -> str:
    """`verdicts`, from `hyblint verify`: per diagnostic, what running its line showed (or None)."""
    rules = _rules()
    index = {rule["id"]: i for i, rule in enumerate(rules)}
    results = []
    for number, d in enumerate(diagnostics):
        location = {"physicalLocation": {"artifactLocation": {"uri": _uri(d.filename)},
                                         "region": _region(d.location, d.end_location)}}
        result = {"ruleId": d.code, "ruleIndex": index[d.code],
                  "level": "error" if d.severity.value == "error" else "warning",
                  "message": {"text": d.message}, "locations": [location]}
        if d.related:
            result["relatedLocations"] = [
                {"id": number, "message": {"text": r.message},
                 "physicalLocation": {"artifactLocation": {"uri": _uri(r.filename)},
                                      "region": _region(r.location, r.location)}}
                for number, r in enumerate(d.related)]
        if d.fix is not None:
            result["fixes"] = [{
                "description": {"text": d.fix.message + (" (unsafe)" if d.fix.applicability.value == "unsafe" else "")},
                "artifactChanges": [{
                    "artifactLocation": {"uri": _uri(d.filename)},
                    "replacements": [{"deletedRegion": _region(e.location, e.end_location),
                                      "insertedContent": {"text": e.content}} for e in d.fix.edits],
                }],
            }]
        if verdicts is not None and verdicts[number] is not None:
            result["properties"] = {"verify": verdicts[number]}
            result["kind"] = VERDICT_KINDS.get(verdicts[number].get("verdict"), "open")
        results.append(result)
    log = {
        "$schema": SCHEMA, "version": "2.1.0",
        "runs": [{"tool": {"driver": _driver(rules)},
                  "columnKind": "unicodeCodePoints", "results": results}],
    }
    return json.dumps(log, indent=2)
