"""Fix the files of a run: each in a worker process when there are several, written where fixed.

A file's fix starts from the diagnostics the check already found (it is not checked again) and is
written by the worker that computed it, so that both the fixing and the writing of a tree run in
parallel. A file that cannot be written keeps its text and its diagnostics, with the reason.

The workers start holding every job (inherited when they fork), so that a job travels as its
number; what comes back is what the report needs, not the fix's edits: on a tree with many fixes,
pickling those cost this process as much as the fixing costs a worker.
"""
from __future__ import annotations

import gc
import os
from dataclasses import dataclass
from typing import FrozenSet, List, NamedTuple, Optional, Sequence, Tuple

from hyblint.diagnostics import Diagnostic
from hyblint.files import SourceFile
from hyblint.settings import Settings

# Below this many files to fix, starting worker processes costs more than it saves: a fix costs a
# few checks of its file, so fewer files than for a check pay for them.
PARALLEL_THRESHOLD = 6


class AppliedFix(NamedTuple):
    """A fix applied, as `--show-fixes` reports it."""

    code: str
    row: int
    column: int
    message: str


@dataclass
class FileFix:
    """What the run reports of a file's fix."""

    path: str
    source: Optional[str]  # the fixed text; None once written with nothing left to show in it
    applied: List[AppliedFix]
    remaining: List[Diagnostic]  # what the fixed text still has
    dropped: List[Tuple[Diagnostic, str]]  # fixes not applied, and why
    announced: int  # fixable diagnostics of the input
    revealed: int  # of the fixes applied, those that appeared only after others were
    written: bool = False
    error: Optional[str] = None  # why the fixed text was not written (the file is as it was)

    @property
    def changed(self) -> bool:
        return bool(self.applied)


# path, its text as read, its settings, the run's hybrid classes, --unsafe-fixes, its diagnostics,
# whether to write
FixJob = Tuple[str, SourceFile, Settings, FrozenSet[str], bool, List[Diagnostic], bool]


# The run's package index, which the checks between fixes read. Each worker receives it once when
# it starts (inherited by fork, pickled by spawn), so that it does not travel with every job.
_PACKAGE = None


def use_package(package) -> None:
    global _PACKAGE
    _PACKAGE = package


def fix_one(job: FixJob) -> FileFix:
    from hyblint.files import write_source
    from hyblint.fixer import fix_source
    path, source, settings, extra, unsafe, diagnostics, write = job
    result = fix_source(source.text, path, settings, unsafe=unsafe, extra_hybrid_classes=extra,
                        package=_PACKAGE, diagnostics=diagnostics)
    applied = [AppliedFix(d.code, d.location.row, d.location.column, d.fix.message) for d in result.applied]
    done = FileFix(path, result.source, applied, result.remaining, result.dropped, result.announced,
                   result.revealed)
    if write and result.changed:
        try:
            write_source(path, source, result.source)
            done.written = True
        except OSError as exc:
            done.error = "cannot write: %s" % (getattr(exc, "reason", None) or exc.strerror or exc)
    if done.written and not done.remaining:
        done.source = None
    return done


# The jobs of the run, in a worker: inherited when it forks (pickled once when it is spawned).
_JOBS: Sequence[FixJob] = ()


def fix_numbered(index: int) -> FileFix:
    return fix_one(_JOBS[index])


def start_fixer(package, jobs: Sequence[FixJob] = ()) -> None:
    """A fixing worker's setup. The worker holds what its parent held when it forked (every file's
    text and diagnostics, the index): frozen out of the garbage collector's scans, which would go
    over all of it again and again (copying its pages), a cost that grows with the tree."""
    global _JOBS
    use_package(package)
    _JOBS = jobs
    gc.freeze()


def fix_all(jobs: Sequence[FixJob], package=None) -> List[FileFix]:
    """The jobs' outcomes, in the jobs' order. `package`: the run's index."""
    from hyblint.lint import _Crew, _collector_paused
    use_package(package)
    count = min(os.cpu_count() or 1, 8)
    if len(jobs) < PARALLEL_THRESHOLD or count < 2:
        with _collector_paused():  # (a few files: the collector catches up once they are fixed)
            return [fix_one(job) for job in jobs]
    import functools
    with _Crew(min(count, len(jobs)), functools.partial(start_fixer, package, jobs)) as crew, _collector_paused():
        done = dict(crew.map(fix_numbered, range(len(jobs)), size=lambda index: len(jobs[index][1].text)))
    return [done[index] for index in range(len(jobs))]
