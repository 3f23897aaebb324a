"""Backward kernels of the convolution and pooling layers, for 1-, 2- and 3-d data (N, C, *spatial).

Both work on windows: a strided view of the (padded) input with one axis per output position and
one per kernel offset, so that a weight gradient is one matrix product and a data gradient one
strided sum per kernel offset, or one bincount.
"""
from __future__ import annotations

from typing import Tuple

import numba
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from runtime.kernels.wide import add_wide_columns, wide_columns, wide_heads
from runtime.kernels.workspace import images_per_chunk, scratch


def _geometry(ndim: int, kernel, stride, dilate, pad) -> Tuple[tuple, tuple, tuple, tuple]:
    spatial = ndim - 2
    return (tuple(kernel), tuple(stride or (1,) * spatial), tuple(dilate or (1,) * spatial),
            tuple(pad or (0,) * spatial))


def _windows(padded: np.ndarray, kernel, stride, dilate, out_shape) -> np.ndarray:
    """(N, C, *out, *kernel) view: element [n, c, o..., k...] is padded[n, c, o*s + k*d ...]."""
    spatial = len(kernel)
    extents = tuple(d * (k - 1) + 1 for k, d in zip(kernel, dilate))
    view = sliding_window_view(padded, extents, axis=tuple(range(2, 2 + spatial)))
    index = (slice(None), slice(None)) + tuple(slice(0, s * (o - 1) + 1, s) for s, o in zip(stride, out_shape)) \
        + tuple(slice(None, None, d) for d in dilate)
    return view[index]


def _pad(x: np.ndarray, pad, value=0.0, extra=None) -> np.ndarray:
    extra = extra or (0,) * len(pad)
    if not any(pad) and not any(extra):
        return x
    widths = [(0, 0), (0, 0)] + [(p, p + e) for p, e in zip(pad, extra)]
    return np.pad(x, widths, constant_values=value)


# A gradient's columns are made for a chunk of images at a time, under this many bytes (one image
# at least). Smaller than the forward pass's (kernels.conv.COLUMN_BYTES): backward runs while every
# saved activation and the gradients in flight are alive, so its columns add to a training step's
# peak (8 MB chunks made two thirds of a LeNet step's traced peak at batch 256: 29.8 MiB, 18.3 with
# 2 MB), and a product over 2 MB of columns is still large enough for BLAS. Products with few
# filters take smaller chunks, which stay in cache (workspace.images_per_chunk).
COLUMN_BYTES = 2 << 20


def _image_chunks(n: int, bytes_per_image: int, filters: int):
    """(lo, hi) ranges covering the n images of a batch, each chunk's columns under COLUMN_BYTES
    (and in cache for a product with few `filters`)."""
    chunk = images_per_chunk(n, bytes_per_image, filters, COLUMN_BYTES)
    return [(lo, min(n, lo + chunk)) for lo in range(0, n, chunk)]


@numba.njit(cache=True, nogil=True)
def _columns_2d(x, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow, cols):
    """cols[(ch, i, j), (b, y, xx)] = x[b, ch, y*sh - ph + i*dh, xx*sw - pw + j*dw] (0 in the padding)."""
    n, c, h, w = x.shape
    positions = oh * ow
    for ch in range(c):
        for i in range(kh):
            for j in range(kw):
                row = cols[(ch * kh + i) * kw + j]
                for b in range(n):
                    for y in range(oh):
                        iy = y * sh - ph + i * dh
                        base = b * positions + y * ow
                        for xx in range(ow):
                            ix = xx * sw - pw + j * dw
                            row[base + xx] = x[b, ch, iy, ix] if 0 <= iy < h and 0 <= ix < w else 0


@numba.njit(cache=True, nogil=True)
def _add_columns_2d(cols, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow, out):
    """The adjoint of _columns_2d: each column entry added onto the input element it was read from."""
    n, c, h, w = out.shape
    positions = oh * ow
    for ch in range(c):
        for i in range(kh):
            for j in range(kw):
                row = cols[(ch * kh + i) * kw + j]
                for b in range(n):
                    for y in range(oh):
                        iy = y * sh - ph + i * dh
                        if iy < 0 or iy >= h:
                            continue
                        base = b * positions + y * ow
                        for xx in range(ow):
                            ix = xx * sw - pw + j * dw
                            if 0 <= ix < w:
                                out[b, ch, iy, ix] += row[base + xx]


