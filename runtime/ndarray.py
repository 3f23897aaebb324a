"""NDArray: an eager tensor with MXNet 1.x semantics over a NumPy array."""
from __future__ import annotations

import functools
import numbers
from typing import Any, Dict, List

import numpy as np

from runtime import autograd
from runtime.base import FailedValue, MXNetError, NDArrayHandle, OperatorIndexError
from runtime.context import Context, current_context
from runtime.invoke import present_inputs, split_arguments
from runtime.registry import MAX_ELEMENTS, REGISTRY, OpDef, check_new_shape, legacy_unknown_error

DEFAULT_DTYPE = np.float32

# arrays handed out as handles (an address-like key each), while a monitor callback runs
_HANDED_OUT: Dict[int, "NDArray"] = {}


def call_with_handle(callback, name: str, array: "NDArray") -> None:
    """Call an MXNet-style monitor callback: the name as bytes, the array as a handle (an int, as
    ctypes passes a void pointer), valid for NDArray(ctypes.cast(handle, NDArrayHandle)) meanwhile."""
    key = id(array)
    _HANDED_OUT[key] = array
    try:
        callback(name.encode(), key)
    finally:
        _HANDED_OUT.pop(key, None)


class NDArray:
    __array_priority__ = 1000.0  # numpy defers to our reflected operators
    # _entry: the array's place on the autograd tape (runtime.autograd); _fresh_grad: backward
    # wrote its gradient since the flag was last cleared (the Trainer reads it)
    __slots__ = ("_data", "_ctx", "_grad", "_entry", "_fresh_grad", "__weakref__")

    def __init__(self, data: np.ndarray, ctx: Context = None, writable: bool = True):
        if type(data) is NDArrayHandle:  # MXNet's NDArray(handle), the monitors' way to an array
            data, ctx = _HANDED_OUT[data.value]._data, ctx or _HANDED_OUT[data.value]._ctx
        self._data = data
        self._ctx = ctx or current_context()
        self._grad = None
        self._entry = None
        self._fresh_grad = False

    # ---- properties
    @property
    def shape(self):
        return self._data.shape

    @property
    def dtype(self):
        return self._data.dtype.type

    @property
    def context(self) -> Context:
        return self._ctx

    ctx = context

    @property
    def size(self) -> int:
        return self._data.size

    @property
    def ndim(self) -> int:
        return self._data.ndim

    @property
    def stype(self) -> str:
        return "default"

    @property
    def T(self) -> "NDArray":
        if self._on_tape():
            return _call("transpose", self)
        return _wrap(np.ascontiguousarray(self._data.T), self._ctx)

    @property
    def grad(self):
        return self._grad

    # ---- conversion
    def asnumpy(self) -> np.ndarray:
        return self._data.copy()

    def asscalar(self):
        if self._data.size != 1:
            raise ValueError("The current array is not a scalar")
        return self._data.reshape(-1)[0]

    def astype(self, dtype, copy=True) -> "NDArray":
        dtype = np.dtype(dtype)
        if not copy and dtype == self._data.dtype:
            return self
        if self._on_tape():
            return _call("cast", self, dtype=dtype.name)
        return _wrap(self._data.astype(dtype), self._ctx)

    def copy(self) -> "NDArray":
        if self._on_tape():
            return _call("identity", self)
        return _wrap(self._data.copy(), self._ctx)

    def copyto(self, other):
        if isinstance(other, Context):
            return _wrap(self._data.copy(), other)
        other[:] = self
        return other

    def as_in_context(self, ctx: Context) -> "NDArray":
        """Itself on its own context, else a copy there (contexts do not share memory); a copy
        of a recorded array is recorded too, so that gradients flow back to the original."""
        if ctx == self._ctx:
            return self
        if self._on_tape():
            moved = _call("identity", self)
            moved._ctx = ctx
            return moved
        return _wrap(self._data.copy(), ctx)

    as_in_ctx = as_in_context

    def tolist(self):
        return self._data.tolist()

    def wait_to_read(self) -> None:
        if type(self._data) is FailedValue:  # the operator that computes it failed (Executor.forward)
            raise self._data.error

    def attach_grad(self, grad_req="write", stype=None) -> None:
        """Allocate a zero gradient buffer (of storage `stype`, the array's own by default) and mark
        this array as a variable for autograd."""
        stype = stype or self.stype
        if stype == "default":
            buffer = _wrap(np.zeros_like(self._data), self._ctx)
        else:
            from runtime import sparse
            buffer = sparse.zeros(stype, self.shape, self._ctx, self._data.dtype)
        autograd.mark_variables([self], [buffer], grad_req)

    def tostype(self, stype: str) -> "NDArray":
        """The same values in storage `stype` ('default', 'row_sparse' or 'csr')."""
        if stype == "csr" and self.ndim != 2:
            raise ValueError("To convert to a CSR, the NDArray should be 2 Dimensional. Current shape is %s"
                             % str(self.shape))
        return _call("cast_storage", self, stype=stype)

    def detach(self) -> "NDArray":
        """The same values, cut from the autograd tape: no gradient flows through the result."""
        return _wrap(self._data, self._ctx)

    def backward(self, out_grad=None, retain_graph=False, train_mode=True) -> None:
        autograd.backward([self], None if out_grad is None else [out_grad], retain_graph, train_mode)

    def reshape(self, *shape, **kwargs) -> "NDArray":
        """`x.reshape(2, 3)` and `x.reshape((2, 3))` both work on NDArray (not on Symbol)."""
        if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
            shape = tuple(shape[0])
        if "shape" in kwargs:
            shape = kwargs.pop("shape")
        if shape and all(isinstance(d, (int, np.integer)) and d > 0 for d in shape) and \
                int(np.prod(shape)) != self._data.size:
            # MXNet's NDArray.reshape checks a plain target shape in Python, with a ValueError
            raise ValueError("Cannot reshape array of size %d into shape %s" % (self._data.size, tuple(shape)))
        result = _call("reshape", self, shape=shape, **kwargs)
        if autograd._state.recording or not self._data.flags.c_contiguous:
            return result
        # a view of this array's memory, as MXNet's NDArray.reshape gives (the operator copies)
        return NDArray(self._data.reshape(result.shape), self._ctx)

    # ---- pickling: MXNet's state is {"handle": the array in its one-array binary format}
    def __getstate__(self):
        from runtime.serialization import _encode
        return {"handle": _encode(self._data)}

    def __setstate__(self, state):
        from runtime.serialization import _Reader
        self._data = _Reader(bytes(state["handle"]), "<pickled NDArray>").array()
        self._ctx = current_context()
        self._grad = None

    def __reduce__(self):  # rebuilt by this module whatever module name the class carries
        return _unpickle, (self.__getstate__(),)

    # ---- Python protocol
    def __len__(self) -> int:
        return self._data.shape[0]

    def __iter__(self):
        for i in range(self._data.shape[0]):
            yield self[i]

    def __bool__(self) -> bool:
        if self._data.size == 1:
            return bool(self._data.reshape(-1)[0])
        if self._data.size == 0:
            return False
        raise ValueError("The truth value of an NDArray with multiple elements is ambiguous.")

    def __float__(self) -> float:
        return float(self.asscalar())

    def __int__(self) -> int:
        return int(self.asscalar())

    def __array__(self, dtype=None, copy=None):
        return self._data if dtype is None else self._data.astype(dtype)

    def __repr__(self) -> str:
        shape = "x".join(str(d) for d in self.shape)
        return "\n%s\n<NDArray %s @%s>" % (np.array2string(self._data), shape, self._ctx)

    # ---- arithmetic: NDArray operators broadcast
    def _binary(self, other, broadcast_op, scalar_op, reverse=False):
        if type(other) in (int, float) and not (autograd._state.recording and self._entry is not None):
            # the commonest case first, without the general dispatch (nothing to record)
            kernel = _SCALAR_KERNELS.get(scalar_op)
            if kernel is None:
                from runtime.registry import REGISTRY
                kernel = _SCALAR_KERNELS[scalar_op] = REGISTRY[scalar_op].kernel
            return NDArray(kernel(self._data, float(other)), self._ctx)
        if isinstance(other, NDArray):
            return _call(broadcast_op, other, self) if reverse else _call(broadcast_op, self, other)
        if isinstance(other, numbers.Number):
            return _call(scalar_op, self, scalar=float(other))
        from runtime.symbol import Symbol
        if isinstance(other, Symbol):
            return NotImplemented  # the Symbol's reflected operator says why they do not mix
        # MXNet takes NDArrays and numbers only: a NumPy array, a list or None is an error, not converted
        raise TypeError("type %s not supported" % str(type(other)))

    def __add__(self, other):
        return self._binary(other, "broadcast_add", "_plus_scalar")

    __radd__ = __add__

    def __sub__(self, other):
        return self._binary(other, "broadcast_sub", "_minus_scalar")

    def __rsub__(self, other):
        return self._binary(other, "broadcast_sub", "_rminus_scalar", reverse=True)

    def __mul__(self, other):
        return self._binary(other, "broadcast_mul", "_mul_scalar")

    __rmul__ = __mul__

    def __truediv__(self, other):
        return self._binary(other, "broadcast_div", "_div_scalar")

    def __rtruediv__(self, other):
        return self._binary(other, "broadcast_div", "_rdiv_scalar", reverse=True)

    def __mod__(self, other):
        return self._binary(other, "broadcast_mod", "_mod_scalar")

    def __rmod__(self, other):
        return self._binary(other, "broadcast_mod", "_rmod_scalar", reverse=True)

    def __pow__(self, other):
        return self._binary(other, "broadcast_power", "_power_scalar")

    def __rpow__(self, other):
        return self._binary(other, "broadcast_power", "_rpower_scalar", reverse=True)

    def __neg__(self):
        return _call("negative", self)

    def __abs__(self):
        return _call("abs", self)

    def __eq__(self, other):
        return self._binary(other, "broadcast_equal", "_equal_scalar")

    def __ne__(self, other):
        return self._binary(other, "broadcast_not_equal", "_not_equal_scalar")

    def __gt__(self, other):
        return self._binary(other, "broadcast_greater", "_greater_scalar")

    def __ge__(self, other):
        return self._binary(other, "broadcast_greater_equal", "_greater_equal_scalar")

    def __lt__(self, other):
        return self._binary(other, "broadcast_lesser", "_lesser_scalar")

    def __le__(self, other):
        return self._binary(other, "broadcast_lesser_equal", "_lesser_equal_scalar")

    __hash__ = object.__hash__

    def _on_tape(self) -> bool:
        """Recording, and this array is a variable or a recorded result: operations on it are recorded."""
        return self._entry is not None and autograd._state.recording and autograd.entry_of(self) is not None

    def _check_assignable(self) -> None:
        if self._on_tape():
            raise MXNetError(_ASSIGN_IN_GRAPH)

    def _inplace(self, result):
        if result is NotImplemented:
            return result
        self._check_assignable()
        np.copyto(self._data, np.broadcast_to(result._data, self._data.shape), casting="unsafe")
        return self

    def __iadd__(self, other):
        return self._inplace(self.__add__(other))

    def __isub__(self, other):
        return self._inplace(self.__sub__(other))

    def __imul__(self, other):
        return self._inplace(self.__mul__(other))

    def __itruediv__(self, other):
        return self._inplace(self.__truediv__(other))

    def __imod__(self, other):
        return self._inplace(self.__mod__(other))

    # ---- legacy indexing (MXNet 1.x)
    def __getitem__(self, key):
        if self._on_tape() and not isinstance(key, NDArray):
            return self._recorded_index(key)
        if isinstance(key, NDArray):
            # MXNet 1.9.1 counts negative indices from the end here (x[nd.array([-1])] is the last row)
            return _call("take", self, key, axis=0, mode="wrap")
        if isinstance(key, tuple) and any(isinstance(k, NDArray) for k in key):
            index = tuple(k._data.astype(np.int64) if isinstance(k, NDArray) else k for k in key)
            return _wrap(np.ascontiguousarray(self._data[index]), self._ctx)
        if isinstance(key, (list, np.ndarray)):
            return _wrap(self._data[np.asarray(key, dtype=np.int64)], self._ctx)
        result = self._data[key]
        if not result.flags.c_contiguous:
            # MXNet 1.9.1 gives a view only of a contiguous run; any other slice is a new array
            result = result.copy()
        if isinstance(key, (int, np.integer)) or (isinstance(key, tuple) and key
                                                  and all(isinstance(k, (int, np.integer)) for k in key)):
            # an integer index that removes every axis still leaves shape (1,) in MXNet 1.x
            result = np.ascontiguousarray(result).reshape(result.shape or (1,))
            if isinstance(key, (int, np.integer)):
                return _wrap(result, self._ctx) if self.ndim > 1 else _wrap(result.copy(), self._ctx)
            return _wrap(result.copy(), self._ctx)
        return _wrap(result, self._ctx)

    def _recorded_index(self, key):
        """Indexing under record(): the result's gradient is added back at the indexed places."""
        with autograd.pause():
            result = self[key]
        if isinstance(key, tuple):
            where = tuple(k._data.astype(np.int64) if isinstance(k, NDArray) else k for k in key)
        elif isinstance(key, (list, np.ndarray)):
            where = np.asarray(key, dtype=np.int64)
        else:
            where = key
        shape, dtype = self._data.shape, self._data.dtype
        selected = self._data[where].shape

        def vjp(out_grads):
            grad = np.zeros(shape, dtype)
            np.add.at(grad, where, out_grads[0].reshape(selected))
            return [grad]
        autograd.record_node("_slice", vjp, [self], [result])
        return result

    def __setitem__(self, key, value):
        self._check_assignable()
        if autograd._state.recording and isinstance(value, NDArray) and autograd.entry_of(value) is not None:
            self._recorded_assign(key, value)
            return
        if isinstance(key, NDArray):
            key = key._data.astype(np.int64)
        elif isinstance(key, tuple):
            key = tuple(k._data.astype(np.int64) if isinstance(k, NDArray) else k for k in key)
        source = value._data if isinstance(value, NDArray) else value
        try:
            self._data[key] = source
        except (ValueError, TypeError):
            # MXNet broadcasts the value to the indexed region, which may have fewer dimensions than
            # the value: `x[i, j, k] = nd.array([5])` (or `[5]`) assigns 5, dropping the value's leading ones
            region = np.ndim(self._data[key])
            source = np.asarray(source)
            while source.ndim > region and source.shape[0] == 1:
                source = source.reshape(source.shape[1:])
            self._data[key] = source

    def to_dlpack_for_read(self):
        from runtime.dlpack import to_dlpack_for_read
        return to_dlpack_for_read(self)

    def to_dlpack_for_write(self):
        from runtime.dlpack import to_dlpack_for_write
        return to_dlpack_for_write(self)

    def slice_assign(self, rhs, begin, end, step):
        """self[begin:end:step] = rhs, in place (MXNet's `_slice_assign` with out=self)."""
        return _call("_slice_assign", self, rhs, begin=begin, end=end, step=step, out=self)

    def slice_assign_scalar(self, value, begin, end, step):
        return _call("_slice_assign_scalar", self, scalar=float(value), begin=begin, end=end, step=step, out=self)

    def _recorded_assign(self, key, value):
        """`x[key] = y` under record() with y in the graph. MXNet 1.9.1 records a copy (x then
        follows y in the graph) only where the key overwrites all of x in order; any other key
        writes into x through an operator whose output is also its input, which it refuses."""
        if not _covers_whole(key, self.shape):
            raise MXNetError(_INPLACE_WHILE_RECORDING)
        with autograd.pause():
            self[key] = value
        source_shape = value.shape

        def vjp(out_grads):
            return [_sum_to_shape(out_grads[0], source_shape)]
        autograd.record_node("_copyto", vjp, [value], [self])

    @staticmethod
    def _basic_indexing_slice_is_contiguous(slc_key, shape):
        """Whether slicing an array of `shape` by `slc_key` (one slice per axis) selects one
        contiguous run of memory, the case where MXNet 1.9.1's basic indexing returns a view:
        at most one element, or, from the last axis back, whole axes up to one that is cut (taken
        with step 1), and only single elements before it."""
        assert len(slc_key) == len(shape)
        lengths = [len(range(*s.indices(n))) for s, n in zip(slc_key, shape)]
        if int(np.prod(lengths)) <= 1:
            return True
        cut = False
        for s, n, length in zip(reversed(slc_key), reversed(shape), reversed(lengths)):
            step = s.indices(n)[2]
            if length > 1 and (step != 1 or cut):
                return False
            cut = cut or length < n
        return True

    # ---- methods that are operators: `x.sum(axis=1)` is `nd.sum(x, axis=1)`
    def __getattr__(self, name: str):
        if name in _FLUENT:
            def method(*args, **kwargs):
                if name in _VIEW_METHODS and kwargs.pop("inplace", False) and not autograd._state.recording:
                    # inplace=True asks for a view of this array's memory, as MXNet gives one
                    shape = _call(_FLUENT[name], self, *args, **kwargs).shape
                    return NDArray(self._data.reshape(shape), self._ctx)
                return _call(_FLUENT[name], self, *args, **kwargs)
            method.__name__ = name
            return method
        raise AttributeError("'NDArray' object has no attribute '%s'" % name)


