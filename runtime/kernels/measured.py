"""Choices between kernels that compute the same values by different methods, made by timing them
where they run, in the model that runs them.

Which way of computing a convolution is fastest depends on the machine more than any rule written
on one can say: Winograd's F(2x2, 3x3) beat shifted products by 1.2-1.5x on DenseNet's 3x3 layers
(32 filters over 128 channels) on a Zen 4, whose products run on AVX-512; on a Zen 3 (AVX2) the
whole DenseNet-121 ran ~20% faster with shifted products. Nor does a method timed on its own say
how it runs between the layers of a model, whose data it finds in (or evicts from) the caches:
on that Zen 3, the two methods took 3.4-3.9 ms each when timed alone, 2.9 and 4.9 ms in the model.
So, as cuDNN's autotuner does on a GPU, the calls with a given shape take turns among the methods
that can take it (every call computes its result once, with one method) until each has run TRIALS
times; the one with the quickest run is then kept, and every later call takes it at once.

Choices are kept on disk for the next processes on the same machine (same CPU model, same number
of CPUs and BLAS threads), in the runtime's cache folder: the trials are paid once per shape and
machine, and processes agree on their methods. While the kernels are still being compiled in the
background (`tiered`: a process with an empty cache), times say nothing of the methods: the
preferred one runs, and the trials wait for later calls. HYBLINT_RUNTIME_MEASURE=0 turns the
trials off: every call takes the preferred method, as a rule written for a Zen 4 orders them.
"""
from __future__ import annotations

import functools
import json
import os
import platform
import time
from typing import Callable, Dict, Hashable, List, Optional, Sequence

from runtime import threads
from runtime.cache_dir import cache_dir
from runtime.kernels import tiered

TRIALS = 3  # runs of each method before one is kept; the quickest run decides
FORMAT = "1"  # bump when keys or methods change meaning: older files are then ignored

_chosen: Dict[Hashable, str] = {}  # key: the method kept ("" none yet), looked up at every call
_stored: Dict[str, str] = {}  # repr of a key: the method earlier processes kept, as read from disk
_trials: Dict[Hashable, Dict[str, List[float]]] = {}  # key: method: times of its runs so far
_loaded = False
_measuring = os.environ.get("HYBLINT_RUNTIME_MEASURE", "1").strip() != "0"


def fastest(key: Hashable, methods: Sequence[str], run: Callable[[str], Optional[object]]):
    """`run(method)`'s result, for the method kept for `key` (the arguments' shapes, dtypes and
    whatever else decides the methods' speed; its repr names it on disk), or while the trials
    last, for the next one to try among `methods` (given in order of preference). `run` returns
    None, having written nothing the caller keeps, when a method cannot take these arguments."""
    kept = None
    if _measuring:
        kept = _chosen.get(key)
        if kept is None:
            kept = _kept_before(key)
    if kept in methods:
        result = run(kept)
        if result is not None:
            return result
    if _measuring and len(methods) > 1 and not tiered.loading():
        trials = _trials.setdefault(key, {method: [] for method in methods})
        while trials:
            method = min(trials, key=lambda m: len(trials[m]))  # the first of the least tried
            start = time.perf_counter()
            result = run(method)
            elapsed = time.perf_counter() - start
            if result is None:  # refused: not tried again
                del trials[method]
                continue
            trials[method].append(elapsed)
            if all(len(times) >= TRIALS for times in trials.values()):
                winner = min(trials, key=lambda m: min(trials[m]))
                _chosen[key] = winner
                _trials.pop(key, None)
                _save(repr(key), winner)
            return result
    for method in methods:
        result = run(method)
        if result is not None:
            return result
    return None


def chosen(key: Hashable) -> Optional[str]:
    """The method kept for `key`, if one was measured (here or by an earlier process)."""
    kept = _chosen.get(key)
    return (_kept_before(key) if kept is None else kept) or None


def _kept_before(key: Hashable) -> str:
    """The method an earlier process kept for `key` ("" if none), from then on looked up here by
    the key itself: its repr, which names it on disk, costs most of a lookup (1.5 of 1.9 us)."""
    if not _loaded:
        _load()
    kept = _chosen[key] = _stored.get(repr(key), "")
    return kept


@functools.lru_cache(maxsize=None)
def _machine() -> str:
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as info:
            model = next((line.split(":", 1)[1].strip() for line in info if line.startswith("model name")), model)
    except OSError:
        pass
    return "%s, %d cpus, %d blas threads" % (model, threads.available_cpus(), threads.most())


def _path():
    return cache_dir() / ("measured-methods-%s.json" % FORMAT)


def _read() -> Dict[str, Dict[str, str]]:
    try:
        with open(_path()) as saved:
            content = json.load(saved)
        return content if isinstance(content, dict) else {}
    except (OSError, ValueError):  # none yet, or unreadable: measured again
        return {}


def _load() -> None:
    global _loaded
    _loaded = True
    mine = _read().get(_machine())
    if isinstance(mine, dict):
        _stored.update({k: v for k, v in mine.items() if isinstance(v, str)})


def _save(name: str, method: str) -> None:
    """Adds one choice to the file, keeping what other processes wrote meanwhile; written whole
    to a temporary file and renamed, so that a reader never sees half of it."""
    path = _path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        content = _read()
        content.setdefault(_machine(), {})[name] = method
        temporary = path.with_suffix(".tmp%d" % os.getpid())
        temporary.write_text(json.dumps(content, indent=0, sort_keys=True))
        os.replace(temporary, path)
    except OSError:  # a read-only cache: the choice holds for this process only
        pass