def _planar(data, out_grad, kernel, stride, dilate, pad):
    """1-d convolutions as 2-d ones of height 1: (data, out_grad, geometry), or None beyond 2-d."""
    if len(kernel) == 2:
        return data, out_grad, tuple(kernel) + tuple(stride) + tuple(pad) + tuple(dilate)
    if len(kernel) == 1:
        return (data[:, :, None, :], out_grad[:, :, None, :],
                (1, kernel[0], 1, stride[0], 0, pad[0], 1, dilate[0]))
    return None


def _product_t(cols: np.ndarray, heads: np.ndarray) -> np.ndarray:
    """heads @ cols.T, as (cols @ heads.T).T: both have few rows and very long ones, and BLAS runs
    the product with the longer operand first 1.5-1.9x faster (measured at LeNet's shapes)."""
    return (cols @ heads.T).T


def convolution_weight_grad(data, out_grad, kernel, stride, dilate, pad, num_group) -> np.ndarray:
    """d(loss)/d(weight) of a convolution, weight shaped (F, C/groups, *kernel)."""
    kernel, stride, dilate, pad = _geometry(data.ndim, kernel, stride, dilate, pad)
    planar = _planar(data, out_grad, kernel, stride, dilate, pad)
    if planar is not None:
        x, g, (kh, kw, sh, sw, ph, pw, dh, dw) = planar
        if sh == 1 and sw == 1:
            grad = _wide_weight_grad(x, g, kh, kw, ph, pw, dh, dw, num_group)
            return grad.reshape((grad.shape[0], -1) + tuple(kernel))
        x = np.ascontiguousarray(x)
        n, c = x.shape[:2]
        f, oh, ow = g.shape[1:]
        cg, fg = c // num_group, f // num_group
        taps = kh * kw
        grad = np.zeros((f, cg * taps), dtype=np.result_type(x.dtype, g.dtype))
        # the columns of a chunk of images at a time: a whole batch's would be the step's largest buffer
        for lo, hi in _image_chunks(n, c * taps * oh * ow * x.itemsize, fg):
            cols = scratch("columns", (c * taps, (hi - lo) * oh * ow), x.dtype)
            _columns_2d(x[lo:hi], kh, kw, sh, sw, ph, pw, dh, dw, oh, ow, cols)
            heads = np.ascontiguousarray(np.moveaxis(g[lo:hi], 1, 0)).reshape(f, -1)
            for k in range(num_group):
                grad[k * fg:(k + 1) * fg] += _product_t(cols[k * cg * taps:(k + 1) * cg * taps], heads[k * fg:(k + 1) * fg])
        return grad.reshape((f, cg) + tuple(kernel))
    n, c = data.shape[:2]
    f = out_grad.shape[1]
    out_shape = out_grad.shape[2:]
    windows = _windows(_pad(data, pad), kernel, stride, dilate, out_shape)
    positions, taps = int(np.prod(out_shape)), int(np.prod(kernel))
    cg, fg = c // num_group, f // num_group
    grads = []
    for g in range(num_group):
        # (N, cg, *out, *kernel) -> (N * positions, cg * taps)
        cols = windows[:, g * cg:(g + 1) * cg]
        cols = np.moveaxis(cols.reshape(n, cg, positions, taps), 2, 1).reshape(n * positions, cg * taps)
        heads = np.moveaxis(out_grad[:, g * fg:(g + 1) * fg].reshape(n, fg, positions), 1, 2).reshape(-1, fg)
        grads.append((heads.T @ cols).reshape((fg, cg) + kernel))
    return np.concatenate(grads, axis=0) if num_group > 1 else grads[0]


def _wide_weight_grad(x, g, kh, kw, ph, pw, dh, dw, num_group) -> np.ndarray:
    """The weight gradient (F, C/groups * taps) of a stride-1 2-d convolution over wide rows."""
    _, grad, _ = _wide_grads(x, g, None, x.shape, kh, kw, ph, pw, dh, dw, num_group, (False, True, False))
    return grad


def _wide_data_grad(g, weight, data_shape, kh, kw, ph, pw, dh, dw, num_group) -> np.ndarray:
    """The data gradient of a stride-1 2-d convolution over wide rows."""
    grad, _, _ = _wide_grads(None, g, weight, data_shape, kh, kw, ph, pw, dh, dw, num_group, (True, False, False))
    return grad


