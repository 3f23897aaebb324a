"""MXNet 1.9.1's quantization operators (no gradient): contrib.quantize, dequantize and
quantize_v2, the quantized pooling, flatten, concat, ReLU, BatchNorm and elementwise addition
and multiplication, and `_sg_mkldnn_conv` and
`_sg_mkldnn_fully_connected`, the fused (and quantized) layers that MXNet's quantization flow
writes into the symbol files of int8 models."""
from __future__ import annotations

import numpy as np

from runtime.base import MXNetError
from runtime.kernels import fused_conv as fused
from runtime.kernels import fused_dense as dense
from runtime.kernels import quantization as k
from runtime.registry import REGISTRY, Attr, bool_, choice, declare, float_, int_, optional

_RANGES = ("output", "min_output", "max_output")  # the names of a quantized result and its range
_CALIBRATION = [Attr("min_calib_range", optional(float_), None), Attr("max_calib_range", optional(float_), None)]


def _calibrated(attrs) -> bool:
    return attrs["min_calib_range"] is not None and attrs["max_calib_range"] is not None


def _subgraph_shapes(in_shapes, graphs, ranged_outputs: bool):
    """A fused node's shapes from its subgraph's inference (the node's first inputs are the
    subgraph's variables; the rest are (1,) ranges), and its output's, with (1,) ranges after
    it when the node gives them."""
    count = len(graphs[0].names)
    found, out = graphs[0].infer_shapes(in_shapes[:count])
    completed = [tuple(s) if s is not None else given for s, given in zip(found, in_shapes)]
    completed += [(1,)] * (len(in_shapes) - count)
    return completed, [out[0]] + ([(1,), (1,)] if ranged_outputs else [])


def _ranged_types(message: str):
    """Type inference of an operator over int8 / uint8 data and its range that gives data of the
    same type and its range."""
    def types(in_dtypes, attrs, names):
        if in_dtypes[0] not in (None, "int8", "uint8"):
            raise ValueError(message % in_dtypes[0] if "%s" in message else message)
        return [in_dtypes[0], "float32", "float32"], [in_dtypes[0], "float32", "float32"]
    return types


def _range_shapes(in_shapes, attrs):
    return [in_shapes[0], (1,), (1,)], None


def _quantize_shapes(in_shapes, attrs):
    in_shapes, _ = _range_shapes(in_shapes, attrs)
    return in_shapes, [in_shapes[0], (1,), (1,)]


def _dequantize_shapes(in_shapes, attrs):
    in_shapes, _ = _range_shapes(in_shapes, attrs)
    return in_shapes, [in_shapes[0]]


def _quantize_types(in_dtypes, attrs, names):
    return [in_dtypes[0] or "float32", "float32", "float32"], [attrs["out_type"], "float32", "float32"]


def _dequantize_types(in_dtypes, attrs, names):
    if in_dtypes[0] not in (None, "int8", "uint8"):
        raise ValueError("dequantize op only supports input type int8 or uint8, got %s" % in_dtypes[0])
    return [in_dtypes[0], "float32", "float32"], ["float32"]


declare("_contrib_quantize", inputs=("data", "min_range", "max_range"),
        attrs=[Attr("out_type", choice("int8", "uint8"), "uint8")], kernel=k.quantize, num_outputs=3,
        infer=_quantize_shapes, types=_quantize_types)  # MXNet names its outputs output0..2, as quantize_v2
declare("_contrib_dequantize", inputs=("data", "min_range", "max_range"),
        attrs=[Attr("out_type", choice("float32"), "float32")], kernel=k.dequantize,
        infer=_dequantize_shapes, types=_dequantize_types)


# ---- quantize_v2: the quantization MXNet's quantization flow writes into symbol files
def _quantize_v2_types(in_dtypes, attrs, names):
    if in_dtypes[0] not in (None, "float32", "int8", "uint8"):
        raise ValueError("quantize_v2 only supports float32, int8 and uint8 input, got %s" % in_dtypes[0])
    out_type = attrs["out_type"]
    if out_type == "auto":
        out_type = k.auto_out_type(attrs["min_calib_range"], attrs["max_calib_range"])
    return [in_dtypes[0] or "float32"], [out_type, "float32", "float32"]