# NDArray and Symbol offer these operators as methods.
_FLUENT = {name: name for name in (
    "reshape_like", "zeros_like", "ones_like", "broadcast_axes", "repeat", "pad", "swapaxes", "split", "split_v2",
    "slice", "slice_axis", "slice_like", "take", "one_hot", "pick", "sort", "topk", "argsort", "argmax",
    "argmax_channel", "argmin", "clip", "abs", "sign", "flatten", "diag", "expand_dims", "tile", "transpose",
    "flip", "depth_to_space", "space_to_depth", "sum", "nansum", "prod", "nanprod", "mean", "max", "min", "norm",
    "round", "rint", "fix", "floor", "ceil", "trunc", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "degrees",
    "radians", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh",
    "exp", "expm1", "log", "log10", "log2", "log1p", "sqrt", "rsqrt", "cbrt", "rcbrt",
    "square", "reciprocal", "relu", "sigmoid", "softmax", "log_softmax", "softmin", "squeeze", "broadcast_to",
    "broadcast_like", "sum_axis", "max_axis", "min_axis", "shape_array", "size_array", "split_v2")}
_FLUENT["astype_op"] = "cast"
_ASSIGN_IN_GRAPH = ("Check failed: AGInfo: :IsNone(*output): Assigning to NDArrays that are already in a computational "
                    "graph will cause undefined behavior when evaluating gradients. Please call backward first to "
                    "clear the graph or do this out side of a record section. Also note that you cannot use inplace "
                    "operations like +=, *=, relu(x, out=x), y[idx]=x, etc inside a record section.")
