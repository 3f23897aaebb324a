"""Reductions, shape manipulation, indexing and creation kernels over NumPy arrays."""
from __future__ import annotations

import numpy as np

from runtime.base import OperatorIndexError
from runtime.kernels.ordering import mxnet_order


# ---- reductions
def _axes(ndim, axis, exclude=False, shape=None):
    if axis is None:
        axes = tuple(range(ndim))
    else:
        given = (axis,) if isinstance(axis, int) else tuple(axis)
        for a in given:
            if not -max(ndim, 1) <= a < max(ndim, 1):
                raise ValueError("Reduction axis %s Exceeds input dimensions [%s]"
                                 % (a, ",".join(str(d) for d in shape)) if shape else
                                 "axis %s is out of bounds for a %d-d array" % (a, ndim))
        axes = tuple(a % ndim if ndim else a for a in given)
    if exclude:
        axes = tuple(a for a in range(ndim) if a not in axes)
    return axes


def reducer(function):
    def kernel(x, axis=None, keepdims=False, exclude=False):
        axes = _axes(x.ndim, axis, exclude, x.shape)
        out = function(x, axis=axes, keepdims=keepdims)
        out = np.asarray(out, dtype=x.dtype)
        return out.reshape(1) if out.ndim == 0 else out
    return kernel


def norm(x, ord=2, axis=None, keepdims=False):
    axes = _axes(x.ndim, axis)
    if ord == 1:
        out = np.sum(np.abs(x), axis=axes, keepdims=keepdims)
    else:
        out = np.sqrt(np.sum(np.square(x.astype(np.float64)), axis=axes, keepdims=keepdims))
    out = np.asarray(out, dtype=x.dtype)
    return out.reshape(1) if out.ndim == 0 else out


def arg_reducer(function):
    def kernel(x, axis=None, keepdims=False):
        if axis is None:
            out = np.asarray(function(x.reshape(-1)))
            return out.reshape((1,) * x.ndim if keepdims else (1,)).astype(np.float32)
        out = function(x, axis=axis)
        if keepdims:
            out = np.expand_dims(out, axis)
        return out.astype(np.float32)
    return kernel


def argmax_channel(x):
    return np.argmax(x, axis=-1).astype(np.float32)


def topk(x, axis=-1, k=1, ret_typ="indices", is_ascend=False, dtype="float32"):
    shape = x.shape
    x, axis = (x.reshape(-1), -1) if axis is None else (x, axis)  # no axis: the flattened array
    if k <= 0:  # MXNet: a k of 0 or less takes the whole axis
        k = x.shape[axis]
    index = mxnet_order(x, axis, k, is_ascend)  # equal values in MXNet's order, not by position
    values = np.take_along_axis(x, index, axis=axis)
    if ret_typ == "value":
        return values
    if ret_typ == "both":
        return values, index.astype(dtype)
    if ret_typ == "mask":
        mask = np.zeros_like(x)
        np.put_along_axis(mask, index, 1, axis=axis)
        return mask.reshape(shape)
    return index.astype(dtype)


def sort(x, axis=-1, is_ascend=True):
    x, axis = (x.reshape(-1), -1) if axis is None else (x, axis)  # no axis: the flattened array
    return np.take_along_axis(x, mxnet_order(x, axis, x.shape[axis], is_ascend), axis=axis)


def argsort(x, axis=-1, is_ascend=True, dtype="float32"):
    x, axis = (x.reshape(-1), -1) if axis is None else (x, axis)
    return mxnet_order(x, axis, x.shape[axis], is_ascend).astype(dtype)


def softmax(x, length=None, axis=-1, temperature=None, dtype=None, use_length=False):
    # in the data's own precision (at least float32), as MXNet's kernel: a saturated row's sum
    # then rounds to its largest term, and its probability is exactly 1 there as on MXNet (in
    # float64 it is 1 - 6e-8, and a sort by score puts that row after the ones that are exactly 1)
    z = x.astype(np.result_type(x.dtype, np.float32)) / np.asarray(temperature or 1.0, x.dtype)
    inside = None
    if use_length:  # places at or past each lane's length take no part and give 0
        axis = axis % x.ndim
        places = np.arange(x.shape[axis]).reshape((-1,) + (1,) * (x.ndim - axis - 1))
        inside = places < np.expand_dims(length.astype(np.int64), axis)
        z = np.where(inside, z, -np.inf)
    with np.errstate(invalid="ignore"):
        z = np.exp(z - z.max(axis=axis, keepdims=True))
        out = z / z.sum(axis=axis, keepdims=True)
    if inside is not None:
        out = np.where(inside, out, 0.0)
    return out.astype(dtype or x.dtype)