def _wide_grads(x, g, weight, data_shape, kh, kw, ph, pw, dh, dw, num_group, needed):
    """(data, weight, bias) gradients of a stride-1 2-d convolution over wide rows (see
    kernels.wide), those `needed` (three flags; the others None): per chunk of images, the output
    gradient laid out as wide rows once, with the bias's sums taken as it is copied; the weight
    gradient is the columns of the padded input times it, the data gradient the weights times
    it, added back onto the padded input. The weight gradient is (F, C/groups * taps)."""
    need_data, need_weight, need_bias = needed
    g = np.ascontiguousarray(g)
    n, c = data_shape[:2]
    height = data_shape[2] if len(data_shape) == 4 else 1
    f, oh = g.shape[1], g.shape[2]
    width = data_shape[-1] + 2 * pw
    cg, fg = c // num_group, f // num_group
    taps = kh * kw
    if need_weight:
        x = np.ascontiguousarray(_pad(x, (ph, pw)))
        weight_grad = np.zeros((f, cg * taps), dtype=np.result_type(x.dtype, g.dtype))
    if need_data:
        dtype = np.result_type(g.dtype, weight.dtype)
        out = np.zeros((n, c, height + 2 * ph, width), dtype=dtype)
    itemsize = max(x.itemsize if need_weight else 0, np.dtype(dtype).itemsize if need_data else 0)
    sums = np.zeros(f if need_bias else 0, dtype=np.float64)
    for lo, hi in _image_chunks(n, c * taps * oh * width * itemsize, fg):
        heads = scratch("heads", (f, (hi - lo) * oh * width), g.dtype)
        wide_heads(g, lo, hi, width, heads, sums)
        if need_weight:
            cols = scratch("columns", (c * taps, heads.shape[1]), x.dtype)
            wide_columns(x, lo, hi, kh, kw, dh, dw, oh, cols)
            for k in range(num_group):
                weight_grad[k * fg:(k + 1) * fg] += _product_t(cols[k * cg * taps:(k + 1) * cg * taps],
                                                               heads[k * fg:(k + 1) * fg])
        if need_data:
            cols = scratch("columns", (c * taps, heads.shape[1]), dtype)
            for k in range(num_group):
                w = weight[k * fg:(k + 1) * fg].reshape(fg, cg * taps)
                np.matmul(w.T, heads[k * fg:(k + 1) * fg], out=cols[k * cg * taps:(k + 1) * cg * taps])
            add_wide_columns(cols, lo, hi, kh, kw, dh, dw, oh, out)
    data_grad = None
    if need_data:
        if ph or pw:
            out = out[:, :, ph:ph + height, pw:pw + data_shape[-1]]
        data_grad = out.reshape(data_shape)
    return data_grad, weight_grad if need_weight else None, sums.astype(g.dtype) if need_bias else None


def convolution_grads(data, weight, out_grad, kernel, stride, dilate, pad, num_group, needed):
    """[data, weight, bias] gradients of a convolution, those `needed` (three flags; the others
    None): a stride-1 1-d or 2-d one computes them together (the output gradient laid out once)."""
    kernel, stride, dilate, pad = _geometry(data.ndim, kernel, stride, dilate, pad)
    planar = _planar(data, out_grad, kernel, stride, dilate, pad)
    if planar is not None and planar[2][2] == planar[2][3] == 1 and (needed[0] or needed[1]):
        x, g, (kh, kw, sh, sw, ph, pw, dh, dw) = planar
        shape = data.shape if data.ndim == 4 else x.shape
        dx, dw_, db = _wide_grads(x, g, weight if data.ndim == 4 else weight[:, :, None, :], shape,
                                  kh, kw, ph, pw, dh, dw, num_group, needed)
        if dx is not None:
            dx = dx.reshape(data.shape)
        if dw_ is not None:
            dw_ = dw_.reshape(weight.shape)
        return [dx, dw_, db]
    return [convolution_data_grad(out_grad, weight, data.shape, kernel, stride, dilate, pad, num_group)
            if needed[0] else None,
            convolution_weight_grad(data, out_grad, kernel, stride, dilate, pad, num_group) if needed[1] else None,
            out_grad.sum(axis=(0,) + tuple(range(2, out_grad.ndim))) if needed[2] else None]


