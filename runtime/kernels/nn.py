"""Neural-network kernels. Convolution is im2col (a Numba loop) + BLAS products over chunks of images;
pooling is a Numba loop. Every function takes NumPy arrays and plain Python attributes."""
from __future__ import annotations

import math

import numba
import numpy as np

from runtime import random as _random
from runtime.kernels import conv as conv_kernels
from runtime.kernels import twins
from runtime.kernels.tiered import compiling, tiered
from runtime.kernels.tensor import softmax
from runtime.kernels.wide import wide_columns
from runtime.kernels.workspace import images_per_chunk, scratch
from runtime.threads import wide_product


# Rows up to which a product runs on the loop below rather than BLAS: with a few rows, every
# weight is read once per row and the loop's call costs less than BLAS's set-up (a (1, 512) x
# (512, 256) layer: 4.7 us against 5.5 us, and 7 against 28 us with two rows); with many rows,
# BLAS's blocking wins. Layers with only a few outputs stay on the loop at any batch size.
NARROW_ROWS = 4
NARROW_OUTPUTS = 16


@numba.njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def _dense_narrow(x, weight, bias, relu, out):
    """out = x . weight^T + bias, row by row; each output is one contiguous dot product, which
    the compiler vectorizes (reassociation allowed: BLAS sums in its own order too). With `relu`,
    results not above 0 become 0 (NaN too, as with MXNet's Activation)."""
    n, k = x.shape
    m = weight.shape[0]
    with_bias = bias.shape[0] > 0
    for i in range(n):
        row = x[i]
        for j in range(m):
            taps = weight[j]
            acc = x.dtype.type(0)
            for t in range(k):
                acc += row[t] * taps[t]
            if with_bias:
                acc += bias[j]
            if relu and not acc > 0:  # as MXNet's Activation: NaN gives 0
                acc = 0
            out[i, j] = acc


_NO_BIAS = {"f": np.empty(0, np.float32), "d": np.empty(0, np.float64)}


def fully_connected(data, weight, bias=None, num_hidden=0, no_bias=False, flatten=True, relu=False):
    """MXNet's FullyConnected. `relu` (not an MXNet attribute) also applies a ReLU, for compiled
    graphs that fuse the two."""
    x = data.reshape(data.shape[0], -1) if flatten and data.ndim != 2 else data
    if x.shape[-1] != weight.shape[1]:
        raise ValueError("Shape inconsistent: data has %d features, weight expects %d" % (x.shape[-1], weight.shape[1]))
    use_bias = bias is not None and not no_bias
    kind = x.dtype.char  # a character compares faster than a dtype, and this runs per call
    if x.ndim == 2 and (x.shape[0] <= NARROW_ROWS or weight.shape[0] <= NARROW_OUTPUTS) and kind in _NO_BIAS \
            and weight.dtype.char == kind and (not use_bias or bias.dtype.char == kind):
        out = np.empty((x.shape[0], weight.shape[0]), dtype=x.dtype)
        _dense_narrow(x, weight, bias if use_bias else _NO_BIAS[kind], relu, out)
        return out
    out = wide_product(x, weight.T)
    if (use_bias or relu) and out.dtype.char in _NO_BIAS and (not use_bias or bias.dtype == out.dtype):
        # flatten=False leaves leading axes: the rows of a (.., outputs) product
        _add_bias_relu(out.reshape(-1, out.shape[-1]), bias if use_bias else _NO_BIAS[out.dtype.char], relu)
        return out
    if use_bias:
        out += bias
    if relu:  # NaN gives 0, as MXNet's Activation
        np.copyto(out, 0, where=~(out > 0))
    return out


@numba.njit(cache=True, nogil=True)
def _add_bias_relu(out, bias, relu):
    """out += bias (none if empty), then with `relu` what is not above 0 becomes 0 (NaN too, as with
    MXNet's Activation): one pass over the product instead of numpy's two."""
    zero = out.dtype.type(0)
    with_bias = bias.shape[0] > 0
    for i in range(out.shape[0]):
        row = out[i]
        for j in range(row.shape[0]):
            value = row[j] + bias[j] if with_bias else row[j]
            if relu and not value > zero:
                value = zero
            row[j] = value


@numba.njit(cache=True, nogil=True)
def _dense_chain_narrow(x, weights, biases, relus):
    """Layers one after another on the narrow loop, in one call: the hidden results never
    reach Python."""
    hidden = x
    for layer in range(len(weights)):
        weight, bias = weights[layer], biases[layer]
        if hidden.shape[1] != weight.shape[1] or bias.shape[0] != weight.shape[0]:
            raise ValueError("Shape inconsistent: a layer's input or bias does not match its weight")
        out = np.empty((hidden.shape[0], weight.shape[0]), dtype=hidden.dtype)
        _dense_narrow(hidden, weight, bias, relus[layer], out)
        hidden = out
    return hidden


def dense_chain(data, *parameters, flatten=True, relus=()):
    """FullyConnected layers with biases, each reading the one before (an MLP): `parameters` are
    (weight, bias) per layer, `relus` whether each applies a ReLU. A batch of a few rows runs the
    whole chain in one Numba call; any other runs layer by layer."""
    x = data.reshape(data.shape[0], -1) if flatten and data.ndim != 2 else data
    weights, biases = parameters[0::2], parameters[1::2]
    if x.shape[0] <= NARROW_ROWS and x.dtype.char in _NO_BIAS and weights[0].dtype == x.dtype:
        try:
            return _dense_chain_narrow(x, weights, biases, relus)
        except numba.core.errors.TypingError:
            pass  # parameters of several types or memory layouts: layer by layer
    for weight, bias, relu in zip(weights, biases, relus):
        x = fully_connected(x, weight, bias, num_hidden=weight.shape[0], relu=relu)
    return x


# ---- convolution
# Images are taken in chunks whose columns stay under this many bytes (at least one image; fewer
# when the filters are few, see workspace.images_per_chunk).
COLUMN_BYTES = 2 << 20


