"""The activation applied at the end of a convolution's epilogue, inlined into the kernels that
put their results in place (`conv`, `winograd`). Codes as declared in `twins`."""
from __future__ import annotations

import numba


@numba.njit(cache=True, nogil=True, inline="always")
def activate(value, act, zero, six):
    if act == 1 and not value > zero:
        value = zero
    elif act != 0 and value < zero:
        value = zero
    if act == 2 and value > six:
        value = six
    return value
