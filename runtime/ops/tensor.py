"""Reductions, shapes, indexing, creation and linear algebra."""
from __future__ import annotations

import numpy as np

from runtime.kernels import tensor as k
from runtime.registry import (Attr, axis_, bool_, choice, declare, dtype_, float_, int_, optional, shape_,
                              str_)

_REDUCE_ATTRS = [Attr("axis", axis_, None), Attr("keepdims", bool_, False), Attr("exclude", bool_, False)]
for _name, _fn in (("sum", np.sum), ("mean", np.mean), ("max", np.max), ("min", np.min), ("prod", np.prod),
                   ("nansum", np.nansum), ("nanprod", np.nanprod)):
    declare(_name, attrs=_REDUCE_ATTRS, kernel=k.reducer(_fn),
            aliases={"sum": ("sum_axis",), "max": ("max_axis",), "min": ("min_axis",)}.get(_name, ()))
declare("norm", attrs=[Attr("ord", int_, 2), Attr("axis", axis_, None), Attr("keepdims", bool_, False),
                       Attr("out_dtype", optional(dtype_), None)],
        kernel=lambda x, ord=2, axis=None, keepdims=False, out_dtype=None: k.norm(x, ord, axis, keepdims))
for _name, _fn in (("argmax", np.argmax), ("argmin", np.argmin)):
    declare(_name, attrs=[Attr("axis", optional(int_), None), Attr("keepdims", bool_, False)],
            kernel=k.arg_reducer(_fn))
declare("argmax_channel", kernel=k.argmax_channel)
declare("topk", attrs=[Attr("axis", optional(int_), -1), Attr("k", int_, 1),
                       Attr("ret_typ", choice("value", "indices", "mask", "both"), "indices"),
                       Attr("is_ascend", bool_, False), Attr("dtype", dtype_, "float32")],
        kernel=k.topk, num_outputs=lambda a: 2 if a["ret_typ"] == "both" else 1)
declare("sort", attrs=[Attr("axis", optional(int_), -1), Attr("is_ascend", bool_, True)], kernel=k.sort)
declare("argsort", attrs=[Attr("axis", optional(int_), -1), Attr("is_ascend", bool_, True),
                          Attr("dtype", dtype_, "float32")], kernel=k.argsort)
_SOFTMAX = [Attr("axis", int_, -1), Attr("temperature", optional(float_), None),
            Attr("dtype", optional(dtype_), None), Attr("use_length", optional(bool_), False)]
declare("softmax", attrs=_SOFTMAX,
        kernel=lambda x, axis=-1, temperature=None, dtype=None, use_length=False: k.softmax(x, axis, temperature,
                                                                                              dtype=dtype))
declare("log_softmax", attrs=_SOFTMAX,
        kernel=lambda x, axis=-1, temperature=None, dtype=None, use_length=False: k.log_softmax(x, axis, temperature,
                                                                                                  dtype))
declare("softmin", attrs=_SOFTMAX,
        kernel=lambda x, axis=-1, temperature=None, dtype=None, use_length=False: k.softmin(x, axis, temperature,
                                                                                              dtype))


# ---- shapes
def _reshape_shapes(in_shapes, attrs):
    return in_shapes, [k.reshape_shape(in_shapes[0], attrs["shape"], attrs["reverse"])]


declare("reshape", attrs=[Attr("shape", shape_, ()), Attr("reverse", bool_, False),
                          Attr("target_shape", shape_, ()), Attr("keep_highest", bool_, False)],
        kernel=k.reshape, aliases=("Reshape",), infer=_reshape_shapes)
declare("reshape_like", inputs=("lhs", "rhs"),
        attrs=[Attr(n, optional(int_), None) for n in ("lhs_begin", "lhs_end", "rhs_begin", "rhs_end")],
        kernel=k.reshape_like)
declare("Flatten", kernel=k.flatten, aliases=("flatten",))
declare("expand_dims", attrs=[Attr("axis", int_, required=True)], kernel=k.expand_dims)
declare("squeeze", attrs=[Attr("axis", axis_, None)], kernel=k.squeeze)
declare("transpose", attrs=[Attr("axes", shape_, ())], kernel=k.transpose)
declare("SwapAxis", attrs=[Attr("dim1", int_, 0), Attr("dim2", int_, 0)], kernel=k.swapaxes, aliases=("swapaxes",))
declare("Concat", inputs=("*data",), attrs=[Attr("dim", int_, 1)], kernel=k.concat, aliases=("concat",))
declare("stack", inputs=("*data",), attrs=[Attr("axis", int_, 0)], kernel=k.stack)
declare("SliceChannel", attrs=[Attr("num_outputs", int_, required=True), Attr("axis", int_, 1),
                               Attr("squeeze_axis", bool_, False)],
        kernel=k.split, aliases=("split",), num_outputs=lambda a: a["num_outputs"])
declare("_split_v2", attrs=[Attr("indices", shape_, ()), Attr("axis", int_, 0), Attr("squeeze_axis", bool_, False),
                            Attr("sections", int_, 0)],
        kernel=k.split_v2,
        num_outputs=lambda a: a["sections"] or (len(a["indices"]) - (1 if a["indices"][:1] == (0,) else 0) + 1))
declare("slice", attrs=[Attr("begin", shape_, required=True), Attr("end", shape_, required=True),
                        Attr("step", shape_, ())], kernel=k.slice_, aliases=("crop",))
