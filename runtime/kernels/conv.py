"""2-D convolutions with an epilogue: each output channel f is multiplied by scale[f] (none if
`scale` is empty), shifted by shift[f], added to a residual of the output's shape (none if it is
empty) and passed through an activation (0 none, 1 ReLU, 2 ReLU6), while the product is put in
place. A bias is a shift; an inference-time BatchNorm after the convolution is a scale and a
shift; ResNet's `relu(bn(conv(x)) + shortcut)` is all four. The kernel is chosen by shape:
1x1 convolutions are plain products over the image (no column copy), depthwise ones direct
(kernels/depthwise.py, across planes or channels), the others columns (im2col) and products over
chunks of images, grouped ones in one stacked product over the groups. NaN stays NaN through both
activations, as with np.maximum.
"""
from __future__ import annotations

import numba
import numpy as np

from runtime.threads import wide_product
from runtime.kernels import measured, twins, winograd
from runtime.kernels.activation import finish_row
from runtime.kernels.depthwise import depthwise, depthwise_channels_last
from runtime.kernels import tiered as tiering
from runtime.kernels.tiered import tiered
from runtime.kernels.twins import NONE, RELU, RELU6, RELU_OP  # noqa: F401  (the epilogue's activations)
from runtime.kernels.workspace import scratch

# Images are taken in chunks whose columns stay under COLUMN_BYTES (at least one image). An image
# whose columns pass BAND_BYTES is taken in bands of output rows whose columns stay under it, so
# that the product reads them from a core's L2 cache where the column copy left them: ResNet's
# 7x7 stem (147 x 12544 columns, 7.4 MB) multiplies in 4.0 ms at once, 2.8 in bands of 784-1568.
COLUMN_BYTES = 8 << 20
BAND_BYTES = 1 << 20
# Shifted products hold every tap's products of the padded images at once: with many filters that is
# kh * kw times the output, tried only while it stays under this many bytes.
SHIFTED_BYTES = 32 << 20
# Depthwise outputs of at most this many positions are taken across the channels first (_depthwise)
SMALL_PLANE = 7 * 7
_NO_RESIDUAL = {"f": np.empty((0, 1, 1, 1), np.float32), "d": np.empty((0, 1, 1, 1), np.float64)}


