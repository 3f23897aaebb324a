"""Deformable convolution (MXNet's contrib.DeformableConvolution, v1): each kernel tap samples the
input at its regular place plus a learned (dy, dx) offset, bilinearly, before the convolution.

Offsets are (batch, deformable_groups * 2 * taps, out_h, out_w), (dy, dx) per tap in row-major tap
order; the input's channels split evenly into the deformable groups. A sample outside [0, size)
on either axis is zero (MXNet's CPU kernels)."""
from __future__ import annotations

import numpy as np


def _geometry(data_shape, offset_shape, kernel, stride, dilate, pad, groups):
    n, c, height, width = data_shape
    kh, kw = kernel
    sh, sw = stride or (1, 1)
    dh, dw = dilate or (1, 1)
    ph, pw = pad or (0, 0)
    oh, ow = offset_shape[2], offset_shape[3]
    return n, c, height, width, kh, kw, sh, sw, dh, dw, ph, pw, oh, ow


def _sampling(data_shape, offset, kernel, stride, dilate, pad, groups):
    """The sample positions (y, x), each (batch, groups, taps, out_h, out_w)."""
    n, c, height, width, kh, kw, sh, sw, dh, dw, ph, pw, oh, ow = _geometry(
        data_shape, offset.shape, kernel, stride, dilate, pad, groups)
    taps = kh * kw
    off = offset.astype(np.float64).reshape(n, groups, taps, 2, oh, ow)
    ty, tx = np.divmod(np.arange(taps), kw)
    base_y = (np.arange(oh) * sh - ph)[None, :, None] + (ty * dh)[:, None, None]  # (taps, oh, 1)
    base_x = (np.arange(ow) * sw - pw)[None, None, :] + (tx * dw)[:, None, None]  # (taps, 1, ow)
    return base_y[None, None] + off[:, :, :, 0], base_x[None, None] + off[:, :, :, 1]


def _corners(y, x, height, width):
    """For each of the 4 corners: (row, column, weight, d weight / dy, d weight / dx). As MXNet's CPU
    kernels: a sample counts only inside [0, size) on both axes, and one in the last row (column)
    takes that row alone, its fraction there dropped."""
    inside = (y >= 0) & (x >= 0) & (y < height) & (x < width)
    y0 = np.clip(np.floor(y), 0, height - 1)
    x0 = np.clip(np.floor(x), 0, width - 1)
    last_y, last_x = y0 >= height - 1, x0 >= width - 1
    ly = np.where(last_y, 0.0, y - y0) * inside
    lx = np.where(last_x, 0.0, x - x0) * inside
    y1 = np.where(last_y, y0, y0 + 1)
    x1 = np.where(last_x, x0, x0 + 1)
    hy, hx = (1 - ly) * inside, (1 - lx) * inside
    rows = [y0.astype(np.int64), y1.astype(np.int64)]
    cols = [x0.astype(np.int64), x1.astype(np.int64)]
    return [(rows[0], cols[0], hy * hx, -hx, -hy), (rows[0], cols[1], hy * lx, -lx, hy),
            (rows[1], cols[0], ly * hx, hx, -ly), (rows[1], cols[1], ly * lx, lx, ly)]


def _corners_modulated(y, x, height, width):
    """The corners of a modulated (v2) sample, as MXNet's CPU kernels: a sample counts when inside
    (-1, size) on both axes, and each of its corners that lies in the input weighs its plain
    bilinear share (the input is zero around it). (row, column, weight) per corner."""
    inside = (y > -1) & (x > -1) & (y < height) & (x < width)
    y0, x0 = np.floor(y), np.floor(x)
    ly, lx = y - y0, x - x0
    corners = []
    for row, wy in ((y0, 1 - ly), (y0 + 1, ly)):
        for col, wx in ((x0, 1 - lx), (x0 + 1, lx)):
            valid = inside & (row >= 0) & (row <= height - 1) & (col >= 0) & (col <= width - 1)
            corners.append((np.clip(row, 0, height - 1).astype(np.int64), np.clip(col, 0, width - 1).astype(np.int64),
                            wy * wx * valid))
    return corners


def modulated_columns(data, offset, mask, kernel, stride, dilate, pad, groups):
    """(batch, channels * taps, out_h * out_w): each tap's bilinear sample times its mask value."""
    n, c, height, width = data.shape
    y, x = _sampling(data.shape, offset, kernel, stride, dilate, pad, groups)
    data_g = _group_view(data.astype(np.float64), groups)
    cols = 0
    for cy, cx, weight in _corners_modulated(y, x, height, width):
        cols = cols + _gather(data_g, cy, cx) * weight[:, :, None]
    cols = cols * mask.astype(np.float64).reshape(n, groups, 1, *y.shape[2:])
    return cols.reshape(n, c * y.shape[2], -1)