_VIEW_METHODS = ("flatten", "expand_dims", "squeeze")
_INPLACE_WHILE_RECORDING = ("Check failed: AGInfo: :IsNone(*output): Inplace operations (+=, -=, x[:]=, etc) are not "
                            "supported when recording with autograd.")


def _covers_whole(key, shape) -> bool:
    """Whether a basic index (integers, slices, None, Ellipsis) selects every element of an array
    of `shape` in order (an integer counts only on an axis of length 1)."""
    key = key if isinstance(key, tuple) else (key,)
    if any(k is not Ellipsis and k is not None and not isinstance(k, (slice, numbers.Integral)) for k in key):
        return False
    axes = [k for k in key if k is not None]
    if Ellipsis in axes:
        at = axes.index(Ellipsis)
        axes[at:at + 1] = [slice(None)] * (len(shape) - len(axes) + 1)
    axes += [slice(None)] * (len(shape) - len(axes))
    for k, n in zip(axes, shape):
        if isinstance(k, slice):
            start, stop, step = k.indices(n)
            if step < 0 or len(range(start, stop, step)) != n:
                return False
        elif n != 1:
            return False
    return True


def _sum_to_shape(grad: np.ndarray, shape) -> np.ndarray:
    """A gradient summed over the axes that broadcasting added or stretched, back to `shape`."""
    extra = grad.ndim - len(shape)
    if extra > 0:
        grad = grad.sum(axis=tuple(range(extra)))
    stretched = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    if stretched:
        grad = grad.sum(axis=stretched, keepdims=True)
    return grad.reshape(shape)


