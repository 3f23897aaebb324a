"""MXNet 1.9.1's `_sg_mkldnn_fully_connected`: a FullyConnected layer that oneDNN runs with the
activation after it, as MXNet's quantization flow (`contrib.quantization.quantize_net`) writes
it into symbol files. Its subgraph holds the FullyConnected and, with `with_eltwise`, one
Activation / LeakyReLU / clip.

Recorded on MXNet 1.9.1 with oneDNN (tests/data/quantization_cases.json). Quantized, its weights
and bias come int8 with their ranges (quantized offline by the flow), or, with
`channel_wise_quantize`, float32 and quantized per filter as `_sg_mkldnn_conv` quantizes them:
  - the data's scale is 255.5 (uint8) or 127.5 (int8) over its range's larger magnitude, the
    weights' 127.5 over theirs;
  - the int8 bias becomes int32 at the data's scale times the weights' over its own, rounded
    half away from zero (std::round); where that would pass half the int32 range, the rescale
    is capped and the weights are rescaled (rounded so) to match;
  - the products sum exactly; the sum, converted to float32 and the bias added, is scaled to
    a float32 output (1 / data scale / weight scale), or requantized to the calibrated range
    (output scale / data scale / weight scale; with a fused activation, the activation first
    and the output scale after it), rounded to nearest even and saturated.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from runtime.base import MXNetError
from runtime.kernels import fused_conv, fused_int32, int8_pairs
from runtime.kernels.fused_conv import (F32, activation_of, apply_activation, exact_products, filter_scales,
                                        quantize_bias, saturate, scalar, scale_of)

_HALF_INT32 = F32(2 ** 30)  # MXNet's INT32_MAX / 2, an integer division, as a float


class Dense(NamedTuple):
    """What one `_sg_mkldnn_fully_connected` node's subgraph fuses."""
    dense: dict
    activation: tuple | None


def dense_of(graph) -> Dense:
    dense = activation = None
    for node in graph.order:
        if node.is_variable:
            continue
        if node.op.name == "FullyConnected":
            dense = node.attrs
        elif node.op.name in ("Activation", "LeakyReLU", "clip"):
            activation = activation_of(node.op.name, node.attrs)
    if dense is None:
        raise MXNetError("_sg_mkldnn_fully_connected: its subgraph holds no FullyConnected")
    return Dense(dense, activation)


def unsigned_output(fused: Dense) -> bool:
    return fused.activation is not None and fused.activation[0] in ("relu", "sigmoid", "softrelu", "bounded_relu")


def _rows(data, dense: dict):
    """The data as the 2-D rows FullyConnected multiplies."""
    if dense["flatten"]:
        return data.reshape(data.shape[0], -1)
    return data.reshape(-1, data.shape[-1])


def _out_shape(data_shape, dense: dict) -> tuple:
    if dense["flatten"]:
        return (data_shape[0], dense["num_hidden"])
    return tuple(data_shape[:-1]) + (dense["num_hidden"],)


def _round_half_away(values):
    return np.trunc(values + np.copysign(F32(0.5), values))


def quantized(arrays, fused: Dense, enable_float_output: bool, channel_wise: bool, min_calib_range,
              max_calib_range):
    """The outputs of a quantized fusion: [float32 output], or [output, its min, its max]."""
    calibrated = min_calib_range is not None and max_calib_range is not None
    if channel_wise and not enable_float_output and not calibrated:
        raise MXNetError("Currently, channel-wise quantization requires fuse requantize or dequantize.")
    dense = fused.dense
    has_bias = not dense["no_bias"]
    base = 3 if has_bias else 2
    data, weight = arrays[0], arrays[1]
    bias = arrays[2] if has_bias else None
    ranges = [scalar(a) for a in arrays[base:]]
    if data.dtype not in (np.int8, np.uint8):
        raise MXNetError("QuantizedFullyConnected only supports int8/uint8 input, while %s is given." % data.dtype)
    data_scale = scale_of(data.dtype, ranges[0], ranges[1])
    if channel_wise:
        weight = weight.astype(F32)
        bias = None if bias is None else bias.astype(F32)
        scales = filter_scales(weight, bias, data_scale)
        weight_q = saturate(weight * scales[:, None], np.int8)
        bias_q = None if bias is None else quantize_bias(bias, scales, data_scale)
    else:
        scales = np.full(weight.shape[0], scale_of(np.int8, ranges[2], ranges[3]), F32)
        weight_q, bias_q = weight, None
        if has_bias:
            bias_scale = scale_of(np.int8, ranges[4], ranges[5])
            rescale = F32(data_scale * scales[0] / bias_scale)
            with np.errstate(divide="ignore"):  # an all-zero bias: no bound, as in MXNet's float division
                bound = F32(_HALF_INT32 / max(abs(ranges[4]), abs(ranges[5])) / bias_scale)
            if rescale > bound:
                rescale = bound
                weight_rescale = F32(rescale * bias_scale / data_scale / scales[0])
                weight_q = _round_half_away(weight.astype(F32) * weight_rescale).astype(np.int8)
                scales = (scales * weight_rescale).astype(F32)
            bias_q = _round_half_away(bias.astype(F32) * rescale)
    if fused_conv.WITHOUT_INT8_DOT_PRODUCT:
        y = int8_pairs.dense(_rows(data, dense), weight_q).astype(F32)
    else:
        y = exact_products(_rows(data, dense).astype(F32), weight_q.astype(F32).T).astype(F32)
    if bias_q is not None:
        y = y + bias_q.astype(F32)
    if not enable_float_output and not calibrated:  # an int32 result (runtime.kernels.fused_int32)
        y = apply_activation(fused.activation, y)
        shape = _out_shape(data.shape, dense)
        low, high = fused_int32.dense_range(data.dtype, ranges[0], ranges[1], ranges[2], ranges[3])
        return [saturate(y.astype(np.float64), np.int32).reshape(shape), low, high]
    out_dtype = np.uint8 if unsigned_output(fused) else np.int8
    output_scale = scale_of(out_dtype, min_calib_range, max_calib_range) if calibrated else None
    if enable_float_output or fused.activation is not None:
        step = F32(1.0 / float(data_scale))  # MXNet divides 1.0 (a double)
    else:
        step = output_scale / data_scale
    y = (y * (step / scales)).astype(F32)
    if fused.activation is not None:
        y = apply_activation(fused.activation, y)
        if not enable_float_output:
            y = (y * output_scale).astype(F32)
    shape = _out_shape(data.shape, dense)
    if enable_float_output:
        return [y.reshape(shape)]
    low, high = np.array([min_calib_range], F32), np.array([max_calib_range], F32)
    return [saturate(y, out_dtype).reshape(shape), low, high]


def float32(arrays, fused: Dense, dense_run):
    """A float fusion: the FullyConnected (`dense_run(inputs)`), then the activation."""
    return apply_activation(fused.activation, dense_run(list(arrays)))
