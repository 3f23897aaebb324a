"""MXNet 1.9.1's `_sg_mkldnn_conv`: a convolution that oneDNN runs with what follows it in one
primitive (BatchNorm, an activation, the sum with another tensor, an activation after the sum),
as MXNet's quantization flow writes it into the symbol files of quantized models (GluonCV's
`*_int8` models).

The fusion's parts come from its subgraph (runtime.subgraph.Subgraph: Convolution, BatchNorm,
Activation / LeakyReLU / clip, elemwise_add). Its inputs are the subgraph's variables in order,
then, when quantized, the data's range and the summand's range.

Recorded on MXNet 1.9.1 with oneDNN (tests/data/quantization_cases.json), every step in float32
as MXNet and oneDNN compute it:
  - BatchNorm is folded into the weights first: alpha = gamma / sqrt(var + eps) (in double,
    rounded once), weights * alpha, bias beta - alpha * mean (or beta + alpha * (bias - mean));
  - quantized: the data's scale is 255.5 (uint8) or 127.5 (int8) over the larger magnitude of its
    range; each filter's weights get 127.5 over their largest magnitude (lowered where the bias
    would pass half the int32 range), round to nearest even and saturate to int8; the bias rounds
    to int32 at the data's scale times the filter's;
  - the products sum exactly in int32 (whatever the machine's int8 instructions);
  - the sum is converted to float32, the bias added, then scaled by output / data / weight scale
    (output: 255.5 or 127.5 over the calibrated range), the activation applied, the summand
    (quantized, at output / summand scale) added in one rounding, the post-sum activation
    applied, and the result rounded to nearest even and saturated;
  - with a summand, oneDNN writes into the summand's buffer, so the result saturates to the
    summand's type and its bytes are read as the declared output type (an int8 summand of a
    uint8 output clips at 127).
"""
from __future__ import annotations

import os
from typing import Dict, List, NamedTuple, Optional

import numpy as np

from runtime.base import MXNetError
from runtime.kernels.columns import im2col, output_spatial

F32 = np.float32
# MXNet's quantized ranges: int8 maps a magnitude onto 127.5 steps, uint8 onto 255.5, int32 onto
# INT32_MAX (as a float32: 2**31)
STEPS = {np.dtype(np.int8): F32(127.5), np.dtype(np.uint8): F32(255.5), np.dtype(np.int32): F32(2147483647)}
_LIMITS = {np.dtype(np.int8): (-128, 127), np.dtype(np.uint8): (0, 255), np.dtype(np.int32): (-2 ** 31, 2 ** 31 - 1)}
_INT32_MAX = 2147483647


def int8_dot_product(cpuinfo: str = "/proc/cpuinfo") -> bool:
    """Whether this CPU has int8 dot-product instructions (AVX512-VNNI or AVX-VNNI), with which
    oneDNN sums int8 products exactly; HYBLINT_RUNTIME_INT8_DOT_PRODUCT=1 or 0 says so instead.
    Where the flags cannot be read (not Linux, not x86), the exact products."""
    setting = os.environ.get("HYBLINT_RUNTIME_INT8_DOT_PRODUCT", "").strip()
    if setting in ("0", "1"):
        return setting == "1"
    try:
        with open(cpuinfo) as info:
            for line in info:
                if line.startswith("flags"):
                    flags = set(line.split(":", 1)[1].split())
                    return bool(flags & {"avx512_vnni", "avx_vnni"})
    except OSError:
        pass
    return True


# MXNet as it computes on a CPU without int8 dot-product instructions (no AVX512-VNNI or
# AVX-VNNI: AVX2 machines), where oneDNN multiplies int8 with 16-bit pair sums. Measured against
# MXNet 1.9.1 on such a CPU (tests/test_runtime_quantize_net.py, and every recorded graph of
# tests/data/quantization_cases.json): uint8 x int8 products are summed two by two and saturated
# to int16 before the int32 sum (runtime.kernels.int8_pairs); int8 data goes in shifted by 128
# into uint8, the shift's products taken off after; a convolution over int8 data quantizes its
# weights at half their scale (so that its pairs mostly fit) and doubles the sums. Taken from
# the CPU that runs this, so that results are those of MXNet on the same machine; the exact
# products where it has those instructions.
WITHOUT_INT8_DOT_PRODUCT = not int8_dot_product()


