"""Reductions, shapes, indexing, creation and linear algebra."""
from __future__ import annotations

import numpy as np

from runtime.kernels import tensor as k
from runtime.registry import (Attr, axis_, bool_, check_new_shape, choice, declare, dtype_, float_, int_, optional,
                              shape_, shape_inconsistent, str_, uniform_types)
from runtime.util import is_np_shape


# ---- MXNet's rejections, in MXNet's words (checked before a kernel runs, eagerly and at bind time)
def _axis_within(axis, ndim):
    if not -ndim <= axis < ndim:
        raise ValueError("axis %d exceeds the input dimension of %d" % (axis, ndim))


def _axis_attr_check(name, extra_dims=0):
    def check(in_shapes, attrs):
        axis = attrs[name]
        if axis is not None:
            _axis_within(axis, len(in_shapes[0]) + extra_dims)
    return check


def _take_check(in_shapes, attrs):
    rank = len(in_shapes[0])
    if not -rank <= attrs["axis"] < rank:
        raise ValueError("Axis should be in the range of [-r, r-1] where r is the rank of input tensor")


def _transpose_check(in_shapes, attrs):
    axes, ndim = attrs["axes"], len(in_shapes[0])
    if not axes:
        return
    if len(axes) != ndim:
        raise ValueError("transpose needs one axis for each of the %d dimensions, got axes=%s" % (ndim, axes))
    for axis in axes:
        if not 0 <= axis < ndim:  # MXNet 1.9.1 takes no negative axes here
            raise ValueError("index = %d must be in range [0, %d)" % (axis, ndim))


def _swapaxes_check(in_shapes, attrs):
    ndim = len(in_shapes[0])
    for name in ("dim1", "dim2"):
        if not -ndim <= attrs[name] < ndim:
            raise ValueError("axis%s: axis %d is out of bounds for array of ndim %d" % (name[-1], attrs[name], ndim))


def _expand_dims_check(in_shapes, attrs):
    ndim, axis = len(in_shapes[0]), attrs["axis"]
    if not -ndim - 1 <= axis <= ndim:
        raise ValueError("axis must be in the range [-%d, %d] (%d provided)" % (ndim, ndim, axis))


def _slice_axis_check(in_shapes, attrs):
    shape = in_shapes[0]
    axis = attrs["axis"]
    if not -len(shape) <= axis < len(shape):
        raise ValueError("Transformed axis must be smaller than the source ndim and larger than zero! Recieved axis=%d, "
                         "src_ndim=%d, transformed axis=%d" % (axis, len(shape), axis + len(shape) if axis < 0 else axis))
    size = shape[axis]
    if size == (-1 if is_np_shape() else 0):
        return  # an unknown size (partial inference): the sliced axis stays unknown
    _slice_axis_range(size, attrs)


def _slice_axis_range(size, attrs):
    """(begin, end) of slice_axis along an axis of `size`, or MXNet's rejection."""
    begin, end = attrs["begin"], attrs["end"]
    begin = begin + size if begin < 0 else begin
    end = size if end is None else (end + size if end < 0 else end)
    if end > size:
        raise ValueError("Invalid end for end=%d as axis_size is %d" % (end, size))
    if begin < 0:
        raise ValueError("Invalid begin for begin=%d as axis_size is %d" % (attrs["begin"], size))
    if begin >= end:
        raise ValueError("Invalid begin, end, get begin=%d, end=%d" % (begin, end))
    return begin, end


def _slice_axis_shapes(in_shapes, attrs):
    """The data's shape with the axis cut to the range; an axis of unknown size stays unknown."""
    shape = list(in_shapes[0])
    axis = attrs["axis"] % len(shape)
    if shape[axis] != (-1 if is_np_shape() else 0):
        begin, end = _slice_axis_range(shape[axis], attrs)
        shape[axis] = end - begin
    return in_shapes, [tuple(shape)]


def _pad_check(in_shapes, attrs):
    ndim, width = len(in_shapes[0]), attrs["pad_width"]
    if ndim not in (4, 5):
        raise ValueError("Current implementation only supports 4-D or 5-D input.")
    if any(width[:4]):
        raise ValueError("Current implementation expects padding on the first two axes to be zero.")
    if len(width) != 2 * ndim:
        raise ValueError("Input shape vs. pad_width mismatch: pad_width needs %d values for a %d-D input, got %d"
                         % (2 * ndim, ndim, len(width)))
    if attrs["mode"] == "reflect" and any(w >= d for i, d in enumerate(in_shapes[0]) for w in width[2 * i:2 * i + 2]):
        raise ValueError("Current implementation of reflection padding only supports padding sizes smaller than "
                         "the input size.")


