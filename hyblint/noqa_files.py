"""--add-noqa over the files of a run: each file with diagnostics gets the comments that silence
them, written as fixes are (atomically, only when the file is still what was read)."""
from __future__ import annotations

import sys

from hyblint.files import write_source
from hyblint.lint import LintRun
from hyblint.noqa_edit import add_noqa
from hyblint.unused_noqa import CODE as UNUSED_NOQA


def add_noqa_to_files(run: LintRun) -> int:
    by_file = {}
    for d in run.diagnostics:
        # an unused code is removed by its fix, not silenced by another
        if d.filename in run.sources and d.code != UNUSED_NOQA:
            by_file.setdefault(d.filename, []).append(d)
    added, failed = 0, 0
    for path, found in sorted(by_file.items()):
        source = run.sources[path]
        text, count, skipped = add_noqa(source.text, found)
        for row in skipped:
            print("hyblint: warning: %s:%d: no `# noqa` comment can end this line (inside a string or "
                  "continued with a backslash); its diagnostics stay" % (path, row), file=sys.stderr)
        if not count:
            continue
        try:
            write_source(path, source, text)
        except OSError as exc:
            print("hyblint: error: %s: %s" % (path, getattr(exc, "reason", None) or exc.strerror or exc),
                  file=sys.stderr)
            failed += 1
            continue
        added += count
    for d in run.input_errors:
        print("hyblint: error: %s: %s" % (d.filename, d.message), file=sys.stderr)
    print("Added %d noqa directive%s." % (added, "" if added == 1 else "s"), file=sys.stderr)
    return 2 if failed or run.input_errors else 0
