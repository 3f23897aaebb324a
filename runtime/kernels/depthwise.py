"""Depthwise convolutions (one filter per channel) computed directly, with the epilogue of
runtime/kernels/conv.py.

Each channel's plane is first copied into a zero-padded one, split by phase for strided layers
(phase (p, q) holds the padded rows p, p + sh, ... and columns q, q + sw, ...), each phase a
(rows, width) plane a little wider than the output. Every tap then reads one phase at a fixed
distance from the output position: over the flattened plane, the output rows side by side with
the few columns past the output's width computed and dropped, each tap is one contiguous run
as long as the whole output plane. The loops have no edge cases and are long enough to
vectorize even for 7- or 14-pixel rows. A 3x3 filter's nine taps are summed in one pass, other
filters a row of taps per pass (five taps at once where the filter is five wide): against a
pass for each tap, the sum no longer goes to memory and back between taps.

The taps are added in the order (row i, column j), each product rounded before it is added (no
fused multiply-add), as the NumPy twin (kernels/twins.py) adds them. Indices are unsigned: Numba
checks a signed index for wrapping around, and the check keeps a loop from vectorizing."""
from __future__ import annotations

import numba
import numpy as np

from runtime.kernels import twins
from runtime.kernels.activation import activate, finish_row
from runtime.kernels.tiered import tiered


@numba.njit(cache=True, nogil=True, inline="always")
def _three_by_three(acc, planes, width, sw, dh, dw, weight, ch, count):
    """acc[k] = a 3x3 filter's nine taps in one pass, at stride 1 or (undilated) 2. The phases are
    named one array each, as few as there are: the loop vectorizes only while the arrays whose
    overlap with acc must be checked are few."""
    w0, w1, w2 = weight[ch, 0, 0], weight[ch, 0, 1], weight[ch, 0, 2]
    w3, w4, w5 = weight[ch, 1, 0], weight[ch, 1, 1], weight[ch, 1, 2]
    w6, w7, w8 = weight[ch, 2, 0], weight[ch, 2, 1], weight[ch, 2, 2]
    if sw == 1:
        p = planes[0, 0]
        o1, o2 = np.uint64(dw), np.uint64(2 * dw)
        o3, o6 = np.uint64(dh * width), np.uint64(2 * dh * width)
        o4, o5, o7, o8 = o3 + o1, o3 + o2, o6 + o1, o6 + o2
        for k in range(count):
            acc[k] = (p[k] * w0 + p[o1 + k] * w1 + p[o2 + k] * w2 + p[o3 + k] * w3 + p[o4 + k] * w4
                      + p[o5 + k] * w5 + p[o6 + k] * w6 + p[o7 + k] * w7 + p[o8 + k] * w8)
    else:  # rows and columns 0 and 2 of the filter read phase 0, row and column 1 phase 1
        a, b, c, d = planes[0, 0], planes[0, 1], planes[1, 0], planes[1, 1]
        one, row = np.uint64(1), np.uint64(width)
        below = row + one
        for k in range(count):
            acc[k] = (a[k] * w0 + b[k] * w1 + a[one + k] * w2
                      + c[k] * w3 + d[k] * w4 + c[one + k] * w5
                      + a[row + k] * w6 + b[row + k] * w7 + a[below + k] * w8)