def _reduce_check(in_shapes, attrs):
    axis, shape = attrs["axis"], in_shapes[0]
    if axis is None:
        return
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    text = ",".join(map(str, shape))
    for a in axes:
        if not -len(shape) <= a < len(shape):
            raise ValueError("Reduction axis %s Exceeds input dimensions [%s]"
                             % (a if isinstance(axis, int) and a >= 0 else "[%s]" % a, text))
    normal = [a % len(shape) for a in axes]
    if len(set(normal)) != len(normal):
        raise ValueError("Reduction axes have duplicates [%s]" % ",".join(map(str, axes)))


def _pick_check(in_shapes, attrs):
    data, index = in_shapes
    axis = attrs["axis"]
    if axis is None:
        return
    _axis_within(axis, len(data))
    axis %= len(data)
    expected = tuple(data[:axis]) + ((1,) if attrs["keepdims"] else ()) + tuple(data[axis + 1:])
    if index is not None and tuple(index) != expected and int(np.prod(index)) != int(np.prod(expected)):
        raise ValueError(shape_inconsistent(index, expected, brackets=True))


def _sort_check(in_shapes, attrs):
    axis, ndim = attrs["axis"], len(in_shapes[0])
    if axis is not None and not -ndim <= axis < ndim:
        raise ValueError("Invalid axis! axis should be between 0 and %d, found axis=%d" % (ndim, axis))


def _topk_check(in_shapes, attrs):
    _sort_check(in_shapes, attrs)
    axis = attrs["axis"]
    size = in_shapes[0][axis] if axis is not None else int(np.prod(in_shapes[0]))
    if attrs["k"] > size:
        raise ValueError("k must be smaller than %d, get k = %d" % (size, attrs["k"]))


def _repeat_check(in_shapes, attrs):
    if attrs["repeats"] < 0:
        raise ValueError("repeats cannot be a negative number")
    axis, ndim = attrs["axis"], len(in_shapes[0])
    if axis is not None and not -ndim <= axis < ndim:
        raise ValueError("axis = %d out of bounds" % axis)


def _tile_check(in_shapes, attrs):
    shape, reps = tuple(in_shapes[0]), tuple(attrs["reps"])
    width = max(len(shape), len(reps))
    shape, reps = (1,) * (width - len(shape)) + shape, (1,) * (width - len(reps)) + reps
    for dim, rep in zip(shape, reps):
        if rep < 0:
            raise ValueError("shape dim size must be >= -1, while received %d" % (dim * rep))


def _slice_check(in_shapes, attrs):
    if len(attrs["begin"]) > len(in_shapes[0]):
        raise ValueError("Slicing axis exceeds data dimensions")
    for i, step in enumerate(attrs["step"]):
        if step == 0:
            raise ValueError("slice op step[%d] cannot be 0" % i)


def _concat_check(in_shapes, attrs):
    _axis_within(attrs["dim"], len(in_shapes[0]))
    first = in_shapes[0]
    axis = attrs["dim"] % len(first)
    expected = [d if i != axis else -1 for i, d in enumerate(first)]
    for shape in in_shapes[1:]:
        if shape is None:
            continue
        if len(shape) != len(first) or any(d != e for i, (d, e) in enumerate(zip(shape, expected)) if i != axis):
            raise ValueError("Incompatible input shape: expected [%s], got [%s]"
                             % (",".join(map(str, expected)), ",".join(map(str, shape))))


def _dot_check(in_shapes, attrs):
    a, b = in_shapes
    if b is None:
        return
    ka = a[0] if attrs["transpose_a"] else a[-1]
    kb = b[-1] if attrs["transpose_b"] else b[0]
    if ka != kb:
        raise ValueError("dot shape error: [%s] X [%s]" % (",".join(map(str, a)), ",".join(map(str, b))))


