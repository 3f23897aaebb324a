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


# A product of columns with only a few filters does few multiply-adds per column element it reads
# (one per filter), too few to hide where the columns come from: made in chunks that stay in a
# core's L2 cache beside the product's other operand (1 MiB on the Zen 4 measured here, 1-2 MiB on
# current server cores), it runs much faster than over chunks that spill to L3. LeNet's first
# convolution (6 filters) at batch 64: weight gradient 702 -> 447 us, forward 399 -> 271 us with
# 512 KiB of columns instead of 2 MiB (768 KiB spills again: 702 us). With 12 filters or more the
# product reuses each column enough that larger chunks do as well or better.
FEW_FILTERS = 8
CACHED_COLUMN_BYTES = 512 << 10


def images_per_chunk(n: int, bytes_per_image: int, filters: int, column_bytes: int) -> int:
    """How many of n images to make columns for at a time (at least one): under `column_bytes`
    of columns, and under CACHED_COLUMN_BYTES when the product has few filters."""
    budget = min(column_bytes, CACHED_COLUMN_BYTES) if filters <= FEW_FILTERS else column_bytes
    return max(1, min(n, budget // max(1, bytes_per_image)))