def log_softmax(x, axis=-1, temperature=None, dtype=None):
    # float32 like MXNet's kernel: float64 here would differ from it by more than the tolerance
    z = x / np.asarray(temperature or 1.0, dtype=x.dtype)
    z = z - z.max(axis=axis, keepdims=True)
    out = z - np.log(np.exp(z).sum(axis=axis, keepdims=True))
    return out.astype(dtype or x.dtype)


def softmin(x, axis=-1, temperature=None, dtype=None):
    return softmax(-x, axis=axis, temperature=temperature, dtype=dtype)


# ---- shapes
def reshape_shape(src, shape, reverse=False):
    """MXNet's reshape codes: 0 copy, -1 infer, -2 copy the rest, -3 merge two, -4 split one."""
    src = list(src)
    shape = list(shape)
    if reverse:
        src, shape = src[::-1], shape[::-1]
        # -4's two following values stay in order when read backwards
        i = 0
        fixed = []
        while i < len(shape):
            if i + 2 < len(shape) and shape[i + 2] == -4:
                fixed += [-4, shape[i + 1], shape[i]]
                i += 3
            else:
                fixed.append(shape[i])
                i += 1
        shape = fixed
    out = []
    infer = -1
    i = j = 0
    while i < len(shape):
        code = shape[i]
        if code == 0:
            out.append(src[j]); j += 1
        elif code == -1:
            if infer >= 0:
                raise ValueError("One and only one dim can be inferred")
            infer = len(out); out.append(1); j += 1
        elif code == -2:
            out.extend(src[j:]); j = len(src)
        elif code == -3:
            out.append(src[j] * src[j + 1]); j += 2
        elif code == -4:
            a, b = shape[i + 1], shape[i + 2]
            if a == -1 and b == -1:
                raise ValueError("Split dims cannot both be -1.")
            if a == -1:
                a = src[j] // b
            if b == -1:
                b = src[j] // a
            if a * b != src[j]:
                raise ValueError("Split dims %d, %d do not divide original dim %d" % (a, b, src[j]))
            out.extend([a, b]); j += 1; i += 2
        elif code > 0:
            out.append(code); j += 1
        else:
            raise ValueError("shape dim size must be >= -1, while received %d" % code)
        i += 1
    total = int(np.prod(src))
    if infer >= 0 and total == 0:
        # MXNet 1.x reads a 0 dimension as unknown: nothing is left to infer -1 from
        raise ValueError("Shape dim size cannot be a negative value -1")
    if infer >= 0:
        known = int(np.prod([d for k, d in enumerate(out) if k != infer]))
        if known == 0 or total % known:
            raise ValueError("cannot infer -1 for shape %s from %s" % (tuple(shape), tuple(src)))
        out[infer] = total // known
    if int(np.prod(out)) != total:
        raise ValueError("target shape size is different to source. Target: %s Source: %s"
                         % (tuple(out), tuple(src)))
    return tuple(out[::-1] if reverse else out)


def reshape(x, shape=(), reverse=False, target_shape=None, keep_highest=False):
    return x.reshape(reshaped(x.shape, shape, reverse, target_shape, keep_highest))


def reshaped(data, shape=(), reverse=False, target_shape=None, keep_highest=False):
    """The shape `reshape` gives: from `shape` and its special values, or from the deprecated
    `target_shape` when `shape` is empty (one 0 there is inferred from the element count; with
    `keep_highest` the first size is the input's)."""
    if shape or not target_shape:
        return reshape_shape(data, shape, reverse)
    target = list(target_shape)
    if keep_highest:
        target[0] = data[0]
    unknown = [i for i in range(1 if keep_highest else 0, len(target)) if target[i] == 0]
    if len(unknown) == 1:
        target[unknown[0]] = 1
        target[unknown[0]] = int(np.prod(data)) // int(np.prod(target))
    if int(np.prod(target)) != int(np.prod(data)):
        raise ValueError("Target shape size is different to source. Target: (%s)\nSource: (%s)"
                         % (",".join(map(str, target)), ",".join(map(str, data))))
    return tuple(target)


