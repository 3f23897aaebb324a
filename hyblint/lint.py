"""Check a set of files: read, scan the class hierarchy across them, check (cached, in parallel)."""
from __future__ import annotations

import contextlib
import fnmatch
import gc
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Dict, FrozenSet, List, Sequence, Tuple

from hyblint.analysis.hierarchy import hybrid_class_names, scan_class_bases
from hyblint.diagnostics import Diagnostic, Location, Severity
from hyblint.files import InputError, SourceFile, read_source
from hyblint.settings import Settings

# Below this many files to parse, starting worker processes costs more than it saves.
PARALLEL_THRESHOLD = 24
# With this many files listed, worker processes are started before the files are read, so that
# they import the checker (libcst alone takes ~0.2 s) while this process reads and scans.
EARLY_POOL_THRESHOLD = 200


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
    scans = [scan for source in sources.values() if "class" in source.text
             for scan in scan_class_bases(source.text)]
    return hybrid_class_names(scans, settings.hybrid_bases)


def _check_one(job: Tuple[str, str, Settings, FrozenSet[str]]) -> List[Diagnostic]:
    from hyblint.engine import check_source
    path, text, settings, extra = job
    return check_source(text, path, settings, extra_hybrid_classes=extra)


def _start_worker() -> None:
    # Checking builds many short-lived trees without reference cycles; the cycle collector would
    # only scan them again and again. A worker lives for one run.
    gc.disable()
    import hyblint.engine  # noqa: F401  (imported once per worker, while the parent reads files)


@contextlib.contextmanager
def _collector_paused():
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _pool(workers: int) -> ProcessPoolExecutor:
    methods = multiprocessing.get_all_start_methods()
    # fork: a worker starts with what this process has imported, in milliseconds
    context = multiprocessing.get_context("fork") if "fork" in methods else None
    return ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_start_worker)


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


def lint_files(paths: Sequence[str], settings: Settings, root: Path, cache=None) -> LintRun:
    workers = min(os.cpu_count() or 1, 8)
    pool = None
    cold = cache is None or len(cache.entries) < len(paths) // 2
    if cold and len(paths) >= EARLY_POOL_THRESHOLD and workers > 1:
        pool = _pool(workers)
        pool.submit(int)  # starts the workers now
    try:
        with _collector_paused():
            return _lint_files(paths, settings, root, cache, pool, workers)
    finally:
        if pool is not None:
            pool.shutdown()


def _lint_files(paths, settings, root, cache, pool, workers) -> LintRun:
    sources, errors = read_all(paths)
    extra = hierarchy_of(sources, settings)
    run = LintRun(sources=sources, files_checked=len(paths))
    run.diagnostics.extend(errors)
    pending = []
    for path, source in sources.items():
        own = settings_for(path, settings, root)
        cached = cache.get(path, source.text, extra, own) if cache is not None else None
        if cached is not None:
            run.diagnostics.extend(cached)
        else:
            pending.append((path, source.text, own, extra))
    # A file that holds no hybrid_forward has nothing in scope: it is not even parsed.
    heavy = [job for job in pending if "hybrid_forward" in job[1]]
    results: List[Tuple[tuple, List[Diagnostic]]] = [(job, []) for job in pending if "hybrid_forward" not in job[1]]
    if len(heavy) >= PARALLEL_THRESHOLD and workers > 1:
        if pool is None:
            pool = _pool(workers)
        # one file per task, largest first: the processes finish together
        heavy.sort(key=lambda job: -len(job[1]))
        results.extend(zip(heavy, pool.map(_check_one, heavy, chunksize=1)))
    else:
        results.extend((job, _check_one(job)) for job in heavy)
    for job, diagnostics in results:
        if cache is not None:
            cache.put(job[0], job[1], extra, job[2], diagnostics)
        run.diagnostics.extend(diagnostics)
    run.diagnostics.sort(key=Diagnostic.sort_key)
    return run
