"""Kernels of MXNet's image operators (`mx.nd.image.*`) over NumPy arrays."""
from __future__ import annotations

import numpy as np


def _per_channel(values, data):
    """Per-channel constants shaped to broadcast over (C, H, W) or (N, C, H, W) data."""
    channels = data.shape[-3]
    column = np.asarray(values, dtype=np.float64)
    column = np.broadcast_to(column, (channels,)) if column.size == 1 else column
    return column.reshape((channels, 1, 1))


def normalize(data, mean=(0.0,), std=(1.0,)):
    """(data - mean) / std per channel, in the data's dtype."""
    out = (data.astype(np.float64) - _per_channel(mean, data)) / _per_channel(std, data)
    return out.astype(data.dtype)


def normalize_grad(data, out_grad, std=(1.0,)):
    return (out_grad.astype(np.float64) / _per_channel(std, data)).astype(data.dtype)
