"""`mxnet.test_utils`: the helpers that MXNet's tests and user test suites call, for this runtime.

Comparisons follow MXNet's rule |a - b| <= atol + rtol * |b| with its default tolerances per dtype;
the gradient checks use MXNet's Executor API (bind with args_grad and grad_req, forward, backward).
"""
# ruff: noqa: F401  (names that `from mxnet.test_utils import *` gives MXNet's tests)
from __future__ import annotations

import bz2
import contextlib
import errno
import functools
import gzip
import json
import logging
import numbers
import os
import platform
import random
import struct
import sys
import time
import traceback
import zipfile
from collections import OrderedDict
from contextlib import contextmanager

import numpy as np
import numpy.random as rnd
import numpy.testing as npt

try:  # MXNet's test_utils imports it as `ss`, which its tests use through the star import
    import scipy.stats as ss
except ImportError:  # pragma: no cover - SciPy comes with the runtime's extra
    ss = None

from runtime.base import MXNetError
from runtime.context import Context, cpu, current_context
from runtime.features import Features
from runtime.ndarray import NDArray, _STORAGE_TYPE_STR_TO_ID, array
from runtime.symbol import Symbol
from runtime.util import getenv, setenv, use_np

_default = {"context": None}


# ---- contexts and tolerances
def default_context() -> Context:
    return _default["context"] or current_context()


def set_default_context(ctx: Context) -> None:
    _default["context"] = ctx


def default_dtype():
    return np.float32


_INTEGERS = (np.bool_, np.int8, np.uint8, np.int32, np.uint32, np.int64, np.uint64)


def _with_exact_integers(tolerances):
    tolerances.update({np.dtype(t): 0 for t in _INTEGERS})
    return tolerances


def default_rtols():
    return _with_exact_integers({np.dtype(np.float16): 1e-2, np.dtype(np.float32): 1e-4, np.dtype(np.float64): 1e-5})


def default_atols():
    return _with_exact_integers({np.dtype(np.float16): 1e-1, np.dtype(np.float32): 1e-3, np.dtype(np.float64): 1e-20})


def default_numeric_eps():
    return {np.dtype(np.float16): 1.0 / 2 ** 6, np.dtype(np.float32): 1.0 / 2 ** 9,
            np.dtype(np.float64): 1.0 / 2 ** 14}


def effective_dtype(dat):
    """The dtype whose precision the computation has: on this CPU runtime, the array's own."""
    return np.dtype(dat.dtype)


def get_tolerance(dat, tol, default_tol):
    if isinstance(tol, numbers.Number):
        return tol
    dtype = effective_dtype(dat)
    return (tol or {}).get(dtype, default_tol.get(dtype, 0))


def get_tols(x, y, rtol, atol):
    x = np.array(x) if isinstance(x, numbers.Number) else x
    y = np.array(y) if isinstance(y, numbers.Number) else y
    return (max(get_tolerance(x, rtol, default_rtols()), get_tolerance(y, rtol, default_rtols())),
            max(get_tolerance(x, atol, default_atols()), get_tolerance(y, atol, default_atols())))


def get_atol(atol=None, dtype=np.dtype(np.float64)):
    return default_atols()[np.dtype(dtype)] if atol is None else atol


def get_rtol(rtol=None, dtype=np.dtype(np.float64)):
    return default_rtols()[np.dtype(dtype)] if rtol is None else rtol


def get_etol(etol=None):
    return 0 if etol is None else etol


# ---- random data
def random_arrays(*shapes):
    """Standard normal float32 arrays of the shapes (a 0-d shape gives a 0-d array); one shape, one array."""
    arrays = [np.array(np.random.randn(), dtype=default_dtype()) if len(s) == 0
              else np.random.randn(*s).astype(default_dtype()) for s in shapes]
    return arrays[0] if len(arrays) == 1 else arrays


def random_uniform_arrays(*shapes, low=0.0, high=1.0, dtype=default_dtype()):
    arrays = [np.random.uniform(low, high, size=s).astype(dtype) for s in shapes]
    return arrays[0] if len(arrays) == 1 else arrays


def random_sample(population, k):
    """k distinct elements of a list, in random order."""
    shuffled = list(population)
    np.random.shuffle(shuffled)
    return shuffled[:k]


def rand_shape_2d(dim0=10, dim1=10, allow_zero_size=False):
    low = 0 if allow_zero_size else 1
    return rnd.randint(low, dim0 + 1), rnd.randint(low, dim1 + 1)


def rand_shape_3d(dim0=10, dim1=10, dim2=10, allow_zero_size=False):
    low = 0 if allow_zero_size else 1
    return rnd.randint(low, dim0 + 1), rnd.randint(low, dim1 + 1), rnd.randint(low, dim2 + 1)


def rand_shape_nd(num_dim, dim=10, allow_zero_size=False):
    low = 0 if allow_zero_size else 1
    return tuple(int(d) for d in rnd.randint(low, dim + 1, size=num_dim))


def rand_coord_2d(x_low, x_high, y_low, y_high):
    return random.randint(x_low, x_high), random.randint(y_low, y_high)