class Fusion(NamedTuple):
    """What one `_sg_mkldnn_conv` node's subgraph fuses."""
    conv: Dict
    batch_norm: Optional[Dict]
    activation: Optional[tuple]          # (kind, parameter): before the sum, or alone
    post_sum_activation: Optional[tuple]  # after the sum
    inputs: int                          # the subgraph's variables: the node's first inputs


def fusion_of(graph, with_act: bool) -> Fusion:
    """The subgraph's operators, read in MXNet's order (its depth-first visit): the first
    activation is the one before the sum when `with_act`, later ones come after the sum."""
    conv = batch_norm = activation = post_sum = None
    for node in graph.order:
        if node.is_variable:
            continue
        name = node.op.name
        if name == "Convolution":
            conv = node.attrs
        elif name == "BatchNorm":
            batch_norm = node.attrs
        elif name in ("Activation", "LeakyReLU", "clip"):
            kind = activation_of(name, node.attrs)
            if with_act and activation is None:
                activation = kind
            else:
                post_sum = kind
    if conv is None:
        raise MXNetError("_sg_mkldnn_conv: its subgraph holds no Convolution")
    return Fusion(conv, batch_norm, activation, post_sum, len(graph.names))


def activation_of(name: str, attrs: Dict) -> tuple:
    if name == "Activation":
        return attrs["act_type"], None
    if name == "clip":
        return "bounded_relu", F32(attrs["a_max"])
    return attrs.get("act_type", "leaky"), F32(attrs.get("slope", 0.25))


def unsigned_output(fusion: Fusion, with_sum: bool) -> bool:
    """Whether the quantized output is uint8: the last activation bounds it below by 0."""
    last = fusion.post_sum_activation if with_sum else fusion.activation
    if last is None:
        return False
    kind, parameter = last
    return kind in ("relu", "sigmoid", "softrelu", "bounded_relu") or (kind == "leaky" and parameter == 0)


# ---- float32 arithmetic as MXNet does it
def fold_batch_norm(weight, bias, gamma, beta, mean, var, eps: float, fix_gamma: bool):
    """MXNet's folding of BatchNorm into the convolution: (weights, bias)."""
    gamma = np.ones_like(gamma) if fix_gamma else gamma
    alpha = (gamma.astype(np.float64) / np.sqrt(var.astype(np.float64) + eps)).astype(F32)
    if bias is None:
        folded_bias = beta - (alpha * mean).astype(F32)
    else:
        folded_bias = beta + alpha * (bias - mean)
    shape = (-1,) + (1,) * (weight.ndim - 1)
    return (weight * alpha.reshape(shape)).astype(F32), folded_bias.astype(F32)


def scalar(value) -> F32:
    """A range's one value (MXNet passes each min and max as a (1,) array), as float32."""
    return F32(np.asarray(value).reshape(-1)[0])


def scale_of(dtype, low, high) -> F32:
    """The quantization scale of a range: steps over its larger magnitude (MXNet's
    GetQuantizeScale; a zero range gets INT32_MAX)."""
    magnitude = max(abs(F32(low)), abs(F32(high)))
    return STEPS[np.dtype(dtype)] / magnitude if magnitude else F32(_INT32_MAX)


def filter_scales(weight, bias, data_scale) -> np.ndarray:
    """One scale per filter; where the bias would quantize past half the int32 range, lowered."""
    flat = weight.reshape(weight.shape[0], -1)
    # MXNet's min / max loops pass over NaN
    magnitude = np.maximum(np.abs(np.fmin.reduce(flat, axis=1)), np.abs(np.fmax.reduce(flat, axis=1)))
    with np.errstate(divide="ignore"):
        scales = np.where(magnitude != 0, STEPS[np.dtype(np.int8)] / magnitude, F32(_INT32_MAX)).astype(F32)
    if bias is not None:
        limit = np.where(bias > 0, F32(2 ** 31), F32(-2 ** 31))
        with np.errstate(divide="ignore", invalid="ignore"):
            bounded = (limit / F32(2) / bias / data_scale).astype(F32)
        # std::min(scale, bound) keeps the scale where the bound is NaN (a NaN bias)
        lowered = (bias != 0) & (bounded < scales)
        scales = np.where(lowered, bounded, scales).astype(F32)
    return scales


