"""Kernels of the spatial transformer family: GridGenerator, BilinearSampler and
SpatialTransformer (a grid from an affine matrix, then bilinear sampling), and their gradients.

A sampling grid is (N, 2, H, W): channel 0 the source x, channel 1 the source y, both in [-1, 1]
across the input's width and height. Sampling reads the four pixels around each point; pixels
outside the input count as 0. Coordinates are computed in the input's dtype, as MXNet does, so
that a point falls on the same side of a pixel boundary.
"""
from __future__ import annotations

import numpy as np


def target_grid(height, width, dtype=np.float64):
    """(3, height * width): the output's normalized (x, y, 1), x varying fastest."""
    index = np.arange(height * width)
    x = -1.0 + (index % width) * (2.0 / (width - 1)) if width > 1 else np.full(index.shape, np.nan)
    y = -1.0 + (index // width) * (2.0 / (height - 1)) if height > 1 else np.full(index.shape, np.nan)
    return np.stack([x, y, np.ones(index.shape)]).astype(dtype)


def affine_grid(theta, target_shape):
    """(N, 6) affine matrices -> the (N, 2, H, W) grid of source points."""
    height, width = target_shape
    grid = np.matmul(theta.reshape(-1, 2, 3), target_grid(height, width, theta.dtype))
    return grid.reshape(-1, 2, height, width)


def affine_grid_grad(out_grad, target_shape):
    height, width = target_shape
    g = out_grad.reshape(out_grad.shape[0], 2, height * width)
    return np.matmul(g, target_grid(height, width, out_grad.dtype).T).reshape(-1, 6)


def _half_sizes(height, width, dtype):
    return np.array([(width - 1.0) / 2.0, (height - 1.0) / 2.0], dtype=dtype).reshape(1, 2, 1, 1)


def warp_grid(flow):
    """(N, 2, H, W) optical flow in pixels -> the grid of (pixel + flow), normalized to [-1, 1]."""
    height, width = flow.shape[2:]
    ys, xs = np.meshgrid(np.arange(height), np.arange(width), indexing="ij")
    pixels = np.stack([xs, ys]).astype(flow.dtype)
    return ((flow + pixels) / _half_sizes(height, width, flow.dtype) - 1).astype(flow.dtype)


def warp_grid_grad(out_grad):
    height, width = out_grad.shape[2:]
    return (out_grad / _half_sizes(height, width, out_grad.dtype)).astype(out_grad.dtype)


def grid_generator(data, transform_type="affine", target_shape=(0, 0)):
    if transform_type == "affine":
        return affine_grid(data, target_shape)
    return warp_grid(data)


def _corners(grid, height, width):
    """The four pixels around each grid point: [(rows, cols, weight, inside)], each (N, Ho, Wo)."""
    x = (grid[:, 0] + 1) * (width - 1) / 2
    y = (grid[:, 1] + 1) * (height - 1) / 2
    top, left = np.floor(y).astype(np.int64), np.floor(x).astype(np.int64)
    wy, wx = 1.0 - (y - top), 1.0 - (x - left)  # the top-left pixel's weights
    corners = []
    for dy, weight_y in ((0, wy), (1, 1.0 - wy)):
        for dx, weight_x in ((0, wx), (1, 1.0 - wx)):
            rows, cols = top + dy, left + dx
            inside = (rows >= 0) & (rows < height) & (cols >= 0) & (cols < width)
            corners.append((np.clip(rows, 0, height - 1), np.clip(cols, 0, width - 1), weight_y * weight_x, inside))
    return corners, wy, wx


def _values(data, rows, cols, inside):
    """data[n, :, rows, cols] as (N, C, Ho, Wo), 0 outside the input."""
    batch = np.arange(data.shape[0])[:, None, None]
    picked = data[batch, :, rows, cols]  # (N, Ho, Wo, C)
    return np.moveaxis(picked, -1, 1) * inside[:, None]


def bilinear_sampler(data, grid, cudnn_off=None):
    height, width = data.shape[2:]
    corners, _, _ = _corners(grid, height, width)
    out = sum(_values(data, rows, cols, inside) * weight[:, None] for rows, cols, weight, inside in corners)
    return out.astype(data.dtype)


def bilinear_sampler_grads(data, grid, out_grad):
    """(d data, d grid) of bilinear sampling: the data's gradient scatters each output gradient onto
    the four pixels by their weights; the grid's is the interpolation's slope in x and y."""
    n, c, height, width = data.shape
    corners, wy, wx = _corners(grid, height, width)
    g = out_grad.astype(np.float64)
    d_data = np.zeros(n * c * height * width)
    base = (np.arange(n)[:, None] * c + np.arange(c)[None, :]) * (height * width)  # (N, C)
    values = []
    for rows, cols, weight, inside in corners:
        flat = base[:, :, None, None] + (rows * width + cols)[:, None]
        d_data += np.bincount(flat.ravel(), weights=(g * (weight * inside)[:, None]).ravel(), minlength=d_data.size)
        values.append(_values(data.astype(np.float64), rows, cols, inside))
    top_left, top_right, bottom_left, bottom_right = values
    mixed = top_left - top_right - bottom_left + bottom_right
    d_wy = -np.sum(g * (top_right - bottom_right + mixed * wx[:, None]), axis=1)
    d_wx = -np.sum(g * (bottom_left - bottom_right + mixed * wy[:, None]), axis=1)
    d_grid = np.stack([d_wx * (width - 1) / 2, d_wy * (height - 1) / 2], axis=1)
    return d_data.reshape(data.shape).astype(data.dtype), d_grid.astype(grid.dtype)


def spatial_transformer(data, loc, target_shape=(0, 0), transform_type="affine", sampler_type="bilinear",
                        cudnn_off=None):
    return bilinear_sampler(data, affine_grid(loc, target_shape))


def spatial_transformer_grads(data, loc, out_grad, target_shape):
    d_data, d_grid = bilinear_sampler_grads(data, affine_grid(loc, target_shape), out_grad)
    return d_data, affine_grid_grad(d_grid, target_shape).astype(loc.dtype)