def rand_ndarray(shape, stype="default", density=None, dtype=None, modifier_func=None,
                 shuffle_csr_indices=False, distribution=None, ctx=None):
    """A random NDArray: standard normal values, or a sparse one of the given density."""
    if stype != "default":
        return rand_sparse_ndarray(shape, stype, density=density, dtype=dtype, modifier_func=modifier_func,
                                   shuffle_csr_indices=shuffle_csr_indices, distribution=distribution, ctx=ctx)[0]
    return array(random_arrays(shape), dtype=dtype, ctx=ctx)


def rand_sparse_ndarray(shape, stype, density=None, dtype=None, distribution=None, data_init=None,
                        rsp_indices=None, modifier_func=None, shuffle_csr_indices=False, ctx=None):
    """(a random sparse array, its definition): row_sparse keeps each row with probability
    `density` (or the rows `rsp_indices`) and returns (values, indices); csr keeps each element
    with probability `density` ("uniform") or fills rows with doubling counts ("powerlaw") and
    returns (indptr, indices, data)."""
    from runtime import sparse
    ctx = ctx or default_context()
    density = rnd.rand() if density is None else density
    dtype = default_dtype() if dtype is None else dtype
    distribution = distribution or "uniform"
    if stype == "row_sparse":
        assert distribution == "uniform", "Distribution %s not supported for row_sparse" % distribution
        indices = np.asarray(rsp_indices) if rsp_indices is not None else np.flatnonzero(rnd.rand(shape[0]) < density)
        if indices.shape[0] == 0:
            return sparse.zeros("row_sparse", shape, ctx=ctx, dtype=dtype), (np.array([], dtype=dtype), np.array([]))
        values = rnd.rand(indices.shape[0], *shape[1:]).astype(dtype)
        if data_init is not None:
            values.fill(data_init)
        if modifier_func is not None:
            values = assign_each(values, modifier_func)
        result = sparse.row_sparse_array((values, indices), shape=shape, dtype=dtype, ctx=ctx)
        return result, (values, indices)
    assert stype == "csr", "unknown storage type"
    assert len(shape) == 2
    rows, columns = shape
    if not 0 <= density <= 1:
        raise ValueError("density has to be between 0 and 1")
    if distribution == "uniform":
        mask = rnd.rand(rows, columns) < density
    elif distribution == "powerlaw":
        mask = _powerlaw_mask(rows, columns, density)
    else:
        raise AssertionError("Distribution not supported: %s" % distribution)
    values = rnd.rand(int(mask.sum())).astype(dtype)
    if data_init is not None:
        values.fill(data_init)
    if modifier_func is not None:
        values = assign_each(values, modifier_func)
    row_index, column_index = np.nonzero(mask)
    indptr = np.concatenate([[0], np.cumsum(np.bincount(row_index, minlength=rows))])
    if shuffle_csr_indices:
        for row in range(rows):
            rnd.shuffle(column_index[indptr[row]:indptr[row + 1]])
    result = sparse.csr_matrix((values, column_index, indptr), shape=shape, dtype=dtype, ctx=ctx)
    return result, (result.indptr, result.indices, result.data)


def _powerlaw_mask(rows, columns, density):
    """Row i holds twice the elements of row i-1 (from one), until density * size are placed."""
    total = int(rows * columns * density)
    if total < 2 * rows:
        raise ValueError("not supported for this density: %s for this shape (%s, %s) Please keep : "
                         "num_rows * num_cols * density >= 2 * num_rows" % (density, rows, columns))
    mask = np.zeros((rows, columns), dtype=bool)
    count, left = 1, total
    for row in range(rows):
        take = min(count, columns, left)
        mask[row, :take] = True
        left -= take
        count *= 2
    return mask


def shuffle_csr_column_indices(csr):
    """Shuffle the column indices within each row of a scipy csr matrix."""
    for row in range(len(csr.indptr) - 1):
        part = np.array(csr.indices[csr.indptr[row]:csr.indptr[row + 1]])
        rnd.shuffle(part)
        csr.indices[csr.indptr[row]:csr.indptr[row + 1]] = part


def create_sparse_array(shape, stype, data_init=None, rsp_indices=None, dtype=None, modifier_func=None,
                        density=.5, shuffle_csr_indices=False):
    """A random sparse array; row_sparse indices given are sorted first."""
    if stype not in ("row_sparse", "csr"):
        raise AssertionError("Unknown storage type: " + stype)
    if rsp_indices is not None and stype == "row_sparse":
        rsp_indices = np.sort(np.asarray(rsp_indices))
    return rand_sparse_ndarray(shape, stype, density=density, data_init=data_init,
                               rsp_indices=rsp_indices if stype == "row_sparse" else None, dtype=dtype,
                               modifier_func=modifier_func, shuffle_csr_indices=shuffle_csr_indices)[0]


def create_sparse_array_zd(shape, stype, density, data_init=None, rsp_indices=None, dtype=None,
                           modifier_func=None, shuffle_csr_indices=False):
    """A random sparse array whose row_sparse rows are only those in `rsp_indices`."""
    if stype == "row_sparse":
        density = 0.0
    return create_sparse_array(shape, stype, data_init=data_init, rsp_indices=rsp_indices, dtype=dtype,
                               modifier_func=modifier_func, density=density, shuffle_csr_indices=shuffle_csr_indices)


