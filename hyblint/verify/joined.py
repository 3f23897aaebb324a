"""The static diagnostics of the verified modules, joined with the verdicts of running their blocks:
found as `hyblint check` finds them, judged by `verdicts`, shown in text, JSON and SARIF."""
from __future__ import annotations

import ast
import os
from dataclasses import replace
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from hyblint.verify import verdicts as verdicts_module
from hyblint.verify.verdicts import Verdict

Judged = Tuple[object, Verdict]  # (Diagnostic, its verdict)


def extra_codes(extend_select: str) -> Tuple[str, ...]:
    return tuple(c.strip().upper() for c in extend_select.split(",") if c.strip())


def run_context(sources: Dict[str, str], settings) -> tuple:
    """(the block classes declared through other bases, the package index) over the run's files,
    as `hyblint check` builds them: the index tells which helpers a hybrid_forward calls with F
    (`self.cross_entropy_loss(F, pred, ...)`), whose diagnostics check reports too."""
    from hyblint.files import SourceFile
    from hyblint.lint import hierarchy_of, package_of
    files = {path: SourceFile(path, text, "utf-8", False) for path, text in sources.items()}
    return hierarchy_of(files, settings), package_of(files)


def static_diagnostics(source: str, path: Path, extend_select: str, sources: Optional[Dict[str, str]] = None) -> list:
    """What `hyblint check` reports for the file (its configuration, plus --extend-select), checked
    with the other files of the run, `sources` (path: text), as check checks them together."""
    from hyblint.config import find_config, load_settings
    from hyblint.engine import check_source
    settings = load_settings(find_config([str(path)]))
    codes = extra_codes(extend_select)
    if codes:
        settings = replace(settings, extend_select=settings.extend_select + codes)
    extra, package = run_context(sources if sources is not None else {str(path): source}, settings)
    found = check_source(source, str(path), settings, extra_hybrid_classes=extra, package=package)
    return [d for d in found if verdicts_module.judged_codes(d.code)]


def judge_module(source: str, results: Sequence, diagnostics: list) -> List[Judged]:
    """The module's diagnostics with their verdicts; each block result gets, in `diagnostics`, the
    JSON of those it ran hybridized (or, when none ran one, of those in its own class)."""
    from hyblint.report.json_format import to_json
    judged = [(d, v) for d, v in zip(diagnostics, verdicts_module.judge(diagnostics, source, results))
              if v is not None]
    owners = _class_spans(source)
    by_name = {r.name: r for r in results}
    # a class built with its downloads off is named with its call (`SSD(pretrained=False)`)
    for r in results:
        by_name.setdefault(r.name.split("(", 1)[0], r)
    for d, v in judged:
        holders = [by_name[n] for n in v.blocks if n in by_name]
        if not holders:
            owner = next((name for name, (start, end) in owners.items() if start <= d.location.row <= end), None)
            holders = [by_name[owner]] if owner in by_name else []
        for r in holders:
            r.diagnostics.append(dict(to_json(d), verify=v.to_json()))
    return judged


def visitors(path, results: Sequence) -> list:
    """The blocks of other modules that ran lines of `path` (a detector built by a model function
    in one module runs the classes of others), as results about `path`: the lines they ran there,
    and where they broke there (-1: in another file; None: outside the package, when the graph ran)."""
    target = os.path.abspath(str(path))
    found = []
    for r in results:
        lines, eager = r.elsewhere.get(target, []), r.eager_elsewhere.get(target, [])
        if os.path.abspath(r.path) == target or not (lines or eager):
            continue
        found.append(replace(
            r, name="%s (%s)" % (r.name, os.path.basename(r.path)), lines=lines, eager_lines=eager,
            line=_line_in(r.failed_at, target),
            findings=[dict(f, line=_line_in(f.get("at"), target)) for f in r.findings]))
    return found


def _line_in(place, target: str):
    if not place:
        return None
    return place[1] if os.path.abspath(place[0]) == target else -1


def _class_spans(source: str) -> Dict[str, Tuple[int, int]]:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}
    return {node.name: (node.lineno, node.end_lineno or node.lineno) for node in tree.body
            if isinstance(node, ast.ClassDef)}


def render_text(judged: List[Judged]) -> List[str]:
    """One line per diagnostic that a block ran, with its verdict and the reason under it (those
    no block reached are only counted: JSON and SARIF list them)."""
    lines = []
    for d, v in sorted(judged, key=lambda pair: pair[0].sort_key()):
        if v.verdict == verdicts_module.NOT_REACHED:
            continue
        lines.append("%s:%d:%d: %s %s: %s" % (d.filename, d.location.row, d.location.column, d.code,
                                              v.verdict, d.message))
        lines.append("    %s" % v.reason)
    return lines


def summary(judged: List[Judged]) -> Optional[str]:
    if not judged:
        return None
    counts = verdicts_module.count(v for _, v in judged)
    parts = ["%d %s" % (counts[name], name) for name in verdicts_module.ORDER if counts[name]]
    text = "%d diagnostic%s: %s." % (len(judged), "" if len(judged) == 1 else "s", ", ".join(parts))
    if counts[verdicts_module.REFUTED]:
        text += " %d refuted: the line ran and the block agreed; a lead for a false positive." \
            % counts[verdicts_module.REFUTED]
    return text


def render_sarif(judged: List[Judged]) -> str:
    from hyblint.report import sarif
    ordered = sorted(judged, key=lambda pair: pair[0].sort_key())
    return sarif.render([d for d, _ in ordered], {}, verdicts=[v.to_json() for _, v in ordered])