def like_range(ndim, side, begin, end):
    """reshape_like's [begin, end) of one side's axes: a negative bound counts from the end, a
    missing one is 0 or ndim; MXNet's checks, in its words."""
    b = 0 if begin is None else begin + (ndim if begin < 0 else 0)
    e = ndim if end is None else end + (ndim if end < 0 else 0)
    if e > ndim:
        raise ValueError("Invalid end for %s_end=%s as dimension number is %d" % (side, end, ndim))
    if not b < e:
        raise ValueError("Invalid begin, end, get %s_begin=%s, %s_end=%s" % (side, begin, side, end))
    if e < 0:
        raise ValueError("Invalid end for %s_end=%s" % (side, end))
    return b, e


def reshape_like_shape(lhs, rhs, lhs_begin=None, lhs_end=None, rhs_begin=None, rhs_end=None):
    lb, le = like_range(len(lhs), "lhs", lhs_begin, lhs_end)
    rb, re_ = like_range(len(rhs), "rhs", rhs_begin, rhs_end)
    return tuple(lhs[:lb]) + tuple(rhs[rb:re_]) + tuple(lhs[le:])


def reshape_like(lhs, rhs, lhs_begin=None, lhs_end=None, rhs_begin=None, rhs_end=None):
    return lhs.reshape(reshape_like_shape(lhs.shape, rhs.shape, lhs_begin, lhs_end, rhs_begin, rhs_end))


def flatten(x):
    return x.reshape(x.shape[0], -1) if x.ndim else x.reshape(1, 1)


def expand_dims(x, axis):
    if not -x.ndim - 1 <= axis <= x.ndim:
        raise ValueError("axis %d is out of bounds for a %d-d array" % (axis, x.ndim))
    return np.expand_dims(x, axis)


def squeeze(x, axis=None):
    if axis is None:
        out = np.squeeze(x)
    else:
        axes = _axes(x.ndim, axis)
        for a in axes:
            if x.shape[a] != 1:
                raise ValueError("cannot select an axis to squeeze out which has size=%d not equal to one"
                                 % x.shape[a])
        out = np.squeeze(x, axis=axes)
    # MXNet 1.x has no 0-d arrays: squeezing every axis leaves shape (1,)
    return out.reshape(1) if out.ndim == 0 else out


def transpose(x, axes=()):
    return np.ascontiguousarray(np.transpose(x, axes or None))


def swapaxes(x, dim1=0, dim2=0):
    return np.ascontiguousarray(np.swapaxes(x, dim1, dim2))


def concat(*arrays, dim=1, num_args=None):
    return np.concatenate(arrays, axis=dim)


def stack(*arrays, axis=0, num_args=None):
    return np.stack(arrays, axis=axis)


def split(x, num_outputs, axis=1, squeeze_axis=False):
    if x.shape[axis] % num_outputs:
        raise ValueError("You are trying to split the %d-th axis of input tensor with shape [%s] into num_outputs=%d "
                         "evenly sized chunks, but this is not possible because %d does not evenly divide %d"
                         % (axis % x.ndim, ",".join(map(str, x.shape)), num_outputs, num_outputs, x.shape[axis]))
    if squeeze_axis and x.shape[axis] != num_outputs:
        raise ValueError("If squeeze axis is True, the size of the sliced axis must be the same as num_outputs. "
                         "Input shape=[%s], axis=%d, num_outputs=%d." % (",".join(map(str, x.shape)), axis, num_outputs))
    parts = np.split(x, num_outputs, axis=axis)
    if squeeze_axis:
        parts = [np.squeeze(p, axis=axis) for p in parts]
    return tuple(np.ascontiguousarray(p) for p in parts)


def split_v2(x, indices=(), axis=0, squeeze_axis=False, sections=0):
    parts = np.split(x, sections if sections else list(indices)[1:] if indices and indices[0] == 0 else list(indices),
                     axis=axis)
    if squeeze_axis:
        parts = [np.squeeze(p, axis=axis) for p in parts]
    return tuple(np.ascontiguousarray(p) for p in parts)


def slice_index(x, begin, end, step=()):
    """The NumPy index that `slice` takes out of x (shared with its gradient, which writes there)."""
    index = []
    for k in range(len(begin)):
        s = step[k] if k < len(step) and step[k] is not None else 1
        index.append(slice(begin[k], end[k] if k < len(end) else None, s))
    return tuple(index)


def sliced_shape(shape, begin, end, step=()):
    """The shape `slice` gives an array of `shape` (no array is made)."""
    return np.broadcast_to(np.empty((), np.int8), shape)[slice_index(None, begin, end, step)].shape