def create_2d_tensor(rows, columns, dtype=np.int64):
    """rows x columns, each row holding its own index."""
    return array(np.broadcast_to(np.arange(rows).reshape(rows, 1), (rows, columns)), dtype=dtype)


def create_vector(size, dtype=np.int64):
    return array(np.arange(size), dtype=dtype)


def get_identity_mat(size):
    return array(np.identity(size))


def get_identity_mat_batch(size):
    return array(np.stack([np.identity(size)] * 2))


def assign_each(the_input, function):
    """`function` applied to each element, into a float64 array of the input's shape (as MXNet's:
    a function returning the integer 0 still gives floats); None leaves it as is."""
    if function is None:
        return np.array(the_input)
    return np.vectorize(function, otypes=[np.float64])(the_input)


def assign_each2(input1, input2, function):
    if function is None:
        return np.array(input1)
    return np.vectorize(function, otypes=[np.float64])(input1, input2)


# ---- comparisons
def _numpy(value):
    if isinstance(value, NDArray):
        return value.asnumpy()
    return np.asarray(value) if not isinstance(value, np.ndarray) else value


def np_reduce(dat, axis, keepdims, numpy_reduce_func):
    """`numpy_reduce_func(dat, axis=one axis)` over each of the axes (None: all), last axis first."""
    if axis is None:
        axes = list(range(dat.ndim))
    elif isinstance(axis, int):
        axes = [axis]
    else:
        axes = list(axis)
    axes = sorted((a + dat.ndim if a < 0 else a for a in axes), reverse=True)
    result = dat
    for a in axes:
        result = numpy_reduce_func(result, axis=a)
    if keepdims:
        kept = list(dat.shape)
        for a in axes:
            kept[a] = 1
        result = np.reshape(result, kept)
    return result


def same(a, b) -> bool:
    return np.array_equal(_numpy(a), _numpy(b))


def checkShapes(a, b):
    if a.shape != b.shape:
        raise AssertionError("Shapes differ: %s vs %s" % (a.shape, b.shape))


def _violation(a, b, rtol, atol):
    """How far each element is past the tolerance (<= 1 is within it)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        return np.abs(a64 - b64) / (atol + rtol * np.abs(b64))


def almost_equal(a, b, rtol=None, atol=None, equal_nan=False, use_broadcast=True) -> bool:
    a, b = _numpy(a), _numpy(b)
    rtol, atol = get_tols(a, b, rtol, atol)
    if not use_broadcast and a.shape != b.shape:
        return False
    return bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


def locationError(a, b, index, names, maxError=False):
    """The words for one mismatching element."""
    return "%sLocation of error: %s, %s=%.8f, %s=%.8f" % (
        "Maximum " if maxError else "", index, names[0], a[index], names[1], b[index])


def assert_almost_equal(a, b, rtol=None, atol=None, names=("a", "b"), equal_nan=False, use_broadcast=True,
                        mismatches=(10, 10)):
    """AssertionError unless every element has |a - b| <= atol + rtol * |b|; the message shows the
    worst element and the first mismatches."""
    a, b = _numpy(a), _numpy(b)
    rtol, atol = get_tols(a, b, rtol, atol)
    if not use_broadcast and a.shape != b.shape:
        raise AssertionError("Shapes differ: %s=%s, %s=%s" % (names[0], a.shape, names[1], b.shape))
    try:
        a, b = np.broadcast_arrays(a, b)
    except ValueError:
        raise AssertionError("Shapes cannot be broadcast together: %s=%s, %s=%s"
                             % (names[0], a.shape, names[1], b.shape)) from None
    if np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan):
        return
    if a.dtype.kind in "bO" or b.dtype.kind in "bO":
        raise AssertionError("Items differ: %s=%s, %s=%s" % (names[0], a, names[1], b))
    violation = _violation(a, b, rtol, atol)
    if equal_nan:
        violation[np.isnan(a) & np.isnan(b)] = 0
    violation = np.where(np.isnan(violation), np.inf, violation)
    index = np.unravel_index(np.argmax(violation), violation.shape) if violation.ndim else ()
    bad = np.argwhere(violation > 1)[:mismatches[0]]
    lines = ["Items are not equal:",
             "Error %f exceeds tolerance rtol=%e, atol=%e (mismatch %f%%)." % (
                 violation[index], rtol, atol, 100.0 * (violation > 1).sum() / max(violation.size, 1)),
             locationError(a, b, index, names, maxError=True)]
    lines += ["  %s: %s=%r, %s=%r" % (tuple(i), names[0], a[tuple(i)], names[1], b[tuple(i)]) for i in bad]
    raise AssertionError("\n".join(lines))


def assert_allclose(a, b, rtol=1e-07, atol=0, equal_nan=True):
    assert_almost_equal(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)


def assert_almost_equal_with_err(a, b, rtol=None, atol=None, etol=None, names=("a", "b"), equal_nan=False,
                                 mismatches=(10, 10)):
    """As assert_almost_equal, but a fraction `etol` of the elements may be out of tolerance."""
    etol = get_etol(etol)
    if etol <= 0:
        return assert_almost_equal(a, b, rtol, atol, names, equal_nan, mismatches=mismatches)
    a, b = _numpy(a), _numpy(b)
    rtol, atol = get_tols(a, b, rtol, atol)
    close = np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    fraction = 1.0 - close.sum() / max(close.size, 1)
    if fraction > etol:
        raise AssertionError("%.4f of the elements of %s and %s differ beyond tolerance rtol=%e, atol=%e; "
                             "at most %.4f may" % (fraction, names[0], names[1], rtol, atol, etol))


def assert_almost_equal_ignore_nan(a, b, rtol=None, atol=None, names=("a", "b")):
    """Compare where neither side is NaN."""
    a, b = np.copy(_numpy(a)), np.copy(_numpy(b))
    nan = np.isnan(a) | np.isnan(b)
    a[nan] = 0
    b[nan] = 0
    assert_almost_equal(a, b, rtol, atol, names)


def assert_exception(f, exception_type, *args, **kwargs):
    """f(*args, **kwargs) must raise exception_type."""
    try:
        f(*args, **kwargs)
    except exception_type:
        return
    raise AssertionError("%s did not raise %s" % (getattr(f, "__name__", f), exception_type.__name__))


def compare_ndarray_tuple(t1, t2, rtol=None, atol=None):
    if t1 is None or t2 is None:
        return
    if isinstance(t1, tuple):
        for s1, s2 in zip(t1, t2):
            compare_ndarray_tuple(s1, s2, rtol, atol)
    else:
        assert_almost_equal(t1, t2, rtol=rtol, atol=atol)


def same_array(array1: NDArray, array2: NDArray) -> bool:
    """Whether the two arrays are views of one buffer."""
    return array1.shape == array2.shape and np.shares_memory(array1._data, array2._data)


def collapse_sum_like(a, shape):
    """Sum `a` over the axes along which `shape` was broadcast to a's shape."""
    a = np.asarray(a)
    lead = a.ndim - len(shape)
    reduced = a.sum(axis=tuple(range(lead))) if lead else a
    axes = tuple(i for i, d in enumerate(shape) if d == 1 and reduced.shape[i] != 1)
    return reduced.sum(axis=axes, keepdims=True) if axes else reduced


