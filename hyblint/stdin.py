"""`hyblint check -` / `--stdin-filename PATH`: check a buffer piped in by an editor or a tool.

The buffer is reported under its filename and checked with the configuration that file would
have (its nearest pyproject.toml, its per-file-ignores). With --fix the fixed text goes to
standard output, the remaining diagnostics to standard error, as ruff does."""
from __future__ import annotations

import difflib
import sys
from dataclasses import replace
from pathlib import Path
from typing import List, TextIO, Tuple

from hyblint.diagnostics import Diagnostic
from hyblint.files import InputError, SourceFile, decode_source
from hyblint.settings import Settings

MAX_STDIN_BYTES = 10 * 1024 * 1024


def read_stdin(filename: str) -> SourceFile:
    raw = sys.stdin.buffer.read(MAX_STDIN_BYTES + 1)
    if len(raw) > MAX_STDIN_BYTES:
        raise InputError("HYB907", filename, "standard input too large: over the limit of %d MB"
                         % (MAX_STDIN_BYTES // (1024 * 1024)))
    return decode_source(raw, filename)


def check_buffer(source: SourceFile, settings: Settings, root: Path) -> List[Diagnostic]:
    from hyblint.engine import check_source
    from hyblint.fix_policy import without_refused_fixes
    from hyblint.lint import hierarchy_of, package_of, settings_for
    from hyblint.unused_noqa import with_unused_noqa
    sources = {source.path: source}
    own = settings_for(source.path, settings, root)
    extra, package = hierarchy_of(sources, settings), package_of(sources)
    found = check_source(source.text, source.path, own, extra_hybrid_classes=extra, package=package)
    found = with_unused_noqa(found, source.text, source.path, own, extra, package)
    return without_refused_fixes(found, own)


def fix_buffer(source: SourceFile, diagnostics: List[Diagnostic], settings: Settings, root: Path,
               unsafe: bool) -> Tuple[str, List[Diagnostic], int]:
    """The fixed text, the diagnostics that remain in it, and the number of fixes applied."""
    from hyblint.fixing import fix_all
    from hyblint.lint import hierarchy_of, package_of, settings_for
    sources = {source.path: source}
    job = (source.path, source, settings_for(source.path, settings, root), hierarchy_of(sources, settings),
           unsafe, diagnostics, False)  # False: nothing is written, the text goes back to the caller
    [done] = fix_all([job], package_of(sources))
    return done.source, done.remaining, len(done.applied)


def show_diff(source: SourceFile, fixed: str, out: TextIO) -> None:
    out.writelines(difflib.unified_diff(source.text.splitlines(keepends=True), fixed.splitlines(keepends=True),
                                        fromfile=source.path, tofile=source.path))


def fixed_source(source: SourceFile, fixed: str) -> SourceFile:
    return replace(source, text=fixed)
