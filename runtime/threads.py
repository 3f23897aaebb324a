"""BLAS threads. On small machines a multi-threaded BLAS makes tiny matrix products much slower
(threads are handed work that takes less time than waking them): the runtime keeps BLAS at one
thread unless HYBLINT_RUNTIME_BLAS_THREADS says otherwise."""
from __future__ import annotations

import os


def limit_blas_threads() -> None:
    wanted = int(os.environ.get("HYBLINT_RUNTIME_BLAS_THREADS", "1"))
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - threadpoolctl is a dependency
        return
    threadpool_limits(limits=wanted, user_api="blas")