def _batch_dot_check(in_shapes, attrs):
    a, b = in_shapes
    if b is None:
        return
    text = "[%s] X [%s] trans_a=%d trans_b=%d" % (",".join(map(str, a)), ",".join(map(str, b)),
                                                   attrs["transpose_a"], attrs["transpose_b"])
    if len(a) < 3 or len(b) < 3:
        raise ValueError("batch_dot currently only support N-D*N-D array (N >= 3)[%s] v.s. [%s]"
                         % (",".join(map(str, a)), ",".join(map(str, b))))
    if a[:-2] != b[:-2]:
        raise ValueError("batch_dot shape error (the leading batch dimensions must be equal): " + text)
    ka = a[-2] if attrs["transpose_a"] else a[-1]
    kb = b[-1] if attrs["transpose_b"] else b[-2]
    if ka != kb:
        raise ValueError("batch_dot shape error (shape mismatch): " + text)


def _one_hot_check(in_shapes, attrs):
    if attrs["depth"] < 0:
        raise ValueError("Dimension size, depth, must be a non-negative integer")


def _dims(shape) -> str:
    return "[%s]" % ",".join(map(str, shape))


def _broadcast_target_check(source, target):
    if len(source) != len(target) or any(s != t and s != 1 for s, t in zip(source, target)):
        raise ValueError("Array cannot be broadcasted from %s to %s" % (_dims(source), _dims(target)))


def _broadcast_to_check(in_shapes, attrs):
    source = in_shapes[0]
    target = tuple(s if t == 0 else t for s, t in zip(source, attrs["shape"])) + tuple(attrs["shape"][len(source):])
    _broadcast_target_check(source, target)


def _broadcast_like_check(in_shapes, attrs):
    lhs, rhs = in_shapes
    if rhs is None:
        return
    lhs_axes, rhs_axes = attrs["lhs_axes"], attrs["rhs_axes"]
    if lhs_axes is None or rhs_axes is None:  # MXNet 1.9.1 pairs axes only when both are given
        _broadcast_target_check(lhs, rhs)
        return
    if len(lhs_axes) != len(rhs_axes):
        raise ValueError("Input_axis and other_axis size does not match")
    if not lhs_axes:
        raise ValueError("Empty axes tuple is not allowed")
    for name, axes, shape in (("lhs_axes", lhs_axes, lhs), ("rhs_axes", rhs_axes, rhs)):
        for axis in axes:
            if not -len(shape) <= axis < len(shape):
                raise ValueError("Invalid dimension specified in %s: %d" % (name, axis))
    for i, (la, ra) in enumerate(zip(lhs_axes, rhs_axes)):
        if lhs[la] != 1:
            raise ValueError("Input axis %d at dimension %d cannot be broadcasted to %d" % (la, i, rhs[ra]))


def _broadcast_axis_check(in_shapes, attrs):
    shape = in_shapes[0]
    if len(attrs["axis"]) != len(attrs["size"]):
        raise ValueError("broadcast_axis needs one size for each axis: axis=%s, size=%s" % (attrs["axis"], attrs["size"]))
    for axis in attrs["axis"]:
        if not 0 <= axis < len(shape):
            raise ValueError("index = %d must be in range [0, %d)" % (axis, len(shape)))
        if shape[axis] != 1:
            raise ValueError("Broadcasting axis must have size 1")


def _reverse_check(in_shapes, attrs):
    ndim = len(in_shapes[0])
    for axis in attrs["axis"]:
        if not 0 <= axis < ndim:  # MXNet 1.9.1 takes no negative axes here
            raise ValueError("index = %d must be in range [0, %d)" % (axis, ndim))


def _float_only(in_dtypes, attrs, names):
    """softmax and its kin compute in floating point only."""
    dtype = in_dtypes[0]
    if dtype is not None and not np.issubdtype(np.dtype(dtype), np.floating):
        raise ValueError("This operation only support floating point types, not %s" % dtype)
    return in_dtypes, dtype


def _reshape_like_check(in_shapes, attrs):
    lhs, rhs = in_shapes
    if rhs is None:
        return
    target = k.reshape_like_shape(lhs, rhs, attrs["lhs_begin"], attrs["lhs_end"], attrs["rhs_begin"], attrs["rhs_end"])
    if int(np.prod(target)) != int(np.prod(lhs)):
        raise ValueError("Cannot reshape lhs with shape %sto new shape %s because they have different size."
                         % (_dims(lhs), _dims(target)))


