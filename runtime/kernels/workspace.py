"""Scratch memory that kernels reuse from call to call, as MXNet's workspace is.

A convolution's columns are megabytes that live for one product. Allocated afresh on every call
they come back from the system as untouched pages, and the first write to each page faults: at
LeNet's shapes the faults cost 10x the copy that fills the columns. A buffer kept per thread and
per purpose is written over instead, and grows to the largest request seen.
"""
from __future__ import annotations

import threading

import numpy as np

_buffers = threading.local()


def scratch(purpose: str, shape, dtype) -> np.ndarray:
    """An uninitialized C-contiguous array of `shape` and `dtype`, valid until the next call with
    the same `purpose` on this thread: never return it (or a view of it) from a kernel. Two
    arrays used at once need two purposes."""
    dtype = np.dtype(dtype)
    size = dtype.itemsize
    for extent in shape:
        size *= int(extent)
    held = getattr(_buffers, "held", None)
    if held is None:
        held = _buffers.held = {}
    buffer = held.get(purpose)
    if buffer is None or buffer.size < size:
        buffer = held[purpose] = np.empty(max(size, 1), dtype=np.uint8)
    return buffer[:size].view(dtype).reshape(shape)
