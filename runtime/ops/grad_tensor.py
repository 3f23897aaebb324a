"""Gradients of the tensor operators of runtime/ops/tensor.py: reductions, softmax family, shapes,
indexing and linear algebra.

Operators that only move or select elements (transpose, slice, take, tile, pad, ...) share one
gradient: their kernel runs once on the element numbers of the data (1, 2, ...) in place of its
values, which says where each output element came from (0: from no input element, such as
padding); the head gradient is then summed back onto those places.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from runtime.ops.grad_math import reduce_to, zero_gradient
from runtime.registry import REGISTRY, gradient_of


def _as_list(result):
    return list(result) if isinstance(result, (list, tuple)) else [result]


def selection(op_name: str, data: Sequence[int] = (0,), **overrides):
    """The gradient of an operator whose outputs are copies of elements of the `data` inputs
    ("all": every input). `overrides` set attributes so that filler values are 0 (pad's value)."""
    kernel = REGISTRY[op_name].kernel

    def gradient(inputs, outputs, out_grads, **attrs):
        chosen = range(len(inputs)) if data == "all" else data
        args = list(inputs)
        start = 1
        for index in chosen:
            size = inputs[index].size
            args[index] = np.arange(start, start + size, dtype=np.float64).reshape(inputs[index].shape)
            start += size
        attrs.pop("is_train", None)
        places = _as_list(kernel(*args, **dict(attrs, **overrides)))
        total = np.zeros(start, dtype=np.float64)
        for where, grad in zip(places, out_grads):
            total += np.bincount(np.asarray(where, np.int64).ravel(), weights=np.asarray(grad, np.float64).ravel(),
                                 minlength=start)
        grads = [None] * len(inputs)
        start = 1
        for index in chosen:
            size = inputs[index].size
            grads[index] = total[start:start + size].reshape(inputs[index].shape).astype(inputs[index].dtype)
            start += size
        return grads
    return gradient


# ---- reductions
def _keepdims_shape(x, attrs):
    axis, exclude = attrs.get("axis"), attrs.get("exclude", False)
    if axis is None:
        axes = tuple(range(x.ndim))
    else:
        axes = tuple(a % x.ndim for a in ((axis,) if isinstance(axis, int) else axis))
        if exclude:
            axes = tuple(a for a in range(x.ndim) if a not in axes)
    return tuple(1 if i in axes else d for i, d in enumerate(x.shape))


def _reduction(local):
    """d/dx of a reduction from (x, y and g with the reduced axes kept as ones)."""
    def gradient(inputs, outputs, out_grads, **attrs):
        x = inputs[0]
        shape = _keepdims_shape(x, attrs)
        y, g = outputs[0].reshape(shape), out_grads[0].reshape(shape)
        with np.errstate(divide="ignore", invalid="ignore"):
            return [np.asarray(local(x, y, g), dtype=x.dtype) * np.ones_like(x)]
    return gradient


gradient_of("sum")(_reduction(lambda x, y, g: g))
gradient_of("mean")(_reduction(lambda x, y, g: g * (y.size / x.size)))
gradient_of("nansum")(_reduction(lambda x, y, g: np.where(np.isnan(x), 0, g)))
gradient_of("prod")(_reduction(lambda x, y, g: g * y / x))
gradient_of("nanprod")(_reduction(lambda x, y, g: np.where(np.isnan(x), 0, g * y / x)))
gradient_of("max", "min")(_reduction(lambda x, y, g: g * (x == y)))


@gradient_of("norm")
def _norm(inputs, outputs, out_grads, ord=2, axis=None, keepdims=False, out_dtype=None):
    x = inputs[0]
    shape = _keepdims_shape(x, {"axis": axis})
    y, g = outputs[0].reshape(shape), out_grads[0].reshape(shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        local = np.sign(x) if ord == 1 else np.where(y == 0, 0, x / y)
    return [(g * local).astype(x.dtype)]


gradient_of("one_hot", "argmax", "argmin", "argsort", "shape_array", "size_array", "_contrib_arange_like")(zero_gradient)


def _ordered(inputs, attrs, ascending):
    """The sort order of the data along the axis (as the kernels sort: stable)."""
    x = inputs[0]
    axis = attrs["axis"]
    flat = axis is None
    data = x.reshape(-1) if flat else x
    axis = -1 if flat else axis
    order = np.argsort(data if ascending else -data, axis=axis, kind="stable")
    return data, axis, order


def _scatter_sorted(x_shape, data, axis, order, grad, count):
    """The gradient of the first `count` sorted values along `axis`, put back in place."""
    dx = np.zeros(data.shape, np.float64)
    taken = np.take(order, np.arange(count), axis=axis)
    np.put_along_axis(dx, taken, np.asarray(grad, np.float64).reshape(taken.shape), axis=axis)
    return dx.reshape(x_shape)


@gradient_of("sort")
def _sort(inputs, outputs, out_grads, axis=-1, is_ascend=True):
    data, axis_, order = _ordered(inputs, {"axis": axis}, is_ascend)
    size = data.shape[axis_]
    return [_scatter_sorted(inputs[0].shape, data, axis_, order, out_grads[0], size).astype(inputs[0].dtype)]


@gradient_of("topk")
def _topk(inputs, outputs, out_grads, axis=-1, k=1, ret_typ="indices", is_ascend=False, dtype="float32"):
    x = inputs[0]
    if ret_typ not in ("value", "both"):
        return [np.zeros_like(x)]
    data, axis_, order = _ordered(inputs, {"axis": axis}, is_ascend)
    return [_scatter_sorted(x.shape, data, axis_, order, out_grads[0], k).astype(x.dtype)]


# ---- softmax family
def _softmax_axis_temperature(attrs):
    return attrs.get("axis", -1), attrs.get("temperature") or 1.0


@gradient_of("softmax")
def _softmax(inputs, outputs, out_grads, **attrs):
    axis, temperature = _softmax_axis_temperature(attrs)
    y, g = outputs[0], out_grads[0]
    dx = y * (g - np.sum(g * y, axis=axis, keepdims=True)) / temperature
    # masked entries (use_length) are 0 in y, so their gradient is 0; the lengths get none
    return [dx.astype(inputs[0].dtype)] + [np.zeros_like(length) for length in inputs[1:]]


@gradient_of("softmin")
def _softmin(inputs, outputs, out_grads, **attrs):
    axis, temperature = _softmax_axis_temperature(attrs)
    y, g = outputs[0], out_grads[0]
    dx = -y * (g - np.sum(g * y, axis=axis, keepdims=True)) / temperature
    return [dx.astype(inputs[0].dtype)]


@gradient_of("log_softmax")
def _log_softmax(inputs, outputs, out_grads, **attrs):
    axis, temperature = _softmax_axis_temperature(attrs)
    y, g = outputs[0], out_grads[0]
    dx = (g - np.exp(y) * np.sum(g, axis=axis, keepdims=True)) / temperature
    return [dx.astype(inputs[0].dtype)]


# ---- shapes
def _reshaped(inputs, outputs, out_grads, **attrs):
    return [out_grads[0].reshape(inputs[0].shape)] + [None] * (len(inputs) - 1)


gradient_of("reshape", "Flatten", "expand_dims", "squeeze", "reshape_like")(_reshaped)


@gradient_of("transpose")
def _transpose(inputs, outputs, out_grads, axes=()):
    x = inputs[0]
    axes = tuple(a % x.ndim for a in axes) if axes else tuple(reversed(range(x.ndim)))
    return [np.ascontiguousarray(np.transpose(out_grads[0], np.argsort(axes)))]


for _name in ("SwapAxis", "reverse", "tile", "repeat", "diag", "depth_to_space", "space_to_depth",
              "broadcast_to", "broadcast_axis", "slice", "slice_axis", "take", "pick", "gather_nd"):
    if _name in REGISTRY:
        gradient_of(_name)(selection(_name))
gradient_of("pad")(selection("pad", constant_value=0.0))
gradient_of("broadcast_like")(selection("broadcast_like"))
gradient_of("slice_like")(selection("slice_like"))
gradient_of("Concat")(selection("Concat", "all"))
gradient_of("_rnn_param_concat")(selection("_rnn_param_concat", "all"))
gradient_of("stack")(selection("stack", "all"))
gradient_of("SliceChannel")(selection("SliceChannel"))
gradient_of("_split_v2")(selection("_split_v2"))


@gradient_of("where")
def _where(inputs, outputs, out_grads):
    condition, x, y = inputs
    g = out_grads[0]
    if condition.shape != x.shape:  # a condition per row of the first axis
        condition = condition.reshape(condition.shape + (1,) * (x.ndim - condition.ndim))
    chosen = condition != 0
    return [np.zeros_like(inputs[0]), np.where(chosen, g, 0).astype(x.dtype), np.where(chosen, 0, g).astype(y.dtype)]


# ---- linear algebra
def _matrices(a, b, transpose_a, transpose_b):
    """MXNet's dot of N-d arrays as 2-d products: (A, B) as stored, before the transposes."""
    a2 = a.reshape(a.shape[0], -1) if transpose_a else a.reshape(-1, a.shape[-1])
    b2 = b.reshape(-1, b.shape[-1]) if transpose_b else b.reshape(b.shape[0], -1)
    return a2, b2


@gradient_of("dot")
def _dot(inputs, outputs, out_grads, transpose_a=False, transpose_b=False, forward_stype=None):
    a, b = inputs
    a2, b2 = _matrices(a, b, transpose_a, transpose_b)
    left = a2.T if transpose_a else a2
    right = b2.T if transpose_b else b2
    g = out_grads[0].reshape(left.shape[0], right.shape[1])
    d_left, d_right = g @ right.T, left.T @ g
    da = d_left.T if transpose_a else d_left
    db = d_right.T if transpose_b else d_right
    return [da.reshape(a.shape).astype(a.dtype), db.reshape(b.shape).astype(b.dtype)]


def _batched_product_gradient(a, b, g, transpose_a, transpose_b, alpha=1.0):
    left = np.swapaxes(a, -1, -2) if transpose_a else a
    right = np.swapaxes(b, -1, -2) if transpose_b else b
    d_left = alpha * np.matmul(g, np.swapaxes(right, -1, -2))
    d_right = alpha * np.matmul(np.swapaxes(left, -1, -2), g)
    da = np.swapaxes(d_left, -1, -2) if transpose_a else d_left
    db = np.swapaxes(d_right, -1, -2) if transpose_b else d_right
    return [np.ascontiguousarray(da).astype(a.dtype), np.ascontiguousarray(db).astype(b.dtype)]


@gradient_of("batch_dot")
def _batch_dot(inputs, outputs, out_grads, transpose_a=False, transpose_b=False, forward_stype=None):
    return _batched_product_gradient(inputs[0], inputs[1], out_grads[0], transpose_a, transpose_b)
