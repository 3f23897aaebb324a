"""Check the `ast` screen on real code: screening must never change what a check reports.

    python3 tools/check_screen.py DIR [--select CODES]

Checks every Python file under DIR that holds a hybrid_forward twice, with the screen and with
every method sent to libcst, and compares the diagnostics; and the unscreened check with one that
takes the classes from Python's tree and parses the whole module (triage must read the text as
Python's tokenizer does). Prints how many methods the screen
cleared, and every file where the two checks differ (a screen that clears a method some rule
reports in: the screen must learn what that rule reports on). Exits 1 when any file differs.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from hyblint import engine, triage
from hyblint.files import InputError, read_source
from hyblint.lint import hierarchy_of, package_of
from hyblint.settings import Settings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory")
    parser.add_argument("--select", default=None, help="rules to enable, comma separated (default: the defaults)")
    args = parser.parse_args()
    settings = Settings(select=tuple(args.select.split(","))) if args.select else Settings()
    sources = {}
    for path in sorted(Path(args.directory).rglob("*.py")):
        try:
            sources[str(path)] = read_source(path)
        except InputError:
            continue
    extra = hierarchy_of(sources, settings)
    package = package_of(sources)  # the index: callers, children and helpers, as a run sees them
    screen = triage.may_report
    methods = cleared = differing = 0
    for path, source in sources.items():
        if "hybrid_forward" not in source.text:
            continue
        first = engine.with_context(triage.triage(source.text, path, settings, extra_hybrid_classes=extra), package)
        engine._SNIPPET_CACHE.clear()
        screened = engine.finish(first)
        triage.may_report = lambda *args, **kwargs: True
        triage._VERDICTS.clear()
        try:
            everything = engine.with_context(
                triage.triage(source.text, path, settings, extra_hybrid_classes=extra), package)
            engine._SNIPPET_CACHE.clear()
            unscreened = engine.finish(everything)
        finally:
            triage.may_report = screen
            triage._VERDICTS.clear()
        engine._SNIPPET_CACHE.clear()
        exact = engine.finish(engine.with_context(
            triage.triage(source.text, path, settings, extra_hybrid_classes=extra, exact=True), package))
        if exact != unscreened:
            differing += 1
            print("%s: triage %d diagnostics, from Python's tree %d" % (path, len(unscreened), len(exact)))
        methods += len(everything.snippets)
        cleared += len(everything.snippets) - len(first.snippets)
        if screened != unscreened:
            differing += 1
            print("%s: screened %d diagnostics, unscreened %d" % (path, len(screened), len(unscreened)))
    print("%d methods, %d cleared by the screen; %d files differ" % (methods, cleared, differing))
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