def same_symbol_structure(sym1: Symbol, sym2: Symbol) -> bool:
    """Same operators joined the same way (names aside)."""
    import json
    nodes1, nodes2 = json.loads(sym1.tojson())["nodes"], json.loads(sym2.tojson())["nodes"]
    if len(nodes1) != len(nodes2):
        return False
    return all(n1["op"] == n2["op"] and [i[:2] for i in n1["inputs"]] == [i[:2] for i in n2["inputs"]]
               for n1, n2 in zip(nodes1, nodes2))


# ---- running symbols
def _as_location(sym: Symbol, location, ctx, dtype, names=None):
    """{argument name: NDArray} from a list (in the symbol's argument order) or a dict of arrays."""
    names = sym.list_arguments() if names is None else names
    if isinstance(location, dict):
        unknown = set(location) - set(names)
        if unknown:
            raise ValueError("Symbol arguments and keys of the given location do not match. "
                             "symbol args:%s, location.keys():%s" % (str(set(names)), str(set(location))))
    else:
        location = dict(zip(names, location))
    return {k: array(v, ctx=ctx, dtype=v.dtype if dtype == "asnumpy" else dtype) if isinstance(v, np.ndarray)
            else v for k, v in location.items()}


def _as_aux(sym: Symbol, aux_states, ctx, dtype):
    if aux_states is None:
        return None
    return _as_location(sym, aux_states, ctx, dtype, sym.list_auxiliary_states())


def simple_forward(sym, ctx=None, is_train=False, **inputs):
    ctx = ctx or default_context()
    executor = sym.bind(ctx, args={k: array(v, ctx=ctx) for k, v in inputs.items()})
    executor.forward(is_train=is_train)
    outputs = [x.asnumpy() for x in executor.outputs]
    return outputs[0] if len(outputs) == 1 else outputs


def _outputs_by_name(sym: Symbol, expected):
    if isinstance(expected, dict):
        return [expected[name] for name in sym.list_outputs()]
    return list(expected)


def check_symbolic_forward(sym, location, expected, rtol=None, atol=None, aux_states=None, ctx=None,
                           equal_nan=False, dtype=default_dtype()):
    """Bind `sym` to `location`, run forward (inference) and compare each output with `expected`."""
    ctx = ctx or default_context()
    location = _as_location(sym, location, ctx, dtype)
    aux_states = _as_aux(sym, aux_states, ctx, dtype)
    expected = _outputs_by_name(sym, expected)
    executor = sym.bind(ctx=ctx, args=location, aux_states=aux_states)
    executor.forward(is_train=False)
    for name, want, got in zip(sym.list_outputs(), expected, executor.outputs):
        assert_almost_equal(want, got.asnumpy(), rtol, atol, ("EXPECTED_%s" % name, "FORWARD_%s" % name),
                            equal_nan=equal_nan)
    return executor.outputs


def _grad_reqs(names, grad_req):
    if isinstance(grad_req, str):
        return {k: grad_req for k in names}
    if isinstance(grad_req, (list, tuple)):
        return dict(zip(names, grad_req))
    return dict(grad_req)