def _unpickle(state) -> NDArray:
    array = NDArray.__new__(NDArray)
    array.__setstate__(state)
    return array


def _wrap(data: np.ndarray, ctx=None) -> NDArray:
    return NDArray(data, ctx)


_BY_NAME: Dict[str, Any] = {}
_SCALAR_KERNELS: Dict[str, Any] = {}


def _call(op_name: str, *args, **kwargs):
    function = _BY_NAME.get(op_name)
    if function is None:
        from runtime.ndarray_namespace import function_for
        if op_name in REGISTRY:
            function = function_for(op_name)
        else:  # a front-end function of the namespace (`split_v2`), not an operator of its own
            import runtime
            function = getattr(runtime.nd, op_name)
        _BY_NAME[op_name] = function
    return function(*args, **kwargs)


_PARSED_CACHE: Dict[tuple, tuple] = {}


def _fast_path(op: OpDef, args, kwargs):
    """(parsed attributes, visible outputs) when every positional argument is an input NDArray and
    every keyword an attribute: the common call, answered from a cache of parsed attributes."""
    for value in args:
        if type(value) is not NDArray:
            return None
    try:
        key = (op.name, len(args), tuple(sorted(kwargs.items())) if kwargs else ())
        hit = _PARSED_CACHE.get(key)
    except TypeError:  # an unhashable attribute value (a list): the general path
        return None
    if hit is None:
        if op.variadic or op.aux or op.makes_sparse or "out" in kwargs or "name" in kwargs \
                or any(k in op.inputs for k in kwargs):
            return None
        parsed = op.parse_attrs(kwargs)
        if len(op.input_names(parsed)) != len(args):
            return None
        hit = _PARSED_CACHE[key] = (parsed, op.visible(parsed), functools.partial(op.kernel, **parsed))
    return hit


