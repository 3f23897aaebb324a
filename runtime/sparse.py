"""`mxnet.ndarray.sparse`: row_sparse and csr arrays, as MXNet 1.9.1 shows them.

Each sparse array keeps its values densely (`_data`, the full shape) so that every operator works
on it unchanged; what MXNet exposes of the sparse storage is derived from that and from `_kept`,
the places the array stores explicitly:
  - row_sparse: `_kept` flags the rows given at creation (a row of zeros given in `(data,
    indices)` stays stored, as in MXNet); the stored rows are those flagged or holding a non-zero;
  - csr: `_kept` flags the elements given at creation (explicit zeros stay stored).
`.data`, `.indices` and `.indptr` are computed from these when asked for. The definition an array
was created from (unsorted or invalid indices included) is kept for `check_format`.

Which storage an operator's result has is declared with the operator (`storage` in
runtime/ops/sparse.py, MXNet's storage inference) and applied by `restore_storage`.
"""
from __future__ import annotations

import warnings

import numpy as np

from runtime.base import MXNetError
from runtime.context import Context, current_context
# MXNet's sparse module also offers _STORAGE_TYPE_STR_TO_ID
from runtime.ndarray import NDArray, _STORAGE_TYPE_STR_TO_ID, _call, py_slice  # noqa: F401

try:
    import scipy.sparse as spsp
except ImportError:  # pragma: no cover - scipy is optional, as in MXNet
    spsp = None

_STORAGE_AUX_TYPES = {"row_sparse": [np.int64], "csr": [np.int64, np.int64]}


class NotSupportedForSparseNDArray(MXNetError):
    def __init__(self, function, alias, *args):
        super().__init__("Function %s (namely operator \"%s\") with arguments (%s) is not supported for "
                         "SparseNDArray and only available in NDArray."
                         % (function.__name__, alias, ", ".join(str(a) for a in args)))