def check_symbolic_backward(sym, location, out_grads, expected, rtol=None, atol=None, aux_states=None,
                            grad_req="write", ctx=None, grad_stypes=None, equal_nan=False, dtype=default_dtype()):
    """Bind `sym`, run forward (training) and backward with `out_grads`, and compare the argument
    gradients with `expected` ('add' requests are compared after the gradient arrays' prior values
    are subtracted; 'null' ones must leave them unchanged)."""
    ctx = ctx or default_context()
    location = _as_location(sym, location, ctx, dtype)
    aux_states = _as_aux(sym, aux_states, ctx, dtype)
    names = sym.list_arguments()
    if isinstance(expected, (list, tuple)):
        expected = dict(zip(names, expected))
    prior = {k: np.random.normal(size=v.shape) for k, v in expected.items()}
    grads = {k: array(prior[k], ctx=ctx, dtype=location[k].dtype if k in location else dtype)
             for k in expected}
    for k, stype in (grad_stypes or {}).items():  # gradient arrays of the storage asked for
        if k in grads and stype != "default":
            grads[k] = grads[k].tostype(stype)
    reqs = _grad_reqs(names, grad_req)
    executor = sym.bind(ctx=ctx, args=location, args_grad=grads, aux_states=aux_states, grad_req=reqs)
    executor.forward(is_train=True)
    if isinstance(out_grads, (list, tuple)):
        out_grads = [array(v, ctx=ctx, dtype=dtype if dtype != "asnumpy" else v.dtype)
                     if isinstance(v, np.ndarray) else v for v in out_grads]
    elif isinstance(out_grads, dict):
        out_grads = [array(out_grads[k], ctx=ctx, dtype=dtype) if isinstance(out_grads[k], np.ndarray)
                     else out_grads[k] for k in sym.list_outputs()]
    elif isinstance(out_grads, np.ndarray):
        out_grads = [array(out_grads, ctx=ctx, dtype=dtype)]
    executor.backward(out_grads)
    for name, want in expected.items():
        got = grads[name].asnumpy()
        req = reqs.get(name, "write")
        labels = ("EXPECTED_%s" % name, "BACKWARD_%s" % name)
        if req == "write":
            assert_almost_equal(want, got, rtol, atol, labels, equal_nan=equal_nan)
        elif req == "add":
            assert_almost_equal(want, got - prior[name], rtol, atol, labels, equal_nan=equal_nan)
        elif req == "null":
            assert_almost_equal(prior[name].astype(got.dtype), got, rtol, atol, labels, equal_nan=equal_nan)
        else:
            raise ValueError("Invalid grad_req %s for argument %s" % (req, name))
    return grads


def numeric_grad(executor, location, aux_states=None, eps=1e-4, use_forward_train=True, dtype=default_dtype()):
    """Central differences of the sum of the executor's outputs, one element of one argument at a time."""
    for name, value in location.items():
        executor.arg_dict[name][:] = value
    for name, value in (aux_states or {}).items():
        executor.aux_dict[name][:] = value

    def total() -> float:
        executor.forward(is_train=use_forward_train)
        return sum(float(np.sum(o.asnumpy().astype(np.float64))) for o in executor.outputs)

    gradients = {}
    for name, value in location.items():
        original = np.array(value, dtype=dtype)
        flat = original.reshape(-1).copy()
        grad = np.zeros(flat.size, dtype=np.float64)
        for i in range(flat.size):
            saved = flat[i]
            flat[i] = saved + eps / 2
            executor.arg_dict[name][:] = flat.reshape(original.shape)
            upper = total()
            flat[i] = saved - eps / 2
            executor.arg_dict[name][:] = flat.reshape(original.shape)
            lower = total()
            flat[i] = saved
            grad[i] = (upper - lower) / eps
        executor.arg_dict[name][:] = original
        gradients[name] = grad.reshape(original.shape).astype(dtype)
    return gradients


def check_numeric_gradient(sym, location, aux_states=None, numeric_eps=None, rtol=None, atol=None,
                           grad_nodes=None, use_forward_train=True, ctx=None, grad_stype_dict=None,
                           dtype=default_dtype()):
    """The gradients from backward against finite differences, through a random projection of the
    outputs to a scalar loss."""
    from runtime.symbol_namespace import function_for
    from runtime.symbol import var
    if dtype not in (np.float16, np.float32, np.float64):
        raise AssertionError("dtype must be float16, float32 or float64")
    ctx = ctx or default_context()
    location = _as_location(sym, location, ctx, dtype)
    aux_states = _as_aux(sym, aux_states, ctx, dtype)
    names = sym.list_arguments()
    if grad_nodes is None:
        reqs = {k: "write" for k in names}
    elif isinstance(grad_nodes, (list, tuple)):
        reqs = {k: "write" for k in grad_nodes}
    else:
        reqs = dict(grad_nodes)
    input_shapes = {k: v.shape for k, v in location.items()}
    # the differences are taken over the given arguments only, as MXNet does: the random projection
    # stays as bound (perturbing it too would cost two forward passes per output element)
    location_npy = {k: v.asnumpy() for k, v in location.items()}
    _, out_shapes, _ = sym.infer_shape(**input_shapes)
    projection = var("__random_proj")
    loss = function_for("MakeLoss")(function_for("elemwise_mul")(sym, projection))
    location = dict(location, __random_proj=array(np.random.normal(0, 0.01, size=out_shapes[0]), ctx=ctx,
                                                  dtype=dtype))
    prior = {k: np.random.normal(size=input_shapes[k]) for k in reqs}
    grads = {k: array(prior[k], ctx=ctx, dtype=dtype) for k in reqs}
    executor = loss.bind(ctx, args=location, args_grad=grads, grad_req=reqs, aux_states=aux_states)
    executor.forward(is_train=True)
    eps = get_tolerance(executor.outputs[0], numeric_eps, default_numeric_eps())
    executor.backward()
    symbolic = {k: grads[k].asnumpy() for k in reqs}
    numeric = numeric_grad(executor, location_npy,
                           {k: v.asnumpy() for k, v in (aux_states or {}).items()}, eps=eps,
                           use_forward_train=use_forward_train, dtype=dtype)
    for name, req in reqs.items():
        labels = ("NUMERICAL_%s" % name, "BACKWARD_%s" % name)
        if req == "write":
            assert_almost_equal(numeric[name], symbolic[name], rtol, atol, labels)
        elif req == "add":
            assert_almost_equal(numeric[name], symbolic[name] - prior[name], rtol, atol, labels)
        elif req == "null":
            assert_almost_equal(prior[name].astype(symbolic[name].dtype), symbolic[name], rtol, atol, labels)
        else:
            raise ValueError("Invalid grad_req %s for argument %s" % (req, name))