def saturate(values, dtype):
    """Rounded to nearest even and saturated; NaN becomes the type's largest value, as oneDNN
    writes it (a BatchNorm of negative variance makes a whole channel NaN). Saturating to int32
    needs float64 values (float32 has no 2**31 - 1)."""
    low, high = _LIMITS[np.dtype(dtype)]
    rounded = np.rint(values)
    return np.clip(np.where(np.isnan(rounded), high, rounded), low, high).astype(dtype)


def apply_activation(activation, y):
    if activation is None:
        return y
    kind, parameter = activation
    if kind == "relu":
        return np.maximum(y, F32(0))
    if kind == "bounded_relu":
        return np.minimum(np.maximum(y, F32(0)), parameter)
    if kind == "sigmoid":
        return (F32(1) / (F32(1) + np.exp(-y))).astype(F32)
    if kind == "tanh":
        return np.tanh(y)
    if kind == "softrelu":
        return np.log1p(np.exp(y)).astype(F32)
    if kind == "leaky":
        return np.where(y > 0, y, y * parameter).astype(F32)
    raise MXNetError("_sg_mkldnn_conv: activation %s is not fused by this runtime" % kind)


# Products of int8 weights and int8 / uint8 data summed over this many terms stay below 2**24 in
# magnitude (128 * 255 * 512), so float32 products sum them exactly in any order: longer sums go
# in such chunks, each a BLAS product, added in float64
_EXACT_TERMS = 512


def exact_products(a, b) -> np.ndarray:
    """a @ b for integer-valued float32 operands of 8 bits (int8 by int8 or uint8), exactly:
    float32 BLAS products of at most _EXACT_TERMS terms, added in float64."""
    terms = a.shape[-1]
    if terms <= _EXACT_TERMS:
        return np.matmul(a, b)
    total = 0.0
    for start in range(0, terms, _EXACT_TERMS):
        stop = start + _EXACT_TERMS
        total = total + np.matmul(a[..., start:stop], b[..., start:stop, :]).astype(np.float64)
    return total


def quantize_bias(bias, scales, data_scale):
    """The bias in int32 steps (held as float64): at the data's scale times each filter's,
    rounded to nearest even (oneDNN's reorder), saturated."""
    return np.clip(np.rint(bias * (scales * data_scale)), -2 ** 31, _INT32_MAX)


