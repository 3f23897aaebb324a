"""The NumPy twins of the image kernels (see `tiered`): each computes what its compiled kernel
does, in the same operations and order, so that the two give the same bits (the tests compare
them on values that include NaN, -0.0 and saturation).

The epilogue's activation codes are declared here, where the compiled kernels (`conv`) take them.
"""
from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

# RELU: the Activation operator's, which keeps what is above 0 (NaN gives 0); RELU_OP: the `relu`
# operator's, which keeps NaN (MXNet 1.9.1 both); RELU6: a clip to [0, 6] after a ReLU.
NONE, RELU, RELU6, RELU_OP = 0, 1, 2, 3


def activated(values: np.ndarray, act: int) -> np.ndarray:
    if act == RELU:
        return np.where(values > 0, values, 0)
    if act == NONE:
        return values
    values = np.where(values < 0, 0, values)  # NaN stays
    return np.where(values > 6, 6, values) if act == RELU6 else values


def _through_epilogue(values, scale, shift, residual, act, multiply: bool):
    """values (images, filters, h, w) scaled, shifted, added to and activated as the kernels do:
    `multiply` when they multiply by 1 where there is no scale (a product by 1 changes nothing,
    kept only so that the operations are the same)."""
    per_filter = (1, -1, 1, 1)
    if scale.shape[0] > 0:
        values = values * scale.reshape(per_filter)
    elif multiply:
        values = values * values.dtype.type(1)
    values = values + shift.reshape(per_filter)
    if residual is not None:
        values = values + residual
    return activated(values, act)


def place(products, lo, y0, y1, scale, shift, residual, act, width, out):
    filters, ow = out.shape[1], out.shape[3]
    rows = y1 - y0
    images = products.shape[1] // (rows * width)
    values = products[:, :images * rows * width].reshape(filters, images, rows, width)[..., :ow].transpose(1, 0, 2, 3)
    added = residual[lo:lo + images, :, y0:y1] if residual.shape[0] > 0 else None
    out[lo:lo + images, :, y0:y1] = _through_epilogue(values, scale, shift, added, act, multiply=added is not None)


def epilogue(src, scale, shift, residual, act, out):
    added = residual if residual.shape[0] > 0 else None
    out[...] = _through_epilogue(src, scale, shift, added, act, multiply=added is not None)


def epilogue_in_place(values, scale, shift, residual, act):
    epilogue(values, scale, shift, residual, act, values)


def _windows(x, i, j, sh, sw, oh, ow):
    """x[..., i + sh * y, j + sw * x] for the output positions (y, x): a view."""
    return x[:, :, i:i + sh * (oh - 1) + 1:sh, j:j + sw * (ow - 1) + 1:sw]


