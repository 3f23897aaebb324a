"""The activation applied at the end of a convolution's epilogue, inlined into the kernels that
put their results in place (`conv`, `winograd`). Codes as declared in `twins`."""
from __future__ import annotations

import numba


@numba.njit(cache=True, nogil=True, inline="always")
def activate(value, act, zero, six):
    """The activation `act` of one value. Written without branches (flags and selects), so that a
    loop applying it vectorizes although `act` is only known at run time: with `if act == ...`
    tests the loops stayed scalar, and DenseNet's BatchNorm-ReLU passes ran 1.3-2x slower."""
    dropped = ((act == 1) & (not value > zero)) | ((act >= 2) & (value < zero))  # NaN: RELU drops it
    value = zero if dropped else value
    return six if (act == 2) & (value > six) else value


@numba.njit(cache=True, nogil=True, inline="always")
def finish_row(dst, src, factor, offset, residual, added, act, zero, six):
    """dst[k] = activate(src[k] * factor + offset (+ residual[k] if added)) along a row (dst may
    be src): the epilogue of every convolution kernel. A factor of 1 gives the bits of no scaling
    (x * 1 is x)."""
    if added:
        for k in range(dst.shape[0]):
            dst[k] = activate(src[k] * factor + offset + residual[k], act, zero, six)
    else:
        for k in range(dst.shape[0]):
            dst[k] = activate(src[k] * factor + offset, act, zero, six)