def _integer_products(data, weight_q, conv: Dict) -> np.ndarray:
    """The convolution of integer data and weights, exactly (or, emulating a CPU without int8
    dot products, with pairs of products saturated: runtime.kernels.int8_pairs)."""
    if WITHOUT_INT8_DOT_PRODUCT:
        from runtime.kernels import int8_pairs
        return int8_pairs.conv(data, weight_q, conv)
    n = data.shape[0]
    groups = conv["num_group"]
    out_spatial = output_spatial(data.shape[2:], conv["kernel"], conv["stride"], conv["dilate"], conv["pad"])
    if out_spatial == data.shape[2:] and all(k == 1 for k in conv["kernel"]):  # a 1x1 window: the data itself
        cols = data.astype(F32).reshape(n, data.shape[1], -1)
    else:
        cols = im2col(data.astype(F32), conv["kernel"], conv["stride"], conv["dilate"], conv["pad"])
    filters = weight_q.shape[0]
    w = weight_q.reshape(groups, filters // groups, -1).astype(F32)
    cols = cols.reshape(n, groups, cols.shape[1] // groups, cols.shape[2])
    return exact_products(w[None], cols).reshape((n, filters) + out_spatial)


def _operands(arrays: List[np.ndarray], fusion: Fusion, with_bn: bool, with_sum: bool):
    """(data, weights, bias or None, summand or None, the quantized ranges) from the node's
    inputs, BatchNorm folded into the weights and bias."""
    own = list(arrays[:fusion.inputs])
    ranges = [scalar(a) for a in arrays[fusion.inputs:]]
    data, weight = own[0], own[1]
    position = 2
    bias = None
    if not fusion.conv["no_bias"]:
        bias = own[position]
        position += 1
    if with_bn:
        bn = fusion.batch_norm
        gamma, beta, mean, var = (a.astype(F32) for a in own[position:position + 4])
        position += 4
        weight, bias = fold_batch_norm(weight.astype(F32), None if bias is None else bias.astype(F32),
                                       gamma, beta, mean, var, float(bn["eps"]), bn["fix_gamma"])
    return data, weight, bias, own[position] if with_sum else None, ranges


def quantized(arrays: List[np.ndarray], fusion: Fusion, with_bn: bool, with_sum: bool,
              min_calib_range, max_calib_range):
    """(output, its min, its max) of a quantized fusion."""
    if min_calib_range is None or max_calib_range is None:
        from runtime.kernels import fused_int32  # the int32 form, which imports this module
        return fused_int32.conv(arrays, fusion, with_bn, with_sum)
    data, weight, bias, summand, ranges = _operands(arrays, fusion, with_bn, with_sum)
    if data.dtype not in (np.int8, np.uint8):
        raise MXNetError("_sg_mkldnn_conv: quantized data must be int8 or uint8, got %s" % data.dtype)
    data_min, data_max = ranges[0], ranges[1]
    if data_min < 0 and data.dtype != np.int8:
        raise MXNetError("Expect int8 when data_min < 0.0, consider quantize model with int8.")
    weight = weight.astype(F32)
    bias = None if bias is None else bias.astype(F32)
    out_dtype = np.uint8 if unsigned_output(fusion, with_sum) else np.int8
    data_scale = scale_of(data.dtype, data_min, data_max)
    weight_scales = filter_scales(weight, bias, data_scale)
    output_scale = scale_of(out_dtype, min_calib_range, max_calib_range)
    requantize = (output_scale / data_scale / weight_scales).astype(F32)
    per_filter = (-1,) + (1,) * (weight.ndim - 1)
    # MXNet hands oneDNN one scale per filter along the weights' first dimension, which for a
    # grouped convolution is the group: filter c quantizes at the scale of filter c // (filters
    # per group), while the output is rescaled by its own (equal where each group is one filter)
    groups = fusion.conv["num_group"]
    group_of = np.arange(weight.shape[0]) // (weight.shape[0] // groups)
    quantizing = weight_scales[group_of] if groups > 1 else weight_scales
    halved = WITHOUT_INT8_DOT_PRODUCT and data.dtype == np.int8
    weight_q = saturate(weight * (quantizing * F32(0.5) if halved else quantizing).reshape(per_filter), np.int8)
    y = _integer_products(data, weight_q, fusion.conv)
    y = (y * 2 if halved else y).astype(F32)
    channel = (1, -1) + (1,) * (y.ndim - 2)
    if bias is not None:
        y = y + quantize_bias(bias, weight_scales, data_scale).astype(F32).reshape(channel)
    y = (y * requantize.reshape(channel)).astype(F32)
    activation = fusion.activation
    if activation is not None and activation[0] == "bounded_relu":
        # MXNet drops a clip fused alone (the uint8 output saturates instead) and scales a clip
        # fused before a sum into the output's steps
        activation = None if not with_sum else ("bounded_relu", F32(activation[1] * output_scale))
    y = apply_activation(activation, y)
    dst_dtype = out_dtype
    if with_sum:
        sum_scale = output_scale / scale_of(summand.dtype, ranges[2], ranges[3])
        # oneDNN adds the scaled summand with one rounding (a fused multiply-add)
        y = (y.astype(np.float64) + summand.astype(np.float64) * np.float64(sum_scale)).astype(F32)
        y = apply_activation(fusion.post_sum_activation, y)
        dst_dtype = summand.dtype
    out = saturate(y, dst_dtype)
    if out.dtype != out_dtype:
        out = out.view(out_dtype)
    return out, np.array([min_calib_range], F32), np.array([max_calib_range], F32)


def float32(arrays: List[np.ndarray], fusion: Fusion, with_bn: bool, with_sum: bool, convolve):
    """The output of a float fusion: BatchNorm folded as MXNet folds it, then the convolution
    (`convolve(data, weight, bias)`), the activation, the sum, the post-sum activation."""
    data, weight, bias, summand, _ = _operands(arrays, fusion, with_bn, with_sum)
    y = apply_activation(fusion.activation, convolve(data, weight, bias))
    if with_sum:
        y = apply_activation(fusion.post_sum_activation, (y + summand).astype(y.dtype))
    return y