def columns(x, lo, hi, kh, kw, sh, sw, ph, pw, dh, dw, y0, y1, ow, cols):
    channels, images, rows = x.shape[1], hi - lo, y1 - y0
    padded = np.pad(x[lo:hi], ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    row, item = cols.strides
    # cols (channels * kh * kw, images * rows * ow) seen as (channels, kh, kw, images, rows, ow)
    view = as_strided(cols, (channels, kh, kw, images, rows, ow),
                      (kh * kw * row, kw * row, row, rows * ow * item, ow * item, item))
    for i in range(kh):
        for j in range(kw):
            view[:, i, j] = _windows(padded, (i * dh) + y0 * sh, j * dw, sh, sw, rows, ow).transpose(1, 0, 2, 3)


def average_pool2d(x, rows, cols, row_step, column_step, oh, ow, divisor):
    total = np.zeros((x.shape[0], x.shape[1], oh, ow), np.float64)
    for i in range(len(rows)):
        for j in range(len(cols)):
            total += _windows(x, i, j, len(row_step), len(column_step), oh, ow)
    return (total / divisor).astype(x.dtype)


def window_sizes(out, step, pad, kernel, size, include):
    """Per output position along one axis: how many of its window's places count (MXNet's: the
    window clipped at the padding's end, or, without the padding, at the data)."""
    starts = np.arange(out) * step - pad
    ends = np.minimum(starts + kernel, size + pad)
    if include:
        return ends - starts
    return np.minimum(ends, size) - np.maximum(starts, 0)


def pool2d(x, kh, kw, sh, sw, ph, pw, oh, ow, is_max, count_include_pad, is_sum):
    """The general pooling loop's twin: a window's places in the data taken row by row, each in
    order (the maximum in x's type, never NaN; sums in float64, divided there, then converted to
    x's type as the loop stores them)."""
    n, c, h, w = x.shape
    below, right = max(0, (oh - 1) * sh + kh - h - ph), max(0, (ow - 1) * sw + kw - w - pw)
    widths = ((0, 0), (0, 0), (ph, below), (pw, right))
    if is_max:
        # the loop starts from -inf, which any integer beats: an integer type's least value here
        lowest = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
        padded = np.pad(x, widths, constant_values=lowest)
        best = np.full((n, c, oh, ow), lowest, x.dtype)
        for i in range(kh):
            for j in range(kw):
                v = _windows(padded, i, j, sh, sw, oh, ow)
                best = np.where(v > best, v, best)
        return best
    padded = np.pad(x.astype(np.float64), widths)  # places outside the data add 0.0: no change
    total = np.zeros((n, c, oh, ow), np.float64)
    for i in range(kh):
        for j in range(kw):
            total += _windows(padded, i, j, sh, sw, oh, ow)
    if is_sum:
        return total.astype(x.dtype)
    counts = np.outer(window_sizes(oh, sh, ph, kh, h, count_include_pad),
                      window_sizes(ow, sw, pw, kw, w, count_include_pad))
    return (total / np.maximum(counts, 1)).astype(x.dtype)


def max_pool2d(x, rows, cols, sh, sw, ph, pw, out):
    """Down the window's rows first, then along its columns, each in order, as the kernel."""
    n, c, h, w = x.shape
    kh, kw = len(rows), len(cols)
    oh, ow = out.shape[2], out.shape[3]
    below, right = max(0, (oh - 1) * sh + kh - h - ph), max(0, (ow - 1) * sw + kw - w - pw)
    padded = np.pad(x, ((0, 0), (0, 0), (ph, below), (pw, right)), constant_values=-np.inf)
    columns = np.full((n, c, oh, padded.shape[3]), -np.inf, x.dtype)
    for i in range(kh):
        v = padded[:, :, i:i + sh * (oh - 1) + 1:sh]
        columns = np.where(v > columns, v, columns)  # NaN never wins
    best = np.full((n, c, oh, ow), -np.inf, x.dtype)
    for j in range(kw):
        v = columns[..., j:j + sw * (ow - 1) + 1:sw]
        best = np.where(v > best, v, best)
    out[...] = best
    return out


def pad_images(x, ph, pw, padded):
    n, c, h, w = x.shape
    hp, wp = h + 2 * ph, w + 2 * pw
    padded[:] = 0
    images = padded[:, :n * hp * wp].reshape(c, n, hp, wp)
    images[:, :, ph:ph + h, pw:pw + w] = x.transpose(1, 0, 2, 3)


def sum_taps(products, filters, kh, kw, hp, wp, scale, shift, residual, act, out):
    n, _, oh, ow = out.shape
    row, item = products.strides
    total = np.zeros(out.shape, out.dtype)
    for i in range(kh):
        for j in range(kw):
            tap = products[(i * kw + j) * filters:(i * kw + j + 1) * filters]
            # tap[f, b * hp * wp + (y + i) * wp + j + x] for (b, f, y, x)
            start = tap[:, (i * wp + j):]
            total += as_strided(start, (n, filters, oh, ow), (hp * wp * item, row, wp * item, item))
    added = residual if residual.shape[0] > 0 else None
    out[...] = _through_epilogue(total, scale, shift, added, act, multiply=True)


def winograd_filters(weight, out):
    half = weight.dtype.type(0.5)
    g = weight
    rows = [g[:, :, 0], (g[:, :, 0] + g[:, :, 1] + g[:, :, 2]) * half, (g[:, :, 0] - g[:, :, 1] + g[:, :, 2]) * half,
            g[:, :, 2]]  # each (filters, channels, 3)
    for i, r in enumerate(rows):
        out[i * 4 + 0] = r[..., 0]
        out[i * 4 + 1] = (r[..., 0] + r[..., 1] + r[..., 2]) * half
        out[i * 4 + 2] = (r[..., 0] - r[..., 1] + r[..., 2]) * half
        out[i * 4 + 3] = r[..., 2]


def winograd_blocks(x, ph, pw, bh, bw, r0, r1, out):
    n, c, h, w = x.shape
    hp, wp = 2 * bh + 2, 2 * bw + 2
    plane = np.zeros((n, c, hp, wp), x.dtype)
    rows, cols = min(h, hp - ph), min(w, wp - pw)
    plane[:, :, ph:ph + rows, pw:pw + cols] = x[:, :, :rows, :cols]
    item = plane.itemsize
    # d[b, ch, by, bx, i, j] = plane[b, ch, 2 * by + i, 2 * bx + j]
    d = as_strided(plane, (n, c, bh, bw, 4, 4), (c * hp * wp * item, hp * wp * item, 2 * wp * item, 2 * item,
                                                 wp * item, item))
    r = [d[..., 0, :] - d[..., 2, :], d[..., 1, :] + d[..., 2, :], d[..., 2, :] - d[..., 1, :],
         d[..., 1, :] - d[..., 3, :]]  # each (n, c, bh, bw, 4)
    for i, ri in enumerate(r):
        for j, v in enumerate((ri[..., 0] - ri[..., 2], ri[..., 1] + ri[..., 2], ri[..., 2] - ri[..., 1],
                               ri[..., 1] - ri[..., 3])):
            out[i * 4 + j] = v.transpose(1, 0, 2, 3).reshape(c, n * bh, bw)[:, r0:r1].reshape(c, -1)


def winograd_outputs(products, bh, bw, r0, r1, scale, shift, residual, act, out):
    n, filters, oh, ow = out.shape
    m = products.reshape(16, filters, r1 - r0, bw)
    t = [[m[0 + j] + m[4 + j] + m[8 + j] for j in range(4)], [m[4 + j] - m[8 + j] - m[12 + j] for j in range(4)]]
    y = np.empty((filters, r1 - r0, 2, bw, 2), out.dtype)
    for i in range(2):
        y[:, :, i, :, 0] = t[i][0] + t[i][1] + t[i][2]
        y[:, :, i, :, 1] = t[i][1] - t[i][2] - t[i][3]
    y = y.reshape(filters, r1 - r0, 2, 2 * bw)
    for r in range(r0, r1):
        b, by = divmod(r, bh)
        for i in range(min(2, oh - 2 * by)):
            row = 2 * by + i
            values = y[:, r - r0, i, :ow].reshape(1, filters, 1, ow)
            added = residual[b:b + 1, :, row:row + 1] if residual.shape[0] > 0 else None
            out[b:b + 1, :, row:row + 1] = _through_epilogue(values, scale, shift, added, act,
                                                             multiply=added is not None)


def depthwise(x, weight, sh, sw, ph, pw, dh, dw, scale, shift, residual, act, out):
    """The taps added in the kernel's order, (row i, column j), the first product not added to 0."""
    n, c, h, w = x.shape
    oh, ow = out.shape[2], out.shape[3]
    kh, kw = weight.shape[1], weight.shape[2]
    padded = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    total = None
    for i in range(kh):
        for j in range(kw):
            window = padded[:, :, i * dh:i * dh + sh * (oh - 1) + 1:sh, j * dw:j * dw + sw * (ow - 1) + 1:sw]
            term = window * weight[:, i, j].reshape(1, c, 1, 1)
            total = term if total is None else total + term
    out[...] = _through_epilogue(total, scale, shift, residual if residual.shape[0] > 0 else None, act,
                                 multiply=True)