declare("_contrib_quantize_v2", inputs=("data",),
        attrs=[Attr("out_type", choice("auto", "int8", "uint8"), "int8")] + _CALIBRATION,
        kernel=k.quantize_v2, num_outputs=3, infer=lambda in_shapes, attrs: (in_shapes, [in_shapes[0], (1,), (1,)]),
        types=_quantize_v2_types)


# ---- quantized pooling: Pooling's parameters over int8 / uint8 data and its range
def _quantized_pooling_shapes(in_shapes, attrs):
    pooled, out = REGISTRY["Pooling"].infer_shapes(in_shapes[:1], attrs)
    return pooled + [(1,), (1,)], [out[0], (1,), (1,)]


declare("_contrib_quantized_pooling", inputs=("data", "min_data", "max_data"),
        attrs=list(REGISTRY["Pooling"].attrs.values()), kernel=k.quantized_pooling, num_outputs=3,
        infer=_quantized_pooling_shapes,
        types=_ranged_types("quantized_pooling op only supports uint8 and int8 as input type"),
        output_names=_RANGES)


# ---- _sg_mkldnn_conv: a convolution fused with what follows it (runtime/kernels/fused_conv.py)
def _fusion(attrs, graphs):
    """The fused operators; `with_relu` is MXNet's older name of `with_act` (and
    `with_postsum_relu` of `with_postsum_act`, which the subgraph's order decides)."""
    if len(graphs) != 1:
        raise MXNetError("_sg_mkldnn_conv needs its subgraph (the node's `subgraphs` in the symbol file)")
    return fused.fusion_of(graphs[0], attrs["with_act"] or attrs["with_relu"])


def _fused_conv(*arrays, graphs=(), **attrs):
    fusion = _fusion(attrs, graphs)
    if attrs["quantized"]:
        return fused.quantized(list(arrays), fusion, attrs["with_bn"], attrs["with_sum"],
                               attrs["min_calib_range"], attrs["max_calib_range"])
    convolution = REGISTRY["Convolution"]

    def convolve(data, weight, bias):
        conv = dict(fusion.conv, no_bias=bias is None)
        return convolution.run([data, weight] + ([] if bias is None else [bias]), conv)[0]
    return fused.float32(list(arrays), fusion, attrs["with_bn"], attrs["with_sum"], convolve)


def _fused_conv_shapes(in_shapes, attrs, graphs=()):
    _fusion(attrs, graphs)
    return _subgraph_shapes(in_shapes, graphs, attrs["quantized"])


def _fused_conv_types(in_dtypes, attrs, names, graphs=()):
    fusion = _fusion(attrs, graphs)
    if not attrs["quantized"]:
        found, out = graphs[0].infer_types(in_dtypes[:fusion.inputs])
        return list(found), [out[0]]
    data = in_dtypes[0]
    if data not in (None, "int8", "uint8"):
        raise ValueError("_sg_mkldnn_conv: quantized data must be int8 or uint8, got %s" % data)
    summand = fusion.inputs - 1 if attrs["with_sum"] else None
    completed = [data] + ["float32"] * (len(in_dtypes) - 1)
    if summand is not None:
        completed[summand] = in_dtypes[summand]
    out = ("uint8" if fused.unsigned_output(fusion, attrs["with_sum"]) else "int8") if _calibrated(attrs) else "int32"
    return completed, [out, "float32", "float32"]


declare("_sg_mkldnn_conv", ("*data",),
        [Attr("quantized", bool_, False), Attr("with_bn", bool_, False), Attr("with_act", bool_, False),
         Attr("with_sum", bool_, False), Attr("with_postsum_act", bool_, False),
         Attr("with_relu", bool_, False), Attr("with_postsum_relu", bool_, False)] + _CALIBRATION,
        kernel=_fused_conv, infer=_fused_conv_shapes, types=_fused_conv_types,
        num_outputs=lambda attrs: 3 if attrs["quantized"] else 1, subgraph_aux=True,
        output_names=("output", "output_min", "output_max"))


# ---- quantized flatten and concat: int8 / uint8 data with their ranges
def _quantized_flatten_shapes(in_shapes, attrs):
    data = in_shapes[0]
    flat = None if data is None else (data[0], int(np.prod(data[1:])))
    return [data, (1,), (1,)], [flat, (1,), (1,)]


