"""Kernels of the sparse storage operators, over the dense values that back every array here."""
from __future__ import annotations

import numpy as np


def cast_storage(data: np.ndarray, stype: str = "default") -> np.ndarray:
    """The values do not change with the storage; the result's storage is set by its declaration."""
    return data.copy()


def retain(data: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """The rows whose numbers are in `indices`; every other row zero."""
    keep = np.zeros(data.shape[0], dtype=bool)
    rows = indices.astype(np.int64).reshape(-1)
    keep[rows[(rows >= 0) & (rows < data.shape[0])]] = True
    result = np.zeros_like(data)
    result[keep] = data[keep]
    return result


def square_sum(data: np.ndarray, axis=None, keepdims: bool = False, exclude: bool = False) -> np.ndarray:
    """sum(data ** 2) over the axes (MXNet's _square_sum, used by the row_sparse norm)."""
    if exclude and axis is not None:
        axes = (axis,) if isinstance(axis, int) else tuple(axis)
        axis = tuple(a for a in range(data.ndim) if a not in [x % data.ndim for x in axes])
    result = np.sum(np.square(data), axis=axis, keepdims=keepdims)
    return np.asarray(result, dtype=data.dtype).reshape(np.shape(result) or (1,))


def getnnz(data: np.ndarray, axis=None) -> np.ndarray:
    """The number of stored elements (here: non-zeros) of a matrix, in all or per row (axis 1)."""
    if axis is None:
        return np.array([np.count_nonzero(data)], dtype=np.int64)
    if axis in (1, -1):
        return np.count_nonzero(data, axis=1).astype(np.int64)
    raise ValueError("getnnz with axis = %d is not supported yet" % axis)