declare("slice_axis", attrs=[Attr("axis", int_, required=True), Attr("begin", int_, required=True),
                             Attr("end", optional(int_), required=True)], kernel=k.slice_axis)
declare("slice_like", inputs=("data", "shape_like"), attrs=[Attr("axes", shape_, ())], kernel=k.slice_like)
declare("tile", attrs=[Attr("reps", shape_, required=True)], kernel=k.tile)
declare("repeat", attrs=[Attr("repeats", int_, required=True), Attr("axis", optional(int_), None)], kernel=k.repeat)
declare("reverse", attrs=[Attr("axis", shape_, required=True)], kernel=k.reverse, aliases=("flip",))
declare("pad", attrs=[Attr("mode", choice("constant", "edge", "reflect"), "constant"),
                      Attr("pad_width", shape_, required=True), Attr("constant_value", float_, 0.0)],
        kernel=k.pad, aliases=("Pad",))
declare("diag", attrs=[Attr("k", int_, 0), Attr("axis1", int_, 0), Attr("axis2", int_, 1)], kernel=k.diag)
declare("depth_to_space", attrs=[Attr("block_size", int_, required=True)], kernel=k.depth_to_space)
declare("space_to_depth", attrs=[Attr("block_size", int_, required=True)], kernel=k.space_to_depth)
declare("broadcast_to", attrs=[Attr("shape", shape_, ())], kernel=k.broadcast_to)
declare("broadcast_axis", attrs=[Attr("axis", shape_, ()), Attr("size", shape_, ())], kernel=k.broadcast_axis,
        aliases=("broadcast_axes",))
declare("broadcast_like", inputs=("lhs", "rhs"), attrs=[Attr("lhs_axes", optional(shape_), None),
                                                        Attr("rhs_axes", optional(shape_), None)],
        kernel=k.broadcast_like)
declare("where", inputs=("condition", "x", "y"), kernel=k.where)

# ---- indexing
_MODE = choice("clip", "wrap", "raise")
declare("take", inputs=("a", "indices"), attrs=[Attr("axis", int_, 0), Attr("mode", _MODE, "clip")], kernel=k.take)
declare("pick", inputs=("data", "index"), attrs=[Attr("axis", optional(int_), -1), Attr("keepdims", bool_, False),
                                                 Attr("mode", _MODE, "clip")], kernel=k.pick)
declare("gather_nd", inputs=("data", "indices"), kernel=k.gather_nd)
declare("batch_take", inputs=("a", "indices"), kernel=k.batch_take)
declare("one_hot", inputs=("indices",), attrs=[Attr("depth", int_, required=True), Attr("on_value", float_, 1.0),
                                               Attr("off_value", float_, 0.0), Attr("dtype", dtype_, "float32")],
        kernel=k.one_hot)

# ---- creation (no inputs; `ctx` is accepted and ignored: everything lives on the CPU)
_CREATE = [Attr("dtype", dtype_, "float32"), Attr("ctx", str_, "")]
declare("_zeros", inputs=(), attrs=[Attr("shape", shape_, ())] + _CREATE, kernel=k.zeros, no_inputs=True)
declare("_ones", inputs=(), attrs=[Attr("shape", shape_, ())] + _CREATE, kernel=k.ones, no_inputs=True)
declare("_full", inputs=(), attrs=[Attr("shape", shape_, ()), Attr("value", float_, 0.0)] + _CREATE,
        kernel=k.full, no_inputs=True)
declare("_arange", inputs=(), attrs=[Attr("start", float_, 0.0), Attr("stop", optional(float_), None),
                                     Attr("step", float_, 1.0), Attr("repeat", int_, 1),
                                     Attr("infer_range", bool_, False)] + _CREATE, kernel=k.arange, no_inputs=True)
declare("_linspace", inputs=(), attrs=[Attr("start", float_, 0.0), Attr("stop", float_, required=True),
                                       Attr("num", int_, required=True), Attr("endpoint", bool_, True)] + _CREATE,
        kernel=k.linspace, no_inputs=True)
declare("_eye", inputs=(), attrs=[Attr("N", int_, required=True), Attr("M", int_, 0), Attr("k", int_, 0)] + _CREATE,
        kernel=k.eye, no_inputs=True)
declare("shape_array", kernel=k.shape_array)
declare("size_array", kernel=k.size_array)
declare("_contrib_arange_like", attrs=[Attr("start", float_, 0.0), Attr("step", float_, 1.0),
                                       Attr("repeat", int_, 1), Attr("axis", optional(int_), None),
                                       Attr("ctx", str_, "")],
        kernel=k.arange_like, aliases=("contrib.arange_like",))

# ---- linear algebra
_TRANSPOSE = [Attr("transpose_a", bool_, False), Attr("transpose_b", bool_, False),
              Attr("forward_stype", optional(str_), None)]
declare("dot", inputs=("lhs", "rhs"), attrs=_TRANSPOSE, kernel=k.dot)
declare("batch_dot", inputs=("lhs", "rhs"), attrs=_TRANSPOSE, kernel=k.batch_dot)
declare("_linalg_gemm2", inputs=("A", "B"), attrs=[Attr("transpose_a", bool_, False), Attr("transpose_b", bool_, False),
                                                   Attr("alpha", float_, 1.0), Attr("axis", int_, -2)],
        kernel=k.gemm2, aliases=("linalg.gemm2", "linalg_gemm2"))
