"""`hyblint verify`: run each HybridBlock eagerly and hybridized, and prove fixes by running them.

Unlike `hyblint check`, this imports and executes the user's modules (each in a subprocess with a
time limit). It never runs as part of `check`, the pre-commit hooks or the language server.
"""
from __future__ import annotations

import argparse
import ast
import json
import os
import sys
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from hyblint.config import ConfigError
from hyblint.verify import batch, joined, repro, runner, setup, worker


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


def _python_files(paths: List[str]) -> List[Path]:
    """The files `hyblint check` would check: each file's closest configuration, its exclusions
    (a nested pyproject.toml's below it) and the ignore files, found as `check` finds them."""
    from hyblint.discovery import discover_in_projects
    from hyblint.projects import Projects
    for raw in paths:
        if not Path(raw).exists():
            raise FileNotFoundError("%s: no such file or directory" % raw)
    projects = Projects(lambda settings: settings)
    return [Path(p) for p in discover_in_projects(paths, projects.of_path) if p.endswith(".py")]


# A module without any of these cannot define or build a block (MXNet's own modules import
# relatively: `from ...block import HybridBlock`).
MODULE_WORDS = ("mxnet", "gluon", "HybridBlock", "hybrid_forward")
# with --discover, a module of model functions alone (it imports only its package's classes)
DISCOVER_WORDS = ("pretrained",)

# Fixes documented to change results (the behaviour they fix is the bug): equality with the
# original proves nothing about them, so they are reported for review, never as proved.
BY_DESIGN_CODES = ("HYB014",)  # mode='wrap': a negative index means the last rows, not row 0
MODULE_CODE = "<module-level code>"  # a change outside the top-level classes and functions


def run(args: argparse.Namespace) -> int:
    try:
        config = setup.verify_table(args.paths)
        shapes = {name: [s if isinstance(s, dict) else list(s) for s in groups]
                  for name, groups in config.get("shapes", {}).items()}
        shapes.update(parse_shapes(args.shapes))
        python = setup.check_python(args.python) if args.python else None
        if python is None:
            setup.require_runtime()  # before any module is imported to run: say what to install
        options = runner.VerifyOptions(
            shapes=shapes, factories=args.factory or config.get("factories", []),
            fix=args.fix, unsafe_fixes=args.unsafe_fixes, python=python, discover=args.discover,
            timeout=args.timeout or float(config.get("timeout", 120)))
        paths = args.paths or ([] if options.factories else ["."])
        files = _python_files(paths)
    except (ValueError, FileNotFoundError, OSError, ConfigError) as exc:
        print("hyblint verify: error: %s" % exc, file=sys.stderr)
        return 2

    results: List[runner.BlockResult] = []
    judged: List[joined.Judged] = []  # each static diagnostic with its verdict
    module_sources: Dict[str, tuple] = {}  # path: (source, module name, package root), for reproducers
    verdicts: List[Tuple[str, Optional[str], bool]] = []  # (path, why its fix is not proved, written)
    to_judge: list = []  # (path, source, its blocks' results, its static diagnostics)
    try:
        jobs: List[batch.Job] = []
        for path in files:
            try:
                source = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                print("hyblint verify: error: %s: %s" % (path, exc), file=sys.stderr)
                return 2
            if not any(word in source for word in MODULE_WORDS + (DISCOVER_WORDS if options.discover else ())):
                continue
            fixed, changed, by_design = (_fixed_source(source, path, options, args.extend_select)
                                         if options.fix else (None, [], {}))
            jobs.append((path, source, fixed, changed, by_design))
        run_sources = {str(path): source for path, source, *_ in jobs}  # checked together, as by `check`
        cache = batch.ResultCache(None if args.no_cache else _cache_folder(args) / "verify",
                                  batch.fingerprint(options, args.extend_select))
        for (path, source, fixed, changed, by_design), key, module_results, diagnostics in batch.verify_all(
                jobs, options, cache, args.jobs or default_jobs()):
            if diagnostics is None:
                diagnostics = joined.static_diagnostics(source, path, args.extend_select, run_sources)
                cache.put(key, module_results, diagnostics)
            results.extend(module_results)
            to_judge.append((path, source, module_results, diagnostics))
            module_sources[str(path)] = (source,) + runner.module_name_and_root(path)
            if fixed is not None:
                why = unproved_reason(module_results, changed)
                if why is None and args.write:
                    _write(path, fixed)
                verdicts.append((str(path), why, why is None and args.write))
        for path, source, module_results, diagnostics in to_judge:  # once every module has run
            judged.extend(joined.judge_module(source, module_results + joined.visitors(path, results), diagnostics))
        if options.fix and options.factories:
            print("hyblint verify: note: --fix proves fixes of modules given as paths, not of factories",
                  file=sys.stderr)
        for spec in options.factories:
            results.extend(runner.verify_factory(spec, options))
    except (runner.InterpreterError, ConfigError) as exc:
        print("hyblint verify: error: %s" % exc, file=sys.stderr)
        return 2

    results = runner.sort_results(results)
    if args.repro_dir:
        written = repro.write_all(results, module_sources, Path(args.repro_dir))
        print("hyblint verify: %s written to %s" % (plural(len(written), "reproducer"), args.repro_dir),
              file=sys.stderr)
    if args.format in ("json", "sarif"):
        print(json.dumps([r.to_json() for r in results], indent=2) if args.format == "json"
              else joined.render_sarif(judged))
        if verdicts:
            print("\n".join(render_verdicts(verdicts, args.write)), file=sys.stderr)
    else:
        print(render_text(results, options.fix, judged))
        if verdicts:
            print("\n".join(render_verdicts(verdicts, args.write)))
    return exit_code(results, options.fix, any(why for _, why, _ in verdicts))