class BaseSparseNDArray(NDArray):
    __slots__ = ("_kept", "_definition")

    def __init__(self, data: np.ndarray, ctx: Context = None, kept: np.ndarray = None, definition=None):
        super().__init__(data, ctx)
        self._kept = kept if kept is not None else np.zeros(self._kept_shape(data.shape), dtype=bool)
        self._definition = definition

    def __repr__(self) -> str:
        return "\n<%s %s @%s>" % (type(self).__name__, "x".join(str(d) for d in self.shape), self._ctx)

    @property
    def size(self):
        raise NotImplementedError()

    @property
    def _num_aux(self) -> int:
        return len(_STORAGE_AUX_TYPES[self.stype])

    @property
    def _aux_types(self):
        return list(_STORAGE_AUX_TYPES[self.stype])

    def _aux_type(self, i):
        return _STORAGE_AUX_TYPES[self.stype][i]

    def asnumpy(self) -> np.ndarray:
        return self._data.copy()

    def tostype(self, stype: str):
        if stype not in ("default", self.stype):
            raise ValueError("cast_storage from %s to %s is not supported" % (self.stype, stype))
        return cast_storage(self, stype=stype)

    def astype(self, dtype, copy=True):
        dtype = np.dtype(dtype)
        if not copy and dtype == self._data.dtype:
            return self
        return type(self)(self._data.astype(dtype), self._ctx, self._kept.copy())

    def copy(self):
        return self.copyto(self._ctx)

    def copyto(self, other):
        if isinstance(other, Context):
            return type(self)(self._data.copy(), other, self._kept.copy())
        if isinstance(other, NDArray):
            if other is self:
                warnings.warn("You are attempting to copy an array to itself", RuntimeWarning)
                return False
            if other.shape != self.shape:
                raise MXNetError("Check failed: from.shape() == to->shape() operands shape mismatch%s vs. %s"
                                 % (self.shape, other.shape))
            _assign(other, self)
            return other
        raise TypeError("copyto does not support type " + str(type(other)))

    def as_in_context(self, ctx: Context):
        return self if ctx == self._ctx else self.copyto(ctx)

    as_in_ctx = as_in_context

    def detach(self):
        return type(self)(self._data, self._ctx, self._kept)

    def reshape(self, *shape, **kwargs):
        raise NotSupportedForSparseNDArray(self.reshape, None, shape)

    def _slice(self, start, stop):
        raise NotSupportedForSparseNDArray(self._slice, None, start, stop)

    def __getstate__(self):
        return {"stype": self.stype, "data": self._data, "kept": self._kept}

    def __setstate__(self, state):
        self._data, self._kept = state["data"], state["kept"]
        self._ctx, self._grad, self._entry, self._fresh_grad = current_context(), None, None, False
        self._definition = None

    def __reduce__(self):
        return _unpickle, (self.__getstate__(),)

    def __setitem__(self, key, value):
        name = type(self).__name__
        if not isinstance(key, py_slice):
            raise TypeError("%s only supports [:] for assignment" % name) if name == "RowSparseNDArray" \
                else Exception("CSRNDArray only supports [:] for assignment")
        if key.step is not None or key.start is not None or key.stop is not None:
            raise ValueError("Assignment with slice for %s is not implemented yet." % name)
        if isinstance(value, NDArray):
            if value is not self:
                if value.shape != self.shape:
                    raise MXNetError("Check failed: from.shape() == to->shape() operands shape mismatch%s vs. %s"
                                     % (value.shape, self.shape))
                _assign(self, value)
        elif isinstance(value, (int, float, np.number)) and name == "CSRNDArray":
            raise ValueError("Assigning numeric types to CSRNDArray is not implemented yet.")
        elif isinstance(value, (int, float, np.number, np.ndarray, np.generic)):
            np.copyto(self._data, np.broadcast_to(np.asarray(value, dtype=self._data.dtype), self.shape))
            self._kept[...] = False
            self._definition = None
        else:
            raise TypeError("type %s not supported" % str(type(value)))

    # operators: MXNet's sparse arrays add, subtract and multiply elementwise when the shapes agree
    def _binary(self, other, broadcast_op, scalar_op, reverse=False):
        if broadcast_op == "broadcast_div" and not reverse and self.stype == "csr" and isinstance(other, NDArray) \
                and other.stype == "default" and other.shape == self.shape:
            raise MXNetError("Check failed: supported_op: Please use elemwise_div for division between csr and "
                             "dense of the same shape")
        if isinstance(other, NDArray) and other.shape == self.shape and broadcast_op in _ELEMWISE:
            op = _ELEMWISE[broadcast_op]
            return _call(op, other, self) if reverse else _call(op, self, other)
        result = NDArray._binary(self, other, broadcast_op, scalar_op, reverse)
        if isinstance(other, (int, float, np.number)) and result is not NotImplemented:
            from runtime.registry import REGISTRY
            return restore_storage(REGISTRY[scalar_op], {"scalar": float(other)}, [self], [result])[0]
        return result

    def _inplace(self, result):
        if result is NotImplemented:
            return result
        self._check_assignable()
        _assign(self, result)
        return self


class RowSparseNDArray(BaseSparseNDArray):
    """Rows of a tensor, most of them zero: `data` holds the stored rows, `indices` their numbers."""
    __slots__ = ()

    @staticmethod
    def _kept_shape(shape):
        return shape[:1]

    @property
    def stype(self) -> str:
        return "row_sparse"

    def _rows(self) -> np.ndarray:
        flat = self._data.reshape(self._data.shape[0], -1) if self._data.shape[0] else self._data.reshape(0, 0)
        return np.flatnonzero(self._kept | (flat != 0).any(axis=1)).astype(np.int64)

    @property
    def indices(self) -> NDArray:
        return NDArray(self._rows(), self._ctx)

    @property
    def data(self) -> NDArray:
        return NDArray(self._data[self._rows()], self._ctx)

    def __getitem__(self, key):
        if isinstance(key, int):
            raise Exception("__getitem__ with int key is not implemented for RowSparseNDArray yet")
        if isinstance(key, py_slice):
            if key.start is not None or key.stop is not None or key.step is not None:
                raise Exception("RowSparseNDArray only supports [:] for __getitem__")
            return self
        if isinstance(key, tuple):
            raise ValueError("Multi-dimension indexing is not supported")
        raise ValueError("Undefined behaviour for {}".format(key))

    def retain(self, *args, **kwargs):
        return retain(self, *args, **kwargs)

    def check_format(self, full_check=True):
        data, indices = self._definition if self._definition is not None else (self.data.asnumpy(), self._rows())
        if data.shape[0] != indices.shape[0]:
            raise MXNetError("Check failed: idx.shape()[0] == data.shape()[0] row_sparse: indices and data "
                             "have different lengths")
        if full_check and indices.size:
            if (np.diff(indices) <= 0).any():
                raise MXNetError("Check failed: RowSparse indices are not in strictly increasing order")
            if indices.min() < 0 or indices.max() >= self.shape[0]:
                raise MXNetError("Check failed: RowSparse indices are out of range")