def _squeeze_check(in_shapes, attrs):
    axis, ndim = attrs["axis"], len(in_shapes[0])
    for a in (() if axis is None else (axis,) if isinstance(axis, int) else axis):
        if not -ndim <= a < ndim:
            raise ValueError("axis %d is out of bounds for array of dimension %d" % (a, ndim))


def _stack_check(in_shapes, attrs):
    _axis_within(attrs["axis"], len(in_shapes[0]) + 1)
    for shape in in_shapes[1:]:
        if shape is not None and tuple(shape) != tuple(in_shapes[0]):
            raise ValueError("new and old shape do not match total elements")


def _split_check(in_shapes, attrs):
    ndim = len(in_shapes[0])
    if not -ndim <= attrs["axis"] < ndim:
        raise ValueError("axis %d is out of bounds for the %d dimensions of the input" % (attrs["axis"], ndim))


def _slice_like_check(in_shapes, attrs):
    data, like = in_shapes
    for axis in attrs["axes"]:
        if not -len(data) <= axis < len(data):
            raise ValueError("Slice axis: %d exceeds first input: %d" % (axis, len(data)))
        if like is not None and not -len(like) <= axis < len(like):
            raise ValueError("Slice axis: %d exceeds second input: %d" % (axis, len(like)))


def _gather_nd_check(in_shapes, attrs):
    data, indices = in_shapes
    if indices is not None and indices[0] > len(data):
        raise ValueError("Number of indices exceeds data dimension")


def _arange_like_check(in_shapes, attrs):
    axis = attrs["axis"]
    if axis is not None and not -len(in_shapes[0]) <= axis < len(in_shapes[0]):
        raise ValueError("cannot handle param.axis %d." % axis)


def _depth_to_space_check(in_shapes, attrs):
    shape, block = in_shapes[0], attrs["block_size"]
    if len(shape) != 4:
        raise ValueError("Depth To Space requires exactly 4D tensor")
    if shape[1] % (block * block):
        raise ValueError("Cannot perform Depth To Space operation on the specified tensor. Dimension:1(depth "
                         "dimension) should be a multiple of 'block^2'")


def _space_to_depth_check(in_shapes, attrs):
    shape, block = in_shapes[0], attrs["block_size"]
    if len(shape) != 4:
        raise ValueError("Space To Depth requires exactly 4D tensor")
    for axis, name in ((2, "1st"), (3, "2nd")):
        if shape[axis] % block:
            raise ValueError("Cannot perform Depth To Space operation on the specified tensor. Dimension:%d(%s Space "
                             "dimension) should be a multiple of 'block'" % (axis, name))


def _diag_check(in_shapes, attrs):
    ndim = len(in_shapes[0])
    if ndim >= 2:
        a1, a2 = attrs["axis1"] % ndim, attrs["axis2"] % ndim
        if a1 == a2:
            raise ValueError("axis1 and axis2 cannot refer to the same axis %d" % a1)


def _creation_check(in_shapes, attrs):
    """MXNet's checks of the declared shape; an unknown size (-1) is the consumers' to decide."""
    check_new_shape(tuple(0 if d == -1 else d for d in attrs["shape"]))


def _creation_shapes(in_shapes, attrs):
    """The declared shape, an unknown size (-1) written as MXNet 1.x's 0 outside np_shape()."""
    unknown = -1 if is_np_shape() else 0
    return in_shapes, [tuple(unknown if d == -1 else d for d in attrs["shape"])]


def _allocated(kernel):
    """A creation kernel, whose shape must be whole when it runs (inference fills its unknown sizes
    from the consumers where they decide them): MXNet's error otherwise."""
    def create(shape, *args, **kwargs):
        check_new_shape(shape)
        return kernel(shape, *args, **kwargs)
    return create


def _eye_check(in_shapes, attrs):
    check_new_shape((attrs["N"], attrs["M"] or attrs["N"]))


def check_range(start, stop, step, repeat):
    """MXNet's checks on arange's arguments (shared with `nd.arange`)."""
    if step == 0:
        raise ValueError("Range does not support step=0, received %g" % step)
    if repeat <= 0:
        raise ValueError("Range only supports repeat > 0, received %d" % repeat)
    if stop is not None and (start >= stop if step > 0 else start <= stop):
        raise ValueError("Invalid range (start, stop, step) = (%g,%g,%g)" % (start, stop, step))


