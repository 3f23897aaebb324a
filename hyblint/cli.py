"""The `hyblint` command: check (the default), rule, verify, lsp."""
from __future__ import annotations

import argparse
import gc
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import List, Optional, Sequence

from hyblint import __version__
from hyblint.early import COMMANDS, stop_checkers
from hyblint.workers import WorkerError


def _codes(text: str) -> List[str]:
    return [c.strip().upper() for c in text.split(",") if c.strip()]


def _check_parser(sub) -> None:
    p = sub.add_parser("check", help="check files (the default command)",
                       description="Check Python files for code that breaks under hybridize().")
    p.add_argument("paths", nargs="*", default=["."], help="files or directories (default: .)")
    p.add_argument("--fix", action="store_true", help="apply safe fixes")
    p.add_argument("--unsafe-fixes", action="store_true", help="also apply (with --fix) or show unsafe fixes")
    p.add_argument("--diff", action="store_true", help="print the fixes as a unified diff; change nothing")
    p.add_argument("--show-fixes", action="store_true", help="list the fixes that were applied")
    p.add_argument("--select", type=_codes, default=None, metavar="CODES", help="rules to enable (comma separated)")
    p.add_argument("--ignore", type=_codes, default=[], metavar="CODES", help="rules to disable")
    p.add_argument("--extend-select", type=_codes, default=[], metavar="CODES", help="rules to enable in addition")
    p.add_argument("--format", "--output-format", dest="format", default="text",
                   choices=("text", "full", "concise", "json", "sarif", "github"))
    p.add_argument("--statistics", action="store_true", help="count diagnostics per rule")
    p.add_argument("--exit-zero", "-e", action="store_true", help="exit 0 even when diagnostics remain")
    p.add_argument("--no-cache", "-n", action="store_true", help="do not read or write the cache")
    p.add_argument("--cache-dir", default=None, metavar="DIR",
                   help="where to keep the cache (default: $HYBLINT_CACHE_DIR, else .hyblint_cache in the project)")
    p.add_argument("--fix-only", action="store_true",
                   help="apply fixes (implies --fix) without reporting or failing on what remains")
    p.add_argument("--exit-non-zero-on-fix", action="store_true",
                   help="exit 1 when fixes were applied, even when no diagnostics remain")
    p.add_argument("--fixable", type=_codes, default=None, metavar="CODES", help="rules whose fixes may be applied")
    p.add_argument("--unfixable", type=_codes, default=[], metavar="CODES", help="rules whose fixes are never applied")
    p.add_argument("--add-noqa", action="store_true",
                   help="add `# noqa: CODE` comments to every line with diagnostics")
    p.add_argument("--stdin-filename", default=None, metavar="PATH",
                   help="read the file from standard input and report it as PATH (also: `-` as the path)")
    p.add_argument("--output-file", "-o", default=None, metavar="FILE", help="write the report to FILE")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                   help="color the text report (auto: on a terminal, unless NO_COLOR is set or FORCE_COLOR is)")
    p.add_argument("--show-files", action="store_true", help="list the files that would be checked, and stop")
    p.add_argument("--show-settings", action="store_true", help="print the resolved settings, and stop")
    p.add_argument("--quiet", "-q", action="store_true", help="print diagnostics only, no summary")
    p.add_argument("--config", default=None, help="a pyproject.toml to read [tool.hyblint] from")
    p.add_argument("--no-respect-gitignore", dest="respect_gitignore", action="store_false", default=None,
                   help="check files that .gitignore, .ignore or .git/info/exclude ignore")
    p.add_argument("--force-exclude", action="store_true",
                   help="apply exclude patterns to files given explicitly too (as pre-commit passes them)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hyblint", description="Find and fix MXNet Gluon code that breaks "
                                     "under hybridize().")
    parser.add_argument("--version", action="version", version="hyblint " + __version__)
    sub = parser.add_subparsers(dest="command")
    _check_parser(sub)
    rule = sub.add_parser("rule", help="explain a rule", description="Print a rule's documentation.")
    rule.add_argument("code", nargs="?", help="a rule code (HYB001) or name (tensor-indexing)")
    rule.add_argument("--all", action="store_true", help="list every rule")
    from hyblint.verify import arguments as verify_arguments
    verify = sub.add_parser("verify", help="run each HybridBlock eagerly and hybridized (executes your code)",
                            description=verify_arguments.HELP)
    verify_arguments.add_arguments(verify)
    clean = sub.add_parser("clean", help="remove the project's cache",
                           description="Remove the cache of the project in the current directory.")
    clean.add_argument("--cache-dir", default=None, metavar="DIR", help="the cache to remove (as for check)")
    clean.add_argument("--config", default=None, help="a pyproject.toml whose project's cache to remove")
    sub.add_parser("lsp", help="run the language server over stdio",
                   description="Serve diagnostics and quick fixes to editors over stdio (LSP).")
    return parser