def _eager_words(message: str) -> str:
    """MXNet names the graph node in a shape mismatch; an eager call's node has no name."""
    return message.replace("Incompatible attr at", "Incompatible attr in node  at")


def _known_outputs(op: OpDef, inputs, results) -> None:
    """Outside np_shape(), an empty output is an unknown shape to MXNet 1.x: the call fails."""
    from runtime.util import is_np_shape
    if op.allows_empty or is_np_shape():
        return
    if any(0 in r.shape for r in results):
        raise legacy_unknown_error(op.name, [a.shape for a in inputs], [r.shape for r in results])


def invoke(op: OpDef, args, kwargs, public_name: str):
    """Run an operator eagerly, MXNet style: inputs first, then attributes."""
    fast = _fast_path(op, args, kwargs)
    if fast is not None:
        parsed, visible_count, kernel = fast
        if op.validates:
            op.validate([a._data for a in args], parsed)
        recording = autograd._state.recording and autograd.needs_grad(args)
        if op.wants_training:
            results = op.run([a._data for a in args], parsed, is_train=autograd.is_training())
        else:
            try:
                result = kernel(*[a._data for a in args])
            except OperatorIndexError:
                raise
            except (ValueError, IndexError, TypeError, ZeroDivisionError) as exc:
                raise MXNetError(_eager_words("Error in operator %s: %s" % (op.name, exc))) from None
            if isinstance(result, np.generic):  # a NumPy reduction over every axis gives a scalar
                result = np.asarray(result)
            if type(result) is np.ndarray and not result.size:
                _known_outputs(op, args, [result])
            if type(result) is np.ndarray:
                if result.base is not None:
                    result = _own(result, args)
                if not recording:
                    return NDArray(result, args[0]._ctx if args else None)
            results = [result] if type(result) is np.ndarray else [_own(r, args) for r in result]
        ctx = args[0]._ctx if args else None
        outputs = [NDArray(r, ctx) for r in results[:visible_count]]
        if recording:
            autograd.record_op(op, parsed, args, results, outputs, autograd.is_training())
        return outputs[0] if visible_count == 1 else outputs
    out = kwargs.pop("out", None)
    kwargs.pop("name", None)
    _reject_symbols(op, args, kwargs)
    inputs, attrs = split_arguments(op, args, kwargs, lambda v: isinstance(v, NDArray))
    parsed = op.parse_attrs(attrs)
    arrays = []
    given = []
    ctx = None
    for input_name, value in present_inputs(op, inputs, parsed):
        if value is None:
            raise MXNetError("Required parameter %s of %s is not presented" % (input_name, public_name))
        if not isinstance(value, NDArray):
            raise TypeError("%s: input %s must be an NDArray, got %s" % (public_name, input_name, type(value).__name__))
        arrays.append(value._data)
        given.append(value)
        ctx = ctx or value._ctx
    if op.validates:
        op.validate(arrays, parsed)
    try:
        results = op.run(arrays, parsed, is_train=autograd.is_training())
    except MXNetError as exc:
        raise MXNetError(_eager_words(str(exc))) from None
    if any(not r.size for r in results):
        _known_outputs(op, given, results)
    visible = [NDArray(_own(r, given) if r.dtype != np.float64 or not arrays or op.exact_dtypes
                       else r.astype(arrays[0].dtype), ctx)
               for r in results[:op.visible(parsed)]]
    if op.storage is not None and (op.makes_sparse or any(type(v) is not NDArray for v in given)):
        from runtime.sparse import restore_storage
        visible = restore_storage(op, parsed, given, visible)
    if autograd._state.recording and autograd.needs_grad(given):
        autograd.record_op(op, parsed, given, results, visible, autograd.is_training())
    if out is not None:
        targets = out if isinstance(out, (list, tuple)) else [out]
        for target, value in zip(targets, visible):
            target[:] = value
            if value._entry is not None:  # recorded: the gradient reaches the inputs through `out`
                target._entry = value._entry
        return out
    return visible[0] if len(visible) == 1 else visible