def _arange_check(in_shapes, attrs):
    check_range(attrs["start"], attrs["stop"], attrs["step"], attrs["repeat"])


def _linspace_check(in_shapes, attrs):
    if attrs["num"] < 0:
        raise ValueError("Number of sequence should be non-negative, received %d" % attrs["num"])

_REDUCE_ATTRS = [Attr("axis", axis_, None), Attr("keepdims", bool_, False), Attr("exclude", bool_, False)]
for _name, _fn in (("sum", np.sum), ("mean", np.mean), ("max", np.max), ("min", np.min), ("prod", np.prod),
                   ("nansum", np.nansum), ("nanprod", np.nanprod)):
    declare(_name, attrs=_REDUCE_ATTRS, kernel=k.reducer(_fn), check=_reduce_check,
            aliases={"sum": ("sum_axis",), "max": ("max_axis",), "min": ("min_axis",)}.get(_name, ()))
declare("norm", attrs=[Attr("ord", int_, 2), Attr("axis", axis_, None), Attr("keepdims", bool_, False),
                       Attr("out_dtype", optional(dtype_), None)], check=_reduce_check,
        kernel=lambda x, ord=2, axis=None, keepdims=False, out_dtype=None: k.norm(x, ord, axis, keepdims))
for _name, _fn in (("argmax", np.argmax), ("argmin", np.argmin)):
    declare(_name, attrs=[Attr("axis", optional(int_), None), Attr("keepdims", bool_, False)],
            kernel=k.arg_reducer(_fn), check=_axis_attr_check("axis"))
declare("argmax_channel", kernel=k.argmax_channel)
declare("topk", attrs=[Attr("axis", optional(int_), -1), Attr("k", int_, 1),
                       Attr("ret_typ", choice("value", "indices", "mask", "both"), "indices"),
                       Attr("is_ascend", bool_, False), Attr("dtype", dtype_, "float32")],
        kernel=k.topk, check=_topk_check, num_outputs=lambda a: 2 if a["ret_typ"] == "both" else 1, types=lambda d, a, n: (d, {
            "value": [d[0]], "mask": [d[0]], "indices": [a["dtype"]], "both": [d[0], a["dtype"]]}[a["ret_typ"]]))
declare("sort", attrs=[Attr("axis", optional(int_), -1), Attr("is_ascend", bool_, True)], kernel=k.sort,
        check=_sort_check)
declare("argsort", attrs=[Attr("axis", optional(int_), -1), Attr("is_ascend", bool_, True),
                          Attr("dtype", dtype_, "float32")], kernel=k.argsort, check=_sort_check)
_SOFTMAX = [Attr("axis", int_, -1), Attr("temperature", optional(float_), None),
            Attr("dtype", optional(dtype_), None), Attr("use_length", optional(bool_), False)]
def _softmax_shapes(in_shapes, attrs):
    """The output is the data's shape; `length` (use_length) is the data's shape without the axis."""
    data = in_shapes[0]
    if len(in_shapes) < 2:
        return in_shapes, [data]
    axis = attrs["axis"] % len(data)
    return [data, tuple(d for i, d in enumerate(data) if i != axis)], [data]


def _integer_length(dtype):
    if dtype is not None and not np.issubdtype(np.dtype(dtype), np.integer):
        raise ValueError("This operation only support integer types, not %s" % np.dtype(dtype).name)


def _masked_softmax(x, length=None, axis=-1, temperature=None, dtype=None, use_length=False):
    if use_length and length is not None:
        # integer lengths: MXNet's kernel says so when it runs (its type inference leaves the
        # length's type as given, undecided ones float32 at bind; the message recorded)
        _integer_length(length.dtype)
    return k.softmax(x, length=length, axis=axis, temperature=temperature, dtype=dtype, use_length=use_length)


_SOFTMAX_OP = declare("softmax", inputs=("data", "length"), attrs=_SOFTMAX, check=_axis_attr_check("axis"),
                      types=_float_only, infer=_softmax_shapes,
                      kernel=_masked_softmax)