def convolution_data_grad(out_grad, weight, data_shape, kernel, stride, dilate, pad, num_group) -> np.ndarray:
    """d(loss)/d(data) of a convolution: each kernel offset adds its share of the columns' gradient
    onto the strided positions of the padded input it read."""
    kernel, stride, dilate, pad = _geometry(len(data_shape), kernel, stride, dilate, pad)
    planar = _planar(np.empty((0,) * len(data_shape)), out_grad, kernel, stride, dilate, pad)
    if planar is not None:
        _, g, (kh, kw, sh, sw, ph, pw, dh, dw) = planar
        if sh == 1 and sw == 1:
            return _wide_data_grad(g, weight, data_shape, kh, kw, ph, pw, dh, dw, num_group)
        n, c = data_shape[:2]
        f, oh, ow = g.shape[1:]
        cg, fg = c // num_group, f // num_group
        taps = kh * kw
        dtype = np.result_type(out_grad.dtype, weight.dtype)
        height = data_shape[2] if len(data_shape) == 4 else 1
        out = np.zeros((n, c, height, data_shape[-1]), dtype=dtype)
        for lo, hi in _image_chunks(n, c * taps * oh * ow * np.dtype(dtype).itemsize, fg):
            heads = np.ascontiguousarray(np.moveaxis(g[lo:hi], 1, 0)).reshape(f, -1)
            cols = scratch("columns", (c * taps, heads.shape[1]), dtype)
            for k in range(num_group):
                w = weight[k * fg:(k + 1) * fg].reshape(fg, cg * taps)
                np.matmul(w.T, heads[k * fg:(k + 1) * fg], out=cols[k * cg * taps:(k + 1) * cg * taps])
            _add_columns_2d(cols, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow, out[lo:hi])
        return out.reshape(data_shape)
    n, c = data_shape[:2]
    f = out_grad.shape[1]
    out_shape = out_grad.shape[2:]
    positions, taps = int(np.prod(out_shape)), int(np.prod(kernel))
    cg, fg = c // num_group, f // num_group
    padded_shape = tuple(d + 2 * p for d, p in zip(data_shape[2:], pad))
    result = np.zeros((n, c) + padded_shape, dtype=np.result_type(out_grad.dtype, weight.dtype))
    for g in range(num_group):
        w = weight[g * fg:(g + 1) * fg].reshape(fg, cg * taps)
        heads = out_grad[:, g * fg:(g + 1) * fg].reshape(n, fg, positions)
        cols = np.matmul(w.T, heads).reshape((n, cg) + tuple(kernel) + tuple(out_shape))
        target = result[:, g * cg:(g + 1) * cg]
        for offset in np.ndindex(*kernel):
            region = (slice(None), slice(None)) + tuple(
                slice(k * d, k * d + s * (o - 1) + 1, s) for k, d, s, o in zip(offset, dilate, stride, out_shape))
            target[region] += cols[(slice(None), slice(None)) + offset]
    inside = (slice(None), slice(None)) + tuple(slice(p, p + d) for p, d in zip(pad, data_shape[2:]))
    return result[inside]


@numba.njit(cache=True, nogil=True)
def _max_pool_2d_grad(x, g, kh, kw, sh, sw, ph, pw, out):
    """Each window's gradient to its first largest element (the one MXNet's forward picked)."""
    n, c, h, w = x.shape
    oh, ow = g.shape[2], g.shape[3]
    for b in range(n):
        for ch in range(c):
            for y in range(oh):
                for xx in range(ow):
                    best_y, best_x = -1, -1
                    best = -np.inf
                    for i in range(kh):
                        iy = y * sh - ph + i
                        if iy < 0 or iy >= h:
                            continue
                        for j in range(kw):
                            ix = xx * sw - pw + j
                            if 0 <= ix < w and x[b, ch, iy, ix] > best:
                                best = x[b, ch, iy, ix]
                                best_y, best_x = iy, ix
                    if best_y >= 0:
                        out[b, ch, best_y, best_x] += g[b, ch, y, xx]


@numba.njit(cache=True, nogil=True)
def _max_pool_2d_grad_tiled(x, g, rows, cols, oh, ow, out):
    """_max_pool_2d_grad where the windows tile the input (stride = kernel, no padding): `out` is
    zeroed, then each window's gradient written at its first largest element. The window is
    len(rows) x len(cols) (lengths of tuples, part of the types: constant loop bounds). A row of
    windows finds its elements first, in a loop of selects without stores, which the compiler
    vectorizes; the stores follow, one per window (236 -> 129 us at (64, 6, 24, 24) against one
    loop choosing and storing every element)."""
    n, c, h, w = x.shape
    kh, kw = len(rows), len(cols)
    zero = out.dtype.type(0)
    lowest = x.dtype.type(-np.inf)
    chosen = np.empty(ow, dtype=np.int64)  # offset in the plane of each window's element, -1: none
    for b in range(n):
        for ch in range(c):
            plane = x[b, ch].reshape(h * w)
            dst = out[b, ch].reshape(h * w)
            heads = g[b, ch].reshape(oh * ow)
            for k in range(h * w):
                dst[k] = zero
            for y in range(oh):
                top = np.uint64(y * kh * w)
                for xx in range(np.uint64(ow)):
                    left = top + xx * np.uint64(kw)
                    best = lowest
                    at = -1
                    for i in range(kh):
                        for j in range(kw):
                            v = plane[left + np.uint64(i * w + j)]
                            take = v > best  # a select: NaN never wins, and a window of -inf has none
                            best = v if take else best
                            at = i * w + j if take else at
                    chosen[xx] = at
                for xx in range(ow):
                    if chosen[xx] >= 0:
                        dst[y * kh * w + xx * kw + chosen[xx]] = heads[y * ow + xx]