def main(argv: Optional[Sequence[str]] = None, *, process_ends: bool = False) -> int:
    """`process_ends`: the process ends when this returns (the console script), so that objects
    left for the cycle collector need never be collected."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or (argv[0] not in COMMANDS and argv[0] not in ("-h", "--help", "--version")):
        argv.insert(0, "check")
    args = build_parser().parse_args(argv)
    try:
        if args.command == "rule":
            return _rule(args)
        if args.command == "verify":
            from hyblint.verify import command as verify_command
            return verify_command.run(args)
        if args.command == "clean":
            return _clean(args)
        if args.command == "lsp":
            from hyblint.lsp import serve
            return serve()
        if process_ends:
            # A check allocates much and leaves little garbage in cycles; with the collector on,
            # its passes over everything the run holds (texts, trees, the index) cost a large
            # tree's check a twentieth of its time. The process ends with it: nothing is lost.
            gc.disable()
        return _check(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 1
    except WorkerError as exc:  # a bug, reported with the worker's own traceback
        print("hyblint: error: a check failed in a worker process; please report it with this:\n%s" % exc,
              file=sys.stderr)
        return 2


def entry() -> None:
    """The console script and `python -m hyblint` (after `early.entry`): `main`, then an exit that
    does not tear the interpreter down object by object, which after a check of a large tree costs
    more than reporting it. Everything hyblint writes is written by then: files atomically, caches
    saved, worker processes stopped; the standard streams are flushed here."""
    code = main(process_ends=True)
    stop_checkers()  # (started for a run that never reached the files)
    for stream in (sys.stdout, sys.stderr):
        if stream.closed:  # the language server closes its output at `exit`: nothing is left in it
            continue
        try:
            stream.flush()
        except (BrokenPipeError, OSError, ValueError):
            code = code or 1
    from hyblint import compiled_once
    compiled_once.end()  # (the code its dataclasses generated, kept for the next start)
    os._exit(code)


def _rule(args) -> int:
    from hyblint.rules import ALL_RULES, get_rule
    if args.all or not args.code:
        print("%-8s %-22s %-8s %-9s %s" % ("code", "name", "severity", "fix", "default"))
        for code, rule in ALL_RULES.items():
            print("%-8s %-22s %-8s %-9s %s" % (code, rule.name, rule.severity.value, rule.fix_availability,
                                              "yes" if rule.default_selected else "no"))
        return 0
    try:
        rule = get_rule(args.code)
    except KeyError:
        print("hyblint: error: unknown rule %r (see `hyblint rule --all`)" % args.code, file=sys.stderr)
        return 2
    print(rule.render_docs())
    return 0


def _clean(args) -> int:
    from hyblint.cache import cache_folder, clean
    from hyblint.config import ConfigError
    # the project is found as `hyblint check .` finds it
    args.paths, args.select, args.extend_select, args.ignore = ["."], None, [], []
    try:
        _, root, _ = _settings(args)
    except ConfigError as exc:
        print("hyblint: error: %s" % exc, file=sys.stderr)
        return 2
    folder = cache_folder(root, args.cache_dir)
    print("Removed %s" % folder if clean(folder) else "No cache at %s" % folder, file=sys.stderr)
    return 0


def _settings(args, paths=None):
    """The run's settings and root (those of its first path, or of `paths`), and every file's."""
    from hyblint.config import ConfigError, unknown_selectors
    from hyblint.projects import Projects
    if args.config and not os.path.lexists(args.config):
        raise ConfigError("%s: no such file" % args.config)
    for option in ("select", "extend_select", "ignore"):
        unknown = unknown_selectors(getattr(args, option) or ())
        if unknown:
            raise ConfigError("--%s: unknown rule code(s): %s (see `hyblint rule --all`)"
                              % (option.replace("_", "-"), ", ".join(unknown)))
    projects = Projects(lambda settings: _overridden(settings, args), Path(args.config) if args.config else None)
    first = (paths or args.paths or ["."])[0]
    settings, root = projects.of_path(first)
    return settings, root, projects


def _overridden(settings, args):
    """A configuration's settings with the command line's flags applied."""
    if getattr(args, "respect_gitignore", None) is not None:
        settings = replace(settings, respect_gitignore=args.respect_gitignore)
    if args.select is not None:
        settings = replace(settings, select=tuple(args.select))
    if args.extend_select:
        settings = replace(settings, extend_select=settings.extend_select + tuple(args.extend_select))
    if args.ignore:
        settings = replace(settings, ignore=settings.ignore + tuple(args.ignore))
    if getattr(args, "fixable", None) is not None:
        settings = replace(settings, fixable=tuple(args.fixable))
    if getattr(args, "unfixable", None):  # like --fixable and as in ruff, the flag replaces the configured list
        settings = replace(settings, unfixable=tuple(args.unfixable))
    return settings


def _stdin_name(args) -> Optional[str]:
    """The name of the file read from standard input, or None when the paths are read."""
    if args.paths == ["-"] or (args.stdin_filename and args.paths in ([], ["."], ["-"])):
        return args.stdin_filename or "-"
    return None


def _with_report_file(args, run) -> int:
    """Run `run(fixed_out)` with what it prints as the report going to --output-file when given;
    `fixed_out` stays standard output, for the fixed text of a buffer read from standard input."""
    fixed_out = sys.stdout
    if not args.output_file:
        return run(fixed_out)
    import contextlib
    try:
        folder = os.path.dirname(args.output_file)
        if folder:
            os.makedirs(folder, exist_ok=True)
        handle = open(args.output_file, "w", encoding="utf-8")
    except OSError as exc:
        print("hyblint: error: %s: cannot write the report: %s" % (args.output_file, exc.strerror or exc),
              file=sys.stderr)
        return 2
    with handle, contextlib.redirect_stdout(handle):
        return run(fixed_out)


def _render(args, shown, sources, stream) -> str:
    from hyblint.report import FORMATS
    text_format = args.format in ("text", "full", "concise")
    if not args.unsafe_fixes and text_format:
        shown = [d if d.fix is None or d.fix.applicability.value == "safe" else replace(d, fix=None) for d in shown]
    output = FORMATS[args.format](shown, sources)
    if text_format and args.quiet:
        output = "\n".join(line for line in output.splitlines()
                           if line and not line.startswith(("Found ", "[*] ", "All checks", "(")))
    if text_format and output:
        from hyblint.color import colored, wants_color
        if wants_color(args.color, stream):
            output = colored(output)
    return output


def _exit_code(args, diagnostics, fixed_files: int) -> int:
    """ruff's: --exit-zero wins; --fix-only fails only on fixes with --exit-non-zero-on-fix."""
    if args.exit_zero:
        return 0
    if args.exit_non_zero_on_fix and fixed_files:
        return 1
    if args.fix_only:
        return 0
    return 1 if diagnostics else 0


