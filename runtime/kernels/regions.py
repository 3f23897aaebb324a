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


def _axis_weights(start, bin_size, pooled, grid, size, dtype):
    """(pooled, size): for each output bin along one axis, the summed bilinear weights of its `grid`
    sample points on the input's pixels; a point beyond [-1, size] weighs nothing, one in
    [-1, 0] reads pixel 0, one past the last pixel reads the last (MXNet's ROIAlign)."""
    weights = np.zeros((pooled, size), dtype=np.float64)
    for p in range(pooled):
        for i in range(grid):
            point = dtype(start + dtype(p) * bin_size + dtype(i + 0.5) * bin_size / dtype(grid))
            if point < -1.0 or point > size:
                continue
            point = max(point, dtype(0))
            low = int(point)
            if low >= size - 1:
                low = high = size - 1
                point = dtype(low)
            else:
                high = low + 1
            fraction = float(point - dtype(low))
            weights[p, low] += 1.0 - fraction
            weights[p, high] += fraction
    return weights


def _roi_align_maps(roi, height, width, pooled_size, spatial_scale, sample_ratio, aligned, dtype):
    """(rows, cols, count): out = rows @ image @ cols.T / count, for one region."""
    offset = dtype(0.5) if aligned else dtype(0)
    start_w, start_h, end_w, end_h = (dtype(v) * dtype(spatial_scale) - offset for v in roi[1:5])
    roi_w, roi_h = end_w - start_w, end_h - start_h
    if aligned:
        if not (roi_w > 0 and roi_h > 0):
            raise ValueError("Check failed: roi_width > 0. : a region must have a positive size when aligned")
    else:  # malformed regions are 1x1
        roi_w, roi_h = max(roi_w, dtype(1)), max(roi_h, dtype(1))
    pooled_h, pooled_w = pooled_size
    bin_h, bin_w = roi_h / dtype(pooled_h), roi_w / dtype(pooled_w)
    grid_h = sample_ratio if sample_ratio > 0 else int(math.ceil(roi_h / dtype(pooled_h)))
    grid_w = sample_ratio if sample_ratio > 0 else int(math.ceil(roi_w / dtype(pooled_w)))
    rows = _axis_weights(start_h, bin_h, pooled_h, grid_h, height, dtype)
    cols = _axis_weights(start_w, bin_w, pooled_w, grid_w, width, dtype)
    return rows, cols, float(grid_h * grid_w)


def _position_sensitive_index(channels_out, pooled_h, pooled_w):
    """The input channel of each (output channel, bin): c * ph * pw + bin."""
    return np.arange(channels_out)[:, None, None] * pooled_h * pooled_w + \
        (np.arange(pooled_h)[:, None] * pooled_w + np.arange(pooled_w)[None, :])[None]


def roi_align(data, rois, pooled_size=(1, 1), spatial_scale=1.0, sample_ratio=-1, position_sensitive=False,
              aligned=False):
    """Average of bilinear samples on a regular grid in each bin of each region (Mask R-CNN's RoIAlign);
    with position_sensitive, bin (i, j) of output channel c reads input channel c * ph * pw + i * pw + j.
    A region with a negative batch index gives zeros."""
    _, channels, height, width = data.shape
    pooled_h, pooled_w = pooled_size
    channels_out = channels // (pooled_h * pooled_w) if position_sensitive else channels
    dtype = data.dtype.type
    out = np.zeros((rois.shape[0], channels_out, pooled_h, pooled_w), dtype=np.float64)
    for r, roi in enumerate(rois):
        index = int(roi[0])
        if index < 0:
            continue
        rows, cols, count = _roi_align_maps(roi, height, width, pooled_size, spatial_scale, sample_ratio, aligned,
                                            dtype)
        full = np.einsum("py,cyx,qx->cpq", rows, data[index].astype(np.float64), cols) / count
        if position_sensitive:
            picked = _position_sensitive_index(channels_out, pooled_h, pooled_w)
            full = full[picked, np.arange(pooled_h)[:, None], np.arange(pooled_w)[None, :]]
        out[r] = full
    return out.astype(data.dtype)


