"""The uncalibrated forms of MXNet 1.9.1's quantized `_sg_mkldnn_conv` and
`_sg_mkldnn_fully_connected` (no min_calib_range / max_calib_range: what `quantize_net` with
calib_mode='none' writes, each followed by a `_contrib_requantize`): int32 results with the
range MXNet states for them. Measured against MXNet with oneDNN
(tests/test_runtime_quantize_net.py):
  - convolution: one scale for all weights (127.5 over the largest magnitude of the folded
    weights; no lowering for the bias), the bias in int32 at data scale times weight scale; the
    float32 sum plus bias, the activation, for a sum the summand times data scale * weight scale
    over its own scale, the activation after it; rounded and saturated to int32;
  - dense layer: the int8 weights and bias as given (the bias rescaled as in the calibrated
    form), sum plus bias, the activation, rounded to int32;
  - the stated range is +-(one data step) * (one weight step) * 2**31, where MXNet's step of
    uint8 data is range / 255 for a convolution, and for a dense layer over uint8 data the
    weights' step is taken as range / 255 instead (the operand types swapped in MXNet's call),
    all other steps range / 127.
A clip fused alone is dropped, as in the calibrated form.
"""
from __future__ import annotations

import numpy as np

from runtime.base import MXNetError
from runtime.kernels import fused_conv as fc

F32 = np.float32
_INT32_RANGE = F32(2147483647)  # MXNet's MinAbs(INT32_MIN, INT32_MAX) as a float: 2**31


def _step(low, high, levels) -> F32:
    return F32(max(abs(F32(low)), abs(F32(high))) / F32(levels))


def _range(first_step, second_step):
    high = F32(F32(first_step * second_step) * _INT32_RANGE)
    return np.array([-high], F32), np.array([high], F32)


def conv(arrays, fusion, with_bn: bool, with_sum: bool):
    data, weight, bias, summand, ranges = fc._operands(arrays, fusion, with_bn, with_sum)
    if data.dtype not in (np.int8, np.uint8):
        raise MXNetError("_sg_mkldnn_conv: quantized data must be int8 or uint8, got %s" % data.dtype)
    if ranges[0] < 0 and data.dtype != np.int8:
        raise MXNetError("Expect int8 when data_min < 0.0, consider quantize model with int8.")
    weight = weight.astype(F32)
    low, high = np.fmin.reduce(weight, axis=None), np.fmax.reduce(weight, axis=None)
    data_scale = fc.scale_of(data.dtype, ranges[0], ranges[1])
    weight_scale = fc.scale_of(np.int8, low, high)
    halved = fc.WITHOUT_INT8_DOT_PRODUCT and data.dtype == np.int8
    weight_q = fc.saturate(weight * (weight_scale * F32(0.5) if halved else weight_scale), np.int8)
    y = fc._integer_products(data, weight_q, fusion.conv)
    y = (y * 2 if halved else y).astype(F32)
    channel = (1, -1) + (1,) * (y.ndim - 2)
    if bias is not None:
        scales = np.full(weight.shape[0], weight_scale, F32)
        y = y + fc.quantize_bias(bias.astype(F32), scales, data_scale).astype(F32).reshape(channel)
    output_scale = F32(data_scale * weight_scale)
    activation = fusion.activation
    if activation is not None and activation[0] == "bounded_relu":
        activation = None if not with_sum else ("bounded_relu", F32(activation[1] * output_scale))
    y = fc.apply_activation(activation, y)
    if with_sum:
        sum_scale = output_scale / fc.scale_of(summand.dtype, ranges[2], ranges[3])
        y = (y.astype(np.float64) + summand.astype(np.float64) * np.float64(sum_scale)).astype(F32)
        y = fc.apply_activation(fusion.post_sum_activation, y)
    data_levels = 127 if data.dtype == np.int8 else 255
    return (fc.saturate(y.astype(np.float64), np.int32),) + _range(_step(low, high, 127),
                                                                   _step(ranges[0], ranges[1], data_levels))


def dense_range(data_dtype, data_low, data_high, weight_low, weight_high):
    """The range MXNet states for an uncalibrated quantized dense layer's int32 output."""
    weight_levels = 127 if data_dtype == np.int8 else 255
    return _range(_step(data_low, data_high, 127), _step(weight_low, weight_high, weight_levels))
