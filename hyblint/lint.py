"""Check a set of files: read, scan the class hierarchy across them, check (cached, in parallel)."""
from __future__ import annotations

import contextlib
import fnmatch
import functools
import gc
import os
from collections import deque
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Dict, FrozenSet, List, Optional, Sequence, Tuple, Union

from hyblint import early
from hyblint.analysis.hierarchy import hybrid_class_names, scan_class_bases
from hyblint.analysis.index import Package
from hyblint.diagnostics import Diagnostic, Location, Severity
from hyblint.files import InputError, SourceFile, read_source
from hyblint.settings import Settings
from hyblint.triage import Triage, triage, with_context
from hyblint.workers import STARTING, Worker, run_all, start_context, wait_for_any

# Below this many files to check, starting worker processes costs more than it saves.
PARALLEL_THRESHOLD = 24
# With this many files listed (and a cold cache), the workers start before the files are read, so
# that checkers import libcst while this process reads and scans.
EARLY_START_THRESHOLD = 200
# An idle screener takes check jobs too (importing libcst first) only when this many characters of
# methods wait for a checker: below, the import (~0.1 s) costs more than the help.
STEAL_THRESHOLD = 100_000
# The work a worker holds at once, so that the next job is there when it ends one, however long
# this process is busy with a file of its own before it answers (reading a large file's context
# takes it tens of ms): up to 80 ms of it (as characters screened; a character checked with libcst
# costs twenty), and never more than a share of all that is left, so that the workers do not hold
# the last jobs while this process waits for them (on the public corpus, two CPUs: four jobs of any
# size left the checker waiting a tenth of its time).
QUEUED_WORK = 600_000
LIBCST_COST = 20
QUEUED_JOBS = 16


@dataclass
class LintRun:
    diagnostics: List[Diagnostic] = field(default_factory=list)
    sources: Dict[str, SourceFile] = field(default_factory=dict)
    files_checked: int = 0

    @property
    def input_errors(self) -> List[Diagnostic]:
        return [d for d in self.diagnostics if d.code.startswith("HYB9")]


def input_error_diagnostic(error: InputError) -> Diagnostic:
    return Diagnostic(error.code, error.reason, error.path, Location(1, 1), Location(1, 1), Severity.ERROR)


def read_all(paths: Sequence[str]):
    sources: Dict[str, SourceFile] = {}
    errors: List[Diagnostic] = []
    for path in paths:
        try:
            sources[path] = read_source(path)
        except InputError as exc:
            errors.append(input_error_diagnostic(exc))
    return sources, errors


def hierarchy_of(sources: Dict[str, SourceFile], settings: Settings) -> FrozenSet[str]:
    scans = [scan for path, source in sources.items() if "class" in source.text
             for scan in scan_class_bases(source.text, path)]
    return hybrid_class_names(scans, settings.hybrid_bases)


def package_of(sources: Dict[str, SourceFile]) -> Package:
    """The index over the run's files that may define or call blocks."""
    return Package({path: source.text for path, source in sources.items()
                    if "class" in source.text or "forward" in source.text})


def _check_one(job: Tuple[str, str, Settings, FrozenSet[str]], package: Package) -> List[Diagnostic]:
    from hyblint.engine import check_source
    path, text, settings, extra = job
    return check_source(text, path, settings, extra_hybrid_classes=extra, package=package)


def _triage_one(job: Tuple[str, str, Settings, FrozenSet[str]]) -> Union[Triage, List[Diagnostic], tuple]:
    """What is left of a file for a checker, or, when nothing is, its diagnostics alone (the text,
    which this process has, need not travel back). A screener forked with the run's index reads
    what it knows of the file here too: (the triage with its context, what the index read)."""
    path, text, settings, extra = job
    first = triage(text, path, settings, extra_hybrid_classes=extra)
    if first.settled:
        return first.diagnostics
    if _PACKAGE is not None:
        with_context(first, _PACKAGE)
    # The text goes back without the file's own text, which the other side has (`_returned`): a
    # reply larger than the pipe holds would keep this worker waiting until it is read.
    first.source = ""
    return first if _PACKAGE is None else (first, _PACKAGE.noted())


def _returned(first: Triage, job: tuple) -> Triage:
    """A triage come back from a worker, with its file's text again."""
    first.source = job[1]
    return first


def _finish_one(first: Triage) -> List[Diagnostic]:
    from hyblint.engine import finish
    return finish(first)




# The run's index in a screener (inherited when it forks): None in the checkers, which fork
# before the files are read; what they triage, this process reads the index for.
_PACKAGE = None


def _start_screener(package: Package = None) -> None:
    global _PACKAGE
    _PACKAGE = package
    # Checking builds many short-lived trees without reference cycles; the cycle collector would
    # only scan them again and again. A worker lives for one run.
    gc.disable()


