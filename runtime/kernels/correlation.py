"""Correlation (FlowNet's correlation layer): each output channel compares the patches of data1
with those of data2 displaced by one of a grid of offsets, by their mean product (is_multiply) or
their mean absolute difference. Positions follow MXNet's CPU kernel: the patch of output (i, j)
starts at (i * stride1 + max_displacement) of the zero-padded inputs."""
from __future__ import annotations

import math

import numpy as np


def geometry(height, width, kernel_size, max_displacement, stride1, stride2, pad_size):
    """(output height, output width, grid radius): MXNet rounds the output size up."""
    border = max_displacement + (kernel_size - 1) // 2
    top_h = math.ceil((height + 2 * pad_size - 2 * border) / stride1)
    top_w = math.ceil((width + 2 * pad_size - 2 * border) / stride1)
    return top_h, top_w, max_displacement // stride2


def _work_dtype(dtype):
    return np.float64 if dtype == np.float64 else np.float32


def _padded(data, pad_size, margin):
    """Zero padding of pad_size around, and `margin` more below and right (patches that the rounded-up
    output size takes past the padded input read zeros)."""
    return np.pad(data.astype(_work_dtype(data.dtype)), ((0, 0), (0, 0), (pad_size, pad_size + margin),
                                                         (pad_size, pad_size + margin)))


def _offsets(kernel_size, max_displacement, stride1, stride2, radius, top_h, top_w):
    """For each output channel and kernel cell: the slices of the two padded inputs it reads."""
    width = 2 * radius + 1
    for channel in range(width * width):
        dx = (channel % width - radius) * stride2
        dy = (channel // width - radius) * stride2
        for h in range(kernel_size):
            for w in range(kernel_size):
                y1, x1 = max_displacement + h, max_displacement + w
                first = (slice(y1, y1 + stride1 * (top_h - 1) + 1, stride1),
                         slice(x1, x1 + stride1 * (top_w - 1) + 1, stride1))
                second = (slice(y1 + dy, y1 + dy + stride1 * (top_h - 1) + 1, stride1),
                          slice(x1 + dx, x1 + dx + stride1 * (top_w - 1) + 1, stride1))
                yield channel, first, second


def _setup(data1, kernel_size, max_displacement, stride1, stride2, pad_size):
    n, c, height, width = data1.shape
    top_h, top_w, radius = geometry(height, width, kernel_size, max_displacement, stride1, stride2, pad_size)
    margin = stride1 + kernel_size + 2 * max_displacement
    return top_h, top_w, radius, margin, float(kernel_size * kernel_size * c)


def correlation(data1, data2, kernel_size=1, max_displacement=1, stride1=1, stride2=1, pad_size=0,
                is_multiply=True):
    if kernel_size % 2 == 0:
        raise ValueError("kernel size should be odd number")
    top_h, top_w, radius, margin, count = _setup(data1, kernel_size, max_displacement, stride1, stride2, pad_size)
    a, b = _padded(data1, pad_size, margin), _padded(data2, pad_size, margin)
    out = np.zeros((data1.shape[0], (2 * radius + 1) ** 2, top_h, top_w), dtype=a.dtype)
    for channel, first, second in _offsets(kernel_size, max_displacement, stride1, stride2, radius, top_h, top_w):
        x, y = a[(Ellipsis,) + first], b[(Ellipsis,) + second]
        out[:, channel] += np.sum(x * y if is_multiply else np.abs(x - y), axis=1)
    return (out / count).astype(data1.dtype)


def correlation_grads(data1, data2, out_grad, kernel_size=1, max_displacement=1, stride1=1, stride2=1, pad_size=0,
                      is_multiply=True):
    """(d data1, d data2); the absolute difference's slope is +1 for data1 where data1 >= data2."""
    top_h, top_w, radius, margin, count = _setup(data1, kernel_size, max_displacement, stride1, stride2, pad_size)
    a, b = _padded(data1, pad_size, margin), _padded(data2, pad_size, margin)
    da, db = np.zeros_like(a), np.zeros_like(b)
    g = out_grad.astype(a.dtype) / count
    for channel, first, second in _offsets(kernel_size, max_displacement, stride1, stride2, radius, top_h, top_w):
        x, y = a[(Ellipsis,) + first], b[(Ellipsis,) + second]
        head = g[:, channel:channel + 1]
        if is_multiply:
            da[(Ellipsis,) + first] += head * y
            db[(Ellipsis,) + second] += head * x
        else:
            sign = np.where(x >= y, 1.0, -1.0).astype(a.dtype)
            da[(Ellipsis,) + first] += head * sign
            db[(Ellipsis,) + second] -= head * sign
    height, width = data1.shape[2:]
    inner = (Ellipsis, slice(pad_size, pad_size + height), slice(pad_size, pad_size + width))
    return da[inner].astype(data1.dtype), db[inner].astype(data2.dtype)
