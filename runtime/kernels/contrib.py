"""Kernels of the smaller contrib and math operators: finiteness checks, moments, histograms,
index arithmetic, masks and copies."""
from __future__ import annotations

import numpy as np


def all_finite(data, init_output=True):
    return np.array([float(np.isfinite(data).all())], dtype=np.float32)


def multi_all_finite(*arrays, num_arrays=1, init_output=True, num_args=None):
    return np.array([float(all(np.isfinite(a).all() for a in arrays[:num_arrays]))], dtype=np.float32)


def moments(data, axes=None, keepdims=False):
    axes = None if axes is None else tuple(axes)
    mean = np.mean(data, axis=axes, keepdims=True)
    var = np.mean(np.square(data - mean), axis=axes, keepdims=keepdims)
    if not keepdims:
        mean = np.mean(data, axis=axes)
    return np.asarray(mean, dtype=data.dtype).reshape(np.shape(var)), np.asarray(var, dtype=data.dtype)


def histogram(data, bins=None, bin_cnt=None, range=None):
    """(counts, bin edges): `bins` gives the edges, or `bin_cnt` equal bins over `range` (default:
    the data's minimum and maximum). The last bin includes its upper edge."""
    values = data.reshape(-1).astype(np.float64)
    if bins is not None:
        edges = bins.reshape(-1).astype(np.float64)
    else:
        low, high = range if range is not None else (values.min() if values.size else 0.0,
                                                     values.max() if values.size else 1.0)
        edges = np.linspace(low, high, bin_cnt + 1)
    counts, _ = np.histogram(values, bins=edges)
    return counts.astype(np.int64), edges.astype(data.dtype if bins is None else bins.dtype)


def ravel_multi_index(data, shape=()):
    """(ndim, N) coordinates -> (N,) flat indices in a C-ordered array of `shape`."""
    strides = np.cumprod((list(shape[1:]) + [1])[::-1])[::-1]
    index = data.astype(np.int64)
    return np.tensordot(strides, index, axes=1).astype(data.dtype).reshape(data.shape[1:])


def unravel_index(data, shape=()):
    index = data.astype(np.int64).reshape(-1)
    coords = []
    for dim in reversed(shape[1:]):
        coords.append(index % dim)
        index = index // dim
    coords.append(index)  # the leading coordinate is what remains, as MXNet's (its size may be -1)
    return np.stack(coords[::-1]).astype(data.dtype).reshape((len(shape),) + data.shape)


def index_array(data, axes=None):
    """Each element's index (along every axis, or the chosen ones) as the last axis, int64."""
    ndim = data.ndim
    chosen = range(ndim) if axes is None else [((a % ndim) + ndim) % ndim for a in axes]
    grids = np.indices(data.shape, dtype=np.int64) if ndim else np.zeros((0,), np.int64)
    return np.stack([grids[a] for a in chosen], axis=-1) if chosen else np.zeros(data.shape + (0,), np.int64)


def boolean_mask(data, index, axis=0):
    return np.compress(index.reshape(-1) != 0, data, axis=axis)


def index_copy(old_tensor, index_vector, new_tensor):
    out = old_tensor.copy()
    out[index_vector.astype(np.int64)] = new_tensor
    return out


def allclose(a, b, rtol=1e-5, atol=1e-8, equal_nan=True):
    close = np.allclose(a.astype(np.float64), b.astype(np.float64), rtol=rtol, atol=atol, equal_nan=equal_nan)
    return np.array(close, dtype=np.uint8)  # MXNet: a 0-d uint8


def div_sqrt_dim(data):
    return (data / np.sqrt(data.shape[-1])).astype(data.dtype, copy=False)


def rcbrt(x):
    return (1.0 / np.cbrt(x)).astype(x.dtype, copy=False)


def degrees(x):
    return np.degrees(x).astype(x.dtype, copy=False)


def radians(x):
    return np.radians(x).astype(x.dtype, copy=False)


def hard_sigmoid(x, alpha=0.2, beta=0.5):
    return np.clip(alpha * x + beta, 0.0, 1.0).astype(x.dtype, copy=False)


def choose_element_0index(lhs, rhs):
    """lhs[i, rhs[i]] for each row i."""
    return lhs[np.arange(lhs.shape[0]), rhs.astype(np.int64)]


def fill_element_0index(lhs, mhs, rhs):
    """lhs with lhs[i, rhs[i]] = mhs[i]."""
    out = lhs.copy()
    out[np.arange(lhs.shape[0]), rhs.astype(np.int64)] = mhs
    return out


def onehot_encode(indices, out):
    """Rows of `out`'s shape, one at each index."""
    result = np.zeros_like(out)
    result[np.arange(indices.shape[0]), indices.astype(np.int64)] = 1
    return result


def quadratic(data, a=0.0, b=0.0, c=0.0):
    """a * x**2 + b * x + c, elementwise, in the input's dtype."""
    return (a * data * data + b * data + c).astype(data.dtype, copy=False)
