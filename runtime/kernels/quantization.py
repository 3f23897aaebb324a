"""MXNet 1.9.1's quantization kernels, as its CPU build (with oneDNN) computes them: quantize,
dequantize and quantize_v2, then the quantized pooling, flatten, concat, elementwise addition and
multiplication, ReLU and BatchNorm (each described where it is defined). Quantize and dequantize,
in float32: the range is the larger magnitude of min and max; int8 maps it onto 127 steps
each side (min and max out: -range, range), uint8 onto 255 steps from 0 (min and max passed
through); values round to nearest even and saturate at the type's limits. Dequantizing scales by
range / 127.5 (int8) or range / 255.5 (uint8)."""
from __future__ import annotations

import numpy as np

from runtime.kernels.fused_conv import STEPS, saturate, scalar

_LIMITS = {"int8": (-128, 127, np.float32(127)), "uint8": (0, 255, np.float32(255))}


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
    steps = STEPS.get(data.dtype) if data.dtype in (np.int8, np.uint8) else None
    if steps is None:
        raise ValueError("dequantize op only supports input type int8 or uint8")
    return data.astype(np.float32) * (_range_of(min_range, max_range) / steps)


def auto_out_type(min_calib_range, max_calib_range) -> str:
    """quantize_v2's `auto`: uint8 for a calibrated range from 0 up, int8 otherwise."""
    calibrated = min_calib_range is not None and max_calib_range is not None
    return "uint8" if calibrated and min_calib_range >= 0 else "int8"


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
        out_type = auto_out_type(min_calib_range, max_calib_range)
    magnitude = max(abs(low), abs(high))
    steps = STEPS[np.dtype(out_type)]
    limits = (0, 255) if out_type == "uint8" else (-128, 127)
    # (what MXNet gives NaN data here was not recorded: NumPy's conversion is left to decide)
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
    return saturate(pooled, data.dtype), min_data.astype(np.float32).reshape(1), max_data.astype(np.float32).reshape(1)


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
    lows = [scalar(a) for a in arrays[count::2]]
    highs = [scalar(a) for a in arrays[count + 1::2]]
    out_dtype = np.dtype(np.int8) if any(d.dtype == np.int8 for d in data) else np.dtype(np.uint8)
    low, high = min([np.float32(0)] + lows), max([np.float32(0)] + highs)
    out_scale = _scale(out_dtype, low, high)
    parts = []
    for part, part_low, part_high in zip(data, lows, highs):
        scale = _scale(part.dtype, part_low, part_high)
        if scale == out_scale:
            parts.append(part.astype(out_dtype, copy=False))
        else:
            parts.append(saturate(part.astype(np.float32) * (out_scale / scale), out_dtype))
    return np.concatenate(parts, axis=dim), np.array([low], np.float32), np.array([high], np.float32)


def _scale(dtype, low, high):
    """The concat's own scale of a range: steps over its magnitude, with no care for a zero one
    (unlike GetQuantizeScale, fused_conv.scale_of)."""
    return (np.float32(127.5) if np.dtype(dtype) == np.int8 else np.float32(255.5)) / max(abs(low), abs(high))


def _magnitude(low, high):
    return max(abs(low), abs(high))


