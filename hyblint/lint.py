"""Check a set of files: read, scan the class hierarchy across them, check (cached, in parallel)."""
from __future__ import annotations

import fnmatch
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
    # Files that hold no hybrid_forward are cheap; only the others are worth other processes.
    heavy = [job for job in pending if "hybrid_forward" in job[1]]
    light = [job for job in pending if "hybrid_forward" not in job[1]]
    results: List[Tuple[tuple, List[Diagnostic]]] = [(job, _check_one(job)) for job in light]
    workers = min(os.cpu_count() or 1, 8)
    if len(heavy) >= PARALLEL_THRESHOLD and workers > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            # one file per task, largest first: the two processes finish together
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