class CSRNDArray(BaseSparseNDArray):
    """A matrix in compressed sparse row form: `data`, column `indices` and row pointers `indptr`."""
    __slots__ = ()

    @staticmethod
    def _kept_shape(shape):
        return shape

    @property
    def stype(self) -> str:
        return "csr"

    def _positions(self):
        return np.nonzero(self._kept | (self._data != 0))

    @property
    def indices(self) -> NDArray:
        return NDArray(self._positions()[1].astype(np.int64), self._ctx)

    @property
    def indptr(self) -> NDArray:
        rows = self._positions()[0]
        counts = np.bincount(rows, minlength=self.shape[0])
        return NDArray(np.concatenate([[0], np.cumsum(counts)]).astype(np.int64), self._ctx)

    @property
    def data(self) -> NDArray:
        return NDArray(self._data[self._positions()], self._ctx)

    def asscipy(self):
        if spsp is None:
            raise ImportError("scipy could not be imported. Please make sure that the scipy is installed.")
        return spsp.csr_matrix((self.data.asnumpy(), self.indices.asnumpy(), self.indptr.asnumpy()),
                               shape=self.shape, dtype=self._data.dtype)

    def __getitem__(self, key):
        if isinstance(key, (int, np.integer)):
            begin = self.shape[0] - 1 if key == -1 else int(key)
            return _call("slice", self, begin=(begin,), end=(begin + 1,))
        if isinstance(key, py_slice):
            if key.step is not None:
                raise ValueError("CSRNDArray only supports continuous slicing on axis 0")
            if key.start is not None or key.stop is not None:
                begin = key.start if key.start else 0
                end = key.stop if key.stop else self.shape[0]
                return _call("slice", self, begin=(begin,), end=(end,))
            return self
        if isinstance(key, tuple):
            raise ValueError("Multi-dimension indexing is not supported")
        raise ValueError("Undefined behaviour for {}".format(key))

    def check_format(self, full_check=True):
        if self._definition is None:
            return
        data, indices, indptr = self._definition
        rows, columns = self.shape
        if indptr.shape[0] != rows + 1 or indices.shape[0] != data.shape[0]:
            raise MXNetError("Check failed: csr: indptr and indices do not match the shape and data")
        if full_check:
            if indptr[0] != 0 or indptr[-1] != indices.shape[0] or (np.diff(indptr) < 0).any():
                raise MXNetError("Check failed: csr: indptr is not non-decreasing from 0 to nnz")
            if indices.size and (indices.min() < 0 or indices.max() >= columns):
                raise MXNetError("Check failed: csr: column indices are out of range")
            for row in range(rows):
                if (np.diff(indices[indptr[row]:indptr[row + 1]]) <= 0).any():
                    raise MXNetError("Check failed: csr: column indices of a row are not strictly increasing")


# operators whose sparse results store their non-zeros only, whatever their inputs store
_NON_ZEROS_ONLY = ("zeros_like", "_contrib_quadratic")
_ELEMWISE = {"broadcast_add": "elemwise_add", "broadcast_sub": "elemwise_sub", "broadcast_mul": "elemwise_mul"}
_CLASSES = {"row_sparse": RowSparseNDArray, "csr": CSRNDArray}


