"""Local response normalization across channels (MXNet's LRN): each value divided by
(knorm + alpha / nsize * the sum of squares over the nsize channels centred on it) ** beta."""
from __future__ import annotations

import numpy as np


def channel_window_sum(x, nsize):
    """For each channel (axis 1), the sum over channels c - nsize//2 .. c + nsize//2 that exist."""
    half = nsize // 2
    padded = np.pad(x, [(0, 0), (half, half)] + [(0, 0)] * (x.ndim - 2))
    running = np.cumsum(padded, axis=1, dtype=np.float64)
    running = np.concatenate([np.zeros_like(running[:, :1]), running], axis=1)
    return running[:, nsize:] - running[:, :-nsize]


def lrn(data, alpha=1e-4, beta=0.75, knorm=2.0, nsize=1):
    """(output, tmp_norm): MXNet's two outputs, the second hidden."""
    if nsize % 2 != 1:
        raise ValueError("LRN only supports odd values for local_size")
    x = data.astype(np.float64)
    norm = channel_window_sum(x * x, nsize) * (alpha / nsize) + knorm
    return (x * norm ** -beta).astype(data.dtype), norm.astype(data.dtype)


def lrn_grad(data, norm, grad, alpha, beta, nsize):
    x, norm, g = data.astype(np.float64), norm.astype(np.float64), grad.astype(np.float64)
    dx = g * norm ** -beta - 2.0 * beta * (alpha / nsize) * x * channel_window_sum(g * x * norm ** (-beta - 1), nsize)
    return dx.astype(data.dtype)