def _check(args) -> int:
    if args.fix_only:
        args.fix = True
    return _with_report_file(args, lambda fixed_out: _check_to(args, fixed_out))


def _check_to(args, fixed_out) -> int:
    from hyblint.config import ConfigError
    from hyblint.discovery import discover_in_projects
    from hyblint.fix_policy import without_refused_fixes
    from hyblint.lint import lint_files
    from hyblint.report.text import statistics

    stdin_name = _stdin_name(args)
    missing = [p for p in args.paths if not os.path.lexists(p)] if stdin_name is None else []
    try:
        settings, root, projects = _settings(args, [stdin_name] if stdin_name and stdin_name != "-" else None)
        if args.show_settings:
            from hyblint.show_settings import render
            print(render(settings, projects.config_of(stdin_name or (args.paths[0] if args.paths else ".")), root))
            return 0
        if stdin_name is not None:
            return _check_stdin(args, stdin_name, settings, root, fixed_out)
        # each directory with its own project's exclusions (a nested pyproject.toml's below it)
        paths = discover_in_projects([raw for raw in args.paths if raw not in missing], projects.of_path,
                                     args.force_exclude)
        configured = {path: projects.of_path(path) for path in paths}
    except ConfigError as exc:
        print("hyblint: error: %s" % exc, file=sys.stderr)
        return 2
    if missing:
        for path in missing:
            print("hyblint: error: %s: no such file or directory" % path, file=sys.stderr)
        return 2
    if args.show_files:
        for path in paths:
            print(path)
        return 0
    cache = None
    if not args.no_cache and not (args.fix or args.diff or args.add_noqa):
        from hyblint.cache import Cache, cache_folder
        cache = Cache(cache_folder(root, args.cache_dir), settings)
    run = lint_files(paths, settings, root, cache, configured)
    if cache is not None:
        cache.save()
    run.diagnostics = without_refused_fixes(run.diagnostics, settings)
    if args.add_noqa:
        from hyblint.noqa_files import add_noqa_to_files
        return add_noqa_to_files(run)

    diagnostics, sources, changed_files, unwritten = run.diagnostics, run.sources, 0, 0
    if args.fix or args.diff:
        diagnostics, sources, changed_files, unwritten = _apply_fixes(args, run, settings, configured)
    if args.diff:
        if run.input_errors:
            return 2
        return 1 if changed_files else 0
    if args.fix_only:
        pass  # what remains is neither reported nor a failure
    elif args.statistics:
        if diagnostics:
            print(statistics(diagnostics))
    else:
        output = _render(args, diagnostics, sources, sys.stdout)
        if output:
            print(output)
    if run.input_errors or unwritten:
        return 2
    return _exit_code(args, diagnostics, changed_files)


