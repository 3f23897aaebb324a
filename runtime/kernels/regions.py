"""ROIPooling: max pooling of each region of interest of a feature map into a fixed grid of bins."""
from __future__ import annotations

import math

import numpy as np


def _round_half_away(value):
    """C's round(): halves away from zero (NumPy's round goes to the even neighbour)."""
    return int(math.floor(value + 0.5)) if value >= 0 else -int(math.floor(-value + 0.5))


def roi_pool_places(data, rois, pooled_size, spatial_scale):
    """(out, places): each bin's maximum and the flat index into `data` it came from (-1 for an empty
    bin or a region whose batch index is out of range: the bin is 0). Region corners are rounded,
    a region is at least one pixel, bin edges are floor/ceil of multiples of the bin size computed
    in the data's dtype, all as MXNet's CPU kernel."""
    batch, channels, height, width = data.shape
    pooled_h, pooled_w = pooled_size
    dtype = data.dtype.type
    out = np.zeros((rois.shape[0], channels, pooled_h, pooled_w), dtype=data.dtype)
    places = np.full(out.shape, -1, dtype=np.int64)
    flat = data.reshape(batch, channels, -1)
    for r, roi in enumerate(rois):
        index = int(roi[0])
        start_w, start_h, end_w, end_h = (_round_half_away(float(dtype(v) * dtype(spatial_scale))) for v in roi[1:5])
        if index < 0 or index >= batch:
            continue
        bin_h = dtype(max(end_h - start_h + 1, 1)) / dtype(pooled_h)
        bin_w = dtype(max(end_w - start_w + 1, 1)) / dtype(pooled_w)
        for ph in range(pooled_h):
            h0 = min(max(int(math.floor(dtype(ph) * bin_h)) + start_h, 0), height)
            h1 = min(max(int(math.ceil(dtype(ph + 1) * bin_h)) + start_h, 0), height)
            for pw in range(pooled_w):
                w0 = min(max(int(math.floor(dtype(pw) * bin_w)) + start_w, 0), width)
                w1 = min(max(int(math.ceil(dtype(pw + 1) * bin_w)) + start_w, 0), width)
                if h1 <= h0 or w1 <= w0:
                    continue
                cells = (np.arange(h0, h1)[:, None] * width + np.arange(w0, w1)[None, :]).ravel()
                values = flat[index][:, cells]  # (C, cells)
                best = np.argmax(values, axis=1)  # the first of equal maxima, in row-major order
                out[r, :, ph, pw] = values[np.arange(channels), best]
                places[r, :, ph, pw] = (index * channels + np.arange(channels)) * height * width + cells[best]
    return out, places


def roi_pooling(data, rois, pooled_size=(1, 1), spatial_scale=1.0):
    return roi_pool_places(data, rois, pooled_size, spatial_scale)[0]


def roi_pooling_grad(data, rois, out_grad, pooled_size, spatial_scale):
    """Each bin's gradient goes to the element that was its maximum."""
    _, places = roi_pool_places(data, rois, pooled_size, spatial_scale)
    used = places >= 0
    grad = np.bincount(places[used], weights=out_grad[used].astype(np.float64), minlength=data.size)
    return grad.reshape(data.shape).astype(data.dtype)