def _unpickle(state):
    array = _CLASSES[state["stype"]].__new__(_CLASSES[state["stype"]])
    array.__setstate__(state)
    return array


def _assign(target: NDArray, source: NDArray) -> None:
    """Write `source` into `target` in place; a sparse target takes the source's stored places."""
    np.copyto(target._data, np.broadcast_to(source._data, target.shape), casting="unsafe")
    if isinstance(target, BaseSparseNDArray):
        kept = source._kept if type(source) is type(target) else None
        target._kept = kept.copy() if kept is not None else np.zeros_like(target._kept)
        target._definition = None


def from_dense(data: np.ndarray, stype: str, ctx=None, like=()) -> NDArray:
    """An array of storage `stype` over `data`; it keeps the places stored in `like` (arrays of the
    same storage and shape) besides its non-zeros."""
    if stype == "default":
        return NDArray(data, ctx)
    cls = _CLASSES[stype]
    kept = np.zeros(cls._kept_shape(data.shape), dtype=bool)
    for other in like:
        if type(other) is cls and other._kept.shape == kept.shape:
            kept |= other._kept
            kept |= _stored(other)
    return cls(data, ctx, kept)


def _stored(array: BaseSparseNDArray) -> np.ndarray:
    if isinstance(array, RowSparseNDArray):
        return (array._data.reshape(array.shape[0], -1) != 0).any(axis=1) if array.shape[0] else array._kept
    return array._data != 0


def restore_storage(op, attrs, inputs, outputs):
    """The operator's results in the storage MXNet infers for them from the inputs' storage."""
    rule = op.storage
    if rule is None:
        return outputs
    stypes = rule([a.stype for a in inputs], attrs)
    if isinstance(stypes, str):
        stypes = [stypes] * len(outputs)
    # row_sparse results keep the rows their row_sparse inputs store (MXNet's rsp + rsp stores the
    # union of the rows, even where they cancel); a csr result keeps its input's elements through
    # a one-input operator (relu), and stores only its non-zeros after a two-input one (csr - csr)
    # and after the operators in _NON_ZEROS_ONLY
    like = inputs if op.name not in _NON_ZEROS_ONLY else ()
    results = [out if stype == out.stype else
               from_dense(out._data, stype, out._ctx, like if stype == "row_sparse" or len(inputs) == 1 else ())
               for out, stype in zip(outputs, stypes)]
    if op.name == "_sparse_retain" and isinstance(inputs[0], RowSparseNDArray):
        # MXNet stores every row asked for, whether the input stored it or not
        asked = np.zeros(inputs[0].shape[0], dtype=bool)
        asked[inputs[1]._data.astype(np.int64)] = True
        results[0]._kept = asked
    return results


# ---- creation
def _default_dtype(source, dtype):
    if dtype is not None:
        return np.dtype(dtype)
    if isinstance(source, (NDArray, np.ndarray)) or (spsp is not None and spsp.issparse(source)):
        return np.dtype(source.dtype)
    return np.dtype(np.float32)


def _numpy(source, dtype):
    if isinstance(source, NDArray):
        return source.asnumpy().astype(dtype, copy=False)
    try:
        return np.array(source, dtype=dtype)
    except (TypeError, ValueError):
        raise TypeError("values must be array like object") from None


def _check_shape(given, expected):
    if given and expected and tuple(given) != tuple(expected):
        raise ValueError("Shape mismatch detected. " + str(tuple(given)) + " v.s. " + str(tuple(expected)))


def _dense_source(source, dtype, ctx, shape):
    dtype = _default_dtype(source, dtype)
    dense = _numpy(source, dtype)
    _check_shape(dense.shape, shape)
    return NDArray(dense, ctx or current_context())