def check_consistency(sym, ctx_list, scale=1.0, grad_req="write", arg_params=None, aux_params=None, tol=None,
                      raise_on_err=True, ground_truth=None, equal_nan=False, use_uniform=False,
                      rand_type=np.float64):
    """Run the symbol (or one symbol per entry) under each context/type spec of `ctx_list` with the
    same parameters, and compare the outputs and gradients with those of the most precise entry."""
    default_tol = {np.dtype(np.float16): 1e-1, np.dtype(np.float32): 1e-3, np.dtype(np.float64): 1e-5,
                   np.dtype(np.uint8): 0, np.dtype(np.int32): 0, np.dtype(np.int64): 0}
    if tol is None:
        tol = default_tol
    elif isinstance(tol, numbers.Number):
        tol = {k: tol for k in default_tol}
    symbols = list(sym) if isinstance(sym, (list, tuple)) else [sym] * len(ctx_list)
    executors = []
    for s, spec in zip(symbols, ctx_list):
        spec = dict(spec)
        ctx = spec.pop("ctx", default_context())
        type_dict = spec.pop("type_dict", None)
        executors.append(s.simple_bind(ctx=ctx, grad_req=grad_req, type_dict=type_dict, **spec))
    first = executors[0]
    arg_params = dict(arg_params or {})
    aux_params = dict(aux_params or {})
    for name, value in first.arg_dict.items():
        if name not in arg_params:
            arg_params[name] = (np.random.uniform(-0.1, 0.1, value.shape) if use_uniform
                                else np.random.normal(size=value.shape, scale=scale)).astype(rand_type)
    for name, value in first.aux_dict.items():
        aux_params.setdefault(name, np.zeros(value.shape, dtype=rand_type))
    for executor in executors:
        for name, value in executor.arg_dict.items():
            value[:] = np.asarray(arg_params[name]).astype(value.dtype)
        for name, value in executor.aux_dict.items():
            value[:] = np.asarray(aux_params[name]).astype(value.dtype)
    dtypes = [np.dtype(e.outputs[0].dtype) if e.outputs else np.dtype(next(iter(e.arg_dict.values())).dtype)
              for e in executors]
    reference = int(np.argmax([d.itemsize for d in dtypes]))

    def compare(values_of):
        truth = values_of(executors[reference])
        for i, executor in enumerate(executors):
            if i == reference:
                continue
            for name, want, got in zip(range(len(truth)), truth, values_of(executor)):
                got = got.asnumpy()
                t = tol.get(np.dtype(got.dtype), 0)
                try:
                    assert_almost_equal(want.asnumpy(), got, rtol=t, atol=t, equal_nan=equal_nan,
                                        names=("ctx_list[%d]" % reference, "ctx_list[%d]" % i))
                except AssertionError:
                    if raise_on_err:
                        raise
                    print("Train Err: ctx %d vs ctx %d at %s" % (i, reference, name), file=sys.stderr)

    for executor in executors:
        executor.forward(is_train=True)
    dtypes = [np.dtype(e.outputs[0].dtype) for e in executors]
    reference = int(np.argmax([d.itemsize for d in dtypes]))
    compare(lambda e: e.outputs)
    if grad_req != "null":
        truth_out = [o.copy() for o in executors[reference].outputs]
        for executor in executors:
            executor.backward([array(o.asnumpy(), ctx=o.context, dtype=out.dtype)
                               for o, out in zip(truth_out, executor.outputs)])
        compare(lambda e: [g for g in e.grad_arrays if g is not None])
    if ground_truth is not None:
        compare(lambda e: ground_truth)
    return [dict(executors[reference].arg_dict)]