def slice_assign(lhs, rhs, begin, end, step=()):
    """lhs with the region `slice` selects replaced by rhs (of that region's shape)."""
    out = lhs.copy()
    out[slice_index(lhs, begin, end, step)] = rhs
    return out


def slice_assign_scalar(data, scalar=0.0, begin=(), end=(), step=()):
    out = data.copy()
    out[slice_index(data, begin, end, step)] = scalar
    return out


def slice_(x, begin, end, step=()):
    return np.ascontiguousarray(x[slice_index(x, begin, end, step)])


def slice_axis_index(x, axis, begin, end):
    if not -x.ndim <= axis < x.ndim:
        raise ValueError("axis %d is out of bounds for a %d-d array" % (axis, x.ndim))
    index = [slice(None)] * x.ndim
    index[axis] = slice(begin, end)
    return tuple(index)


def slice_axis(x, axis, begin, end):
    return np.ascontiguousarray(x[slice_axis_index(x, axis, begin, end)])


def slice_like_index(x, shape_like, axes=()):
    axes = _axes(x.ndim, axes) if axes else range(min(x.ndim, shape_like.ndim))
    index = [slice(None)] * x.ndim
    for a in axes:
        index[a] = slice(0, shape_like.shape[a])
    return tuple(index)


def slice_like(x, shape_like, axes=()):
    return np.ascontiguousarray(x[slice_like_index(x, shape_like, axes)])


def tile(x, reps):
    return np.tile(x, reps)


def repeat(x, repeats, axis=None):
    return np.repeat(x.reshape(-1) if axis is None else x, repeats, axis=axis)


def reverse(x, axis):
    return np.ascontiguousarray(np.flip(x, axis=axis))


