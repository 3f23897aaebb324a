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


@numba.njit(cache=True, nogil=True, inline="always")
def _finish(dst, src, factor, offset, residual, added, act, zero, six):
    if added:
        for k in range(dst.shape[0]):
            dst[k] = activate(src[k] * factor + offset + residual[k], act, zero, six)
    else:
        for k in range(dst.shape[0]):
            dst[k] = activate(src[k] * factor + offset, act, zero, six)


@numba.njit(cache=True, nogil=True, inline="always")
def finish_row(dst, src, factor, offset, residual, added, act, zero, six):
    """dst[k] = activate(src[k] * factor + offset (+ residual[k] if added)) along a row (dst may
    be src). The activation is chosen once, outside the loop, so that each loop vectorizes: a loop
    that tests `act` at every element does not (DenseNet's BatchNorm-ReLU passes ran 1.4-2x
    slower so). A factor of 1 gives the bits of no scaling: x * 1 is x."""
    if act == 0:
        _finish(dst, src, factor, offset, residual, added, 0, zero, six)
    elif act == 1:
        _finish(dst, src, factor, offset, residual, added, 1, zero, six)
    elif act == 2:
        _finish(dst, src, factor, offset, residual, added, 2, zero, six)
    else:
        _finish(dst, src, factor, offset, residual, added, 3, zero, six)