@contextlib.contextmanager
def _collector_paused():
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


class _Crew:
    """Screeners triage files and read the package index for what triage left; checkers finish
    it, and triage files when nothing waits for them (the index for those is read here). Half of
    the workers (at least one) are checkers. In a check, this process is one of the screeners: it
    holds the index and every text already, and would otherwise only wait (on two CPUs, a check
    runs one checker and no screener process)."""

    def __init__(self, count: int, setup: Optional[Callable[[], None]] = None, checkers: Sequence[Worker] = ()):
        """`setup`: run in each worker once it has started (picklable, for spawn); `checkers`: those
        started already (`early.start_checkers`), to take instead of starting new ones."""
        self.context = start_context()
        self.setup = setup
        self.screeners = max(1, count - max(1, count // 2))
        # checkers fork at once, to import libcst while this process reads the files; screeners
        # fork in `run`, with the index of the files read, so that they read it, not this process
        self.members = list(checkers) or [Worker(self.context, self._with_setup(early.start_checker), "check")
                                          for _ in range(max(1, count // 2))]

    def _with_setup(self, initializer):
        return initializer if self.setup is None else functools.partial(run_all, (initializer, self.setup))

    def _start_screeners(self, package: Optional[Package] = None, count: Optional[int] = None) -> None:
        if not any(member.kind == "screen" for member in self.members):
            start = self._with_setup(functools.partial(_start_screener, package))
            self.members += [Worker(self.context, start, "screen")
                             for _ in range(self.screeners if count is None else count)]

    def stop(self) -> None:
        for member in self.members:
            member.stop()

    def __enter__(self) -> "_Crew":
        return self

    def __exit__(self, *exc_info) -> None:
        self.stop()

    def run(self, jobs: List[tuple], package: Package) -> List[Tuple[tuple, List[Diagnostic]]]:
        if self.screeners > 1:
            # once here, not once per screener (with none, when the first file needs it: meanwhile
            # the checker has files to screen)
            package.prepare()
            self._start_screeners(package, self.screeners - 1)
        # largest first, here and in the workers, so that the small files even out the end (the
        # workers taking the smallest left this process most of the screening: on two CPUs, the
        # checker was idle a fifth of its time and the check took 5% longer)
        to_screen = deque(sorted(jobs, key=lambda job: -len(job[1])))
        to_finish: deque = deque()
        needs_context: deque = deque()  # triaged files whose methods left wait for the index
        waiting = 0  # characters of method text in to_finish
        unscreened = sum(len(job[1]) for job in to_screen)  # characters in to_screen
        held = {id(member): 0 for member in self.members}  # the work each worker holds
        results = []
        while True:
            for member in self.members:
                limit = min(QUEUED_WORK, (unscreened + LIBCST_COST * waiting) // (len(self.members) + 1))
                while len(member.jobs) < QUEUED_JOBS and (held[id(member)] < limit or member.job is None):
                    steal = member.kind == "screen" and not to_screen and waiting > STEAL_THRESHOLD
                    if to_finish and (member.kind == "check" or steal):
                        job, first = to_finish.popleft()
                        size = _method_text(first)
                        waiting -= size
                        member.send(_finish_one, first, (job, "finish", LIBCST_COST * size))
                        held[id(member)] += LIBCST_COST * size
                    elif to_screen:
                        job = to_screen.popleft()
                        unscreened -= len(job[1])
                        member.send(_triage_one, job, (job, "triage", len(job[1])))
                        held[id(member)] += len(job[1])
                    else:
                        break
            busy = any(member.job is not None for member in self.members)
            if needs_context:
                # What the package index knows is read here, where every file's text is, one file
                # at a time while the workers run, so that none waits for the next job meanwhile.
                job, first = needs_context.popleft()
                to_finish.append((job, with_context(first, package)))
                waiting += _method_text(first)
                ready = wait_for_any(self.members, timeout=0)
            elif to_screen:  # screened here, one file at a time, likewise
                job = to_screen.popleft()
                unscreened -= len(job[1])
                first = triage(job[1], job[0], job[2], extra_hybrid_classes=job[3])
                if first.settled:
                    results.append((job, first.diagnostics))
                else:
                    to_finish.append((job, with_context(first, package)))
                    waiting += _method_text(first)
                ready = wait_for_any(self.members, timeout=0)
            elif not busy:
                return results
            else:
                ready = wait_for_any(self.members)
            for member in ready:
                done, value = member.receive()
                if done is STARTING:
                    continue
                job, step, cost = done
                held[id(member)] -= cost
                if step != "triage" or isinstance(value, list):
                    results.append((job, value))
                elif isinstance(value, tuple):  # read with the index already
                    first, noted = value
                    package.note(noted)
                    to_finish.append((job, _returned(first, job)))
                    waiting += _method_text(first)
                else:
                    needs_context.append((job, _returned(value, job)))


    def map(self, function: Callable[[Any], Any], jobs: Sequence[Any],
            size: Callable[[Any], int]) -> List[Tuple[int, Any]]:
        """`function` of each job, on whichever worker is free, largest first (so that all end
        together): (the job's index, its result), in the order they finish."""
        self._start_screeners()
        waiting = deque(sorted(range(len(jobs)), key=lambda index: -size(jobs[index])))
        results: List[Tuple[int, Any]] = []
        while True:
            for member in self.members:
                if member.job is None and waiting:
                    index = waiting.popleft()
                    member.send(function, jobs[index], index)
            if all(member.job is None for member in self.members):
                return results
            for member in wait_for_any(self.members):
                index, value = member.receive()
                if index is not STARTING:
                    results.append((index, value))


def _method_text(first: Triage) -> int:
    return len(first.source) if first.whole_module else sum(len(s.text) for s in first.snippets)


def settings_for(path: str, settings: Settings, root: Path) -> Settings:
    """The settings of one file: per-file-ignores (globs relative to the config) join `ignore`."""
    if not settings.per_file_ignores:
        return settings
    candidate = Path(path)
    try:
        relative = candidate.resolve().relative_to(root).as_posix()
    except ValueError:
        relative = candidate.as_posix()
    extra: Tuple[str, ...] = ()
    for pattern, codes in settings.per_file_ignores:
        if fnmatch.fnmatch(relative, pattern) or fnmatch.fnmatch(candidate.name, pattern):
            extra += codes
    return replace(settings, ignore=settings.ignore + extra) if extra else settings


def lint_files(paths: Sequence[str], settings: Settings, root: Path, cache=None,
               configured: Optional[Dict[str, Tuple[Settings, Path]]] = None) -> LintRun:
    """`configured`: each path's own (settings, root), where they are not the run's."""
    count = min(os.cpu_count() or 1, 8)
    cold = cache is None or len(cache.entries) < len(paths) // 2
    started = early.take_checkers()  # (by the console script, before it read the command line)
    if cold and len(paths) >= EARLY_START_THRESHOLD and count > 1:
        # forked now, before this process reads anything or starts a thread, unless they were earlier
        with _Crew(count, checkers=started) as crew, _collector_paused():
            return _lint_files(paths, settings, root, cache, crew, count, configured or {})
    for checker in started:
        checker.stop()
    with _collector_paused():
        return _lint_files(paths, settings, root, cache, None, count, configured or {})


def _unused_noqa(job, diagnostics: List[Diagnostic], extra, package) -> List[Diagnostic]:
    from hyblint.unused_noqa import with_unused_noqa
    path, text, settings, _ = job
    return with_unused_noqa(diagnostics, text, path, settings, extra, package)


def _lint_files(paths, settings, root, cache, crew, count, configured) -> LintRun:
    sources, errors = read_all(paths)
    extra = hierarchy_of(sources, settings)
    package = package_of(sources)
    run = LintRun(sources=sources, files_checked=len(paths))
    run.diagnostics.extend(errors)
    pending = []
    for path, source in sources.items():
        own = settings_for(path, *configured.get(path, (settings, root)))
        cached = cache.get(path, source.text, extra, own, package.texts) if cache is not None else None
        if cached is not None:
            run.diagnostics.extend(cached)
        else:
            pending.append((path, source.text, own, extra))
    # A file that holds no hybrid_forward has nothing in scope: it is not even parsed.
    heavy = [job for job in pending if "hybrid_forward" in job[1]]
    # (check_source, which _check_one runs, judges noqa comments itself; the others are judged here)
    results: List[Tuple[tuple, List[Diagnostic]]] = [(job, _unused_noqa(job, [], extra, package))
                                                     for job in pending if "hybrid_forward" not in job[1]]
    if len(heavy) >= PARALLEL_THRESHOLD and count > 1:
        if crew is not None:
            found = crew.run(heavy, package)
        else:
            with _Crew(count) as crew:
                found = crew.run(heavy, package)
        results.extend((job, _unused_noqa(job, diagnostics, extra, package)) for job, diagnostics in found)
    else:
        results.extend((job, _check_one(job, package)) for job in heavy)
    # A file's result may depend on what the index read of other files (its blocks' callers and
    # children): the cache keeps their contents' hashes with it.
    depends = sorted(package.used)
    for job, diagnostics in results:
        if cache is not None:
            cache.put(job[0], job[1], extra, job[2], diagnostics, depends if package.used_by(job[0]) else (),
                      package.texts)
        run.diagnostics.extend(diagnostics)
    run.diagnostics.sort(key=Diagnostic.sort_key)
    return run
