"""Kernels of `nd.image`'s operators: an HWC image (or NHWC batch) to a CHW float tensor,
per-channel normalization of CHW (NCHW) tensors, and the flips of an HWC image."""
from __future__ import annotations

import numpy as np


def to_tensor(x):
    """HWC / NHWC, any dtype -> CHW / NCHW float32 in [0, 1] for uint8 (divided by 255 in any case)."""
    axes = (2, 0, 1) if x.ndim == 3 else (0, 3, 1, 2)
    return np.ascontiguousarray(np.transpose(x.astype(np.float32) / np.float32(255.0), axes))


def channel_values(values, channels, dtype):
    """mean or std as one value per channel, shaped to broadcast over CHW (the channel axis -3)."""
    values = np.asarray(values, dtype=np.float64)
    if values.size == 1:
        values = np.repeat(values, channels)
    return values.astype(dtype).reshape(channels, 1, 1)


def normalize(x, mean=(0.0,), std=(1.0,)):
    channels = x.shape[-3]
    return ((x - channel_values(mean, channels, x.dtype)) / channel_values(std, channels, x.dtype)).astype(x.dtype)


def flip_left_right(x):
    return np.ascontiguousarray(x[:, ::-1])


def flip_top_bottom(x):
    return np.ascontiguousarray(x[::-1])