def _own(result: np.ndarray, inputs) -> np.ndarray:
    """`result`, copied if it is a view of an input's memory (a kernel's reshape or slice): an
    operator's output is always a new array in MXNet (`y = x.flatten(); x[0] = -1` leaves y as it
    was); only NDArray.reshape and indexing make views."""
    if isinstance(result, np.ndarray) and result.base is not None:
        for value in inputs:
            data = value._data if isinstance(value, NDArray) else value
            if isinstance(data, np.ndarray) and np.may_share_memory(result, data):
                return result.copy()
    return result


def _reject_symbols(op, args, kwargs) -> None:
    """An eager operator given Symbols (`nd.relu(x)` inside a traced hybrid_forward) fails as in MXNet."""
    from runtime.symbol import Symbol
    for value in args:
        if isinstance(value, Symbol):
            what = "Positional arguments" if op.variadic else "Argument %s" % op.inputs[0]
            raise AssertionError("%s must have NDArray type, but got %s" % (what, value))
    for key, value in kwargs.items():
        if isinstance(value, Symbol):
            raise AssertionError("Argument %s must have NDArray type, but got %s" % (key, value))


def array(source, ctx=None, dtype=None) -> NDArray:
    if (isinstance(source, NDArray) and source.stype != "default") \
            or type(source).__module__.startswith("scipy.sparse"):
        from runtime import sparse
        return sparse.array(source, ctx=ctx, dtype=dtype)
    if isinstance(source, NDArray):
        data = source._data
        dtype = dtype or data.dtype
    else:
        if isinstance(source, (str, bytes)):
            raise TypeError("source_array must be array like object")
        data = np.asarray(source)
        if dtype is None:
            dtype = DEFAULT_DTYPE  # MXNet 1.x: float32 unless asked, whatever the source (even a NumPy array)
    return NDArray(np.array(data, dtype=dtype), ctx or current_context())


