"""Verify many modules: each in its own worker process, several at once (`--jobs`), with a progress
line on a terminal, and answers kept in a cache keyed by what decides them (the module's text and
its fix, the project modules it imports, the runtime's code, the options), so that a second run
re-verifies only what changed."""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import sys
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Iterator, List, Optional, Sequence, Tuple

from hyblint.verify import runner
from hyblint.verify.local_imports import imports_digest

# (path, source, fixed source or None, changed definitions, {definition: by-design codes})
Job = Tuple[Path, str, Optional[str], List[str], dict]
# Answers that say nothing lasting about the module: run it again next time.
TRANSIENT = (runner.TIMEOUT, runner.CRASHED)
_HERE = Path(__file__).resolve().parent
# The files a worker runs: the worker and the siblings it loads by path; a change to any changes answers.
WORKER_FILES = ("worker.py", "schedule.py", "discovery.py")
# hyblint's own code: the static diagnostics that verify judges come from its rules and analysis.
LINT_FOLDER = _HERE.parent


def _files_digest(folder: Path, pattern: str) -> str:
    """Names, sizes and modification times of the files (cheap: no file is read)."""
    digest = hashlib.sha256()
    for path in sorted(folder.rglob(pattern)):
        stat = path.stat()
        digest.update(("%s %d %d\n" % (path.relative_to(folder), stat.st_size, stat.st_mtime_ns)).encode())
    return digest.hexdigest()


def fingerprint(options: runner.VerifyOptions, extend_select: str) -> str:
    """What, besides a module's text, decides its answer: hyblint's version and code (its rules give
    the diagnostics judged; the worker's files run the module), the runtime (its code) or the
    --python interpreter, and the options."""
    from hyblint import __version__
    digest = hashlib.sha256()
    for name in WORKER_FILES:
        digest.update((_HERE / name).read_bytes())
    if options.python:
        stat = os.stat(options.python)
        backend = "python %s %d" % (options.python, stat.st_mtime_ns)
    else:
        backend = "runtime " + _files_digest(runner.PROJECT_ROOT / "runtime", "*.py")
    from hyblint.config import find_config
    config = find_config(["."])  # the static diagnostics follow the configuration
    settings = dict(config=config and "%s %d" % (config.resolve(), config.stat().st_mtime_ns),
                    shapes=options.shapes, fix=options.fix, unsafe=options.unsafe_fixes, discover=options.discover,
                    timeout=options.timeout, seed=options.seed, rtol=options.rtol, atol=options.atol,
                    extend_select=extend_select)
    lint = _files_digest(LINT_FOLDER, "*.py")
    digest.update(json.dumps([__version__, backend, lint, settings], sort_keys=True, default=str).encode())
    return digest.hexdigest()


class ResultCache:
    """Block results of a module, one JSON file per key, under `folder`."""

    def __init__(self, folder: Optional[Path], fingerprint_: str):
        self.folder = folder
        self.fingerprint = fingerprint_

    def key(self, job: Job) -> str:
        path, source, fixed, changed, by_design = job
        # the project modules it imports decide its answer as much as its own text does
        imported = imports_digest(path, source)
        text = json.dumps([self.fingerprint, str(path.resolve()), source, fixed, changed, by_design, imported],
                          sort_keys=True)
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()

    def get(self, key: str) -> Optional[Tuple[List[runner.BlockResult], list]]:
        """(block results, static diagnostics) of a module verified before, or None."""
        from hyblint.cache import _diagnostic_from_json
        if self.folder is None:
            return None
        try:
            stored = json.loads((self.folder / key[:2] / (key + ".json")).read_text(encoding="utf-8"))
            return ([runner.BlockResult(**entry) for entry in stored["blocks"]],
                    [_diagnostic_from_json(d) for d in stored["diagnostics"]])
        except (OSError, ValueError, TypeError, KeyError):
            return None

    def put(self, key: str, results: Sequence[runner.BlockResult], diagnostics: list) -> None:
        from hyblint.cache import _diagnostic_to_json
        if self.folder is None or any(r.status in TRANSIENT for r in results):
            return
        folder = self.folder / key[:2]
        try:
            folder.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=folder, suffix=".tmp")
            blocks = [dict(dataclasses.asdict(r), diagnostics=[]) for r in results]
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                json.dump({"blocks": blocks, "diagnostics": [_diagnostic_to_json(d) for d in diagnostics]}, out)
            os.replace(temporary, folder / (key + ".json"))  # whole or not at all, for a reader beside
        except OSError:
            pass  # a cache that cannot be written only costs time


class Progress:
    """`12/45 modules` on one line of a terminal; nothing when stderr is not one."""

    def __init__(self, total: int, stream=None):
        self.stream = stream or sys.stderr
        self.total = total
        self.shown = total > 1 and getattr(self.stream, "isatty", lambda: False)()
        self.done = 0
        self.lock = threading.Lock()  # modules finish in worker threads

    def step(self, *_ignored) -> None:
        with self.lock:
            self.done += 1
            if self.shown:
                self.stream.write("\rverify: %d/%d modules" % (self.done, self.total))
                self.stream.flush()

    def close(self) -> None:
        if self.shown:
            self.stream.write("\r\033[K")
            self.stream.flush()


def verify_all(jobs: Sequence[Job], options: runner.VerifyOptions, cache: ResultCache, workers: int,
               progress: Optional[Progress] = None
               ) -> Iterator[Tuple[Job, str, List[runner.BlockResult], Optional[list]]]:
    """(job, its cache key, its block results, its static diagnostics when the cache had them), in
    the jobs' order; the modules not in the cache run in up to `workers` worker processes at once.
    The caller stores what it computes with `cache.put`. An InterpreterError stops the run."""
    progress = progress or Progress(len(jobs))
    keys = [cache.key(job) for job in jobs]
    known = [cache.get(key) for key in keys]

    def verify(job: Job) -> List[runner.BlockResult]:
        path, source, fixed, changed, by_design = job
        return runner.verify_module(path, source, fixed, options, changed, by_design)

    pool = ThreadPoolExecutor(max_workers=max(1, workers))  # threads: each waits on its own process
    try:
        futures = []
        for job, hit in zip(jobs, known):
            if hit is not None:
                progress.step()
                futures.append(None)
            else:
                futures.append(pool.submit(verify, job))
                futures[-1].add_done_callback(progress.step)
        for job, key, hit, future in zip(jobs, keys, known, futures):
            if hit is None:
                yield job, key, future.result(), None
            else:
                yield job, key, hit[0], hit[1]
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        progress.close()
