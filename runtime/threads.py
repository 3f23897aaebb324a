"""BLAS threads. Small matrix products run on one BLAS thread: handing them to several costs more
than it saves, and OpenBLAS's idle threads keep spinning for a while afterwards, taking a core
from the Numba kernels that come next. Large products (`wide_product`) use one thread per CPU
that other processes leave free, as measured over the last moments (`free_cpus`): on a machine
where other processes keep the cores busy, a product split over two threads waits for the thread
that is not scheduled while the other spins, 5-7x slower than one thread (measured here with the
load average at 4-8 on 2 cores). HYBLINT_RUNTIME_BLAS_THREADS sets the number for large products
instead (1: never more than one)."""
from __future__ import annotations

import os
import time
from typing import List, Optional

import numpy as np

# Multiply-adds from which a product is split over threads: a (64, 512) x (512, 256) product
# (8.4 M) runs ~1.8x faster on two threads, a (64, 256) x (256, 128) one (2.1 M) ~1.7x; an MLP
# at batch 64 gains 11% from taking the second one too. Smaller ones lose to the handoff.
WIDE_PRODUCT = 2_000_000

_controllers: List = []
_most = 1
_fixed = False  # the number was set by HYBLINT_RUNTIME_BLAS_THREADS: no measuring

# How often the other processes' CPU use is measured, in seconds, and how much of a CPU they may
# use before it no longer counts as free.
MEASURE_EVERY = 0.25
BUSY_ENOUGH = 0.5
_last = {"at": -1.0, "busy": 0.0, "ours": 0.0, "threads": 1}


def available_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on Linux
        return os.cpu_count() or 1


def most() -> int:
    """The most BLAS threads a large product may take."""
    return _most


def limit_blas_threads() -> None:
    global _controllers, _most, _fixed
    setting = os.environ.get("HYBLINT_RUNTIME_BLAS_THREADS", "").strip()
    _fixed = setting.isdigit() and int(setting) > 0
    _most = int(setting) if _fixed else available_cpus()
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:  # pragma: no cover - threadpoolctl is a dependency
        return
    _controllers = ThreadpoolController().select(user_api="blas").lib_controllers
    _set(1)
    free_cpus()  # the first measurement's start: the first large product may already see the load


def _set(count: int) -> None:
    for controller in _controllers:
        controller.set_num_threads(count)


def _cpu_seconds_busy() -> Optional[float]:
    """Seconds all CPUs have spent busy since boot (Linux), or None."""
    try:
        with open("/proc/stat", "rb") as stat:
            fields = stat.readline().split()
    except OSError:
        return None
    ticks = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    # user nice system idle iowait irq softirq steal: busy is all but idle and iowait
    values = [int(v) for v in fields[1:9]]
    return (sum(values) - values[3] - values[4]) / ticks


def free_cpus() -> int:
    """BLAS threads for a large product now: the CPUs that other processes left idle since the
    last measurement (this process's own time, its spinning BLAS threads included, does not
    count against them), at least 1, at most the available CPUs; re-measured at most every
    MEASURE_EVERY seconds."""
    if _fixed or _most == 1:
        return _most
    now = time.monotonic()
    if now - _last["at"] < MEASURE_EVERY:
        return _last["threads"]
    busy = _cpu_seconds_busy()
    times = os.times()
    ours = times.user + times.system
    if busy is None:
        return _most
    if _last["at"] >= 0 and now - _last["at"] >= MEASURE_EVERY / 4:  # a shorter span tells little
        others = max(0.0, (busy - _last["busy"]) - (ours - _last["ours"])) / (now - _last["at"])
        _last["threads"] = max(1, min(_most, int(_most - others + 1 - BUSY_ENOUGH)))
    _last.update(at=now, busy=busy, ours=ours)
    return _last["threads"]


def _product(a: np.ndarray, b: np.ndarray, out: Optional[np.ndarray], multiply_adds: int) -> np.ndarray:
    """np.matmul(a, b, out), on the free CPUs' BLAS threads when it has enough multiply-adds."""
    if _most > 1 and multiply_adds >= WIDE_PRODUCT:
        threads = free_cpus()
        if threads > 1:
            _set(threads)
            try:
                return np.matmul(a, b, out=out)
            finally:
                _set(1)
    return np.matmul(a, b, out=out)


def wide_product(a: np.ndarray, b: np.ndarray, out: Optional[np.ndarray] = None) -> np.ndarray:
    """`a @ b` (into `out` if given), on several BLAS threads when it is large enough to gain from them."""
    multiply_adds = a.shape[0] * a.shape[1] * b.shape[1] if a.ndim == 2 and b.ndim == 2 else 0
    return _product(a, b, out, multiply_adds)


def wide_products(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> np.ndarray:
    """a (k, m, c) @ b (k, c, p) into out (k, m, p): k products, the threads decided once for all
    of them, by the size of one."""
    return _product(a, b, out, a.shape[1] * a.shape[2] * b.shape[2])