def check_speed(sym, location=None, ctx=None, N=20, grad_req=None, typ="whole", **kwargs):
    """Seconds per run of the bound symbol: forward only ('forward') or forward and backward ('whole')."""
    ctx = ctx or default_context()
    grad_req = grad_req or "write"
    if location is None:
        executor = sym.simple_bind(grad_req=grad_req, ctx=ctx, **kwargs)
        location = {k: np.random.normal(size=arr.shape, scale=1.0) for k, arr in executor.arg_dict.items()}
    else:
        executor = sym.simple_bind(grad_req=grad_req, ctx=ctx, **{k: v.shape for k, v in location.items()})
    for name, value in location.items():
        executor.arg_dict[name][:] = value
    if typ not in ("whole", "forward"):
        raise ValueError('typ can only be "whole" or "forward".')
    start = time.time()
    for _ in range(N):
        executor.forward(is_train=typ == "whole")
        if typ == "whole":
            executor.backward(out_grads=executor.outputs)
        for output in executor.outputs:
            output.wait_to_read()
    return (time.time() - start) / N


def check_gluon_hybridize_consistency(net_builder, data_l, numpy_func=None, test_grad=True, rtol=1e-4,
                                      atol=1e-4):
    """A block's outputs (and input gradients) are the same eagerly and hybridized (and equal
    `numpy_func`'s, if given)."""
    from runtime import autograd
    saved = None
    results = []
    for hybridize in (False, True):
        net = net_builder()
        if saved is None:
            net.initialize()
            net(*data_l)  # deferred initialization
            saved = {k: v.data().copy() for k, v in net.collect_params().items()}
        else:
            net.initialize()
            net(*data_l)
            for (_, p), value in zip(sorted(net.collect_params().items()), [saved[k] for k in sorted(saved)]):
                p.set_data(value)
        if hybridize:
            net.hybridize()
        inputs = [d.copy() for d in data_l]
        if test_grad:
            for d in inputs:
                d.attach_grad()
            with autograd.record():
                out = net(*inputs)
            out.backward()
            results.append((out.asnumpy(), [d.grad.asnumpy() for d in inputs]))
        else:
            results.append((net(*inputs).asnumpy(), []))
    (eager, eager_grads), (hybrid, hybrid_grads) = results
    assert_almost_equal(eager, hybrid, rtol=rtol, atol=atol)
    for g1, g2 in zip(eager_grads, hybrid_grads):
        assert_almost_equal(g1, g2, rtol=rtol, atol=atol)
    if numpy_func is not None:
        assert_almost_equal(numpy_func(*[d.asnumpy() for d in data_l]), eager, rtol=rtol, atol=atol)


# ---- random generators' statistics
def gen_buckets_probs_with_ppf(ppf, nbuckets):
    """nbuckets intervals of equal probability under the distribution whose quantile function is ppf."""
    probs = [1.0 / nbuckets for _ in range(nbuckets)]
    buckets = [(ppf(i / float(nbuckets)), ppf((i + 1) / float(nbuckets))) for i in range(nbuckets)]
    return buckets, probs


def mean_check(generator, mu, sigma, nsamples=1000000):
    samples = np.array(generator(nsamples))
    bound = 3 * sigma / np.sqrt(nsamples)
    return mu - bound < samples.mean() < mu + bound


def var_check(generator, sigma, nsamples=1000000):
    samples = np.array(generator(nsamples))
    bound = 3 * np.sqrt(2 * sigma ** 4 / (nsamples - 1))
    return sigma ** 2 - bound < samples.var(ddof=1) < sigma ** 2 + bound


def chi_square_check(generator, buckets, probs, nsamples=1000000):
    """(p-value, observed counts, expected counts) of Pearson's chi-square test of the samples
    against the buckets: (low, high) intervals of a continuous distribution, or discrete values."""
    import scipy.stats as ss
    if not (0.999 < sum(probs) < 1.001):
        raise AssertionError("probs must sum to 1, got %g" % sum(probs))
    samples = np.asarray(generator(nsamples)).reshape(-1)
    continuous = isinstance(buckets[0], (list, tuple))
    if continuous:
        observed = np.array([((samples >= low) & (samples < high)).sum() for low, high in buckets])
    else:
        observed = np.array([(samples == value).sum() for value in buckets])
    if observed.sum() != samples.size:
        raise AssertionError("Buckets do not cover all the samples: %d of %d" % (observed.sum(), samples.size))
    expected = np.array(probs) * samples.size
    _, p = ss.chisquare(f_obs=observed, f_exp=expected)
    return p, observed, expected


def verify_generator(generator, buckets, probs, nsamples=1000000, nrepeat=5, success_rate=0.2, alpha=0.05):
    """Chi-square tests of several draws; AssertionError unless enough of them pass at level alpha."""
    p_values = [chi_square_check(generator, buckets, probs, nsamples)[0] for _ in range(nrepeat)]
    passed = int((np.array(p_values) > alpha).sum())
    if passed < nrepeat * success_rate:
        raise AssertionError("Generator test fails, Chi-square p=%s, obs_freq=..., expected_freq=..."
                             "\nbuckets=%s, probs=%s" % (str(p_values), str(buckets), str(probs)))
    return p_values


# ---- matrices for the linear algebra tests
def new_orthonormal_matrix_2d(n):
    q, _ = np.linalg.qr(np.random.uniform(-10, 10, (n, n)))
    return q


def new_matrix_with_real_eigvals_2d(n):
    """P D P^-1 with a real diagonal D: every eigenvalue is real."""
    p = np.random.uniform(-1, 1, (n, n)) + n * np.identity(n)
    d = np.diag(np.random.uniform(-10, 10, n))
    return p.dot(d).dot(np.linalg.inv(p))