def roi_align_grad(data, rois, out_grad, pooled_size, spatial_scale, sample_ratio, position_sensitive, aligned):
    """The data's gradient: each bin's gradient spread back on the pixels by the sampling weights."""
    _, channels, height, width = data.shape
    pooled_h, pooled_w = pooled_size
    dtype = data.dtype.type
    grad = np.zeros(data.shape, dtype=np.float64)
    for r, roi in enumerate(rois):
        index = int(roi[0])
        if index < 0:
            continue
        rows, cols, count = _roi_align_maps(roi, height, width, pooled_size, spatial_scale, sample_ratio, aligned,
                                            dtype)
        head = out_grad[r].astype(np.float64)
        if position_sensitive:
            spread = np.zeros((channels, pooled_h, pooled_w))
            picked = _position_sensitive_index(head.shape[0], pooled_h, pooled_w)
            spread[picked, np.arange(pooled_h)[:, None], np.arange(pooled_w)[None, :]] = head
            head = spread
        grad[index] += np.einsum("py,cpq,qx->cyx", rows, head, cols) / count
    return grad.astype(data.dtype)


def _psroi_bins(data, rois, spatial_scale, output_dim, pooled_size, group_size):
    """Yield (region, bin row, bin column, batch index, input channels, rows slice, cols slice) of
    each non-empty bin of contrib.PSROIPooling: region corners rounded (C's round), the end pixel
    included, at least 0.1 wide, bins of floor/ceil edges computed in the data's dtype, clipped."""
    _, _, height, width = data.shape
    dtype = data.dtype.type
    group = group_size or pooled_size
    for r, roi in enumerate(rois):
        index = int(roi[0])
        start_w, start_h = (dtype(_round_half_away(float(v))) * dtype(spatial_scale) for v in roi[1:3])
        end_w, end_h = (dtype(_round_half_away(float(v)) + 1.0) * dtype(spatial_scale) for v in roi[3:5])
        bin_h = max(end_h - start_h, dtype(0.1)) / dtype(pooled_size)
        bin_w = max(end_w - start_w, dtype(0.1)) / dtype(pooled_size)
        for ph in range(pooled_size):
            h0 = min(max(int(math.floor(dtype(ph) * bin_h + start_h)), 0), height)
            h1 = min(max(int(math.ceil(dtype(ph + 1) * bin_h + start_h)), 0), height)
            gh = min(max(int(math.floor(dtype(ph) * group / pooled_size)), 0), group - 1)
            for pw in range(pooled_size):
                w0 = min(max(int(math.floor(dtype(pw) * bin_w + start_w)), 0), width)
                w1 = min(max(int(math.ceil(dtype(pw + 1) * bin_w + start_w)), 0), width)
                if h1 <= h0 or w1 <= w0:
                    continue
                gw = min(max(int(math.floor(dtype(pw) * group / pooled_size)), 0), group - 1)
                channels = (np.arange(output_dim) * group + gh) * group + gw
                yield r, ph, pw, index, channels, slice(h0, h1), slice(w0, w1)


def psroi_pooling(data, rois, spatial_scale=1.0, output_dim=1, pooled_size=1, group_size=0):
    """Position-sensitive average pooling (R-FCN): bin (i, j) of output channel c averages input
    channel (c * group + gi) * group + gj over the bin; an empty bin is 0."""
    out = np.zeros((rois.shape[0], output_dim, pooled_size, pooled_size), dtype=np.float64)
    for r, ph, pw, index, channels, rows, cols in _psroi_bins(data, rois, spatial_scale, output_dim, pooled_size,
                                                              group_size):
        out[r, :, ph, pw] = data[index, channels, rows, cols].astype(np.float64).mean(axis=(1, 2))
    return out.astype(data.dtype)


def psroi_pooling_grad(data, rois, out_grad, spatial_scale, output_dim, pooled_size, group_size):
    grad = np.zeros(data.shape, dtype=np.float64)
    for r, ph, pw, index, channels, rows, cols in _psroi_bins(data, rois, spatial_scale, output_dim, pooled_size,
                                                              group_size):
        area = (rows.stop - rows.start) * (cols.stop - cols.start)
        grad[index, channels, rows, cols] += (out_grad[r, :, ph, pw].astype(np.float64) / area)[:, None, None]
    return grad.astype(data.dtype)


