"""contrib.quantize and contrib.dequantize (MXNet 1.9.1's first quantization operators; no gradient)."""
from __future__ import annotations

from runtime.kernels import quantization as k
from runtime.registry import Attr, choice, declare


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
        infer=_quantize_shapes, types=_quantize_types, output_names=("output", "min_output", "max_output"))
declare("_contrib_dequantize", inputs=("data", "min_range", "max_range"),
        attrs=[Attr("out_type", choice("float32"), "float32")], kernel=k.dequantize,
        infer=_dequantize_shapes, types=_dequantize_types)