def new_matrix_with_real_eigvals_nd(shape):
    n = shape[-1]
    flat = [new_matrix_with_real_eigvals_2d(n) for _ in range(int(np.prod(shape[:-2])))]
    return np.array(flat).reshape(shape)


def new_sym_matrix_with_real_eigvals_2d(n):
    q = new_orthonormal_matrix_2d(n)
    return q.dot(np.diag(np.random.uniform(-10, 10, n))).dot(q.T)


def new_sym_matrix_with_real_eigvals_nd(shape):
    n = shape[-1]
    flat = [new_sym_matrix_with_real_eigvals_2d(n) for _ in range(int(np.prod(shape[:-2])))]
    return np.array(flat).reshape(shape)


# ---- environment and machinery
class environment:
    """Set environment variables (None unsets) inside a `with` block or a decorated function:
    environment('NAME', 'value') or environment({'A': '1', 'B': None})."""

    def __init__(self, *args):
        if len(args) == 2:
            self._values = {args[0]: args[1]}
        elif len(args) == 1 and isinstance(args[0], dict):
            self._values = dict(args[0])
        else:
            raise ValueError("Expected one dict or a name and a value")
        self._saved = []

    def __enter__(self):
        self._saved.append({k: os.environ.get(k) for k in self._values})
        for name, value in self._values.items():
            setenv(name, value)
        return self

    def __exit__(self, *exc):
        for name, value in self._saved.pop().items():
            setenv(name, value)

    def __call__(self, function):
        @functools.wraps(function)
        def wrapped(*args, **kwargs):
            with self:
                return function(*args, **kwargs)
        return wrapped


@contextlib.contextmanager
def discard_stderr():
    """Anything written to file descriptor 2 inside the block is dropped."""
    sys.stderr.flush()
    saved = os.dup(2)
    with open(os.devnull, "w") as devnull:
        os.dup2(devnull.fileno(), 2)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)


def retry(n):
    """Run a test up to n times: AssertionError only if every run fails."""
    def decorate(function):
        @functools.wraps(function)
        def wrapped(*args, **kwargs):
            for attempt in range(n):
                try:
                    return function(*args, **kwargs)
                except AssertionError:
                    if attempt == n - 1:
                        raise
        return wrapped
    return decorate


def list_gpus():
    return []


def is_cd_run() -> bool:
    return os.environ.get("CD_JOB") == "1"


def is_aarch64_run() -> bool:
    return platform.machine() == "aarch64"


def has_tvm_ops() -> bool:
    return False


def is_op_runnable() -> bool:
    return True


def _needs_network(name):
    def function(*args, **kwargs):
        raise MXNetError("%s downloads data: this runtime does not use the network" % name)
    function.__name__ = name
    return function


download = _needs_network("download")
download_model = _needs_network("download_model")
get_mnist = _needs_network("get_mnist")
get_mnist_pkl = _needs_network("get_mnist_pkl")
get_mnist_ubyte = _needs_network("get_mnist_ubyte")
get_cifar10 = _needs_network("get_cifar10")
get_mnist_iterator = _needs_network("get_mnist_iterator")
get_zip_data = _needs_network("get_zip_data")
get_bz2_data = _needs_network("get_bz2_data")


def compare_optimizer(opt1, opt2, shape, dtype, w_stype="default", g_stype="default", rtol=1e-4, atol=1e-5,
                      compare_states=True, ntensors=1):
    """Two optimizers take the same step from the same weights and gradients: their states and
    updated weights agree. `opt1` (the reference) always gets dense arrays; `opt2` gets the weight
    and gradient in storage `w_stype` and `g_stype` (a sparse weight stores every row)."""
    if ntensors != 1:
        shapes = shape if isinstance(shape, (list, tuple)) and isinstance(shape[0], (list, tuple)) else [shape] * ntensors
    else:
        shapes = [shape]

    def pair(s, stype, density):
        if stype == "default":
            second = array(rnd.uniform(0, 1, size=s), dtype=dtype, ctx=default_context())
            return second.copy(), second
        second = rand_ndarray(s, stype, density=density, dtype=dtype)
        return second.copyto(default_context()).tostype("default"), second

    for index, s in enumerate(shapes):
        w1, w2 = pair(s, w_stype, 1)
        g1, g2 = pair(s, g_stype, None)
        state1 = opt1.create_state_multi_precision(index, w1)
        state2 = opt2.create_state_multi_precision(index, w2)
        if compare_states:
            compare_ndarray_tuple(state1, state2)
        opt1.update_multi_precision(index, w1, g1, state1)
        opt2.update_multi_precision(index, w2, g2, state2)
        if compare_states:
            compare_ndarray_tuple(state1, state2, rtol=rtol, atol=atol)
        assert_almost_equal(w1, w2, rtol=rtol, atol=atol)


class DummyIter:
    """Yields the first batch of an iterator again and again (for speed tests)."""

    def __init__(self, real_iter):
        self.real_iter = real_iter
        self.provide_data = real_iter.provide_data
        self.provide_label = real_iter.provide_label
        self.batch_size = real_iter.batch_size
        self.the_batch = next(iter(real_iter))

    def __iter__(self):
        return self

    def __next__(self):
        return self.the_batch

    next = __next__