def _check_stdin(args, name, settings, root, fixed_out) -> int:
    from hyblint.discovery import discover
    from hyblint.files import InputError
    from hyblint.lint import input_error_diagnostic
    from hyblint.report.text import statistics
    from hyblint import stdin
    if args.add_noqa:
        print("hyblint: error: --add-noqa edits files; it cannot read standard input", file=sys.stderr)
        return 2
    try:
        source = stdin.read_stdin(name)
    except InputError as exc:
        print(_render(args, [input_error_diagnostic(exc)], {}, sys.stderr), file=sys.stderr)
        return 2
    if args.force_exclude and name != "-" and not discover([name], settings.exclude + settings.extend_exclude,
                                                           root, True, settings.respect_gitignore):
        if args.fix:
            fixed_out.write(source.text)  # an editor that piped the buffer gets it back unchanged
        return 0
    diagnostics = stdin.check_buffer(source, settings, root)
    if any(d.code.startswith("HYB9") for d in diagnostics) and not args.fix:
        print(_render(args, diagnostics, {name: source}, sys.stdout))
        return 2
    fixed = source.text
    if args.fix or args.diff:
        fixed, diagnostics, _ = stdin.fix_buffer(source, diagnostics, settings, root, args.unsafe_fixes)
    if args.diff:
        stdin.show_diff(source, fixed, sys.stdout)
        return 1 if fixed != source.text else 0
    report = sys.stdout
    if args.fix:
        fixed_out.write(fixed)
        fixed_out.flush()
        report = sys.stderr if sys.stdout is fixed_out else sys.stdout  # the fixed text owns stdout
    if not args.fix_only:
        output = (statistics(diagnostics) if args.statistics else
                  _render(args, diagnostics, {name: stdin.fixed_source(source, fixed)}, report))
        if output:
            print(output, file=report)
    if any(d.code.startswith("HYB9") for d in diagnostics):
        return 2
    return _exit_code(args, diagnostics, 1 if fixed != source.text else 0)