def pooling_grad(data, output, out_grad, kernel, pool_type, global_pool, pooling_convention, stride, pad,
                 count_include_pad) -> np.ndarray:
    """d(loss)/d(data) of max, average or sum pooling."""
    spatial = data.ndim - 2
    sizes = data.shape[2:]
    if global_pool:
        kernel, stride, pad = sizes, (1,) * spatial, (0,) * spatial
    kernel, stride, _, pad = _geometry(data.ndim, kernel, stride, None, pad)
    if pool_type == "max" and spatial == 2 and data.dtype == out_grad.dtype:
        if kernel == stride and not any(pad) and all(o * k <= d for o, k, d in zip(output.shape[2:], kernel, sizes)):
            out = np.empty(data.shape, dtype=data.dtype)
            (kh, kw), (oh, ow) = kernel, output.shape[2:]
            _max_pool_2d_grad_tiled(np.ascontiguousarray(data), np.ascontiguousarray(out_grad), (0,) * kh, (0,) * kw,
                                    oh, ow, out)
            return out
        out = np.zeros(data.shape, dtype=data.dtype)
        _max_pool_2d_grad(np.ascontiguousarray(data), np.ascontiguousarray(out_grad), *kernel, *stride, *pad, out)
        return out
    out_shape = output.shape[2:]
    # the "full" convention's last windows may reach past the padding
    extra = tuple(max(0, (o - 1) * s + k - (d + 2 * p)) for o, s, k, d, p in zip(out_shape, stride, kernel, sizes, pad))
    padded_shape = tuple(d + 2 * p + e for d, p, e in zip(sizes, pad, extra))
    n, c = data.shape[:2]
    positions, taps = int(np.prod(out_shape)), int(np.prod(kernel))
    numbers = np.arange(int(np.prod(padded_shape))).reshape((1, 1) + padded_shape)
    places = _windows(numbers, kernel, stride, (1,) * spatial, out_shape).reshape(positions, taps)
    heads = out_grad.reshape(n * c, positions).astype(np.float64)
    if pool_type == "max":
        padded = _pad(data, pad, -np.inf, extra)
        windows = _windows(padded, kernel, stride, (1,) * spatial, out_shape).reshape(n * c, positions, taps)
        chosen = places[np.arange(positions)[None, :], np.argmax(windows, axis=-1)]  # (N*C, positions)
        weights = heads
    else:
        if pool_type == "avg":
            heads = heads / _divisors(sizes, pad, extra, padded_shape, places, count_include_pad)[None, :]
        chosen = np.broadcast_to(places[None], (n * c, positions, taps))
        weights = np.broadcast_to(heads[:, :, None], chosen.shape)
    size = numbers.size
    flat = (chosen + (np.arange(n * c) * size).reshape((-1,) + (1,) * (chosen.ndim - 1))).ravel()
    summed = np.bincount(flat, weights=weights.ravel(), minlength=n * c * size).reshape((n, c) + padded_shape)
    inside = (slice(None), slice(None)) + tuple(slice(p, p + d) for p, d in zip(pad, sizes))
    return summed[inside].astype(data.dtype)


def _divisors(sizes, pad, extra, padded_shape, places, count_include_pad) -> np.ndarray:
    """How many elements each average-pooling window divides by: those inside the data, or with
    count_include_pad (the default) those inside the padding as well, not past it."""
    include = True if count_include_pad is None else count_include_pad
    inside = np.zeros(padded_shape, dtype=bool)
    if include:
        inside[tuple(slice(0, d + 2 * p) for d, p in zip(sizes, pad))] = True
    else:
        inside[tuple(slice(p, p + d) for d, p in zip(sizes, pad))] = True
    return np.maximum(inside.ravel()[places].sum(axis=1), 1).astype(np.float64)

