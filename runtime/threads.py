"""BLAS threads. Small matrix products run on one BLAS thread: handing them to several costs more
than it saves, and OpenBLAS's idle threads keep spinning for a while afterwards, taking a core
from the Numba kernels that come next. Large products (`wide_product`) use one thread per CPU,
as MXNet does. HYBLINT_RUNTIME_BLAS_THREADS caps the number (1: never more than one)."""
from __future__ import annotations

import os
from typing import List

import numpy as np

# Multiply-adds from which a product is split over threads: a (64, 512) x (512, 256) product
# (8.4 M) runs ~1.8x faster on two threads, a (64, 256) x (256, 128) one (2.1 M) ~1.7x; an MLP
# at batch 64 gains 11% from taking the second one too. Smaller ones lose to the handoff.
WIDE_PRODUCT = 2_000_000

_controllers: List = []
_most = 1


def available_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on Linux
        return os.cpu_count() or 1


def limit_blas_threads() -> None:
    global _controllers, _most
    setting = os.environ.get("HYBLINT_RUNTIME_BLAS_THREADS", "").strip()
    _most = int(setting) if setting.isdigit() and int(setting) > 0 else available_cpus()
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:  # pragma: no cover - threadpoolctl is a dependency
        return
    _controllers = ThreadpoolController().select(user_api="blas").lib_controllers
    _set(1)


def _set(count: int) -> None:
    for controller in _controllers:
        controller.set_num_threads(count)


def wide_product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """`a @ b`, on several BLAS threads when it is large enough to gain from them."""
    if _most > 1 and a.ndim == 2 and b.ndim == 2 and a.shape[0] * a.shape[1] * b.shape[1] >= WIDE_PRODUCT:
        _set(_most)
        try:
            return np.matmul(a, b)
        finally:
            _set(1)
    return np.matmul(a, b)