def _apply_fixes(args, run, settings, configured):
    """Fix (or, with --diff, show the fixes of) every file with something to fix. Returns what
    remains to report, the sources to show it with (the fixed text of the files written), the
    number of files changed and the number that could not be written."""
    from hyblint.fixer import fixable
    from hyblint.fixing import fix_all
    from hyblint.lint import hierarchy_of, package_of, settings_for

    extra = hierarchy_of(run.sources, settings)
    package = package_of(run.sources)  # the checks between fixes see what the first check saw
    by_file = {}
    for d in run.diagnostics:
        by_file.setdefault(d.filename, []).append(d)
    remaining = [d for d in run.diagnostics if d.filename not in run.sources]
    jobs = []
    for path in run.sources:
        found = by_file.get(path, [])
        if any(d.code.startswith("HYB9") for d in found) or not any(fixable(d, args.unsafe_fixes) for d in found):
            remaining.extend(found)
        else:
            jobs.append((path, run.sources[path], settings_for(path, *configured[path]), extra, args.unsafe_fixes,
                         found, not args.diff))
    sources = dict(run.sources)
    changed = fixed = unwritten = announced = revealed = 0
    for job, done in zip(jobs, fix_all(jobs, package)):
        path, source = done.path, job[1]
        for diagnostic, reason in done.dropped:
            print("hyblint: warning: %s:%d:%d: %s fix not applied: %s" % (
                path, diagnostic.location.row, diagnostic.location.column, diagnostic.code, reason),
                file=sys.stderr)
        if done.error:
            # the file is as it was: so are its diagnostics
            print("hyblint: error: %s: %s" % (path, done.error), file=sys.stderr)
            remaining.extend(job[5])
            unwritten += 1
            continue
        remaining.extend(done.remaining)
        announced += done.announced
        if not done.changed:
            continue
        changed += 1
        fixed += len(done.applied)
        revealed += done.revealed
        if args.diff:
            sys.stdout.writelines(_patch_lines(source.text, done.source, path))
            continue
        if done.source is not None:
            sources[path] = replace(source, text=done.source)  # what the remaining diagnostics refer to
        if args.show_fixes:
            for applied in done.applied:
                print("Fixed %s:%d:%d: %s %s" % (path, applied.row, applied.column, applied.code, applied.message))
    note = _count_note(announced, fixed, revealed)
    if args.diff:
        print("Would fix %d error%s%s." % (fixed, "" if fixed == 1 else "s", note) if fixed
              else "No errors would be fixed%s." % note, file=sys.stderr)
    elif changed and not args.quiet:
        print("Fixed %d error%s in %d file%s%s." % (fixed, "" if fixed == 1 else "s", changed,
                                                   "" if changed == 1 else "s", note), file=sys.stderr)
    if unwritten:
        print("hyblint: error: %d fixed file%s could not be written; %s diagnostics are reported as they are"
              % (unwritten, "" if unwritten == 1 else "s", "its" if unwritten == 1 else "their"), file=sys.stderr)
    remaining.sort(key=lambda d: d.sort_key())
    return remaining, sources, changed, unwritten


def _patch_lines(before: str, after: str, path: str):
    """A unified diff that `patch` and `git apply` accept: a last line without a newline is
    followed by the marker that says so, rather than running into the next line of the diff."""
    import difflib
    for line in difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                     fromfile=path, tofile=path):
        if line.endswith("\n"):
            yield line
        else:
            yield line + "\n\\ No newline at end of file\n"


def _count_note(announced: int, fixed: int, revealed: int) -> str:
    """Why the number of fixes differs from the number of fixable diagnostics the check counted:
    fixes reveal others (an index inside a call that another rule rewrites), and a fix may be
    dropped (it would not parse) or made moot by another."""
    unapplied = announced - (fixed - revealed)
    if not revealed and not unapplied:
        return ""
    parts = []
    if revealed:
        parts.append("%d more appeared after applying fixes" % revealed)
    if unapplied:
        parts.append("%d %s not applied" % (unapplied, "was" if unapplied == 1 else "were"))
    return " (the check counted %d fixable: %s)" % (announced, ", ".join(parts))


if __name__ == "__main__":
    sys.exit(main())