@tiered(twins.place)
@numba.njit(cache=True, nogil=True)
def place(products, lo, y0, y1, scale, shift, residual, act, width, out):
    """The product (filters, images * (y1 - y0) * width) into rows y0..y1-1 of out[lo:] (images,
    filters, oh, ow) through the epilogue: each output row is the first ow of `width` products
    (width > ow for wide rows). `products` may be `out` itself (width == ow), each element read
    before it is written."""
    filters, ow = out.shape[1], out.shape[3]
    span = (y1 - y0) * width
    zero = out.dtype.type(0)
    six = out.dtype.type(6)
    scaled = scale.shape[0] > 0
    added = residual.shape[0] > 0
    for image in range(products.shape[1] // span):
        for f in range(filters):
            row = products[f]
            factor = scale[f] if scaled else out.dtype.type(1)
            offset = shift[f]
            for y in range(y0, y1):
                base = image * span + (y - y0) * width
                res = residual[lo + image, f, y] if added else row
                finish_row(out[lo + image, f, y], row[base:base + ow], factor, offset, res, added, act, zero, six)


@tiered(twins.epilogue_in_place)
@numba.njit(cache=True, nogil=True)
def epilogue_in_place(values, scale, shift, residual, act):
    """values (images, filters, oh, ow) = the epilogue applied to themselves. Each row is passed
    to finish_row as both source and destination from here, where the compiler sees they are the
    same memory, and the loops vectorize (`epilogue` called with the same array twice must assume
    two that may overlap, and keeps them scalar: 20 times slower on a 1x1 convolution's output)."""
    n, filters, oh, ow = values.shape
    zero = values.dtype.type(0)
    six = values.dtype.type(6)
    scaled = scale.shape[0] > 0
    added = residual.shape[0] > 0
    positions = oh * ow
    for image in range(n):
        for f in range(filters):
            row = values[image, f].reshape(positions)
            factor = scale[f] if scaled else values.dtype.type(1)
            res = residual[image, f].reshape(positions) if added else row
            finish_row(row, row, factor, shift[f], res, added, act, zero, six)


@tiered(twins.epilogue)
@numba.njit(cache=True, nogil=True)
def epilogue(src, scale, shift, residual, act, out):
    """out (images, filters, oh, ow) = the epilogue applied to src of the same shape, another
    array (`epilogue_in_place` for the same)."""
    n, filters, oh, ow = out.shape
    zero = out.dtype.type(0)
    six = out.dtype.type(6)
    scaled = scale.shape[0] > 0
    added = residual.shape[0] > 0
    positions = oh * ow
    for image in range(n):
        for f in range(filters):
            row = src[image, f].reshape(positions)
            factor = scale[f] if scaled else out.dtype.type(1)
            res = residual[image, f].reshape(positions) if added else row
            finish_row(out[image, f].reshape(positions), row, factor, shift[f], res, added, act, zero, six)


@tiered(twins.columns)
@numba.njit(cache=True, nogil=True)
def columns(x, lo, hi, kh, kw, sh, sw, ph, pw, dh, dw, y0, y1, ow, cols):
    """Output rows y0..y1-1 of images lo..hi-1 as columns side by side: cols is
    (c*kh*kw, (hi-lo)*(y1-y0)*ow), row (ch, i, j) holding the input that tap (i, j) of channel ch
    meets at each output position (0 where it meets padding)."""
    n, c, h, w = x.shape
    zero = x.dtype.type(0)
    positions = (y1 - y0) * ow
    for b in range(lo, hi):
        for ch in range(c):
            for i in range(kh):
                for j in range(kw):
                    dst = cols[(ch * kh + i) * kw + j]
                    shift = j * dw - pw
                    first = min(max(0, (sw - 1 - shift) // sw), ow)  # columns inside the input
                    stop = min(max(first, (w - 1 - shift) // sw + 1), ow)
                    for y in range(y0, y1):
                        iy = y * sh - ph + i * dh
                        base = (b - lo) * positions + (y - y0) * ow
                        if iy < 0 or iy >= h:
                            for xx in range(ow):
                                dst[base + xx] = zero
                            continue
                        src = x[b, ch, iy]
                        for xx in range(first):
                            dst[base + xx] = zero
                        at = np.uint64(base + first)
                        if sw == 1:  # a contiguous copy, which vectorizes
                            start = np.uint64(first + shift)
                            for k in range(np.uint64(stop - first)):
                                dst[at + k] = src[start + k]
                        else:
                            start = np.uint64(first * sw + shift)
                            step = np.uint64(sw)
                            for k in range(np.uint64(stop - first)):
                                dst[at + k] = src[start + k * step]
                        for xx in range(stop, ow):
                            dst[base + xx] = zero


@tiered(twins.pad_images)
@numba.njit(cache=True, nogil=True)
def _pad_images(x, ph, pw, padded):
    """x (n, c, h, w) into padded (c, n * hp * wp + tail) with zeros around each image, the images
    of a channel side by side, so that a tap's inputs for all output positions are one slice."""
    n, c, h, w = x.shape
    hp, wp = h + 2 * ph, w + 2 * pw
    padded[:] = 0
    for ch in range(c):
        row = padded[ch]
        for b in range(n):
            for y in range(h):
                src = x[b, ch, y]
                at = np.uint64(b * hp * wp + (y + ph) * wp + pw)
                for k in range(np.uint64(w)):
                    row[at + k] = src[k]


@tiered(twins.sum_taps)
@numba.njit(cache=True, nogil=True)
def _sum_taps(products, filters, kh, kw, hp, wp, scale, shift, residual, act, out):
    """out[b, f, y, x] = the epilogue of the sum over taps t = (i, j) of products[t * filters + f]
    at the padded position of (y + i, x + j) in image b."""
    n, _, oh, ow = out.shape
    zero = out.dtype.type(0)
    six = out.dtype.type(6)
    scaled = scale.shape[0] > 0
    added = residual.shape[0] > 0
    acc = np.empty(ow, dtype=out.dtype)
    for b in range(n):
        for f in range(filters):
            factor = scale[f] if scaled else out.dtype.type(1)
            offset = shift[f]
            for y in range(oh):
                acc[:] = zero
                for i in range(kh):
                    for j in range(kw):
                        row = products[(i * kw + j) * filters + f]
                        base = np.uint64(b * hp * wp + (y + i) * wp + j)
                        for k in range(np.uint64(ow)):
                            acc[k] += row[base + k]
                res = residual[b, f, y] if added else acc
                finish_row(out[b, f, y], acc, factor, offset, res, added, act, zero, six)


def shifted_products(x, weight, ph, pw, scale, shift, residual, act, out):
    """A stride-1 convolution as one product of every tap's weights (taps * filters, channels) with
    the padded images (channels, positions), then a pass summing each tap's products shifted by
    its offset: no column copy of the input kh * kw times, which costs more than it saves when the
    filters are few next to the channels (DenseNet's 3x3 layers: 32 filters over 128 channels)."""
    n, c, h, w = x.shape
    filters, _, kh, kw = weight.shape
    hp, wp = h + 2 * ph, w + 2 * pw
    padded = np.empty((c, n * hp * wp + kw - 1 + (kh - 1) * wp), dtype=x.dtype)
    _pad_images(x, ph, pw, padded)
    taps = np.ascontiguousarray(weight.transpose(2, 3, 0, 1)).reshape(kh * kw * filters, c)
    products = wide_product(taps, padded)
    _sum_taps(products, filters, kh, kw, hp, wp, scale, shift, residual, act, out)
    return out


def conv2d(x, w2d, geometry, groups, scale, shift, residual, act, buffer=None):
    """x (n, c, h, w) contiguous, w2d (filters, c // groups * kh * kw) contiguous, geometry
    (kh, kw, sh, sw, ph, pw, dh, dw, oh, ow); scale, shift, residual and act as above (residual an
    empty array when there is none). `buffer(shape, dtype)`, if given, provides the output's memory."""
    n, c, h, w = x.shape
    kh, kw, sh, sw, ph, pw, dh, dw, oh, ow = geometry
    filters = w2d.shape[0]
    out = np.empty((n, filters, oh, ow), dtype=x.dtype) if buffer is None else buffer((n, filters, oh, ow), x.dtype)
    if kh == 1 and kw == 1 and ph == 0 and pw == 0 and groups == 1:
        if sh != 1 or sw != 1:
            x = np.ascontiguousarray(x[:, :, ::sh, ::sw][:, :, :oh, :ow])
        # one product per image straight into the output: no column copy
        product = out.reshape(n, filters, oh * ow)
        images = x.reshape(n, c, oh * ow)
        for b in range(n):
            wide_product(w2d, images[b], product[b])
        epilogue_in_place(out, scale, shift, residual, act)
        return out
    if groups == c and filters == c and w2d.shape[1] == kh * kw:
        return _depthwise(x, w2d.reshape(filters, kh, kw), geometry, scale, shift, residual, act, out)
    if groups == 1 and sh == sw == dh == dw == 1 and kh * kw > 1:
        return _stride_one(x, w2d, geometry, scale, shift, residual, act, out)
    return by_columns(x, w2d, geometry, groups, scale, shift, residual, act, out)


def _depthwise(x, weight, geometry, scale, shift, residual, act, out):
    """A depthwise convolution by the faster of kernels/depthwise.py's two methods, measured
    (kernels/measured.py): across each channel's plane, or across the channels. Until measured,
    the channels go first for outputs of at most SMALL_PLANE positions: in MobileNet v3 on a Zen 3
    they took its 7 x 7 layers (672-960 channels) in 0.26-0.32 against 0.47-0.49 ms, and lost on
    its 14 x 14 ones (0.16-0.49 against 0.10-0.33 ms) and on larger planes."""
    kh, kw, sh, sw, ph, pw, dh, dw, oh, ow = geometry
    methods = ["channels", "planes"] if oh * ow <= SMALL_PLANE else ["planes", "channels"]

    def run(method):
        kernel = depthwise_channels_last if method == "channels" else depthwise
        kernel(x, weight, sh, sw, ph, pw, dh, dw, scale, shift, residual, act, out)
        return out

    return measured.fastest(("depthwise", x.shape, x.dtype.char) + tuple(geometry[:8]), methods, run)


def _key(x, filters, geometry):
    """What decides the methods' speed on a layer: its input's shape and type, filters, geometry."""
    return ("conv2d", x.shape, x.dtype.char, filters) + tuple(geometry[:8])


def _stride_one(x, w2d, geometry, scale, shift, residual, act, out):
    """A stride-1 convolution by the fastest of the methods that take it, measured (kernels/measured.py):
    Winograd's for 3x3 layers whose transformed filters may be kept, shifted products, columns.
    Until measured, the order of preference is what a Zen 4 showed: Winograd where it gains there
    (`winograd.pays`), shifted products when the filters are few next to the channels (DenseNet's
    (1, 128, 56, 56) into 32 filters: 19 ms against 52 by columns), columns otherwise."""
    n, c, h, w = x.shape
    filters = w2d.shape[0]
    kh, kw, _, _, ph, pw, _, _, oh, ow = geometry
    weight = w2d.reshape(filters, c, kh, kw)
    methods = ["shifted", "columns"] if c >= 2 * filters else ["columns"]
    if c < 2 * filters and kh * kw * filters * n * (h + 2 * ph) * (w + 2 * pw) * x.itemsize <= SHIFTED_BYTES:
        methods.append("shifted")
    if kh == kw == 3 and winograd.takes(c, filters):
        methods.insert(0 if winograd.pays(n, c, filters, oh, ow) else len(methods), "winograd")
    if tiering.loading():  # NumPy twins run: the column method's are the cheapest (BLAS does its work)
        methods.sort(key=lambda method: method != "columns")

    def run(method):
        if method == "winograd":
            return winograd.convolve(x, weight, ph, pw, scale, shift, residual, act, out)
        if method == "shifted":
            return shifted_products(x, weight, ph, pw, scale, shift, residual, act, out)
        return by_columns(x, w2d, geometry, 1, scale, shift, residual, act, out)

    return measured.fastest(_key(x, filters, geometry), methods, run)


def by_columns(x, w2d, geometry, groups, scale, shift, residual, act, out):
    """The convolution as products of the weights with the images' columns (im2col), in chunks of
    images or bands of rows; grouped ones in one stacked product over the groups."""
    n, c, h, w = x.shape
    kh, kw, sh, sw, ph, pw, dh, dw, oh, ow = geometry
    filters = w2d.shape[0]
    taps = w2d.shape[1] * groups
    row_bytes = taps * ow * x.itemsize
    if row_bytes * oh > BAND_BYTES:  # one image at a time, in bands of rows
        chunk, band = 1, max(1, BAND_BYTES // row_bytes)
    else:
        chunk, band = max(1, min(n, COLUMN_BYTES // max(1, row_bytes * oh))), oh
    cols = scratch("columns", (taps, chunk * band * ow), x.dtype)
    for lo in range(0, n, chunk):
        hi = min(n, lo + chunk)
        for y0 in range(0, oh, band):
            y1 = min(oh, y0 + band)
            part = cols[:, :(hi - lo) * (y1 - y0) * ow]
            columns(x, lo, hi, kh, kw, sh, sw, ph, pw, dh, dw, y0, y1, ow, part)
            if groups == 1:
                result = wide_product(w2d, part, out=scratch("products", (filters, part.shape[1]), x.dtype))
            else:  # all groups in one stacked product
                fg, tg = filters // groups, taps // groups
                result = np.matmul(w2d.reshape(groups, fg, tg), part.reshape(groups, tg, part.shape[1]))
                result = result.reshape(filters, part.shape[1])
            place(result, lo, y0, y1, scale, shift, residual, act, ow, out)
    return out


def no_residual(dtype):
    return _NO_RESIDUAL[np.dtype(dtype).char]


def _supported(*arrays) -> bool:
    kind = arrays[0].dtype.char
    return kind in _NO_RESIDUAL and all(a.dtype.char == kind for a in arrays)


def _scale_shift(filters, dtype, bias, statistics, eps, fix_gamma):
    """(scale, shift) of the epilogue for a bias (or None) then BatchNorm's inference transform
    with these (gamma, beta, mean, var) (or None): computed at each call from the current values,
    so that parameters changed between calls are seen."""
    shift = bias if bias is not None else np.zeros(filters, dtype)
    if statistics is None:
        return np.empty(0, dtype), shift
    gamma, beta, mean, var = statistics
    scale = (np.ones_like(var) if fix_gamma else gamma) / np.sqrt(var + dtype.type(eps))
    return scale.astype(dtype, copy=False), (beta + (shift - mean) * scale).astype(dtype, copy=False)


def _split(arrays, has_bias, normalized, residual):
    arrays = list(arrays)
    bias = arrays.pop(0) if has_bias else None
    statistics = tuple(arrays[:4]) if normalized else None
    return bias, statistics, (arrays[4] if normalized else arrays[0]) if residual else None


def convolution_chain(data, weight, *arrays, kernel, stride, dilate, pad, num_filter, num_group, no_bias,
                      normalize=None, residual=False, act=NONE, fallback=None, buffer=None):
    """A 2-D convolution, then (with `normalize` = (eps, fix_gamma)) BatchNorm at inference, then
    (with `residual`) the addition of an array of the output's shape, then the activation `act`:
    a compiled graph's inference-time fusion of the four (runtime/inference.py). `arrays` are the
    bias (unless `no_bias`), BatchNorm's gamma, beta, moving mean and variance, and the residual, as
    present. Types or layouts the kernels do not take run through `fallback` (the operators one by
    one)."""
    bias, statistics, added = _split(arrays, not no_bias, normalize is not None, residual)
    present = [data, weight] + [a for a in (bias, added) if a is not None] + list(statistics or ())
    (kh, kw), (sh, sw) = kernel, tuple(stride or (1, 1))
    (dh, dw), (ph, pw) = tuple(dilate or (1, 1)), tuple(pad or (0, 0))
    if data.ndim != 4 or not _supported(*present) or data.shape[1] != weight.shape[1] * num_group:
        return fallback(data, weight, *arrays)
    n, c, h, w = data.shape
    oh = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    ow = (w + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    if added is not None and added.shape != (n, num_filter, oh, ow):
        return fallback(data, weight, *arrays)
    eps, fix_gamma = normalize if normalize is not None else (0.0, False)
    scale, shift = _scale_shift(num_filter, data.dtype, bias, statistics, eps, fix_gamma)
    return conv2d(np.ascontiguousarray(data), np.ascontiguousarray(weight.reshape(num_filter, -1)),
                  (kh, kw, sh, sw, ph, pw, dh, dw, oh, ow), num_group, scale, shift,
                  np.ascontiguousarray(added) if added is not None else no_residual(data.dtype), act, buffer)


def batch_norm_chain(data, gamma, beta, mean, var, *arrays, eps, fix_gamma, residual=False, act=NONE,
                     fallback=None, buffer=None):
    """BatchNorm at inference over the channels of NCHW images, then (with `residual`) an addition
    and the activation `act`, in one pass (DenseNet's BN-ReLU before each convolution)."""
    added = arrays[0] if residual else None
    present = [data, gamma, beta, mean, var] + ([added] if residual else [])
    if data.ndim != 4 or not _supported(*present) or (added is not None and added.shape != data.shape):
        return fallback(data, gamma, beta, mean, var, *arrays)
    scale, shift = _scale_shift(data.shape[1], data.dtype, None, (gamma, beta, mean, var), eps, fix_gamma)
    out = np.empty_like(data) if buffer is None else buffer(data.shape, data.dtype)
    epilogue(np.ascontiguousarray(data), scale, shift,
             np.ascontiguousarray(added) if residual else no_residual(data.dtype), act, out)
    return out