def csr_matrix(arg1, shape=None, ctx=None, dtype=None):
    """A CSRNDArray from (data, indices, indptr), (data, (row, col)), a shape, a dense array,
    a CSRNDArray or a scipy.sparse csr matrix."""
    if isinstance(arg1, tuple):
        if len(arg1) == 2:
            if isinstance(arg1[1], tuple) and len(arg1[1]) == 2:
                data, (row, col) = arg1
                coo = spsp.coo_matrix((_plain(data), (_plain(row), _plain(col))), shape=shape)
                _check_shape(coo.shape, shape)
                return array(coo.tocsr(), ctx=ctx, dtype=dtype)
            _check_shape(arg1, shape)
            return zeros("csr", arg1, ctx=ctx, dtype=dtype)
        if len(arg1) == 3:
            return _csr_from_definition(*arg1, shape=shape, ctx=ctx, dtype=dtype)
        raise ValueError("Unexpected length of input tuple: " + str(len(arg1)))
    if isinstance(arg1, CSRNDArray) or (spsp is not None and spsp.issparse(arg1) and arg1.format == "csr"):
        _check_shape(arg1.shape, shape)
        return array(arg1, ctx=ctx, dtype=dtype)
    if isinstance(arg1, RowSparseNDArray):
        raise ValueError("Unexpected input type: RowSparseNDArray")
    return _dense_source(arg1, dtype, ctx, shape).tostype("csr")


def _plain(value):
    return value.asnumpy() if isinstance(value, NDArray) else value


def _csr_from_definition(data, indices, indptr, shape=None, ctx=None, dtype=None):
    dtype = _default_dtype(data, dtype)
    data, indices, indptr = _numpy(data, dtype), _numpy(indices, np.int64), _numpy(indptr, np.int64)
    if shape is None:
        if indices.shape[0] == 0:
            raise ValueError("invalid shape")
        shape = (len(indptr) - 1, int(indices.max()) + 1)
    if data.ndim != 1 or indptr.ndim != 1 or indices.ndim != 1 or indptr.shape[0] == 0 or len(shape) != 2:
        raise ValueError("invalid shape")
    dense = np.zeros(shape, dtype=dtype)
    kept = np.zeros(shape, dtype=bool)
    rows = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr)) if (np.diff(indptr) >= 0).all() else None
    if rows is not None and rows.shape[0] == indices.shape[0] == data.shape[0] and indptr.shape[0] == shape[0] + 1 \
            and (indices.size == 0 or (indices.min() >= 0 and indices.max() < shape[1])):
        dense[rows, indices] = data
        kept[rows, indices] = True
    return CSRNDArray(dense, ctx or current_context(), kept, (data, indices, indptr))


def row_sparse_array(arg1, shape=None, ctx=None, dtype=None):
    """A RowSparseNDArray from (data, indices), a shape, a dense array or a RowSparseNDArray."""
    if isinstance(arg1, tuple):
        if len(arg1) < 2:
            raise ValueError("Unexpected length of input tuple: " + str(len(arg1)))
        if len(arg1) > 2 or (isinstance(arg1[0], (int, np.integer)) and isinstance(arg1[1], (int, np.integer))):
            _check_shape(arg1, shape)
            return zeros("row_sparse", arg1, ctx=ctx, dtype=dtype)
        return _row_sparse_from_definition(arg1[0], arg1[1], shape=shape, ctx=ctx, dtype=dtype)
    if isinstance(arg1, RowSparseNDArray):
        _check_shape(arg1.shape, shape)
        return array(arg1, ctx=ctx, dtype=dtype)
    if isinstance(arg1, CSRNDArray):
        raise ValueError("Unexpected input type: CSRNDArray")
    return _dense_source(arg1, dtype, ctx, shape).tostype("row_sparse")


def _row_sparse_from_definition(data, indices, shape=None, ctx=None, dtype=None):
    dtype = _default_dtype(data, dtype)
    data, indices = _numpy(data, dtype), _numpy(indices, np.int64)
    if shape is None:
        if indices.shape[0] == 0:
            raise ValueError("invalid shape")
        shape = (int(indices[-1]) + 1,) + data.shape[1:]
    shape = tuple(shape)
    if data.ndim != len(shape) or indices.ndim != 1 or np.prod(shape[1:]) == 0:
        raise ValueError("invalid shape")
    dense = np.zeros(shape, dtype=dtype)
    kept = np.zeros(shape[:1], dtype=bool)
    if indices.shape[0] == data.shape[0] and (indices.size == 0 or (indices.min() >= 0 and indices.max() < shape[0])):
        dense[indices] = data
        kept[indices] = True
    return RowSparseNDArray(dense, ctx or current_context(), kept, (data, indices))