def empty(shape, ctx=None, dtype=None, stype=None) -> NDArray:
    if stype not in (None, "default"):
        from runtime import sparse
        return sparse.empty(stype, shape, ctx=ctx, dtype=dtype)
    return NDArray(np.empty(_allocated_shape(shape), dtype=dtype or DEFAULT_DTYPE), ctx)


def _allocated_shape(shape):
    """nd.empty and nd.full allocate in MXNet's Python front end, which raises a bare Exception
    for a huge size and C's OverflowError for a negative one."""
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    if any(d < 0 for d in shape):
        raise OverflowError("can't convert negative value to unsigned int")
    if int(np.prod([max(d, 0) for d in shape], dtype=np.float64)) >= MAX_ELEMENTS:
        raise Exception("[_new_alloc_handle] Size of tensor you are trying to allocate is larger than 2^31 elements. "
                        "Please build with flag USE_INT64_TENSOR_SIZE=1")
    return _shape(shape)


def _shape(shape):
    """A shape to allocate, after MXNet's checks on it (no negative dimension, under 2^31 elements)."""
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    check_new_shape(shape)
    return shape


def _filled(fill, shape, ctx, dtype, out) -> NDArray:
    shape = _shape(shape)
    from runtime.util import is_np_shape
    if (not shape or 0 in shape) and not is_np_shape():  # an unknown shape to MXNet 1.x: nothing to fill
        raise legacy_unknown_error("_zeros" if fill is np.zeros else "_ones", [], [shape])
    result = NDArray(fill(shape, dtype=dtype or DEFAULT_DTYPE), ctx)
    if out is not None:  # MXNet writes into `out` and returns it
        out[:] = result
        return out
    return result


def zeros(shape, ctx=None, dtype=None, out=None, stype=None, **kwargs) -> NDArray:
    if stype not in (None, "default"):
        from runtime import sparse
        return sparse.zeros(stype, shape, ctx=ctx, dtype=dtype, out=out)
    return _filled(np.zeros, shape, ctx, dtype, out)


def ones(shape, ctx=None, dtype=None, out=None, **kwargs) -> NDArray:
    return _filled(np.ones, shape, ctx, dtype, out)


def full(shape, val, ctx=None, dtype=None, out=None) -> NDArray:
    result = NDArray(np.full(_allocated_shape(shape), val, dtype=dtype or DEFAULT_DTYPE), ctx)
    if out is not None:
        out[:] = result
        return out
    return result


def arange(start, stop=None, step=1.0, repeat=1, infer_range=None, ctx=None, dtype=None) -> NDArray:
    from runtime.ops.tensor import check_range
    try:
        check_range(start, stop, step, repeat)
    except ValueError as exc:
        raise MXNetError(str(exc)) from None
    from runtime.kernels.tensor import arange as arange_kernel
    return NDArray(arange_kernel(start, stop, step, repeat, dtype=dtype or DEFAULT_DTYPE), ctx)


def linspace(start, stop, num, endpoint=True, ctx=None, dtype=None) -> NDArray:
    if num < 0:
        raise MXNetError("Number of sequence should be non-negative, received %d" % num)
    return NDArray(np.linspace(start, stop, num, endpoint=endpoint).astype(dtype or DEFAULT_DTYPE), ctx)