# `length` is an input only with use_length (GluonNLP's attention masks its scores so)
_SOFTMAX_OP.input_names = lambda attrs: ["data", "length"] if attrs.get("use_length") else ["data"]
declare("log_softmax", attrs=_SOFTMAX, check=_axis_attr_check("axis"), types=_float_only,
        kernel=lambda x, axis=-1, temperature=None, dtype=None, use_length=False: k.log_softmax(x, axis, temperature,
                                                                                                  dtype))
declare("softmin", attrs=_SOFTMAX, check=_axis_attr_check("axis"), types=_float_only,
        kernel=lambda x, axis=-1, temperature=None, dtype=None, use_length=False: k.softmin(x, axis, temperature,
                                                                                              dtype))


# ---- shapes
def _reshape_shapes(in_shapes, attrs):
    return in_shapes, [k.reshaped(in_shapes[0], attrs["shape"], attrs["reverse"], attrs["target_shape"],
                                  attrs["keep_highest"])]


def _reshape_inputs(out_shape, in_shapes, attrs):
    """The input's one unknown size (a 0 in its declared shape) from the output's element count."""
    partial = in_shapes[0]
    if partial is None or list(partial).count(0) != 1:
        return in_shapes
    known = int(np.prod([d for d in partial if d]))
    total = int(np.prod(out_shape))
    if known == 0 or total % known:
        return in_shapes
    return [tuple(d or total // known for d in partial)]


def _concat_inputs(out_shape, in_shapes, attrs):
    """The one input of unknown size along the axis: what the others leave of the output's."""
    axis = attrs["dim"] % len(out_shape)
    missing = [i for i, s in enumerate(in_shapes) if s is None or 0 in s]
    if len(missing) != 1:
        return in_shapes
    rest = sum(s[axis] for i, s in enumerate(in_shapes) if i != missing[0])
    completed = list(in_shapes)
    completed[missing[0]] = tuple(out_shape[:axis]) + (out_shape[axis] - rest,) + tuple(out_shape[axis + 1:])
    return completed


declare("reshape", attrs=[Attr("shape", shape_, ()), Attr("reverse", bool_, False),
                          Attr("target_shape", shape_, ()), Attr("keep_highest", bool_, False)],
        kernel=k.reshape, aliases=("Reshape",), infer=_reshape_shapes, infer_inputs=_reshape_inputs)
declare("reshape_like", inputs=("lhs", "rhs"),
        attrs=[Attr(n, optional(int_), None) for n in ("lhs_begin", "lhs_end", "rhs_begin", "rhs_end")],
        kernel=k.reshape_like, check=_reshape_like_check, types=uniform_types(free=("rhs",)))
declare("Flatten", kernel=k.flatten, aliases=("flatten",))
declare("expand_dims", attrs=[Attr("axis", int_, required=True)], kernel=k.expand_dims, check=_expand_dims_check)
declare("squeeze", attrs=[Attr("axis", axis_, None)], kernel=k.squeeze, check=_squeeze_check)
def _transpose_inputs(out_shape, in_shapes, attrs):
    """The input's shape from the output's: the axes' inverse permutation (reversed without axes)."""
    axes = attrs["axes"] or tuple(reversed(range(len(out_shape))))
    if len(axes) != len(out_shape):
        return in_shapes
    shape = [0] * len(out_shape)
    for position, axis in enumerate(axes):
        shape[axis] = out_shape[position]
    return [tuple(shape)]


declare("transpose", attrs=[Attr("axes", shape_, ())], kernel=k.transpose, check=_transpose_check,
        infer_inputs=_transpose_inputs)
declare("SwapAxis", attrs=[Attr("dim1", int_, 0), Attr("dim2", int_, 0)], kernel=k.swapaxes, aliases=("swapaxes",),
        check=_swapaxes_check)
declare("Concat", inputs=("*data",), attrs=[Attr("dim", int_, 1)], kernel=k.concat, aliases=("concat",),
        check=_concat_check, types=uniform_types(wording="concat"), infer_inputs=_concat_inputs)
declare("stack", inputs=("*data",), attrs=[Attr("axis", int_, 0)], kernel=k.stack,
        check=_stack_check)
declare("SliceChannel", attrs=[Attr("num_outputs", int_, required=True, low=1), Attr("axis", int_, 1),
                               Attr("squeeze_axis", bool_, False)],
        kernel=k.split, aliases=("split",), check=_split_check, num_outputs=lambda a: a["num_outputs"])
declare("_split_v2", attrs=[Attr("indices", shape_, ()), Attr("axis", int_, 0), Attr("squeeze_axis", bool_, False),
                            Attr("sections", int_, 0)],
        kernel=k.split_v2,
        num_outputs=lambda a: a["sections"] or (len(a["indices"]) - (1 if a["indices"][:1] == (0,) else 0) + 1))
def _slice_shapes(in_shapes, attrs):
    """The region's shape; an axis of unknown size (0, or -1 under np_shape()) stays unknown."""
    shape = in_shapes[0]
    unknown = -1 if is_np_shape() else 0
    out = list(k.sliced_shape(tuple(0 if d == unknown else d for d in shape), attrs["begin"], attrs["end"],
                              attrs["step"]))
    return in_shapes, [tuple(unknown if d == unknown else o for d, o in zip(shape, out))]


declare("slice", attrs=[Attr("begin", shape_, required=True), Attr("end", shape_, required=True),
                        Attr("step", shape_, ())], kernel=k.slice_, aliases=("crop",), check=_slice_check,
        infer=_slice_shapes)


def _slice_assign_shapes(in_shapes, attrs):
    """The value's shape is the region's; the result has the array's shape."""
    lhs = in_shapes[0]
    _slice_check([lhs], attrs)
    return [lhs, k.sliced_shape(lhs, attrs["begin"], attrs["end"], attrs["step"])], [lhs]


# `x[a:b] = y` and `x[a:b] = 5` of MXNet 1.9.1's front end; neither has a gradient there
_SLICE_ATTRS = [Attr("begin", shape_, required=True), Attr("end", shape_, required=True), Attr("step", shape_, ())]
declare("_slice_assign", inputs=("lhs", "rhs"), attrs=_SLICE_ATTRS, kernel=k.slice_assign, aliases=("_crop_assign",),
        infer=_slice_assign_shapes, bracket_shapes=True)
declare("_slice_assign_scalar", attrs=[Attr("scalar", float_, 0.0)] + _SLICE_ATTRS, kernel=k.slice_assign_scalar,
        aliases=("_crop_assign_scalar",), check=_slice_check)
declare("slice_axis", attrs=[Attr("axis", int_, required=True), Attr("begin", int_, required=True),
                             Attr("end", optional(int_), required=True)], kernel=k.slice_axis,
        check=_slice_axis_check, infer=_slice_axis_shapes)
declare("slice_like", inputs=("data", "shape_like"), attrs=[Attr("axes", shape_, ())], kernel=k.slice_like,
        check=_slice_like_check,
        types=uniform_types(free=("shape_like",)))
declare("tile", attrs=[Attr("reps", shape_, required=True)], kernel=k.tile, check=_tile_check)
declare("repeat", attrs=[Attr("repeats", int_, required=True), Attr("axis", optional(int_), None)], kernel=k.repeat,
        check=_repeat_check)
declare("reverse", attrs=[Attr("axis", shape_, required=True)], kernel=k.reverse, aliases=("flip",),
        check=_reverse_check)
declare("pad", attrs=[Attr("mode", choice("constant", "edge", "reflect"), "constant"),
                      Attr("pad_width", shape_, required=True), Attr("constant_value", float_, 0.0)],
        kernel=k.pad, aliases=("Pad",), check=_pad_check)
declare("diag", attrs=[Attr("k", int_, 0), Attr("axis1", int_, 0), Attr("axis2", int_, 1)], kernel=k.diag,
        check=_diag_check)
declare("depth_to_space", attrs=[Attr("block_size", int_, required=True)], kernel=k.depth_to_space,
        check=_depth_to_space_check)
declare("space_to_depth", attrs=[Attr("block_size", int_, required=True)], kernel=k.space_to_depth,
        check=_space_to_depth_check)
declare("broadcast_to", attrs=[Attr("shape", shape_, ())], kernel=k.broadcast_to, check=_broadcast_to_check)
declare("broadcast_axis", attrs=[Attr("axis", shape_, ()), Attr("size", shape_, ())], kernel=k.broadcast_axis,
        check=_broadcast_axis_check,
        aliases=("broadcast_axes",))
declare("broadcast_like", inputs=("lhs", "rhs"), attrs=[Attr("lhs_axes", optional(shape_), None),
                                                        Attr("rhs_axes", optional(shape_), None)],
        kernel=k.broadcast_like, check=_broadcast_like_check, types=uniform_types(free=("rhs",)))
declare("where", inputs=("condition", "x", "y"), kernel=k.where, types=uniform_types(free=("condition",)))

# ---- indexing
_MODE = choice("clip", "wrap", "raise")
declare("take", inputs=("a", "indices"), attrs=[Attr("axis", int_, 0), Attr("mode", _MODE, "clip")], kernel=k.take,
        check=_take_check, types=uniform_types(free=("indices",)))
declare("pick", inputs=("data", "index"), attrs=[Attr("axis", optional(int_), -1), Attr("keepdims", bool_, False),
                                                 Attr("mode", _MODE, "clip")], kernel=k.pick, check=_pick_check,
        types=uniform_types(free=("index",)))
declare("gather_nd", inputs=("data", "indices"), kernel=k.gather_nd, check=_gather_nd_check, types=uniform_types(free=("indices",)))
declare("batch_take", inputs=("a", "indices"), kernel=k.batch_take, types=uniform_types(free=("indices",)))
declare("one_hot", inputs=("indices",), attrs=[Attr("depth", int_, required=True), Attr("on_value", float_, 1.0),
                                               Attr("off_value", float_, 0.0), Attr("dtype", dtype_, "float32")],
        kernel=k.one_hot, check=_one_hot_check, allows_empty=True)

# ---- creation (no inputs; `ctx` is accepted and ignored: everything lives on the CPU)
_CREATE = [Attr("dtype", dtype_, "float32"), Attr("ctx", str_, "")]
declare("_zeros", inputs=(), attrs=[Attr("shape", shape_, ())] + _CREATE, kernel=_allocated(k.zeros), no_inputs=True,
        check=_creation_check, infer=_creation_shapes)
declare("_ones", inputs=(), attrs=[Attr("shape", shape_, ())] + _CREATE, kernel=_allocated(k.ones), no_inputs=True,
        check=_creation_check, infer=_creation_shapes)
declare("_full", inputs=(), attrs=[Attr("shape", shape_, ()), Attr("value", float_, 0.0)] + _CREATE,
        kernel=_allocated(k.full), no_inputs=True, check=_creation_check, infer=_creation_shapes)
declare("_arange", inputs=(), attrs=[Attr("start", float_, 0.0), Attr("stop", optional(float_), None),
                                     Attr("step", float_, 1.0), Attr("repeat", int_, 1),
                                     Attr("infer_range", bool_, False)] + _CREATE, kernel=k.arange, no_inputs=True,
        check=_arange_check)
declare("_linspace", inputs=(), attrs=[Attr("start", float_, 0.0), Attr("stop", float_, required=True),
                                       Attr("num", int_, required=True), Attr("endpoint", bool_, True)] + _CREATE,
        kernel=k.linspace, no_inputs=True, check=_linspace_check)
declare("_eye", inputs=(), attrs=[Attr("N", int_, required=True), Attr("M", int_, 0), Attr("k", int_, 0)] + _CREATE,
        kernel=k.eye, no_inputs=True, check=_eye_check)
declare("shape_array", kernel=k.shape_array, types=lambda d, a, n: (d, "int64"))
declare("size_array", kernel=k.size_array, types=lambda d, a, n: (d, "int64"))
declare("_contrib_arange_like", attrs=[Attr("start", float_, 0.0), Attr("step", float_, 1.0),
                                       Attr("repeat", int_, 1), Attr("axis", optional(int_), None),
                                       Attr("ctx", str_, "")],
        kernel=k.arange_like, aliases=("contrib.arange_like",), check=_arange_like_check)

# ---- linear algebra
_TRANSPOSE = [Attr("transpose_a", bool_, False), Attr("transpose_b", bool_, False),
              Attr("forward_stype", optional(str_), None)]
declare("dot", inputs=("lhs", "rhs"), attrs=_TRANSPOSE, kernel=k.dot, check=_dot_check)
declare("batch_dot", inputs=("lhs", "rhs"), attrs=_TRANSPOSE, kernel=k.batch_dot, check=_batch_dot_check)