def quantized_elemwise_add(lhs, rhs, lhs_min, lhs_max, rhs_min, rhs_max, min_calib_range=None,
                           max_calib_range=None):
    """(sum, its min, its max), as MXNet 1.9.1's oneDNN sum: each operand scaled to the output's
    steps (the calibrated range's, or the operands' magnitudes added, in int32) and added, rounded
    to nearest even, saturated. An int8 and a uint8 operand: the uint8 one is first rescaled into
    int8 (rounded, saturated) and the output is int8."""
    low_a, high_a, low_b, high_b = (scalar(v) for v in (lhs_min, lhs_max, rhs_min, rhs_max))
    abs_a, abs_b = _magnitude(low_a, high_a), _magnitude(low_b, high_b)
    scale_a, scale_b = STEPS[lhs.dtype] / abs_a, STEPS[rhs.dtype] / abs_b
    calibrated = min_calib_range is not None and max_calib_range is not None
    if calibrated:
        out_dtype = lhs.dtype if lhs.dtype == rhs.dtype else np.dtype(np.int8)
        out_low, out_high = np.float32(min_calib_range), np.float32(max_calib_range)
        out_scale = STEPS[out_dtype] / _magnitude(out_low, out_high)
    else:
        out_dtype = np.dtype(np.int32)
        out_high = abs_a + abs_b
        out_low = -out_high
    out_range = STEPS[out_dtype]
    steps_a = STEPS[lhs.dtype]
    a, b = lhs.astype(np.float32), rhs.astype(np.float32)
    if lhs.dtype != rhs.dtype:
        # the uint8 operand goes into int8 first, at its own scale; the int8 one is scaled in the sum
        signed_first = lhs.dtype == np.int8
        if calibrated:
            reorder = out_scale / (scale_b if signed_first else scale_a)
            factor = out_scale / (scale_a if signed_first else scale_b)
        elif signed_first:
            reorder = abs_b * out_range / ((abs_a + abs_b) * STEPS[np.dtype(np.uint8)])
            factor = abs_a * out_range / ((abs_a + abs_b) * steps_a)
        else:
            reorder = abs_a * out_range / ((abs_a + abs_b) * steps_a)
            factor = abs_b * out_range / ((abs_a + abs_b) * STEPS[np.dtype(np.int8)])
        if signed_first:
            b, factors = saturate(b * reorder, np.int8).astype(np.float32), (factor, np.float32(1))
        else:
            a, factors = saturate(a * reorder, np.int8).astype(np.float32), (np.float32(1), factor)
    elif calibrated:
        factors = (out_scale / scale_a, out_scale / scale_b)
    else:
        factors = (abs_a * out_range / ((abs_a + abs_b) * steps_a), abs_b * out_range / ((abs_a + abs_b) * steps_a))
    # each operand scaled and rounded to float32, then added (no fused multiply-add)
    total = a * np.float32(factors[0]) + b * np.float32(factors[1])
    return (saturate(total.astype(np.float64), out_dtype), np.array([out_low], np.float32),
            np.array([out_high], np.float32))


def quantized_act(data, min_data, max_data, act_type="relu"):
    """(ReLU of int8 / uint8 data, as int8, its min, its max): oneDNN's ReLU leaves uint8 data as
    it is, and MXNet 1.9.1 declares the output int8, so such data's bytes read as int8."""
    if act_type != "relu":
        raise ValueError("_contrib_quantized_act only supports act_type=relu for now")
    if data.dtype not in (np.int8, np.uint8):
        raise ValueError("_contrib_quantized_act op only supports uint8 and int8 as input type")
    out = np.maximum(data, 0).astype(np.int8) if data.dtype == np.int8 else data.view(np.int8).copy()
    return out, scalar(min_data).reshape(1), scalar(max_data).reshape(1)


def quantized_batch_norm(data, gamma, beta, moving_mean, moving_var, min_data, max_data, eps=1e-3,
                         min_calib_range=None, max_calib_range=None, axis=1, **ignored):
    """(BatchNorm of int8 / uint8 data with its moving statistics, int8, its min, its max), as
    MXNet 1.9.1's oneDNN one: uint8 data first rescaled into int8 (127.5 / 255.5, rounded), the
    statistics folded into a scale and shift in the data's and the calibrated output's steps,
    then oneDNN's normalization with mean 0 and variance 1 (which still divides by
    sqrt(1 + eps)), rounded to nearest even and saturated."""
    if min_calib_range is None or max_calib_range is None:
        raise ValueError("min_calib_range or max_calib_range is not available. Quantized BN currently "
                         "don't support calib_mode=None")
    values = data.astype(np.float32)
    if data.dtype == np.uint8:
        values = saturate(values * (np.float32(127.5) / np.float32(255.5)), np.int8).astype(np.float32)
    abs_data = _magnitude(scalar(min_data), scalar(max_data))
    abs_out = _magnitude(np.float32(min_calib_range), np.float32(max_calib_range))
    invstd = (1.0 / np.sqrt(moving_var.astype(np.float64) + eps)).astype(np.float32)
    gamma, beta, mean = (v.astype(np.float32) for v in (gamma, beta, moving_mean))
    scale = gamma * invstd * abs_data / abs_out
    shift = (beta - mean * gamma * invstd) * np.float32(127.5) / abs_out
    shape = [1] * data.ndim
    shape[axis % data.ndim] = -1
    # oneDNN: scale / sqrt(variance + eps) with the variance set to 1
    factor = (scale / np.sqrt(np.float32(1) + np.float32(eps))).astype(np.float32)
    out = values * factor.reshape(shape) + shift.reshape(shape)
    return (saturate(out.astype(np.float32), np.int8), np.array([min_calib_range], np.float32),
            np.array([max_calib_range], np.float32))


