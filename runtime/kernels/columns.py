"""im2col and col2im: the sliding windows of a convolution laid out as columns, and back.

A column holds one window: channel-major, then the kernel's taps in row-major order (the layout of
a convolution weight reshaped to (filters, -1)); there is one column per output position."""
from __future__ import annotations

import itertools

import numpy as np


def _geometry(spatial, kernel, stride, dilate, pad):
    n = len(kernel)
    stride = tuple(stride) or (1,) * n
    dilate = tuple(dilate) or (1,) * n
    pad = tuple(pad) or (0,) * n
    out = tuple((d + 2 * p - dl * (k - 1) - 1) // s + 1
                for d, k, s, dl, p in zip(spatial, kernel, stride, dilate, pad))
    return stride, dilate, pad, out


def output_spatial(spatial, kernel, stride=(), dilate=(), pad=()) -> tuple:
    """The output's spatial size of a window of this geometry over data of this size."""
    return _geometry(spatial, kernel, stride, dilate, pad)[3]


def _tap_slices(tap, stride, dilate, out):
    """Where, in the padded image, the values of one kernel tap sit for every output position."""
    return tuple(slice(t * dl, t * dl + (o - 1) * s + 1, s) for t, s, dl, o in zip(tap, stride, dilate, out))


def _two_dimensional(kernel):
    # MXNet 1.9.1 infers 1-D and 3-D shapes but its kernels then fail on them (they read 4-D shapes)
    if len(kernel) != 2:
        raise ValueError("only 2-D windows are computed (MXNet 1.9.1 fails on %d-D ones)" % len(kernel))


def im2col(data, kernel, stride=(), dilate=(), pad=()):
    _two_dimensional(kernel)
    n, c = data.shape[:2]
    stride, dilate, pad, out_spatial = _geometry(data.shape[2:], kernel, stride, dilate, pad)
    padded = np.pad(data, [(0, 0), (0, 0)] + [(p, p) for p in pad])
    taps = list(itertools.product(*(range(k) for k in kernel)))
    cols = np.empty((n, c, len(taps)) + out_spatial, data.dtype)
    for i, tap in enumerate(taps):
        cols[:, :, i] = padded[(slice(None), slice(None)) + _tap_slices(tap, stride, dilate, out_spatial)]
    return cols.reshape(n, c * len(taps), int(np.prod(out_spatial)))


def col2im(data, output_size, kernel, stride=(), dilate=(), pad=()):
    """The sum, at each image position, of the column entries that window it (im2col's adjoint)."""
    _two_dimensional(kernel)
    n = data.shape[0]
    output_size = tuple(output_size)
    stride, dilate, pad, out_spatial = _geometry(output_size, kernel, stride, dilate, pad)
    taps = list(itertools.product(*(range(k) for k in kernel)))
    c = data.shape[1] // len(taps)
    cols = data.reshape((n, c, len(taps)) + out_spatial)
    acc = np.float32 if data.dtype == np.float16 else data.dtype
    padded = np.zeros((n, c) + tuple(d + 2 * p for d, p in zip(output_size, pad)), acc)
    for i, tap in enumerate(taps):
        padded[(slice(None), slice(None)) + _tap_slices(tap, stride, dilate, out_spatial)] += cols[:, :, i]
    inner = tuple(slice(p, p + d) for p, d in zip(pad, output_size))
    return padded[(slice(None), slice(None)) + inner].astype(data.dtype)
