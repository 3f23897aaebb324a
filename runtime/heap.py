"""The C heap's policy for the arrays of a training step.

A training step frees and allocates the same arrays every step: activations, gradients, their
temporaries, from a hundred kilobytes to megabytes. glibc's malloc returns the top of its heap to
the system once the free memory there passes a threshold that it raises by itself, to twice the
largest block it has freed from mmap: at LeNet's shapes (batch 64) that is under 2 MiB, which
the gradients freed at the end of each backward pass exceed. Given back, those pages come back
as fresh ones at the next step, and the first write to each faults: 454 faults per step, 1.5 ms
of a 5.8 ms step on the virtual machine measured here. Whether a step crosses the threshold
depends on the order of its allocations, so any change to them could add or remove those
faults.

MXNet keeps the memory of its arrays in pools for the same reason. Here the heap keeps it: blocks
under 32 MiB (glibc's own upper bound for its threshold) come from the heap, and the heap gives
its top back only past 64 MiB free. Larger arrays are still mapped and unmapped on their own,
so a large network's memory goes back to the system when it is dropped.
HYBLINT_RUNTIME_KEEP_HEAP=0 leaves glibc's policy as it is.
"""
from __future__ import annotations

import ctypes
import os

# mallopt's parameters (malloc.h)
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3

MAPPED_FROM = 32 << 20  # blocks from this size are mapped on their own
TRIMMED_PAST = 64 << 20  # free memory at the top of the heap kept up to this


def keep_heap() -> bool:
    """Set the policy above; False where it cannot be (not glibc) or is turned off."""
    if os.environ.get("HYBLINT_RUNTIME_KEEP_HEAP", "1").strip() == "0":
        return False
    try:
        if not os.confstr("CS_GNU_LIBC_VERSION").startswith("glibc"):
            return False
    except (AttributeError, ValueError, OSError):  # not a GNU C library (macOS, Windows, musl)
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    # setting either turns glibc's own adjustment off, so both are set
    return bool(mallopt(_M_MMAP_THRESHOLD, MAPPED_FROM)) and bool(mallopt(_M_TRIM_THRESHOLD, TRIMMED_PAST))