def default_jobs() -> int:
    """Worker processes at once: one per core, at most 8 (each holds a runtime, ~300 MB)."""
    return max(1, min(8, os.cpu_count() or 1))


def _cache_folder(args: argparse.Namespace) -> Path:
    """The cache of `hyblint check` (--cache-dir, $HYBLINT_CACHE_DIR, or the project's root)."""
    from hyblint.cache import cache_folder
    from hyblint.config import find_config
    config = find_config(args.paths or ["."])
    return cache_folder(config.parent.resolve() if config else Path.cwd().resolve(), args.cache_dir)


def _fixed_source(source: str, path: Path, options: runner.VerifyOptions, extend_select: str):
    """(fixed text or None, the top-level definitions it changes, {definition: codes} of those
    changed by fixes that change results by design)."""
    from dataclasses import replace

    from hyblint.config import find_config, load_settings
    from hyblint.fixer import fix_source
    settings = load_settings(find_config([str(path)]))
    codes = tuple(c.strip().upper() for c in extend_select.split(",") if c.strip())
    if codes:
        settings = replace(settings, extend_select=settings.extend_select + codes)
    result = fix_source(source, str(path), settings, unsafe=options.unsafe_fixes)
    if result.source == source:
        return None, [], {}
    changed = changed_definitions(source, result.source)
    by_design: Dict[str, List[str]] = {}
    design_codes = sorted({d.code for d in result.applied if d.code in BY_DESIGN_CODES})
    if design_codes:
        # What the other fixes alone would make of it: the definitions that differ from that
        # are the ones the by-design fixes changed.
        without = fix_source(source, str(path), replace(settings, ignore=settings.ignore + tuple(design_codes)),
                             unsafe=options.unsafe_fixes).source
        by_design = {name: design_codes for name in changed_definitions(without, result.source)}
    return result.source, changed, by_design


def changed_definitions(before: str, after: str) -> List[str]:
    """Names of the top-level classes and functions whose code differs (positions aside), and
    MODULE_CODE when other top-level statements than imports differ."""
    def parts(source: str):
        definitions, other = {}, []
        for node in ast.parse(source).body:
            if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                definitions[node.name] = ast.dump(node)
            elif not isinstance(node, (ast.Import, ast.ImportFrom)):
                other.append(ast.dump(node))
        return definitions, other
    old, old_other = parts(before)
    new, new_other = parts(after)
    changed = sorted(name for name in set(old) | set(new) if old.get(name) != new.get(name))
    return changed + ([MODULE_CODE] if old_other != new_other else [])