def pad(x, mode="constant", pad_width=(), constant_value=0.0):
    pairs = [(pad_width[2 * i], pad_width[2 * i + 1]) for i in range(len(pad_width) // 2)]
    if mode == "constant":
        return np.pad(x, pairs, mode="constant", constant_values=constant_value)
    return np.pad(x, pairs, mode={"edge": "edge", "reflect": "reflect"}[mode])


def diag(x, k=0, axis1=0, axis2=1):
    if x.ndim == 1:
        return np.diag(x, k)
    return np.ascontiguousarray(np.diagonal(x, k, axis1, axis2))


def depth_to_space(x, block_size):
    n, c, h, w = x.shape
    b = block_size
    y = x.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
    return np.ascontiguousarray(y.reshape(n, c // (b * b), h * b, w * b))


def space_to_depth(x, block_size):
    n, c, h, w = x.shape
    b = block_size
    y = x.reshape(n, c, h // b, b, w // b, b).transpose(0, 3, 5, 1, 2, 4)
    return np.ascontiguousarray(y.reshape(n, c * b * b, h // b, w // b))


def broadcast_to(x, shape):
    target = tuple(x.shape[i] if d == 0 else d for i, d in enumerate(shape))
    return np.ascontiguousarray(np.broadcast_to(x, target))


def broadcast_axis(x, axis=(), size=()):
    axes = (axis,) if isinstance(axis, int) else axis
    sizes = (size,) if isinstance(size, int) else size
    target = list(x.shape)
    for a, s in zip(axes, sizes):
        target[a] = s
    return np.ascontiguousarray(np.broadcast_to(x, target))


def broadcast_like(x, like, lhs_axes=None, rhs_axes=None):
    target = list(x.shape)
    if lhs_axes is None or rhs_axes is None:
        target = list(like.shape)
    else:
        for la, ra in zip(lhs_axes, rhs_axes):
            target[la] = like.shape[ra]
    return np.ascontiguousarray(np.broadcast_to(x, target))


def where(condition, x, y):
    if condition.shape != x.shape:
        if condition.ndim == 1 and condition.shape[0] == x.shape[0]:
            condition = condition.reshape((-1,) + (1,) * (x.ndim - 1))
        else:
            raise ValueError("condition shape %s does not match %s" % (condition.shape, x.shape))
    return np.where(condition != 0, x, y).astype(x.dtype, copy=False)


# ---- indexing
def _indices(index, size, mode):
    idx = np.asarray(index).astype(np.int64)
    if mode == "wrap":
        return np.mod(idx, size)
    if mode == "raise" and ((idx < 0) | (idx >= size)).any():
        raise IndexError("index out of range for an axis of size %d" % size)
    return np.clip(idx, 0, size - 1)


def take(a, indices, axis=0, mode="clip"):
    axis = axis % a.ndim
    return np.take(a, _indices(indices, a.shape[axis], mode), axis=axis)


def pick(data, index, axis=-1, keepdims=False, mode="clip"):
    axis = axis % data.ndim
    idx = _indices(index, data.shape[axis], mode)
    idx = np.expand_dims(idx.reshape(data.shape[:axis] + data.shape[axis + 1:]), axis)
    out = np.take_along_axis(data, idx, axis=axis)
    return out if keepdims else np.squeeze(out, axis=axis)


def gather_nd(data, indices):
    idx = indices.astype(np.int64)
    m = idx.shape[0]
    try:
        return data[tuple(idx[i] for i in range(m))]
    except IndexError as exc:  # NumPy's words are MXNet's: "index 3 is out of bounds for axis 1 with size 3"
        raise OperatorIndexError(str(exc)) from None


def batch_take(a, indices):
    idx = np.clip(indices.astype(np.int64), 0, a.shape[1] - 1)
    return a[np.arange(a.shape[0]), idx]


def one_hot(indices, depth, on_value=1.0, off_value=0.0, dtype="float32"):
    idx = indices.astype(np.int64)
    out = np.full(idx.shape + (depth,), off_value, dtype=dtype)
    if depth == 0:
        return out
    valid = (idx >= 0) & (idx < depth)
    np.put_along_axis(out, np.expand_dims(np.where(valid, idx, 0), -1),
                      np.where(np.expand_dims(valid, -1), on_value, off_value).astype(dtype), axis=-1)
    return out


# ---- creation
def zeros(shape, dtype="float32", ctx=None):
    return np.zeros(shape, dtype=dtype)


def ones(shape, dtype="float32", ctx=None):
    return np.ones(shape, dtype=dtype)


def full(shape, value, dtype="float32", ctx=None):
    return np.full(shape, value, dtype=dtype)


def arange(start, stop=None, step=1.0, repeat=1, infer_range=False, dtype="float32", ctx=None):
    if stop is None:
        start, stop = 0.0, start
    if np.dtype(dtype).kind in "iub":
        # MXNet counts the values in double precision but casts start and step to the integer type
        # before stepping: arange(1.3, 456.6, 1.3, dtype=int32) is 1, 2, ..., 351
        count = max(int(np.ceil((stop - start) / step)), 0)
        out = np.trunc(start) + np.arange(count, dtype=np.float64) * np.trunc(step)
    else:
        out = np.arange(start, stop, step, dtype=np.float64)
    return np.repeat(out, repeat).astype(dtype)


def linspace(start, stop, num, endpoint=True, dtype="float32", ctx=None):
    return np.linspace(start, stop, num, endpoint=endpoint).astype(dtype)


def eye(N, M=0, k=0, dtype="float32", ctx=None):
    return np.eye(N, M or None, k, dtype=dtype)


def shape_array(x):
    return np.asarray(x.shape, dtype=np.int64)


def size_array(x):
    return np.asarray([x.size], dtype=np.int64)


def arange_like(x, start=0.0, step=1.0, repeat=1, axis=None, ctx=None):
    n = x.size if axis is None else x.shape[axis]
    values = (start + step * np.arange(int(np.ceil(n / repeat)))).repeat(repeat)[:n]
    return values.astype(x.dtype).reshape(x.shape if axis is None else (n,))


# ---- linear algebra
def dot(a, b, transpose_a=False, transpose_b=False, forward_stype=None):
    if transpose_a:
        a = a.T if a.ndim == 2 else np.moveaxis(a, 0, -1)
    if transpose_b:
        b = b.T if b.ndim == 2 else np.moveaxis(b, -1, 0)
    if a.ndim == 1 and b.ndim == 1:
        return np.asarray([np.dot(a, b)], dtype=a.dtype)
    return np.tensordot(a, b, axes=1).astype(a.dtype, copy=False)


def batch_dot(a, b, transpose_a=False, transpose_b=False, forward_stype=None):
    if transpose_a:
        a = np.swapaxes(a, -1, -2)
    if transpose_b:
        b = np.swapaxes(b, -1, -2)
    if a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
        raise ValueError("batch_dot shapes %s and %s do not match" % (a.shape, b.shape))
    return np.matmul(a, b)