@numba.njit(cache=True, nogil=True)
def _columns(x, lo, hi, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow, cols):
    """Images lo..hi-1 as columns side by side: cols is (c*kh*kw, (hi-lo)*oh*ow), row (ch, i, j)
    holding the input that tap (i, j) of channel ch meets at each output position (0 where it
    meets padding)."""
    n, c, h, w = x.shape
    zero = x.dtype.type(0)
    positions = oh * ow
    # Row copies index the input with values the compiler can prove non-negative, so that they
    # vectorize: a signed index costs a wraparound test per element (5x slower here).
    plain = sw == 1 and dw == 1 and pw == 0
    for b in range(lo, hi):
        for ch in range(c):
            for i in range(kh):
                for j in range(kw):
                    dst = cols[(ch * kh + i) * kw + j]
                    shift = j * dw - pw
                    first = min(max(0, (sw - 1 - shift) // sw), ow)  # columns inside the input
                    stop = min(max(first, (w - 1 - shift) // sw + 1), ow)
                    for y in range(oh):
                        iy = y * sh - ph + i * dh
                        base = (b - lo) * positions + y * ow
                        if iy < 0 or iy >= h:
                            for xx in range(ow):
                                dst[base + xx] = zero
                            continue
                        src = x[b, ch, iy]
                        if plain:
                            at = np.uint64(base)
                            offset = np.uint64(shift)
                            for k in range(np.uint64(ow)):
                                dst[at + k] = src[offset + k]
                            continue
                        for xx in range(first):
                            dst[base + xx] = zero
                        start = np.uint64(first * sw + shift)
                        step = np.uint64(sw)
                        at = np.uint64(base + first)
                        for k in range(np.uint64(stop - first)):
                            dst[at + k] = src[start + k * step]
                        for xx in range(stop, ow):
                            dst[base + xx] = zero


@numba.njit(cache=True, nogil=True)
def _place_rows(products, lo, bias, relu, width, out):
    """The product (filters, images * oh * width) into out[lo:] (images, filters, oh, ow): each
    output row is the first ow of `width` products (width > ow for wide rows, see kernels.wide).
    Plus one bias per filter (none if `bias` is empty); with `relu`, negative results become 0
    (NaN too, as with MXNet's Activation)."""
    filters, oh, ow = out.shape[1], out.shape[2], out.shape[3]
    span = oh * width
    zero = out.dtype.type(0)
    with_bias = bias.shape[0] > 0
    for image in range(products.shape[1] // span):
        for f in range(filters):
            row = products[f]
            value = bias[f] if with_bias else zero
            for y in range(oh):
                dst = out[lo + image, f, y]
                base = np.uint64(image * span + y * width)
                for k in range(np.uint64(ow)):
                    result = row[base + k] + value
                    if relu and not result > zero:
                        result = zero
                    dst[k] = result


@numba.njit(cache=True, nogil=True)
def _place_max_pooled(products, lo, bias, relu, width, oh, rows, cols, row_step, column_step, out):
    """Like _place_rows, then max pooling into out[lo:] (images, filters, pooled rows, pooled
    columns) without writing the convolution's output: windows of len(rows) x len(cols), strides
    len(row_step) and len(column_step), no padding. Those sizes are the lengths of tuples, part
    of their types: each geometry gets a kernel with constant loop bounds and strides, which the
    compiler vectorizes together with the selects below (4x faster than branches).
    The bias is added and the ReLU applied to each window's maximum: both preserve order, so the
    result is the pooling of the biased, rectified outputs. NaN is skipped as max pooling skips
    it; a window of NaN only gives -inf, as pooling it would."""
    filters, pooled_rows, pooled_columns = out.shape[1], out.shape[2], out.shape[3]
    span = oh * width
    zero = out.dtype.type(0)
    lowest = out.dtype.type(-np.inf)
    with_bias = bias.shape[0] > 0
    for image in range(products.shape[1] // span):
        for f in range(filters):
            row = products[f]
            value = bias[f] if with_bias else zero
            for y in range(pooled_rows):
                dst = out[lo + image, f, y]
                top = np.uint64(image * span + y * len(row_step) * width)
                for x in range(np.uint64(pooled_columns)):
                    left = top + x * np.uint64(len(column_step))
                    best = lowest
                    all_nan = True
                    for i in range(len(rows)):
                        for j in range(len(cols)):
                            v = row[left + np.uint64(i * width + j)]
                            best = v if v > best else best
                            all_nan = all_nan and v != v
                    result = best + value
                    result = zero if relu and not result > zero else result
                    dst[x] = lowest if all_nan and not relu else result  # ReLU made a NaN 0


def _conv2d(x, w2d, bias, geometry, groups, relu, pool=None, buffer=None):
    """2-D convolution as columns (Numba), then one BLAS product per chunk of images and group:
    all of a chunk's images side by side in one product, which BLAS runs several times faster
    than a small product per image; then the product is put in place with bias and ReLU, or with
    `pool` (kh, kw, sh, sw) max pooled first. Stride 1 without padding takes wide rows (see
    kernels.wide): a few more columns to multiply, copied several times faster."""
    n, c, h, w = x.shape
    kh, kw, sh, sw, ph, pw, dh, dw, oh, ow = geometry
    wide = sh == 1 and sw == 1 and ph == 0 and pw == 0
    if pool is None and not (wide and kh * kw > 1):
        # 1x1, depthwise, padded or strided: the shape-chosen kernels, bias and ReLU as their epilogue
        shift = bias if bias.shape[0] else np.zeros(w2d.shape[0], x.dtype)
        return conv_kernels.conv2d(x, w2d, geometry, groups, np.empty(0, x.dtype), shift,
                                   conv_kernels.no_residual(x.dtype), conv_kernels.RELU if relu else conv_kernels.NONE,
                                   buffer)
    width = w if wide else ow
    taps, positions = w2d.shape[1] * groups, oh * width
    if pool is None:
        shape = (n, w2d.shape[0], oh, ow)
        out = np.empty(shape, dtype=x.dtype) if buffer is None else buffer(shape, x.dtype)
    else:
        pkh, pkw, psh, psw = pool
        out = np.empty((n, w2d.shape[0], (oh - pkh) // psh + 1, (ow - pkw) // psw + 1), dtype=x.dtype)
    fg, tg = w2d.shape[0] // groups, taps // groups
    chunk = images_per_chunk(n, taps * positions * x.itemsize, fg, COLUMN_BYTES)
    cols = scratch("columns", (taps, chunk * positions), x.dtype)
    for lo in range(0, n, chunk):
        hi = min(n, lo + chunk)
        part = cols[:, :(hi - lo) * positions]
        if wide:
            wide_columns(x, lo, hi, kh, kw, dh, dw, oh, part)
        else:
            _columns(x, lo, hi, *geometry, part)
        result = scratch("products", (w2d.shape[0], part.shape[1]), x.dtype)
        if groups == 1:
            wide_product(w2d, part, out=result)
        else:
            for g in range(groups):
                np.matmul(w2d[g * fg:(g + 1) * fg], part[g * tg:(g + 1) * tg], out=result[g * fg:(g + 1) * fg])
        if pool is None:
            _place_rows(result, lo, bias, relu, width, out)
        else:
            _place_max_pooled(result, lo, bias, relu, width, oh, (0,) * pkh, (0,) * pkw, (0,) * psh, (0,) * psw,
                              out)
    return out


@numba.njit(cache=True, nogil=True)
def _col2im(cols, n, c, h, w, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow):
    x = np.zeros((n, c, h, w), dtype=cols.dtype)
    for b in range(n):
        for ch in range(c):
            for i in range(kh):
                for j in range(kw):
                    row = (ch * kh + i) * kw + j
                    for y in range(oh):
                        iy = y * sh - ph + i * dh
                        if iy < 0 or iy >= h:
                            continue
                        for xx in range(ow):
                            ix = xx * sw - pw + j * dw
                            if 0 <= ix < w:
                                x[b, ch, iy, ix] += cols[b, row, y * ow + xx]
    return x


def _as_2d(data, kernel, stride, dilate, pad):
    """1-D convolutions run as 2-D ones of height 1."""
    k = len(kernel)
    if k == 1:
        return (data[:, :, None, :], (1,) + tuple(kernel), (1,) + tuple(stride or (1,)),
                (1,) + tuple(dilate or (1,)), (0,) + tuple(pad or (0,)), True)
    if k != 2:
        raise ValueError("only 1-D and 2-D convolutions are supported, got kernel %s" % (kernel,))
    return data, tuple(kernel), tuple(stride or (1, 1)), tuple(dilate or (1, 1)), tuple(pad or (0, 0)), False


def _convolution_nd(data, weight, bias, kernel, stride, dilate, pad, num_filter, num_group, no_bias):
    """Any number of spatial axes (3-D volumes), through strided windows and one contraction per group."""
    dims = len(kernel)
    stride, dilate, pad = tuple(stride or (1,) * dims), tuple(dilate or (1,) * dims), tuple(pad or (0,) * dims)
    x = np.pad(data, [(0, 0), (0, 0)] + [(p, p) for p in pad])
    spans = tuple(d * (k - 1) + 1 for k, d in zip(kernel, dilate))
    windows = np.lib.stride_tricks.sliding_window_view(x, spans, axis=tuple(range(2, 2 + dims)))
    windows = windows[(slice(None), slice(None)) + tuple(slice(None, None, s) for s in stride)
                      + tuple(slice(None, None, d) for d in dilate)]
    c, f = data.shape[1] // num_group, num_filter // num_group
    letters = "defghijk"[:dims]
    taps = "pqrstuvw"[:dims]
    outs = []
    for g in range(num_group):
        part = windows[:, g * c:(g + 1) * c]
        outs.append(np.einsum("nc%s%s,oc%s->no%s" % (letters, taps, taps, letters), part,
                              weight[g * f:(g + 1) * f], optimize=True))
    out = np.concatenate(outs, axis=1).astype(data.dtype, copy=False)
    if bias is not None and not no_bias:
        out += bias.reshape((1, -1) + (1,) * dims)
    return out


def convolution(data, weight, bias=None, kernel=(), stride=(), dilate=(), pad=(), num_filter=0, num_group=1,
                workspace=1024, no_bias=False, cudnn_tune=None, cudnn_off=False, layout=None, relu=False,
                buffer=None):
    """MXNet's Convolution. `relu` (not an MXNet attribute) also applies a ReLU, for compiled
    graphs that fuse the two: in the same pass as the bias. `buffer(shape, dtype)`, if given,
    offers the memory of a 2-D convolution's output (which the compiled kernels take)."""
    return _convolution(data, weight, bias, kernel, stride, dilate, pad, num_filter, num_group, no_bias, relu,
                        buffer=buffer)


def convolution_max_pool(data, weight, bias=None, kernel=(), stride=(), dilate=(), pad=(), num_filter=0,
                         num_group=1, no_bias=False, relu=False, pool_kernel=(2, 2), pool_stride=(2, 2),
                         pool_convention="valid", **cpu_neutral):
    """Convolution (MXNet's attributes; `cpu_neutral` takes those that change nothing here, such
    as workspace and layout), a ReLU with `relu`, then max pooling in windows of `pool_kernel`
    with `pool_stride`, without padding, by `pool_convention`: a compiled graph's fusion of the
    three (graph.py). Floating-point images are pooled as the product is put in place, so the
    convolution's output is never written (for the "full" convention, where its windows are
    those of "valid": none reaches past the edge); others run the operators one after another."""
    return _convolution(data, weight, bias, kernel, stride, dilate, pad, num_filter, num_group, no_bias, relu,
                        pool=tuple(pool_kernel) + tuple(pool_stride), pool_convention=pool_convention)


def _convolution(data, weight, bias, kernel, stride, dilate, pad, num_filter, num_group, no_bias, relu, pool=None,
                 pool_convention="valid", buffer=None):
    if len(kernel) != 3:
        x, (kh, kw), (sh, sw), (dh, dw), (ph, pw), one_d = _as_2d(data, kernel, stride, dilate, pad)
        w = weight[:, :, None, :] if one_d else weight
        n, c, h, wd = x.shape
        if c != w.shape[1] * num_group:
            raise ValueError("Shape inconsistent: data has %d channels, weight expects %d"
                             % (c, w.shape[1] * num_group))
        oh = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
        ow = (wd + 2 * pw - dw * (kw - 1) - 1) // sw + 1
        fits = pool is None or (not one_d and oh >= pool[0] and ow >= pool[1])
        if x.dtype in (np.float32, np.float64) and w.dtype == x.dtype and fits:  # types BLAS takes
            biases = bias.astype(x.dtype, copy=False) if bias is not None and not no_bias else np.empty(0, x.dtype)
            # The pooling runs after the convolution where "full" windows reach past the far edge (the
            # fused kernel takes whole windows), and while the kernels compile: the fused ones have
            # no twin, and would be compiled here, seconds into a new process's first call (the
            # values are the same either way)
            apart = pool is not None and (pool_convention == "full" and _reaches_past(oh, ow, pool) or compiling())
            out = _conv2d(np.ascontiguousarray(x), np.ascontiguousarray(w.reshape(num_filter, -1)), biases,
                          (kh, kw, sh, sw, ph, pw, dh, dw, oh, ow), num_group, relu, None if apart else pool,
                          None if one_d else buffer)
            if apart:
                out = pooling(out, kernel=pool[:2], stride=pool[2:], pool_type="max", pooling_convention=pool_convention)
            return out[:, :, 0, :] if one_d else out
    out = _convolution_nd(data, weight, bias, kernel, stride, dilate, pad, num_filter, num_group, no_bias)
    if relu:
        np.copyto(out, 0, where=~(out > 0))
    return out if pool is None else pooling(out, kernel=pool[:2], stride=pool[2:], pool_type="max",
                                            pooling_convention=pool_convention)


def _reaches_past(oh: int, ow: int, pool) -> bool:
    """Whether "full" pooling windows (kh, kw, sh, sw) over (oh, ow) reach past its far edge."""
    return bool((oh - pool[0]) % pool[2] or (ow - pool[1]) % pool[3])


def deconvolution(data, weight, bias=None, kernel=(), stride=(), dilate=(), pad=(), adj=(), target_shape=(),
                  num_filter=0, num_group=1, workspace=512, no_bias=True, cudnn_tune=None, cudnn_off=False,
                  layout=None):
    x, (kh, kw), (sh, sw), (dh, dw), (ph, pw), one_d = _as_2d(data, kernel, stride, dilate, pad)
    w = weight[:, :, None, :] if one_d else weight
    adj = tuple(adj) if adj else (0,) * len(kernel)
    ah, aw = ((0,) + adj) if one_d else adj
    n, c, h, wd = x.shape
    oh = (h - 1) * sh - 2 * ph + dh * (kh - 1) + 1 + ah
    ow = (wd - 1) * sw - 2 * pw + dw * (kw - 1) + 1 + aw
    if target_shape:
        ts = ((1,) + tuple(target_shape)) if one_d else tuple(target_shape)
        oh, ow = ts
    cg, fg = c // num_group, num_filter // num_group
    cols = np.empty((n, num_filter * kh * kw, h * wd), dtype=x.dtype)
    xr = x.reshape(n, c, h * wd)
    for g in range(num_group):
        wg = w[g * cg:(g + 1) * cg].reshape(cg, fg * kh * kw)
        cols[:, g * fg * kh * kw:(g + 1) * fg * kh * kw] = np.matmul(wg.T, xr[:, g * cg:(g + 1) * cg])
    out = _col2im(cols, n, num_filter, oh, ow, kh, kw, sh, sw, ph, pw, dh, dw, h, wd)
    if bias is not None and not no_bias:
        out += bias.reshape(1, -1, 1, 1)
    return out[:, :, 0, :] if one_d else out


# ---- pooling
@tiered(twins.pool2d)
@numba.njit(cache=True, nogil=True)
def _pool2d(x, kh, kw, sh, sw, ph, pw, oh, ow, is_max, count_include_pad, is_sum):
    n, c, h, w = x.shape
    out = np.empty((n, c, oh, ow), dtype=x.dtype)
    for b in range(n):
        for ch in range(c):
            for y in range(oh):
                y0 = y * sh - ph
                y1 = min(y0 + kh, h + ph)
                for xx in range(ow):
                    x0 = xx * sw - pw
                    x1 = min(x0 + kw, w + pw)
                    size = (y1 - y0) * (x1 - x0)
                    ya, yb, xa, xb = max(y0, 0), min(y1, h), max(x0, 0), min(x1, w)
                    if is_max:
                        best = -np.inf
                        for i in range(ya, yb):
                            for j in range(xa, xb):
                                if x[b, ch, i, j] > best:
                                    best = x[b, ch, i, j]
                        out[b, ch, y, xx] = best
                    else:
                        total = 0.0
                        for i in range(ya, yb):
                            for j in range(xa, xb):
                                total += x[b, ch, i, j]
                        if is_sum:
                            out[b, ch, y, xx] = total
                        else:
                            count = size if count_include_pad else (yb - ya) * (xb - xa)
                            out[b, ch, y, xx] = total / max(count, 1)
    return out


@tiered(twins.average_pool2d)
@numba.njit(cache=True, nogil=True)
def _average_pool2d(x, rows, cols, row_step, column_step, oh, ow, divisor):
    """Average (or sum: divisor 1) pooling when every window lies inside `x`. The window's size and
    strides come as the lengths of tuples, part of their types: each geometry gets its own
    compiled kernel with constant loop bounds and strides, which the compiler vectorizes (several
    times faster than loops with bounds known only at run time)."""
    n, c, h, w = x.shape
    out = np.empty((n, c, oh, ow), dtype=x.dtype)
    for b in range(n):
        for ch in range(c):
            plane = x[b, ch].reshape(h * w)
            dst = out[b, ch]
            for y in range(oh):
                o = dst[y]
                top = np.uint64(y * len(row_step) * w)
                for xx in range(np.uint64(ow)):
                    left = top + xx * np.uint64(len(column_step))
                    total = 0.0
                    for i in range(len(rows)):
                        for j in range(len(cols)):
                            total += plane[left + np.uint64(i * w + j)]
                    o[xx] = total / divisor
    return out


@tiered(twins.max_pool2d)
@numba.njit(cache=True, nogil=True)
def _max_pool2d(x, rows, cols, sh, sw, ph, pw, out):
    """Max pooling in two passes per output row: the maxima down each column of the window's rows
    (contiguous, vectorized), then the maxima of each window's columns among those, taken at the
    stride. Windows are clipped to the input (padding never wins), so this serves both conventions.
    Of equal values the first in column order wins (only the sign of a zero can tell), and NaN
    never does. The window's size comes as the lengths of `rows` and `cols` (see above)."""
    n, c, h, w = x.shape
    kh, kw = len(rows), len(cols)
    oh, ow = out.shape[2], out.shape[3]
    lowest = x.dtype.type(-np.inf)
    size = max(w + 2 * pw, (ow - 1) * sw + 1) + kw
    column = np.full(size, lowest)  # an output row's column maxima at [pw, pw + w), -inf around
    slide = np.empty(size - kw, x.dtype)  # the maximum of each kw columns from there
    at = np.uint64(pw)
    for b in range(n):
        for ch in range(c):
            plane = x[b, ch]
            for oy in range(oh):
                y0 = oy * sh - ph
                if y0 >= 0 and y0 + kh <= h:
                    for k in range(np.uint64(w)):
                        best = lowest
                        for i in range(len(rows)):
                            v = plane[y0 + i, k]
                            best = v if v > best else best
                        column[at + k] = best
                else:  # rows past an edge take no part
                    for k in range(np.uint64(w)):
                        column[at + k] = lowest
                    for i in range(max(0, -y0), min(kh, h - y0)):
                        row = plane[y0 + i]
                        for k in range(np.uint64(w)):
                            v = row[k]
                            best = column[at + k]
                            column[at + k] = v if v > best else best
                for k in range(np.uint64(size - kw)):
                    best = lowest
                    for j in range(len(cols)):
                        v = column[k + np.uint64(j)]
                        best = v if v > best else best
                    slide[k] = best
                dst = out[b, ch, oy]
                for ox in range(ow):
                    dst[ox] = slide[ox * sw]
    return out


def _pool2d_fast(x, kh, kw, sh, sw, ph, pw, oh, ow, pool_type, include):
    """The common cases on the specialized kernels, or None. Average pooling that counts the
    padding pads with zeros."""
    if x.dtype not in (np.float32, np.float64) or kh * kw > 64 or max(sh, sw) > 8:
        return None  # a kernel per geometry: only for the small ones nets use
    if pool_type == "max":  # ResNet's (1, 64, 112, 112): 0.19 ms; padded and in one pass, 0.6 ms
        return _max_pool2d(np.ascontiguousarray(x), (0,) * kh, (0,) * kw, sh, sw, ph, pw,
                           np.empty(x.shape[:2] + (oh, ow), x.dtype))
    if (oh - 1) * sh + kh > x.shape[2] + 2 * ph or (ow - 1) * sw + kw > x.shape[3] + 2 * pw:
        return None  # "full" convention: windows at the far edge are clipped
    if ph or pw:
        if not include:
            return None
        x = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    divisor = 1.0 if pool_type == "sum" else float(kh * kw)
    return _average_pool2d(np.ascontiguousarray(x), (0,) * kh, (0,) * kw, (0,) * sh, (0,) * sw, oh, ow, divisor)


CHANNELS_LAST = ("NWC", "NHWC", "NDHWC")


def same_padded(data, kernel, stride, pool_type):
    """1-D data padded at its end for the "same" convention: ceil(width / stride) windows, the last
    ones reaching past the data (they take no part: -inf for max, 0 otherwise)."""
    k, s, width = kernel[0], (tuple(stride) or (1,))[0], data.shape[-1]
    windows = -(-width // s)
    extra = max(0, (windows - 1) * s + k - width)
    if pool_type != "max":
        fill = 0
    elif data.dtype.kind == "f":
        fill = -np.inf
    else:
        fill = np.iinfo(data.dtype).min
    return np.pad(data, ((0, 0), (0, 0), (0, extra)), constant_values=fill)


def pooled_shape(shape, kernel=(), pooling_convention="valid", stride=(), pad=(), layout=None, **_) -> tuple:
    """The shape `pooling` gives data of this shape (not a global pooling): windows that fit
    ("valid"), or ceil'd so that the last ones may pass the padding ("full"); "same" (1-D): one
    window per stride started inside the data."""
    if layout in CHANNELS_LAST:
        moved = pooled_shape((shape[0], shape[-1]) + tuple(shape[1:-1]), kernel, pooling_convention, stride, pad)
        return (moved[0],) + tuple(moved[2:]) + (moved[1],)
    spatial = tuple(shape[2:])
    stride = tuple(stride) or (1,) * len(spatial)
    if pooling_convention == "same":
        return tuple(shape[:2]) + tuple(-(-d // s) for d, s in zip(spatial, stride))
    pad = tuple(pad) or (0,) * len(spatial)
    round_ = math.ceil if pooling_convention == "full" else math.floor
    return tuple(shape[:2]) + tuple(int(round_((d + 2 * p - k) / s)) + 1
                                    for d, k, s, p in zip(spatial, kernel, stride, pad))


def pooling(data, kernel=(), pool_type="max", global_pool=False, cudnn_off=False, pooling_convention="valid",
            stride=(), pad=(), p_value=None, count_include_pad=None, layout=None):
    if global_pool and len(kernel) > data.ndim - 2 and pool_type in ("max", "avg") and data.dtype == np.float32:
        # MXNet 1.9.1's CPU pooling of float32 (oneDNN) takes its window's dimensions from the kernel
        # and their sizes from the data: a 2-D global pooling of 3-D data has a window of size 0,
        # which passes shape inference and fails when computed
        raise ValueError("Check failed: kernel[%d] > 0 (0 vs. 0) : Filter dimensions cannot be zero." % (data.ndim - 2))
    if pooling_convention == "same" and not global_pool:  # 1-D only, without padding (checked)
        return pooling(same_padded(data, kernel, stride, pool_type), kernel, pool_type, False, cudnn_off, "valid",
                       stride, (0,), p_value, count_include_pad, layout)
    if layout in CHANNELS_LAST:  # pooled as channels-first, the channels moved back last
        out = pooling(np.moveaxis(data, -1, 1), kernel, pool_type, global_pool, cudnn_off, pooling_convention, stride,
                      pad, p_value, count_include_pad)
        return np.ascontiguousarray(np.moveaxis(out, 1, -1))
    if data.ndim == 5 and pool_type != "lp":
        return _pool_nd(data, kernel, pool_type, global_pool, pooling_convention, stride, pad, count_include_pad)
    if pool_type == "lp":  # the p-norm of each window: (sum of x^p)^(1/p)
        p = p_value or 2
        summed = pooling(np.power(data, p), kernel, "sum", global_pool, cudnn_off, pooling_convention, stride, pad)
        return np.power(summed, 1.0 / p).astype(data.dtype, copy=False)
    one_d = data.ndim == 3
    x = data[:, :, None, :] if one_d else data
    if global_pool:
        reduce = np.max if pool_type == "max" else np.sum if pool_type == "sum" else np.mean
        out = reduce(x, axis=(2, 3), keepdims=True)
        return out[:, :, 0, :] if one_d else out
    if x.ndim != 4:
        raise ValueError("only 1-D and 2-D pooling are supported")
    kernel = ((1,) + tuple(kernel)) if one_d else tuple(kernel)
    stride = ((1,) + tuple(stride or (1,))) if one_d else tuple(stride or (1, 1))
    pad = ((0,) + tuple(pad or (0,))) if one_d else tuple(pad or (0, 0))
    (kh, kw), (sh, sw), (ph, pw) = kernel, stride, pad
    oh, ow = pooled_shape(x.shape, kernel, pooling_convention, stride, pad)[2:]
    include = True if count_include_pad is None else count_include_pad
    out = None
    if pool_type in ("max", "avg", "sum"):
        out = _pool2d_fast(x, kh, kw, sh, sw, ph, pw, oh, ow, pool_type, include)
    if out is None:
        out = _pool2d(np.ascontiguousarray(x), kh, kw, sh, sw, ph, pw, oh, ow, pool_type == "max", include,
                      pool_type == "sum")
    return out[:, :, 0, :] if one_d else out


def _pool_nd(data, kernel, pool_type, global_pool, pooling_convention, stride, pad, count_include_pad):
    """Pooling over any number of spatial axes (3-D pooling), by windows of the padded input."""
    from numpy.lib.stride_tricks import sliding_window_view
    sizes = data.shape[2:]
    spatial = len(sizes)
    if global_pool:
        axes = tuple(range(2, data.ndim))
        reduce = np.max if pool_type == "max" else np.sum if pool_type == "sum" else np.mean
        return reduce(data, axis=axes, keepdims=True).astype(data.dtype, copy=False)
    stride = tuple(stride) or (1,) * spatial
    pad = tuple(pad) or (0,) * spatial
    outs = pooled_shape(data.shape, kernel, pooling_convention, stride, pad)[2:]
    # the "full" convention's last windows may reach past the padding
    extra = tuple(max(0, (o - 1) * s + k - (d + 2 * p)) for o, s, k, d, p in zip(outs, stride, kernel, sizes, pad))
    fill = -np.inf if pool_type == "max" else 0.0
    widths = ((0, 0), (0, 0)) + tuple((p, p + e) for p, e in zip(pad, extra))
    padded = np.pad(data.astype(np.float64), widths, constant_values=fill)
    windows = sliding_window_view(padded, tuple(kernel), axis=tuple(range(2, data.ndim)))
    windows = windows[(slice(None), slice(None)) + tuple(slice(None, (o - 1) * s + 1, s) for o, s in zip(outs, stride))]
    axes = tuple(range(data.ndim, windows.ndim))
    if pool_type == "max":
        return windows.max(axis=axes).astype(data.dtype)
    total = windows.sum(axis=axes)
    if pool_type == "sum":
        return total.astype(data.dtype)
    include = True if count_include_pad is None else count_include_pad
    divisor = np.ones(outs)
    for axis, (o, s, k, d, p) in enumerate(zip(outs, stride, kernel, sizes, pad)):
        counts = twins.window_sizes(o, s, p, k, d, include)
        shape = [1] * spatial
        shape[axis] = o
        divisor = divisor * np.maximum(counts, 1).reshape(shape)
    return (total / divisor).astype(data.dtype)


def adaptive_avg_pool2d(data, output_size=()):
    n, c, h, w = data.shape
    size = output_size or (1,)
    oh, ow = (size[0], size[0]) if len(size) == 1 else size
    out = np.empty((n, c, oh, ow), dtype=data.dtype)
    for i in range(oh):
        y0, y1 = (i * h) // oh, -((-(i + 1) * h) // oh)
        for j in range(ow):
            x0, x1 = (j * w) // ow, -((-(j + 1) * w) // ow)
            out[:, :, i, j] = data[:, :, y0:y1, x0:x1].mean(axis=(2, 3))
    return out


# ---- normalization
def batch_norm(data, gamma, beta, moving_mean, moving_var, eps=1e-3, momentum=0.9, fix_gamma=True,
               use_global_stats=False, output_mean_var=False, axis=1, cudnn_off=False, min_calib_range=None,
               max_calib_range=None, is_train=False):
    axis = axis % data.ndim
    shape = [1] * data.ndim
    shape[axis] = -1
    if is_train and not use_global_stats:
        axes = tuple(a for a in range(data.ndim) if a != axis)
        mean, var = data.mean(axis=axes), data.var(axis=axes)
    else:
        mean, var = moving_mean, moving_var
    g = np.ones_like(gamma) if fix_gamma else gamma
    out = (data - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps) * g.reshape(shape) + beta.reshape(shape)
    out = out.astype(data.dtype, copy=False)
    return (out, mean.astype(data.dtype), var.astype(data.dtype))


def batch_norm_invstd(data, gamma, beta, moving_mean, moving_var, eps=1e-3, **options):
    """BatchNorm's outputs as MXNet 1.9.1 gives them: the third is the inverse standard deviation
    1 / sqrt(var + eps) (of the batch in training, of moving_var otherwise), not the variance
    (SyncBatchNorm's third output stays the variance); 0 where var and eps are both 0."""
    out, mean, var = batch_norm(data, gamma, beta, moving_mean, moving_var, eps=eps, **options)
    spread = var.astype(np.float64) + eps
    invstd = np.divide(1.0, np.sqrt(spread), out=np.zeros_like(spread), where=spread > 0)
    return out, mean, invstd.astype(var.dtype)


def variance_of_invstd(invstd, eps):
    """The variance back from BatchNorm's third output (MXNet's moving_var update reads it so)."""
    invstd = invstd.astype(np.float64)
    return np.divide(1.0, np.square(invstd), out=np.zeros_like(invstd), where=invstd > 0) - eps


def layer_norm(data, gamma, beta, axis=-1, eps=1e-5, output_mean_var=False):
    mean = data.mean(axis=axis, keepdims=True)
    var = data.var(axis=axis, keepdims=True)
    shape = [1] * data.ndim
    shape[axis] = -1
    out = (data - mean) / np.sqrt(var + eps) * gamma.reshape(shape) + beta.reshape(shape)
    return out.astype(data.dtype, copy=False)


def instance_norm(data, gamma, beta, eps=1e-3):
    axes = tuple(range(2, data.ndim))
    mean = data.mean(axis=axes, keepdims=True)
    var = data.var(axis=axes, keepdims=True)
    shape = (1, -1) + (1,) * (data.ndim - 2)
    out = (data - mean) / np.sqrt(var + eps) * gamma.reshape(shape) + beta.reshape(shape)
    return out.astype(data.dtype, copy=False)


def group_norm(data, gamma, beta, num_groups=1, eps=1e-5, output_mean_var=False):
    n, c = data.shape[:2]
    grouped = data.reshape(n, num_groups, -1)
    mean = grouped.mean(axis=2, keepdims=True)
    var = grouped.var(axis=2, keepdims=True)
    # MXNet 1.x scales and shifts per group: gamma and beta have num_groups elements
    normed = (grouped - mean) / np.sqrt(var + eps) * gamma.reshape(1, -1, 1) + beta.reshape(1, -1, 1)
    return normed.reshape(data.shape).astype(data.dtype, copy=False)


def l2_normalization(data, eps=1e-10, mode="instance"):
    if mode == "instance":
        axes = tuple(range(1, data.ndim))
    elif mode == "channel":
        axes = (1,)
    else:
        axes = tuple(range(2, data.ndim))
    norm = np.sqrt(np.sum(np.square(data), axis=axes, keepdims=True) + eps)
    return (data / norm).astype(data.dtype, copy=False)


# ---- others
def embedding(data, weight, input_dim=0, output_dim=0, dtype="float32", sparse_grad=False):
    idx = np.clip(data.astype(np.int64), 0, weight.shape[0] - 1)
    return weight[idx]


def dropout(data, p=0.5, mode="training", axes=(), cudnn_off=False, is_train=False):
    """(output, mask): the mask, the scale each element was multiplied by, is the gradient's factor."""
    if not (is_train or mode == "always") or p == 0:
        return data.copy(), np.ones((1,) * data.ndim, data.dtype)
    shape = list(data.shape)
    for a in axes:
        shape[a] = 1
    # MXNet's own generator (mx.random.seed), not NumPy's global one, which user code seeds apart
    mask = ((_random.generator().random(shape) >= p) / (1 - p)).astype(data.dtype)
    return data * mask, mask


def softmax_cross_entropy(data, label):
    """The summed cross entropy of each row's softmax at its label, as shape (1,); a probability
    is taken as at least 1e-8 before its logarithm, as MXNet does."""
    probabilities = softmax(data, axis=1).astype(np.float64)
    chosen = probabilities[np.arange(data.shape[0]), label.astype(np.int64)]
    return np.array([-np.log(np.maximum(chosen, 1e-8)).sum()], dtype=data.dtype)


def softmax_output(data, label=None, grad_scale=1.0, ignore_label=-1.0, multi_output=False, use_ignore=False,
                   preserve_shape=False, normalization="null", out_grad=False, smooth_alpha=0.0):
    if multi_output:
        return softmax(data, axis=1)
    if preserve_shape:
        return softmax(data, axis=-1)
    return softmax(data.reshape(data.shape[0], -1), axis=-1).reshape(data.shape)


def softmax_activation(data, mode="instance"):
    if mode == "channel":
        return softmax(data, axis=1)
    return softmax(data.reshape(data.shape[0], -1), axis=-1).reshape(data.shape)


def bilinear_upsampling_attrs(scale, num_filter):
    """MXNet's bilinear UpSampling is this Deconvolution: one filter per channel, a kernel of
    2 * scale - scale % 2 at stride `scale`, padded by ceil((scale - 1) / 2)."""
    kernel, pad = 2 * scale - scale % 2, -(-(scale - 1) // 2)
    return {"kernel": (kernel, kernel), "stride": (scale, scale), "pad": (pad, pad), "num_filter": num_filter,
            "num_group": num_filter, "no_bias": True}


def upsampling(*data, scale=1, sample_type="nearest", num_args=1, num_filter=0, multi_input_mode="concat",
               workspace=512):
    if sample_type == "bilinear":
        return deconvolution(data[0], data[1], **bilinear_upsampling_attrs(scale, num_filter))
    # nearest: every input repeated up to the first one's size times `scale`, then joined
    height, width = data[0].shape[2] * scale, data[0].shape[3] * scale
    grown = [np.repeat(np.repeat(x, height // x.shape[2], axis=2), width // x.shape[3], axis=3) for x in data]
    if len(grown) == 1:
        return grown[0]
    if multi_input_mode == "sum":
        return np.sum(grown, axis=0).astype(data[0].dtype)
    return np.concatenate(grown, axis=1)


def upsampling_nearest_grad(inputs, out_grad, multi_input_mode="concat"):
    """Each input's gradient: the sum of the output's gradient over the block it was repeated to
    (its channels of it when the inputs were concatenated)."""
    grads, channel = [], 0
    for x in inputs:
        n, c, h, w = x.shape
        g = out_grad if multi_input_mode == "sum" else out_grad[:, channel:channel + c]
        channel += c
        fh, fw = g.shape[2] // h, g.shape[3] // w
        grads.append(g.reshape(n, c, h, fh, w, fw).sum(axis=(3, 5)).astype(x.dtype))
    return grads


def _sequence_lengths(data, sequence_length, use_sequence_length, axis):
    batch = data.shape[1 - axis] if axis in (0, 1) else data.shape[1]
    if not use_sequence_length or sequence_length is None:
        return np.full(batch, data.shape[axis], dtype=np.int64)
    return sequence_length.astype(np.int64)


def sequence_mask(data, sequence_length=None, use_sequence_length=False, value=0.0, axis=0):
    lengths = _sequence_lengths(data, sequence_length, use_sequence_length, axis)
    steps = np.arange(data.shape[axis])
    mask = steps[:, None] < lengths[None, :] if axis == 0 else steps[None, :] < lengths[:, None]
    mask = mask.reshape(mask.shape + (1,) * (data.ndim - 2))
    return np.where(mask, data, np.asarray(value, dtype=data.dtype)).astype(data.dtype)


def sequence_last(data, sequence_length=None, use_sequence_length=False, axis=0):
    lengths = _sequence_lengths(data, sequence_length, use_sequence_length, axis)
    batch = np.arange(lengths.shape[0])
    return data[lengths - 1, batch] if axis == 0 else data[batch, lengths - 1]


def sequence_reverse(data, sequence_length=None, use_sequence_length=False, axis=0):
    lengths = _sequence_lengths(data, sequence_length, use_sequence_length, axis)
    out = data.copy()
    for b, n in enumerate(lengths):
        out[:n, b] = data[:n, b][::-1]
    return out


def resized_size(h, w, like, height, width, scale_height, scale_width, mode):
    """BilinearResize2D's output (height, width) in each of MXNet's modes."""
    def to(size, parity, step):  # the nearest size of that parity, stepping down or up
        return size if size % 2 == parity else size + step
    if mode == "odd_scale":  # an odd size keeps its last row: (size - 1) * scale + 1
        return tuple(int(d * f) if d % 2 == 0 else int((d - 1) * f) + 1
                     for d, f in ((h, scale_height), (w, scale_width)))
    if mode == "like":
        return tuple(like.shape[2:])
    if mode in ("to_even_down", "to_even_up", "to_odd_down", "to_odd_up"):
        parity = 0 if "even" in mode else 1
        step = -1 if mode.endswith("down") else 1
        return to(h, parity, step), to(w, parity, step)
    if scale_height is not None:
        return int(h * scale_height), int(w * scale_width)
    return height, width


def bilinear_resize2d(data, like=None, height=1, width=1, scale_height=None, scale_width=None, mode="size",
                      align_corners=True):
    n, c, h, w = data.shape
    oh, ow = resized_size(h, w, like, height, width, scale_height, scale_width, mode)
    rows, columns = interpolation_matrix(oh, h, align_corners), interpolation_matrix(ow, w, align_corners)
    return (rows @ data.astype(np.float64) @ columns.T).astype(data.dtype)


def interpolation_matrix(out_size, in_size, align_corners=True):
    """The (out_size, in_size) matrix of bilinear interpolation along one axis: row i holds the
    weights of the two input places that output place i mixes (resizing is then two products,
    and its gradient the products with the transposes)."""
    if align_corners:
        places = np.arange(out_size) * ((in_size - 1) / (out_size - 1) if out_size > 1 else 0.0)
    else:
        places = np.maximum((np.arange(out_size) + 0.5) * in_size / out_size - 0.5, 0)
    low = np.floor(places).astype(np.int64)
    high = np.minimum(low + 1, in_size - 1)
    weight = places - low
    matrix = np.zeros((out_size, in_size))
    np.add.at(matrix, (np.arange(out_size), low), 1 - weight)
    np.add.at(matrix, (np.arange(out_size), high), weight)
    return matrix


def _corners(boxes, fmt):
    if fmt == "center":
        x, y, w, h = np.moveaxis(boxes, -1, 0)
        return np.stack([x - w / 2, y - h / 2, x + w / 2, y + h / 2], axis=-1)
    return boxes


def box_iou(lhs, rhs, format="corner"):
    """The overlap of every box of `lhs` with every box of `rhs`: shape lhs.shape[:-1] + rhs.shape[:-1]."""
    a = _corners(lhs, format)
    a = a.reshape(a.shape[:-1] + (1,) * (rhs.ndim - 1) + (4,))  # one axis for each of rhs's box axes
    b = _corners(rhs, format)
    b = b.reshape((1,) * (lhs.ndim - 1) + b.shape)
    ix = np.clip(np.minimum(a[..., 2], b[..., 2]) - np.maximum(a[..., 0], b[..., 0]), 0, None)
    iy = np.clip(np.minimum(a[..., 3], b[..., 3]) - np.maximum(a[..., 1], b[..., 1]), 0, None)
    inter = ix * iy
    area_a = (a[..., 2] - a[..., 0]) * (a[..., 3] - a[..., 1])
    area_b = (b[..., 2] - b[..., 0]) * (b[..., 3] - b[..., 1])
    union = area_a + area_b - inter
    return np.where(union > 0, inter / np.where(union > 0, union, 1), 0).astype(lhs.dtype)
