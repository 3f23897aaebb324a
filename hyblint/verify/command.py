"""`hyblint verify`: run each HybridBlock eagerly and hybridized, and prove fixes by running them.

Unlike `hyblint check`, this imports and executes the user's modules (each in a subprocess with a
time limit). It never runs as part of `check`, the pre-commit hooks or the language server.
"""
from __future__ import annotations

import argparse
import ast
import json
import sys
from pathlib import Path
from typing import Dict, List, Optional

from hyblint.config import ConfigError
from hyblint.verify import runner, worker

def parse_shapes(items: List[str]) -> Dict[str, List[List[int]]]:
    shapes: Dict[str, List[List[int]]] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise ValueError("--shapes %r: expected NAME=SHAPE, e.g. Net=2x16" % item)
        if value.strip().startswith("[["):
            # JSON: shapes, or {"shape": [...], "low": L, "high": H} for integer inputs such as indices
            try:
                shapes[name.strip()] = json.loads(value)
            except ValueError:
                raise ValueError("--shapes %r: cannot read the JSON list %r" % (item, value)) from None
            continue
        try:
            if "(" in value or "[" in value:
                parsed = ast.literal_eval("[" + value + "]")
                groups = [list(g) if isinstance(g, (tuple, list)) else [g] for g in parsed]
            else:
                groups = [[int(d) for d in part.lower().split("x")] for part in value.split(",")]
        except (ValueError, SyntaxError):
            raise ValueError("--shapes %r: cannot read the shape %r" % (item, value)) from None
        if not all(isinstance(d, int) and d > 0 for g in groups for d in g):
            raise ValueError("--shapes %r: dimensions must be positive integers" % item)
        shapes[name.strip()] = groups
    return shapes


def _verify_config(paths: List[str]) -> dict:
    """The `[tool.hyblint.verify]` table of the configuration `hyblint check` would use."""
    from hyblint.config import find_config, load_table
    config = find_config(paths or ["."])
    return load_table(config).get("verify", {}) if config else {}


def _python_files(paths: List[str]) -> List[Path]:
    found: List[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found.extend(p for p in sorted(path.rglob("*.py"))
                         if not any(part.startswith(".") or part == "__pycache__" for part in p.parts))
        elif path.exists():
            found.append(path)
        else:
            raise FileNotFoundError("%s: no such file or directory" % raw)
    return found


def run(args: argparse.Namespace) -> int:
    try:
        config = _verify_config(args.paths)
        shapes = {name: [s if isinstance(s, dict) else list(s) for s in groups]
                  for name, groups in config.get("shapes", {}).items()}
        shapes.update(parse_shapes(args.shapes))
        options = runner.VerifyOptions(
            shapes=shapes, factories=args.factory or config.get("factories", []),
            fix=args.fix, unsafe_fixes=args.unsafe_fixes, python=args.python,
            timeout=args.timeout or float(config.get("timeout", 120)))
        paths = args.paths or ([] if options.factories else ["."])
        files = _python_files(paths)
    except (ValueError, FileNotFoundError, OSError, ConfigError) as exc:
        print("hyblint verify: error: %s" % exc, file=sys.stderr)
        return 2

    results: List[runner.BlockResult] = []
    for path in files:
        try:
            source = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            print("hyblint verify: error: %s: %s" % (path, exc), file=sys.stderr)
            return 2
        if "mxnet" not in source and "gluon" not in source:
            continue
        fixed = _fixed_source(source, path, options, args.extend_select) if options.fix else None
        module_results = runner.verify_module(path, source, fixed, options)
        results.extend(module_results)
        if args.write and fixed is not None and _all_proved(module_results):
            _write(path, fixed)

    if options.fix and options.factories:
        print("hyblint verify: note: --fix proves fixes of modules given as paths, not of factories",
              file=sys.stderr)
    for spec in options.factories:
        results.extend(runner.verify_factory(spec, options))

    results = runner.sort_results(results)
    if args.format == "json":
        print(json.dumps([r.to_json() for r in results], indent=2))
    else:
        print(render_text(results, options.fix))
    return exit_code(results, options.fix)


def _fixed_source(source: str, path: Path, options: runner.VerifyOptions, extend_select: str) -> Optional[str]:
    from dataclasses import replace

    from hyblint.config import find_config, load_settings
    from hyblint.fixer import fix_source
    settings = load_settings(find_config([str(path)]))
    codes = tuple(c.strip().upper() for c in extend_select.split(",") if c.strip())
    if codes:
        settings = replace(settings, extend_select=settings.extend_select + codes)
    result = fix_source(source, str(path), settings, unsafe=options.unsafe_fixes)
    return result.source if result.source != source else None


def _all_proved(results: List[runner.BlockResult]) -> bool:
    statuses = [r.fix_status for r in results]
    return worker.PROVED in statuses and all(s in (worker.PROVED, None) for s in statuses)


def _write(path: Path, text: str) -> None:
    from hyblint.files import read_source, write_source
    write_source(path, read_source(path), text)


def exit_code(results: List[runner.BlockResult], fix: bool) -> int:
    if fix:
        return 1 if any(r.fix_status == worker.DISPROVED for r in results) else 0
    bad = {worker.FAILS, worker.DISAGREES, runner.TIMEOUT, runner.CRASHED, runner.IMPORT_FAILED}
    return 1 if any(r.status in bad for r in results) else 0


LABELS = {
    worker.DISAGREES: "DISAGREES (silently different result)",
    worker.FAILS: "FAILS when hybridized",
    worker.AGREES: "hybridizes and agrees",
    worker.NOT_BUILT: "not built",
    worker.NO_INPUTS: "inputs unknown",
    runner.TIMEOUT: "timed out",
    runner.CRASHED: "crashed",
    runner.IMPORT_FAILED: "module failed to import",
}


def render_text(results: List[runner.BlockResult], fix: bool) -> str:
    if not results:
        return "No HybridBlocks found."
    rows = []
    for r in results:
        where = "%s:%s" % (r.path, r.line) if r.line else r.path
        status = LABELS.get(r.status, r.status)
        if fix and r.fix_status:
            status += "; fix %s" % r.fix_status
        detail = "; ".join(d for d in (r.detail, r.fix_detail) if d)
        rows.append((where, r.name, status, detail))
    widths = [max(len(row[i]) for row in rows + [("location", "block", "result", "")]) for i in range(3)]
    lines = ["%-*s  %-*s  %-*s  %s" % (widths[0], "location", widths[1], "block", widths[2], "result", "detail")]
    for where, name, status, detail in rows:
        lines.append(("%-*s  %-*s  %-*s  %s" % (widths[0], where, widths[1], name, widths[2], status, detail)).rstrip())
    counts: Dict[str, int] = {}
    for r in results:
        counts[r.status] = counts.get(r.status, 0) + 1
    summary = ", ".join("%d %s" % (n, LABELS.get(s, s)) for s, n in counts.items())
    lines.append("")
    lines.append("%d blocks: %s." % (len(results), summary))
    if fix:
        proved = sum(r.fix_status == worker.PROVED for r in results)
        disproved = sum(r.fix_status == worker.DISPROVED for r in results)
        lines.append("Fixes: %d blocks proved, %d disproved." % (proved, disproved))
    return "\n".join(lines)