@numba.njit(cache=True, nogil=True, inline="always")
def _row_of_taps(acc, planes, width, sh, sw, dh, dw, weight, ch, i, count, first):
    """acc[k] (+)= row i of the filter, tap after tap: five taps in one pass where the filter is
    five wide (MobileNet v3), a pass per tap otherwise."""
    kw = weight.shape[2]
    rows = planes[(i * dh) % sh]
    top = (i * dh) // sh * width
    if kw == 5:
        a, b, c, d, e = rows[0], rows[dw % sw], rows[2 * dw % sw], rows[3 * dw % sw], rows[4 * dw % sw]
        oa, ob, oc = np.uint64(top), np.uint64(top + dw // sw), np.uint64(top + 2 * dw // sw)
        od, oe = np.uint64(top + 3 * dw // sw), np.uint64(top + 4 * dw // sw)
        ta, tb, tc, td, te = weight[ch, i, 0], weight[ch, i, 1], weight[ch, i, 2], weight[ch, i, 3], weight[ch, i, 4]
        if first:
            for k in range(count):
                acc[k] = a[oa + k] * ta + b[ob + k] * tb + c[oc + k] * tc + d[od + k] * td + e[oe + k] * te
        else:
            for k in range(count):
                acc[k] = acc[k] + a[oa + k] * ta + b[ob + k] * tb + c[oc + k] * tc + d[od + k] * td + e[oe + k] * te
        return
    for j in range(kw):
        src = rows[(j * dw) % sw]
        start = np.uint64(top + (j * dw) // sw)
        tap = weight[ch, i, j]
        if first and j == 0:
            for k in range(count):
                acc[k] = src[start + k] * tap
        else:
            for k in range(count):
                acc[k] = acc[k] + src[start + k] * tap


@numba.njit(cache=True, nogil=True)
def _pad_phases(plane, ph, pw, sh, sw, phases):
    """phases[p, q, r, m] = the zero-padded plane's element (r * sh + p, m * sw + q)."""
    h, w = plane.shape
    phases[:] = 0
    for y in range(h):
        src = plane[y]
        rows = phases[(y + ph) % sh]
        r = (y + ph) // sh
        if sw == 1:
            dst = rows[0, r]
            at = np.uint64(pw)
            for x in range(np.uint64(w)):
                dst[at + x] = src[x]
        else:
            for q in range(sw):
                dst = rows[q, r]
                # padded column m * sw + q is input column m * sw + q - pw: the m inside the input
                first = max(0, (pw - q + sw - 1) // sw)
                stop = max(first, (w - 1 + pw - q) // sw + 1)
                at = np.uint64(first * sw + q - pw)
                step = np.uint64(sw)
                for m in range(np.uint64(stop - first)):
                    dst[np.uint64(first) + m] = src[at + m * step]


@tiered(twins.depthwise)
@numba.njit(cache=True, nogil=True)
def depthwise(x, weight, sh, sw, ph, pw, dh, dw, scale, shift, residual, act, out):
    """out (n, c, oh, ow) = the epilogue of the convolution of x (n, c, h, w) with weight
    (c, kh, kw), one filter per channel; stride (sh, sw), padding (ph, pw), dilation (dh, dw)."""
    n, c, h, w = x.shape
    oh, ow = out.shape[2], out.shape[3]
    kh, kw = weight.shape[1], weight.shape[2]
    zero = out.dtype.type(0)
    six = out.dtype.type(6)
    one = out.dtype.type(1)
    scaled = scale.shape[0] > 0
    added = residual.shape[0] > 0
    # a phase holds every padded row and column of its own, and reaches the last tap's reads from
    # every position of the flattened output (its last row's dropped columns too: one row more)
    width = max(ow + (kw - 1) * dw // sw, (w + 2 * pw + sw - 1) // sw)
    height = max(oh + (kh - 1) * dh // sh + 1, (h + 2 * ph + sh - 1) // sh)
    phases = np.empty((sh, sw, height, width), dtype=x.dtype)
    planes = phases.reshape((sh, sw, height * width))  # each phase flattened
    count = np.uint64(oh * width)
    acc = np.empty(oh * width, dtype=out.dtype)
    nine = kh == 3 and kw == 3 and sh == sw and (sw == 1 or (sw == 2 and dh == dw == 1))
    for b in range(n):
        for ch in range(c):
            _pad_phases(x[b, ch], ph, pw, sh, sw, phases)
            if nine:
                _three_by_three(acc, planes, width, sw, dh, dw, weight, ch, count)
            else:
                for i in range(kh):
                    _row_of_taps(acc, planes, width, sh, sw, dh, dw, weight, ch, i, count, i == 0)
            factor = scale[ch] if scaled else one
            bias = shift[ch]
            for y in range(oh):
                sums = acc[y * width:y * width + ow]
                res = residual[b, ch, y] if added else sums
                finish_row(out[b, ch, y], sums, factor, bias, res, added, act, zero, six)


@numba.njit(cache=True, nogil=True)
def _transpose(src, dst):
    """dst (q, p) = src (p, q), in 16 x 16 tiles that stay in the cache."""
    p, q = src.shape
    for p0 in range(0, p, 16):
        for q0 in range(0, q, 16):
            for j in range(q0, min(q, q0 + 16)):
                for i in range(p0, min(p, p0 + 16)):
                    dst[j, i] = src[i, j]


@numba.njit(cache=True, nogil=True)
def _all_finite(a) -> bool:
    flat = a.reshape(-1)
    limit = flat.dtype.type(np.inf)
    finite = True
    for k in range(np.uint64(flat.shape[0])):
        finite &= abs(flat[k]) < limit  # an OR over comparisons, which vectorizes
    return finite


@tiered(twins.depthwise)
@numba.njit(cache=True, nogil=True)
def depthwise_channels_last(x, weight, sh, sw, ph, pw, dh, dw, scale, shift, residual, act, out):
    """`depthwise`'s result, bit for bit, computed across the channels: each image and the filters
    are first turned channels-last, then each output position is summed tap after tap as rows of
    all the channels. Where the planes are small and the channels many (MobileNet v3's last
    layers: 960 channels of 7 x 7), `depthwise`'s loops are short and its per-channel passes many
    (0.5 against 0.2 ms there); here every loop runs over all the channels.

    Taps that fall on the padding are skipped. They add only zeros, which can change a sum only if
    it is a zero itself, and then only its sign, and that sign reaches the output only through an
    offset of zero without the Activation's ReLU; infinite or NaN weights make them NaN. In those
    two cases the padding's products are added as `depthwise` adds them."""
    n, c, h, w = x.shape
    oh, ow = out.shape[2], out.shape[3]
    kh, kw = weight.shape[1], weight.shape[2]
    zero = out.dtype.type(0)
    six = out.dtype.type(6)
    added = residual.shape[0] > 0
    channels = np.uint64(c)
    taps = np.empty((kh * kw, c), dtype=weight.dtype)
    _transpose(weight.reshape(c, kh * kw), taps)
    # the Activation's ReLU (act 1) gives +0 for either zero; `relu` (3) and ReLU6 keep -0
    exact = not _all_finite(taps) or (act != 1 and not np.all(shift != zero))
    factors = scale if scale.shape[0] > 0 else np.ones(c, dtype=out.dtype)
    image = np.empty((h * w, c), dtype=x.dtype)
    sums = np.empty((ow, c), dtype=out.dtype)
    for b in range(n):
        _transpose(x[b].reshape(c, h * w), image)
        for y in range(oh):
            for xx in range(ow):
                acc = sums[xx]
                started = False
                for i in range(kh):
                    iy = y * sh + i * dh - ph
                    for j in range(kw):
                        ix = xx * sw + j * dw - pw
                        tap = taps[i * kw + j]
                        if 0 <= iy < h and 0 <= ix < w:
                            src = image[iy * w + ix]
                            if started:
                                for ch in range(channels):
                                    acc[ch] = acc[ch] + src[ch] * tap[ch]
                            else:
                                for ch in range(channels):
                                    acc[ch] = src[ch] * tap[ch]
                        elif exact:
                            if started:
                                for ch in range(channels):
                                    acc[ch] = acc[ch] + zero * tap[ch]
                            else:
                                for ch in range(channels):
                                    acc[ch] = zero * tap[ch]
                        else:
                            continue
                        started = True
                if not started:  # every tap on the padding
                    acc[:] = zero
            for ch in range(c):  # each channel's row written whole, as finish_row computes it
                factor, offset = factors[ch], shift[ch]
                dst = out[b, ch, y]
                for xx in range(ow):
                    value = sums[xx, ch] * factor + offset
                    if added:
                        value = value + residual[b, ch, y, xx]
                    dst[xx] = activate(value, act, zero, six)