def eye(N, M=0, k=0, ctx=None, dtype=None, **kwargs) -> NDArray:
    check_new_shape((N, M or N))
    return NDArray(np.eye(N, M or None, k, dtype=dtype or DEFAULT_DTYPE), ctx)


def waitall() -> None:
    pass


def concatenate(arrays: List[NDArray], axis=0, always_copy=True) -> NDArray:
    return NDArray(np.concatenate([a._data for a in arrays], axis=axis), arrays[0]._ctx)


def _binary_function(broadcast_op: str, scalar_op: str, reverse_scalar_op: str = None, numbers=None):
    """`nd.maximum(a, b)`: two arrays broadcast; an array and a number use the scalar operator;
    two numbers give `numbers(a, b)` (NumPy's function of the same name by default)."""
    def function(lhs, rhs):
        if numbers is not None and not isinstance(lhs, NDArray) and not isinstance(rhs, NDArray):
            return numbers(lhs, rhs)
        if isinstance(lhs, NDArray) and isinstance(rhs, NDArray):
            return _call(broadcast_op, lhs, rhs)
        if isinstance(lhs, NDArray):
            return _call(scalar_op, lhs, scalar=float(rhs))
        if isinstance(rhs, NDArray):
            return _call(reverse_scalar_op or scalar_op, rhs, scalar=float(lhs))
        return getattr(np, broadcast_op.replace("broadcast_", ""))(lhs, rhs)
    return function


def save(fname: str, data) -> None:
    from runtime.serialization import save_arrays
    if isinstance(data, NDArray):
        data = [data]
    if isinstance(data, dict):
        save_arrays(fname, {k: v.asnumpy() for k, v in data.items()})
    else:
        save_arrays(fname, [v.asnumpy() for v in data])


def load(fname: str):
    from runtime.serialization import load_arrays
    loaded = load_arrays(fname)
    if isinstance(loaded, dict):
        return {k: NDArray(v) for k, v in loaded.items()}
    return [NDArray(v) for v in loaded]


HELPERS: Dict[str, Any] = {
    "save": save, "load": load,
    "array": array, "empty": empty, "zeros": zeros, "ones": ones, "full": full, "arange": arange,
    "linspace": linspace, "eye": eye, "waitall": waitall, "concatenate": concatenate, "NDArray": NDArray,
    "maximum": _binary_function("broadcast_maximum", "_maximum_scalar"),
    "minimum": _binary_function("broadcast_minimum", "_minimum_scalar"),
    "power": _binary_function("broadcast_power", "_power_scalar", "_rpower_scalar"),
    "add": _binary_function("broadcast_add", "_plus_scalar"),
    "subtract": _binary_function("broadcast_sub", "_minus_scalar", "_rminus_scalar"),
    "multiply": _binary_function("broadcast_mul", "_mul_scalar"),
    "divide": _binary_function("broadcast_div", "_div_scalar", "_rdiv_scalar"),
    "modulo": _binary_function("broadcast_mod", "_mod_scalar", "_rmod_scalar"),
    "equal": _binary_function("broadcast_equal", "_equal_scalar"),
    "not_equal": _binary_function("broadcast_not_equal", "_not_equal_scalar"),
    "greater": _binary_function("broadcast_greater", "_greater_scalar", "_lesser_scalar"),
    "greater_equal": _binary_function("broadcast_greater_equal", "_greater_equal_scalar", "_lesser_equal_scalar"),
    "lesser": _binary_function("broadcast_lesser", "_lesser_scalar", "_greater_scalar"),
    "lesser_equal": _binary_function("broadcast_lesser_equal", "_lesser_equal_scalar", "_greater_equal_scalar"),
    "logical_and": _binary_function("broadcast_logical_and", "_logical_and_scalar",
                                    numbers=lambda a, b: 1 if a and b else 0),
    "logical_or": _binary_function("broadcast_logical_or", "_logical_or_scalar",
                                   numbers=lambda a, b: 1 if a or b else 0),
    "logical_xor": _binary_function("broadcast_logical_xor", "_logical_xor_scalar",
                                    numbers=lambda a, b: 1 if bool(a) != bool(b) else 0),
}

# names of MXNet's `ndarray.ndarray` module that code and tests import: storage types and Python's
# slice under MXNet's alias
_STORAGE_TYPE_STR_TO_ID = {"undefined": -1, "default": 0, "row_sparse": 1, "csr": 2}
_STORAGE_TYPE_ID_TO_STR = {v: k for k, v in _STORAGE_TYPE_STR_TO_ID.items()}
_GRAD_REQ_MAP = {"null": 0, "write": 1, "add": 3}
py_slice = slice
