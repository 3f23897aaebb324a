"""Integer products as oneDNN computes them on a CPU without int8 dot-product instructions
(runtime.kernels.fused_conv.WITHOUT_INT8_DOT_PRODUCT): uint8 x int8 products summed two by two
and saturated to int16 (vpmaddubsw) before the int32 sum; int8 data goes in shifted by 128 (as
uint8; a convolution's zero padding too), the shift's products taken off after. Measured against
MXNet 1.9.1 there: a dense layer pairs neighbouring inputs, a convolution neighbouring input
channels at each window position."""
from __future__ import annotations

import numpy as np

from runtime.kernels.columns import im2col, output_spatial

_CHUNK = 1 << 24  # products held at once


def _saturated(pairs):
    return np.clip(pairs, -32768, 32767)


def dense(rows, weight_q) -> np.ndarray:
    """rows @ weight_q.T; int8 rows go in shifted by 128 (as uint8), the shift's products
    taken off after."""
    terms = rows.shape[1]
    width = terms + terms % 2
    shift = 128 if rows.dtype == np.int8 else 0
    data = np.zeros((rows.shape[0], width), np.int32)
    data[:, :terms] = rows.astype(np.int32) + shift
    weights = np.zeros((weight_q.shape[0], width), np.int32)
    weights[:, :terms] = weight_q
    total = np.zeros((rows.shape[0], weight_q.shape[0]), np.int64)
    for row in range(rows.shape[0]):  # one row at a time: (filters, K) products
        pairs = (data[row][None, :] * weights).reshape(weights.shape[0], -1, 2).sum(-1)
        total[row] = _saturated(pairs).sum(-1)
    return total - shift * weight_q.astype(np.int64).sum(-1)[None, :]


def conv(data, weight_q, conv_attrs) -> np.ndarray:
    """The convolution of uint8 / int8 data and int8 weights, channels paired per window position."""
    n, channels = data.shape[:2]
    groups = conv_attrs["num_group"]
    out_spatial = output_spatial(data.shape[2:], conv_attrs["kernel"], conv_attrs["stride"], conv_attrs["dilate"],
                                 conv_attrs["pad"])
    shift = 128 if data.dtype == np.int8 else 0
    padded = np.pad(data.astype(np.float32), [(0, 0), (0, 0)] + [(p, p) for p in conv_attrs["pad"]]) + shift
    cols = im2col(padded, conv_attrs["kernel"], conv_attrs["stride"], conv_attrs["dilate"],
                  (0,) * len(conv_attrs["pad"])).astype(np.int32)
    per_group = channels // groups
    taps = int(np.prod(conv_attrs["kernel"]))
    length = cols.shape[-1]
    filters = weight_q.shape[0]
    per_filter_group = filters // groups
    even = per_group + per_group % 2
    cols = cols.reshape(n, groups, per_group, taps, length)
    weights = weight_q.reshape(groups, per_filter_group, per_group, taps).astype(np.int32)
    if even != per_group:
        cols = np.concatenate([cols, np.zeros((n, groups, 1, taps, length), np.int32)], axis=2)
        weights = np.concatenate([weights, np.zeros((groups, per_filter_group, 1, taps), np.int32)], axis=2)
    total = np.zeros((n, groups, per_filter_group, length), np.int64)
    step = max(1, _CHUNK // max(1, n * per_filter_group * even * taps))
    for g in range(groups):
        w = weights[g][None, :, :, :, None]
        for start in range(0, length, step):
            part = cols[:, g, :, :, start:start + step][:, None]
            pairs = (w * part).reshape(n, per_filter_group, even // 2, 2, taps, -1).sum(3)
            total[:, g, :, start:start + step] = _saturated(pairs).sum((2, 3))
    total = total.reshape((n, filters) + tuple(out_spatial))
    if shift:
        per_filter = weight_q.reshape(filters, -1).astype(np.int64).sum(-1)
        total -= shift * per_filter.reshape((1, -1) + (1,) * len(out_spatial))
    return total