def zeros(stype, shape, ctx=None, dtype=None, **kwargs):
    """An all-zero array of the storage type (nothing stored)."""
    if stype == "default":
        from runtime.ndarray import zeros as dense_zeros
        return dense_zeros(shape, ctx=ctx, dtype=dtype, **kwargs)
    if stype not in _CLASSES:
        raise ValueError("unknown storage type: " + str(stype))
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    result = _CLASSES[stype](np.zeros(shape, dtype=dtype or np.float32), ctx or current_context())
    out = kwargs.get("out")
    if out is not None:
        out[:] = result
        return out
    return result


def empty(stype, shape, ctx=None, dtype=None):
    return zeros(stype, shape, ctx=ctx, dtype=dtype)


def array(source_array, ctx=None, dtype=None):
    """A sparse array copied from a sparse NDArray or a scipy.sparse csr matrix."""
    ctx = ctx or current_context()
    if isinstance(source_array, BaseSparseNDArray):
        dtype = _default_dtype(source_array, dtype)
        result = type(source_array)(source_array._data.astype(dtype), ctx, source_array._kept.copy())
        return result
    if spsp is not None and spsp.issparse(source_array):
        if source_array.format != "csr":
            raise ValueError("Unexpected input type: only scipy.sparse.csr_matrix is supported")
        dtype = _default_dtype(source_array, dtype)
        source_array = source_array.copy()  # MXNet stores a canonical copy: duplicates summed, columns sorted
        source_array.sum_duplicates()
        source_array.sort_indices()
        return _csr_from_definition(source_array.data, source_array.indices, source_array.indptr,
                                    shape=source_array.shape, ctx=ctx, dtype=dtype)
    raise ValueError("Unexpected source_array type: ", type(source_array))


def cast_storage(data, stype, out=None):
    """`data` in storage `stype` (MXNet's cast_storage): stored places are the non-zero rows or elements."""
    result = _call("cast_storage", data, stype=stype)
    if out is not None:
        out[:] = result
        return out
    return result


def retain(data, indices=None, **kwargs):
    """The rows of a row_sparse array whose numbers are in `indices`; the others become zero."""
    return _call("_sparse_retain", data, indices, **kwargs)


def _op_functions():
    """The operators MXNet 1.9.1 offers in `mx.nd.sparse`, under the names it uses there."""
    from runtime.ndarray_namespace import function_for
    from runtime.ops.sparse import namespace_functions
    return namespace_functions(function_for)


def _binary(elemwise: str, broadcast: str, scalar: str, rscalar: str = None):
    """`sparse.add(a, b)`: elementwise when the shapes agree, broadcasting otherwise, numbers as scalars."""
    def function(lhs, rhs):
        if isinstance(lhs, NDArray) and isinstance(rhs, NDArray):
            return _call(elemwise if elemwise and lhs.shape == rhs.shape else broadcast, lhs, rhs)
        if isinstance(lhs, NDArray):
            return lhs._binary(rhs, broadcast, scalar)
        if isinstance(rhs, NDArray):
            return rhs._binary(lhs, broadcast, rscalar or scalar, reverse=True)
        return None
    return function


add = _binary("elemwise_add", "broadcast_add", "_plus_scalar")
subtract = _binary("elemwise_sub", "broadcast_sub", "_minus_scalar", "_rminus_scalar")
multiply = _binary("elemwise_mul", "broadcast_mul", "_mul_scalar")
divide = _binary(None, "broadcast_div", "_div_scalar", "_rdiv_scalar")


def __getattr__(name):
    functions = _op_functions()
    if name in functions:
        return functions[name]
    if name == "gs_retain":
        return retain
    raise AttributeError("module 'mxnet.ndarray.sparse' has no attribute '%s'" % name)
