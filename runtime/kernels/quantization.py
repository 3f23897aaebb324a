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


def quantize_v2(data, out_type="int8", min_calib_range=None, max_calib_range=None):
    """(quantized data, its min, its max), as MXNet 1.9.1's oneDNN quantize_v2: the range is the
    calibrated one, or the data's own; `auto` gives uint8 for a calibrated range from 0 up, int8
    otherwise. The scale is 255.5 (uint8) or 127.5 (int8) over the larger magnitude of the range;
    values round to nearest even and saturate. int8 and uint8 data pass through, with the
    calibrated range or the type's (127.5 / 255.5 steps)."""
    calibrated = min_calib_range is not None and max_calib_range is not None
    if data.dtype in (np.int8, np.uint8):
        if calibrated:
            low, high = min_calib_range, max_calib_range
        else:
            low, high = (0.0, 255.5) if data.dtype == np.uint8 else (-127.5, 127.5)
        return data.copy(), np.array([low], np.float32), np.array([high], np.float32)
    values = data.astype(np.float32, copy=False)
    if calibrated:
        low, high = np.float32(min_calib_range), np.float32(max_calib_range)
    elif values.size:
        low, high = values.min(), values.max()
    else:
        low, high = np.finfo(np.float32).max, np.finfo(np.float32).min
    if out_type == "auto":
        out_type = "uint8" if calibrated and low >= 0 else "int8"
    magnitude = max(abs(low), abs(high))
    steps = np.float32(255.5 if out_type == "uint8" else 127.5)
    limits = (0, 255) if out_type == "uint8" else (-128, 127)
    q = np.clip(np.rint(values * (steps / magnitude)), *limits).astype(out_type)
    if out_type == "int8":
        low, high = -magnitude, magnitude
    return q, np.array([low], np.float32), np.array([high], np.float32)


def quantized_pooling(data, min_data, max_data, **pooling_attrs):
    """(pooled data, its min, its max): pooling of int8 / uint8 data, the range passed through.
    The window is pooled in float32 (exact for max) and rounded to nearest even. oneDNN pools
    them: an average that counts the padding divides by the whole window, also where the `full`
    convention lets the window pass the data's end (MXNet's float pooling divides by the part
    inside the padded data there)."""
    from runtime.kernels.nn import pooling
    if data.dtype not in (np.int8, np.uint8):
        raise ValueError("quantized_pooling op only supports uint8 and int8 as input type")
    values = data.astype(np.float32)
    attrs = dict(pooling_attrs)
    whole_window = (attrs.get("pool_type", "max") == "avg" and not attrs.get("global_pool", False)
                    and attrs.get("count_include_pad") in (None, True))
    if whole_window:
        attrs["pool_type"] = "sum"
        pooled = pooling(values, **attrs) / np.float32(np.prod(attrs["kernel"]))
    else:
        pooled = pooling(values, **attrs)
    low, high = (-128, 127) if data.dtype == np.int8 else (0, 255)
    out = np.clip(np.rint(pooled), low, high).astype(data.dtype)
    return out, min_data.astype(np.float32).reshape(1), max_data.astype(np.float32).reshape(1)


def quantized_flatten(data, min_data, max_data):
    """(data flattened to 2-D, its min, its max)."""
    return (data.reshape(data.shape[0], -1), min_data.astype(np.float32).reshape(1),
            max_data.astype(np.float32).reshape(1))


def quantized_concat(*arrays, dim=1, num_args=None):
    """(the concatenation, its min, its max) of int8 / uint8 data with their ranges (the data,
    then each one's min and max), as MXNet 1.9.1's oneDNN concat: the range spans every input's
    and 0; the output is int8 if any input is; an input of another scale is first rescaled to
    the output's (rounded to nearest even, saturated)."""
    count = len(arrays) // 3
    data = arrays[:count]
    lows = [np.float32(np.asarray(a).reshape(-1)[0]) for a in arrays[count::2]]
    highs = [np.float32(np.asarray(a).reshape(-1)[0]) for a in arrays[count + 1::2]]
    out_dtype = np.dtype(np.int8) if any(d.dtype == np.int8 for d in data) else np.dtype(np.uint8)
    low, high = min([np.float32(0)] + lows), max([np.float32(0)] + highs)
    out_scale = _scale(out_dtype, low, high)
    limits = (-128, 127) if out_dtype == np.int8 else (0, 255)
    parts = []
    for part, part_low, part_high in zip(data, lows, highs):
        scale = _scale(part.dtype, part_low, part_high)
        if scale == out_scale:
            parts.append(part.astype(out_dtype, copy=False))
        else:
            rescaled = np.rint(part.astype(np.float32) * (out_scale / scale))
            parts.append(np.clip(rescaled, *limits).astype(out_dtype))
    return np.concatenate(parts, axis=dim), np.array([low], np.float32), np.array([high], np.float32)


def _scale(dtype, low, high):
    return (np.float32(127.5) if np.dtype(dtype) == np.int8 else np.float32(255.5)) / max(abs(low), abs(high))
