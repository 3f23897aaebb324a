"""MXNet 1.9.1's contrib quantize / dequantize over float32, as its CPU build (with oneDNN) computes
them, in float32: the range is the larger magnitude of min and max; int8 maps it onto 127 steps
each side (min and max out: -range, range), uint8 onto 255 steps from 0 (min and max passed
through); values round to nearest even and saturate at the type's limits. Dequantizing scales by
range / 127.5 (int8) or range / 255.5 (uint8)."""
from __future__ import annotations

import numpy as np

_LIMITS = {"int8": (-128, 127, np.float32(127)), "uint8": (0, 255, np.float32(255))}
_DEQUANTIZE_STEPS = {np.dtype(np.int8): np.float32(127.5), np.dtype(np.uint8): np.float32(255.5)}


def _range_of(min_range, max_range):
    return np.maximum(np.abs(min_range.astype(np.float32)), np.abs(max_range.astype(np.float32))).reshape(())


def quantize(data, min_range, max_range, out_type="uint8"):
    """(quantized data, its min, its max)"""
    low, high, steps = _LIMITS[out_type]
    real = _range_of(min_range, max_range)
    q = np.clip(np.rint(data.astype(np.float32) * (steps / real)), low, high).astype(out_type)
    if out_type == "int8":
        return q, (-real).reshape(1), real.reshape(1)
    return q, min_range.astype(np.float32).reshape(1), max_range.astype(np.float32).reshape(1)


def dequantize(data, min_range, max_range, out_type="float32"):
    steps = _DEQUANTIZE_STEPS.get(data.dtype)
    if steps is None:
        raise ValueError("dequantize op only supports input type int8 or uint8")
    return data.astype(np.float32) * (_range_of(min_range, max_range) / steps)