declare("_contrib_quantized_flatten", inputs=("data", "min_data", "max_data"), kernel=k.quantized_flatten,
        num_outputs=3, infer=_quantized_flatten_shapes,
        types=_ranged_types("quantized_flatten only supports int8 and uint8 input, got %s"),
        output_names=_RANGES)


def _quantized_concat_shapes(in_shapes, attrs):
    count = len(in_shapes) // 3
    _, out = REGISTRY["Concat"].infer_shapes(in_shapes[:count], dict(attrs, num_args=count))
    completed = list(in_shapes[:count]) + [(1,)] * (2 * count)
    return completed, [out[0], (1,), (1,)]


def _quantized_concat_types(in_dtypes, attrs, names):
    count = len(in_dtypes) // 3
    data = [d or "uint8" for d in in_dtypes[:count]]
    out = "int8" if "int8" in data else "uint8"
    return data + ["float32"] * (2 * count), [out, "float32", "float32"]


declare("_contrib_quantized_concat", ("*data",), [Attr("dim", int_, 1)], kernel=k.quantized_concat,
        num_outputs=3, infer=_quantized_concat_shapes, types=_quantized_concat_types,
        output_names=_RANGES)


# ---- _sg_mkldnn_fully_connected: a FullyConnected fused with its activation (runtime/kernels/fused_dense.py)
def _dense(attrs, graphs):
    if len(graphs) != 1:
        raise MXNetError("_sg_mkldnn_fully_connected needs its subgraph (the node's `subgraphs` in the symbol file)")
    return dense.dense_of(graphs[0])


def _quantized_outputs(attrs) -> int:
    return 1 if not attrs["quantized"] or attrs["enable_float_output"] else 3


def _fused_dense(*arrays, graphs=(), **attrs):
    fused = _dense(attrs, graphs)
    if attrs["quantized"]:
        return dense.quantized(list(arrays), fused, attrs["enable_float_output"], bool(attrs["channel_wise_quantize"]),
                               attrs["min_calib_range"], attrs["max_calib_range"])
    fully_connected = REGISTRY["FullyConnected"]
    return dense.float32(arrays, fused, lambda inputs: fully_connected.run(inputs, fused.dense)[0])


def _fused_dense_shapes(in_shapes, attrs, graphs=()):
    _dense(attrs, graphs)
    return _subgraph_shapes(in_shapes, graphs, _quantized_outputs(attrs) == 3)


def _fused_dense_types(in_dtypes, attrs, names, graphs=()):
    fused = _dense(attrs, graphs)
    count = len(graphs[0].names)
    if not attrs["quantized"]:
        found, out = graphs[0].infer_types(in_dtypes[:count])
        return list(found), [out[0]]
    if in_dtypes[0] not in (None, "int8", "uint8"):
        raise ValueError("QuantizedFullyConnected only supports int8/uint8 input, while %s is given." % in_dtypes[0])
    weights = "float32" if attrs["channel_wise_quantize"] else "int8"
    completed = [in_dtypes[0]] + [weights] * (count - 1) + ["float32"] * (len(in_dtypes) - count)
    if attrs["enable_float_output"]:
        return completed, ["float32"]
    out = ("uint8" if dense.unsigned_output(fused) else "int8") if _calibrated(attrs) else "int32"
    return completed, [out, "float32", "float32"]


declare("_sg_mkldnn_fully_connected", ("*data",),
        [Attr("quantized", bool_, False), Attr("enable_float_output", bool_, False),
         Attr("with_eltwise", bool_, False), Attr("with_relu", bool_, False),
         Attr("channel_wise_quantize", optional(bool_), None)] + _CALIBRATION,
        kernel=_fused_dense, infer=_fused_dense_shapes, types=_fused_dense_types,
        num_outputs=_quantized_outputs, output_names=_RANGES)


# ---- quantized elementwise operators, ReLU and BatchNorm
def _ranged(in_shapes, count):
    """Shape inference of operators whose `count` data inputs share a shape, then take a (1,)
    min and max each, and give that shape with a (1,) min and max."""
    shape = next((s for s in in_shapes[:count] if s is not None), None)
    return [shape] * count + [(1,)] * (len(in_shapes) - count), [shape, (1,), (1,)]