def quantized_elemwise_mul(lhs, rhs, lhs_min, lhs_max, rhs_min, rhs_max, min_calib_range=None,
                           max_calib_range=None, enable_float_output=False):
    """The product of int8 operands (MXNet 1.9.1 reads uint8 ones' bytes as int8), in float32 at
    the product of their steps, or requantized to the calibrated range: converted as C converts
    a float to int8 on x86 (truncated toward 0 to int32, NaN and values past int32 to its
    minimum, then the low byte: 130 becomes -126)."""
    a, b = lhs.view(np.int8).astype(np.int32), rhs.view(np.int8).astype(np.int32)
    scale_a = np.float32(127.5) / _magnitude(scalar(lhs_min), scalar(lhs_max))
    scale_b = np.float32(127.5) / _magnitude(scalar(rhs_min), scalar(rhs_max))
    products = (a * b).astype(np.float32)
    if enable_float_output:
        return (products * np.float32(1.0 / float(scale_a) / float(scale_b))).astype(np.float32)
    if min_calib_range is None or max_calib_range is None:
        raise ValueError("quantized_elemwise_mul without min_calib_range and max_calib_range (an int32 "
                         "output) is not computed by this runtime")
    out_scale = np.float32(127.5) / _magnitude(np.float32(min_calib_range), np.float32(max_calib_range))
    truncated = np.trunc((products * (out_scale / scale_a / scale_b)).astype(np.float32)).astype(np.float64)
    as_int32 = np.where(np.abs(truncated) < 2 ** 31, truncated, -2 ** 31)  # NaN compares false too
    return (as_int32.astype(np.int64).astype(np.int8), np.array([min_calib_range], np.float32),
            np.array([max_calib_range], np.float32))


def requantize(data, min_range, max_range, out_type="int8", min_calib_range=None, max_calib_range=None):
    """int32 data (its real range given as the float32 min and max of the int32 scale) to int8 /
    uint8 over the calibrated range, or, uncalibrated, over the range the data itself reaches
    (its largest int32 magnitude in the input's real units). As oneDNN's reorder: one float32
    scale (input step over output step), rounded to nearest even, saturated."""
    if data.dtype != np.int32:
        raise ValueError("requantize only supports int32 input, got %s" % data.dtype)
    int32_steps = np.float32(2147483647)
    input_range = _range_of(min_range, max_range)
    if min_calib_range is not None and max_calib_range is not None:
        real = np.maximum(np.abs(np.float32(min_calib_range)), np.abs(np.float32(max_calib_range)))
    else:
        reached = np.abs(data.astype(np.int64)).max() if data.size else 0
        real = np.float32(np.float32(min(reached, 2147483647)) * input_range) / int32_steps
    out_type = auto_out_type(min_calib_range, max_calib_range) if out_type == "auto" else out_type
    steps = np.float32(127) if out_type == "int8" else np.float32(255)
    scale = np.float32(np.float32(input_range / int32_steps) * np.float32(steps / real))
    out = saturate(data.astype(np.float32) * scale, np.dtype(out_type))
    low = -real if out_type == "int8" else np.float32(0)
    return out, np.array([low], np.float32), np.array([real], np.float32)