def _rotated_weights(roi, height, width, pooled_size, spatial_scale, sampling_ratio, dtype):
    """(bins, height * width) bilinear weights of each bin's sample points, and their count, for one
    rotated region (batch, center x, center y, width, height, angle in degrees counter-clockwise)."""
    pooled_h, pooled_w = pooled_size
    center_w, center_h, roi_w, roi_h = (dtype(v) * dtype(spatial_scale) for v in roi[1:5])
    theta = dtype(float(roi[5]) * math.pi / 180.0)
    roi_w, roi_h = max(roi_w, dtype(1)), max(roi_h, dtype(1))
    bin_h, bin_w = roi_h / dtype(pooled_h), roi_w / dtype(pooled_w)
    grid_h = sampling_ratio if sampling_ratio > 0 else int(math.ceil(roi_h / dtype(pooled_h)))
    grid_w = sampling_ratio if sampling_ratio > 0 else int(math.ceil(roi_w / dtype(pooled_w)))
    yy = (dtype(-roi_h / 2.0) + np.arange(pooled_h, dtype=dtype)[:, None] * bin_h
          + (np.arange(grid_h, dtype=dtype) + dtype(0.5))[None, :] * bin_h / dtype(grid_h))  # (ph, gh)
    xx = (dtype(-roi_w / 2.0) + np.arange(pooled_w, dtype=dtype)[:, None] * bin_w
          + (np.arange(grid_w, dtype=dtype) + dtype(0.5))[None, :] * bin_w / dtype(grid_w))  # (pw, gw)
    yy, xx = yy[:, None, :, None], xx[None, :, None, :]  # (ph, pw, gh, gw) by broadcasting
    cos, sin = np.cos(theta), np.sin(theta)
    x = (xx * cos + yy * sin + center_w).astype(dtype)
    y = (yy * cos - xx * sin + center_h).astype(dtype)
    x, y = np.broadcast_arrays(x, y)
    inside = ~((y < -1.0) | (y > height) | (x < -1.0) | (x > width))
    y, x = np.maximum(y, 0), np.maximum(x, 0)
    y_low, x_low = y.astype(np.int64), x.astype(np.int64)
    top_y, top_x = y_low >= height - 1, x_low >= width - 1
    y_low, x_low = np.where(top_y, height - 1, y_low), np.where(top_x, width - 1, x_low)
    y_high, x_high = np.where(top_y, height - 1, y_low + 1), np.where(top_x, width - 1, x_low + 1)
    ly = np.where(top_y, 0.0, y - y_low)
    lx = np.where(top_x, 0.0, x - x_low)
    bins = (np.arange(pooled_h)[:, None] * pooled_w + np.arange(pooled_w)[None, :])[:, :, None, None]
    bins = np.broadcast_to(bins, x.shape)
    weights = np.zeros((pooled_h * pooled_w, height * width))
    for rows, cols, weight in ((y_low, x_low, (1 - ly) * (1 - lx)), (y_low, x_high, (1 - ly) * lx),
                               (y_high, x_low, ly * (1 - lx)), (y_high, x_high, ly * lx)):
        np.add.at(weights, (bins[inside], (rows * width + cols)[inside]), weight[inside])
    return weights, float(grid_h * grid_w)


def rroi_align(data, rois, pooled_size=(1, 1), spatial_scale=1.0, sampling_ratio=-1):
    """RoIAlign over rotated regions (MXNet's contrib.RROIAlign, forward only): the sample grid of each
    bin is rotated by the region's angle about its center."""
    _, channels, height, width = data.shape
    out = np.zeros((rois.shape[0], channels) + tuple(pooled_size))
    for r, roi in enumerate(rois):
        weights, count = _rotated_weights(roi, height, width, pooled_size, spatial_scale, sampling_ratio,
                                          data.dtype.type)
        image = data[int(roi[0])].reshape(channels, -1).astype(np.float64)
        out[r] = (image @ weights.T).reshape((channels,) + tuple(pooled_size)) / count
    return out.astype(data.dtype)