def _elemwise_add_types(in_dtypes, attrs, names):
    data = [d if d == "int8" else "uint8" for d in in_dtypes[:2]]
    out = (data[0] if data[0] == data[1] else "int8") if _calibrated(attrs) else "int32"
    return data + ["float32"] * 4, [out, "float32", "float32"]


declare("_contrib_quantized_elemwise_add", inputs=("lhs", "rhs", "lhs_min", "lhs_max", "rhs_min", "rhs_max"),
        attrs=_CALIBRATION, kernel=k.quantized_elemwise_add, num_outputs=3,
        infer=lambda in_shapes, attrs: _ranged(in_shapes, 2), types=_elemwise_add_types, output_names=_RANGES)


def _elemwise_mul_shapes(in_shapes, attrs):
    completed, out = _ranged(in_shapes, 2)
    return completed, out[:1] if attrs["enable_float_output"] else out


def _elemwise_mul_types(in_dtypes, attrs, names):
    if attrs["enable_float_output"]:
        return ["int8", "int8"] + ["float32"] * 4, ["float32"]
    return ["int8", "int8"] + ["float32"] * 4, ["int8" if _calibrated(attrs) else "int32", "float32", "float32"]


declare("_contrib_quantized_elemwise_mul", inputs=("lhs", "rhs", "lhs_min", "lhs_max", "rhs_min", "rhs_max"),
        attrs=_CALIBRATION + [Attr("enable_float_output", bool_, False)], kernel=k.quantized_elemwise_mul,
        num_outputs=lambda attrs: 1 if attrs["enable_float_output"] else 3,
        infer=_elemwise_mul_shapes, types=_elemwise_mul_types, output_names=_RANGES)


def _quantized_act_types(in_dtypes, attrs, names):
    if attrs["act_type"] != "relu":
        raise MXNetError("_contrib_quantized_act only supports act_type=relu for now")
    return [in_dtypes[0], "float32", "float32"], ["int8", "float32", "float32"]


declare("_contrib_quantized_act", inputs=("data", "min_data", "max_data"),
        attrs=list(REGISTRY["Activation"].attrs.values()),
        kernel=k.quantized_act, num_outputs=3, infer=lambda in_shapes, attrs: _ranged(in_shapes, 1),
        types=_quantized_act_types, output_names=_RANGES)


def _quantized_batch_norm_shapes(in_shapes, attrs):
    data = in_shapes[0]
    channels = None if data is None else (data[attrs["axis"] % len(data)],)
    return [data] + [channels] * 4 + [(1,), (1,)], [data, (1,), (1,)]


def _quantized_batch_norm_types(in_dtypes, attrs, names):
    if in_dtypes[0] not in (None, "int8", "uint8"):
        raise ValueError("quantized_batch_norm only supports int8 and uint8 input, got %s" % in_dtypes[0])
    return [in_dtypes[0]] + ["float32"] * 6, ["int8", "float32", "float32"]


declare("_contrib_quantized_batch_norm",
        inputs=("data", "gamma", "beta", "moving_mean", "moving_var", "min_data", "max_data"),
        attrs=list(REGISTRY["BatchNorm"].attrs.values()), kernel=k.quantized_batch_norm, num_outputs=3,
        aux=("moving_mean", "moving_var"), infer=_quantized_batch_norm_shapes, types=_quantized_batch_norm_types,
        output_names=_RANGES)


# ---- requantize: int32 results of quantized operators back to int8 / uint8
def _requantize_types(in_dtypes, attrs, names):
    if in_dtypes[0] not in (None, "int32"):
        raise ValueError("requantize only supports int32 input, got %s" % in_dtypes[0])
    out_type = attrs["out_type"]
    if out_type == "auto":
        out_type = k.auto_out_type(attrs["min_calib_range"], attrs["max_calib_range"])
    return ["int32", "float32", "float32"], [out_type, "float32", "float32"]


declare("_contrib_requantize", inputs=("data", "min_range", "max_range"),
        attrs=[Attr("out_type", choice("auto", "int8", "uint8"), "int8")] + _CALIBRATION, kernel=k.requantize,
        num_outputs=3, infer=_quantize_shapes, types=_requantize_types)