def modulated_deformable_convolution(data, offset, mask, weight, bias=None, kernel=(), stride=(), dilate=(), pad=(),
                                     num_filter=0, num_group=1, num_deformable_group=1, workspace=1024,
                                     no_bias=False, im2col_step=64, layout=None):
    cols = modulated_columns(data, offset, mask, kernel, stride, dilate, pad, num_deformable_group)
    out = _grouped_product(weight.astype(np.float64), cols, num_group)
    if bias is not None and not no_bias:
        out = out + bias.astype(np.float64)[None, :, None]
    return out.reshape(data.shape[0], num_filter, offset.shape[2], offset.shape[3]).astype(data.dtype)


def _group_view(data, groups):
    n, c, height, width = data.shape
    return data.reshape(n, groups, c // groups, height, width)


def _gather(data_g, cy, cx):
    """data_g[b, g, :, cy, cx] for every sample: (batch, groups, channels/group, taps, out_h, out_w)."""
    n, groups = data_g.shape[:2]
    b = np.arange(n)[:, None, None, None, None]
    g = np.arange(groups)[None, :, None, None, None]
    return np.moveaxis(data_g[b, g, :, cy, cx], -1, 2)


def columns(data, offset, kernel, stride, dilate, pad, groups):
    """(batch, channels * taps, out_h * out_w): the bilinear samples, channel-major then taps."""
    n, c, height, width = data.shape
    y, x = _sampling(data.shape, offset, kernel, stride, dilate, pad, groups)
    data_g = _group_view(data.astype(np.float64), groups)
    cols = 0
    for cy, cx, weight, _, _ in _corners(y, x, height, width):
        cols = cols + _gather(data_g, cy, cx) * weight[:, :, None]
    return cols.reshape(n, c * y.shape[2], -1)


def _grouped_product(weight, cols, num_group):
    """Per convolution group: weight (F, C/g * taps) times cols (batch, C * taps, P)."""
    f = weight.shape[0]
    w = weight.reshape(num_group, f // num_group, -1)
    c = cols.reshape(cols.shape[0], num_group, -1, cols.shape[-1])
    return np.einsum("gfk,ngkp->ngfp", w, c).reshape(cols.shape[0], f, -1)


def deformable_convolution(data, offset, weight, bias=None, kernel=(), stride=(), dilate=(), pad=(), num_filter=0,
                           num_group=1, num_deformable_group=1, workspace=1024, no_bias=False, layout=None):
    cols = columns(data, offset, kernel, stride, dilate, pad, num_deformable_group)
    out = _grouped_product(weight.astype(np.float64), cols, num_group)
    if bias is not None and not no_bias:
        out = out + bias.astype(np.float64)[None, :, None]
    return out.reshape(data.shape[0], num_filter, offset.shape[2], offset.shape[3]).astype(data.dtype)


def deformable_convolution_grad(data, offset, weight, grad, kernel, stride, dilate, pad, num_group,
                                num_deformable_group):
    """(d data, d offset, d weight, d bias)"""
    n, c, height, width = data.shape
    groups = num_deformable_group
    g_out = grad.astype(np.float64).reshape(n, weight.shape[0], -1)
    cols = columns(data, offset, kernel, stride, dilate, pad, groups)
    f = weight.shape[0]
    w = weight.astype(np.float64).reshape(num_group, f // num_group, -1)
    g_grouped = g_out.reshape(n, num_group, f // num_group, -1)
    d_weight = np.einsum("ngfp,ngkp->gfk", g_grouped, cols.reshape(n, num_group, -1, cols.shape[-1]))
    d_cols = np.einsum("gfk,ngfp->ngkp", w, g_grouped).reshape(n, c, -1, offset.shape[2], offset.shape[3])
    y, x = _sampling(data.shape, offset, kernel, stride, dilate, pad, groups)
    d_cols = d_cols.reshape(n, groups, c // groups, *y.shape[2:])
    data_g = _group_view(data.astype(np.float64), groups)
    d_data = np.zeros((n, groups, c // groups, height, width))
    d_y = np.zeros(y.shape)
    d_x = np.zeros(x.shape)
    b = np.arange(n)[:, None, None, None, None]
    g = np.arange(groups)[None, :, None, None, None]
    for cy, cx, weight_c, dwy, dwx in _corners(y, x, height, width):
        values = _gather(data_g, cy, cx)
        d_y += (d_cols * values).sum(axis=2) * dwy
        d_x += (d_cols * values).sum(axis=2) * dwx
        flat = (np.broadcast_to(b, cy.shape) * groups + np.broadcast_to(g, cy.shape)) * (height * width) \
            + cy * width + cx  # (n, groups, taps, oh, ow)
        contribution = d_cols * weight_c[:, :, None]  # (n, groups, cg, taps, oh, ow)
        for ch in range(c // groups):
            d_data[:, :, ch] += np.bincount(flat.ravel(), contribution[:, :, ch].ravel(),
                                            minlength=n * groups * height * width).reshape(n, groups, height, width)
    d_offset = np.stack([d_y, d_x], axis=3).reshape(offset.shape)
    return (d_data.reshape(data.shape).astype(data.dtype), d_offset.astype(offset.dtype),
            d_weight.reshape(weight.shape).astype(weight.dtype), g_out.sum(axis=(0, 2)))