def unproved_reason(results: List[runner.BlockResult], changed: List[str]) -> Optional[str]:
    """Why a module's fix is not proved, or None when it is: every block whose code the fix changed
    ran and agreed, every changed definition ran in such a block, and the module's other blocks
    that ran are unchanged by it."""
    for r in results:
        if r.status in runner.MODULE_FAILURES:
            return "%s (%s)" % (MODULE_FAILURE_REASONS[r.status], r.detail)
    unproved = [r for r in results if r.fix_status not in (worker.PROVED, None)]
    if unproved:
        return "; ".join("%s: %s" % (r.name, r.fix_detail or FIX_LABELS.get(r.fix_status, r.fix_status))
                         for r in unproved)
    covered = {name for r in results if r.fix_status == worker.PROVED for name in r.touches}
    missing = [name for name in changed if name not in covered]
    if missing:
        return "the fixed code of %s ran in no block that was proved" % ", ".join(missing)
    if not any(r.fixed_ran for r in results):
        return "no block ran the fixed module"
    return None


def render_verdicts(verdicts: List[Tuple[str, Optional[str], bool]], write: bool) -> List[str]:
    lines = []
    for path, why, written in verdicts:
        if why is None:
            lines.append("%s: fixes proved%s" % (path, ", written" if written else ""))
        else:
            lines.append("%s: fixes not proved%s: %s" % (path, ", not written" if write else "", why))
    return lines


def _write(path: Path, text: str) -> None:
    from hyblint.files import read_source, write_source
    write_source(path, read_source(path), text)


# Statuses that make a run fail: the block does not work as written, or was not checked at all.
BAD_STATUSES = {worker.FAILS, worker.DISAGREES, worker.NOT_BUILT, *runner.MODULE_FAILURES}


def exit_code(results: List[runner.BlockResult], fix: bool, unproved_modules: bool = False) -> int:
    if not fix:
        return 1 if any(r.status in BAD_STATUSES for r in results) else 0
    if unproved_modules or any(r.fix_status not in (worker.PROVED, None) for r in results):
        return 1
    # A block that fails as written is fine only when its fix is proved.
    return 1 if any(r.status in BAD_STATUSES and r.fix_status != worker.PROVED for r in results) else 0


LABELS = {
    worker.DISAGREES: "DISAGREES (silently different result)",
    worker.FAILS: "FAILS when hybridized",
    worker.AGREES: "hybridizes and agrees",
    worker.NOT_BUILT: "not built",
    worker.NO_INPUTS: "inputs unknown",
    runner.TIMEOUT: "timed out",
    runner.CRASHED: "crashed",
    runner.IMPORT_FAILED: "module failed to import",
    runner.BUILD_FAILED: "not built",
}

MODULE_FAILURE_REASONS = {
    runner.TIMEOUT: "the module timed out",
    runner.CRASHED: "the module crashed",
    runner.IMPORT_FAILED: "the module failed to import",
    runner.BUILD_FAILED: "a block the module builds when imported could not be built",
}

FIX_LABELS = {
    worker.PROVED: "fix proved",
    worker.DISPROVED: "fix disproved",
    worker.UNPROVED: "fix not proved",
    worker.BY_DESIGN: "fix changes results by design",
}


def plural(count: int, noun: str) -> str:
    return "%d %s%s" % (count, noun, "" if count == 1 else "s")


def render_text(results: List[runner.BlockResult], fix: bool, judged: Optional[List[joined.Judged]] = None) -> str:
    if not results:
        return "\n".join(joined.render_text(judged or []) + ["No HybridBlocks found."])
    rows = []
    for r in results:
        where = "%s:%s" % (r.path, r.line) if r.line else r.path
        status = LABELS.get(r.status, r.status)
        if fix and r.fix_status:
            status += "; " + FIX_LABELS.get(r.fix_status, r.fix_status)
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
    if judged:
        lines.extend(joined.render_text(judged) + ["", joined.summary(judged)])
    lines.append("%s: %s." % (plural(len(results), "block"), summary))
    if fix:
        fixed = [r for r in results if r.fix_status]
        if fixed:
            lines.append("Fixes: %s." % ", ".join(
                "%s %s" % (plural(sum(r.fix_status == s for r in fixed), "block"), label[len("fix "):])
                for s, label in FIX_LABELS.items() if any(r.fix_status == s for r in fixed)))
        else:
            lines.append("Fixes: none to prove.")
    return "\n".join(lines)
