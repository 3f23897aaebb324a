"""A small NumPy reading of the MXNet 1.x `F.*` operators that the fixer emits.

Used only by the fix tests, to check that rewritten code computes what the original did, until
the project's runtime can run both. Semantics follow MXNet 1.9.1 (see the notes per op), not
NumPy's where the two differ: e.g. no op returns a 0-d array, `squeeze` keeps `(1,)`.
"""
from __future__ import annotations

import types

import numpy as np


def _keep_1d(a):
    a = np.asarray(a)
    return a.reshape(1) if a.ndim == 0 else a


def _axis(axis, ndim):
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} out of range for ndim {ndim}")
    return axis % ndim


def slice(data, begin, end, step=None):
    begin, end = tuple(begin), tuple(end)
    step = tuple(step) if step is not None else (None,) * len(begin)
    if not (len(begin) == len(end) == len(step)) or len(begin) > data.ndim:
        raise ValueError("slice: begin/end/step lengths")
    index = []
    for axis, (b, e, s) in enumerate(zip(begin, end, step)):
        n = data.shape[axis]
        for bound in (b, e):
            if bound is not None and bound < -n:
                raise ValueError("slice: bound below -len")  # MXNet: "could not construct"
        index.append(np.s_[b:e:s])
    return data[tuple(index)]


def slice_axis(data, axis, begin, end):
    if begin is None:
        raise TypeError("slice_axis: begin must be an int")
    ax = _axis(axis, data.ndim)
    n = data.shape[ax]
    b = begin + n if begin < 0 else begin
    e = n if end is None else (end + n if end < 0 else end)
    if not (0 <= b < n and b < e <= n):
        raise ValueError(f"slice_axis: invalid begin={begin} end={end} for length {n}")
    index = [np.s_[:]] * data.ndim
    index[ax] = np.s_[b:e]
    return data[tuple(index)]


def squeeze(data, axis=None):
    if axis is None:
        return _keep_1d(np.squeeze(data))
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    norm = tuple(_axis(a, data.ndim) for a in axes)
    if len(set(norm)) != len(norm) or any(data.shape[a] != 1 for a in norm):
        raise ValueError("squeeze: axis not of length 1 or repeated")
    return _keep_1d(np.squeeze(data, axis=norm))


def expand_dims(data, axis):
    if not -data.ndim - 1 <= axis <= data.ndim:
        raise ValueError("expand_dims: axis")
    return np.expand_dims(data, axis)


def reverse(data, axis):
    if isinstance(axis, int) and axis < 0:
        raise ValueError("reverse: MXNet rejects a negative axis")
    return np.flip(data, axis)


def take(a, indices, axis=0, mode="clip"):
    idx = np.asarray(indices).astype(np.int64)
    n = a.shape[axis]
    idx = np.mod(idx, n) if mode == "wrap" else np.clip(idx, 0, n - 1)
    return np.take(a, idx, axis=axis)


def _reshape_target(src, shape, reverse=False):
    src = list(src)
    shape = list(shape)
    if reverse:
        src, shape = src[::-1], shape[::-1]
        # -4 takes its two following codes in order; a reversed spec keeps them in order
        i = 0
        while i < len(shape):
            if shape[i] == -4:
                raise NotImplementedError("reshape reverse with -4")
            i += 1
    out, i, j, infer = [], 0, 0, None
    while j < len(shape):
        code = shape[j]
        if code > 0:
            out.append(code); i += 1
        elif code == 0:
            out.append(src[i]); i += 1
        elif code == -1:
            infer = len(out); out.append(1); i += 1
        elif code == -2:
            out.extend(src[i:]); i = len(src)
        elif code == -3:
            out.append(src[i] * src[i + 1]); i += 2
        elif code == -4:
            a, b = shape[j + 1], shape[j + 2]
            if a == -1:
                a = src[i] // b
            if b == -1:
                b = src[i] // a
            out.extend([a, b]); i += 1; j += 2
        j += 1
    if infer is not None:
        known = int(np.prod([d for k, d in enumerate(out) if k != infer]))
        out[infer] = int(np.prod(src)) // known
    return tuple(out[::-1]) if reverse else tuple(out)


def reshape(data, shape=None, reverse=False, **kwargs):
    if shape is None:
        shape = kwargs.pop("target_shape")
    if isinstance(shape, int):
        shape = (shape,)
    return data.reshape(_reshape_target(data.shape, shape, reverse))


def reshape_like(lhs, rhs):
    return lhs.reshape(rhs.shape)


def zeros_like(data):
    return np.zeros_like(data)


def ones_like(data):
    return np.ones_like(data)


def broadcast_like(lhs, rhs):
    return np.broadcast_to(lhs, rhs.shape).copy()


def broadcast_to(data, shape):
    shape = tuple(d if d != 0 else data.shape[k] for k, d in enumerate(shape))
    return np.broadcast_to(data, shape).copy()


def where(condition, x, y):
    if x.shape != y.shape or condition.shape not in (x.shape, x.shape[:1]):
        raise ValueError("where: shapes")
    if condition.shape != x.shape:
        condition = condition.reshape(condition.shape + (1,) * (x.ndim - 1))
    return np.where(condition != 0, x, y).astype(x.dtype)


def concat(*data, dim=1, num_args=None):
    return np.concatenate(data, axis=dim)


def stack(*data, axis=0, num_args=None):
    return np.stack(data, axis=axis)


def _strict(fn):
    def op(lhs, rhs):
        return fn(lhs, rhs).astype(np.result_type(lhs, rhs))
    return op


broadcast_add = _strict(np.add)
broadcast_sub = _strict(np.subtract)
broadcast_minus = broadcast_sub
broadcast_mul = _strict(np.multiply)
broadcast_div = _strict(np.divide)
broadcast_mod = _strict(np.mod)
broadcast_power = _strict(np.power)
broadcast_maximum = _strict(np.maximum)
broadcast_minimum = _strict(np.minimum)
broadcast_equal = _strict(np.equal)
broadcast_not_equal = _strict(np.not_equal)
broadcast_greater = _strict(np.greater)
broadcast_greater_equal = _strict(np.greater_equal)
broadcast_lesser = _strict(np.less)
broadcast_lesser_equal = _strict(np.less_equal)


def elemwise_add(lhs, rhs):
    if lhs.shape != rhs.shape:
        raise ValueError("elemwise_add: shapes")
    return lhs + rhs


def relu(data):
    return np.maximum(data, 0)


def _arange_like(data, start=0.0, step=1.0, axis=None):
    n = data.size if axis is None else data.shape[axis]
    out = (start + step * np.arange(n)).astype(data.dtype)
    return out.reshape(data.shape) if axis is None else out


contrib = types.SimpleNamespace(arange_like=_arange_like)


def zeros(shape, dtype="float32", **kwargs):
    return np.zeros(shape, dtype=dtype)


def ones(shape, dtype="float32", **kwargs):
    return np.ones(shape, dtype=dtype)


def full(shape, val, dtype="float32", **kwargs):
    return np.full(shape, val, dtype=dtype)


def arange(start, stop=None, step=1.0, dtype="float32", **kwargs):
    if stop is None:
        start, stop = 0, start
    return np.arange(start, stop, step, dtype=dtype)


def swapaxes(data, dim1=0, dim2=0):
    return np.swapaxes(data, dim1, dim2)


def gather_nd(data, indices):
    index = np.asarray(indices).astype(np.int64)
    return data[tuple(index)]
