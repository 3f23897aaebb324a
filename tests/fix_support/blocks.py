"""Run a Gluon block's `hybrid_forward` on NumPy, eagerly or "hybridized", without MXNet.

- Eager: inputs are `Eager` arrays, a NumPy array with MXNet 1.x legacy NDArray indexing (an
  all-integer index gives shape `(1,)`, never 0-d); `nd.*` / `F.*` are the NumPy readings of
  `tests.fix_support.npf`.
- Hybridized: inputs are `Traced` values that refuse what a Symbol refuses (`.shape`, indexing,
  item assignment, `+=`, `bool()`, `asnumpy()`, arithmetic between different shapes), so fixed
  code that still relies on an NDArray-only feature fails here as it would in MXNet.

Only for the fix tests, until the project's runtime runs both modes itself.
"""
from __future__ import annotations

import contextlib
import functools
import sys
import types

import numpy as np

from tests.fix_support import npf


class Eager(np.ndarray):
    def __getitem__(self, index):
        def integral(item):  # NDArray index arrays are float32
            if isinstance(item, np.ndarray) and item.dtype.kind == "f":
                return np.asarray(item).astype(np.int64)
            return item
        index = tuple(map(integral, index)) if isinstance(index, tuple) else integral(index)
        out = super().__getitem__(index)
        if isinstance(out, np.ndarray) and out.ndim == 0:
            return out.reshape(1)
        if not isinstance(out, np.ndarray):
            return np.asarray(out).reshape(1).view(Eager)
        return out

    def asnumpy(self):
        return np.asarray(self)

    def reshape(self, *shape, reverse=False, **kwargs):
        """NDArray.reshape: special codes (0, -1, -2, -3, -4), a tuple or the dimensions."""
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        if not shape:
            shape = kwargs.pop("shape")
        return npf.reshape(np.asarray(self), shape, reverse=reverse).view(Eager)

    def asscalar(self):
        return np.asarray(self).item()

    def broadcast_to(self, shape):
        return np.broadcast_to(np.asarray(self), shape).copy().view(Eager)


class SymbolError(TypeError):
    pass


def _refuse(what):
    def method(self, *args, **kwargs):
        raise SymbolError(f"a Symbol does not support {what}")
    return method


class Traced:
    """A value under tracing: the data is there (so results can be compared), its shape is not."""

    __array_priority__ = 100

    def __init__(self, value):
        self._v = np.asarray(value)

    __getitem__ = _refuse("indexing")
    __setitem__ = _refuse("item assignment")
    __bool__ = _refuse("bool()")
    __len__ = _refuse("len()")
    __iter__ = _refuse("iteration")
    __iadd__ = _refuse("+=")
    __isub__ = _refuse("-=")
    __imul__ = _refuse("*=")
    __itruediv__ = _refuse("/=")
    asnumpy = _refuse("asnumpy()")
    asscalar = _refuse("asscalar()")

    @property
    def shape(self):
        raise SymbolError("'Symbol' object has no attribute 'shape'")

    @property
    def dtype(self):
        raise SymbolError("'Symbol' object has no attribute 'dtype'")

    def _binary(self, other, fn):
        if isinstance(other, Traced):
            if other._v.shape != self._v.shape:
                raise SymbolError("Incompatible attr: a Symbol's arithmetic does not broadcast")
            return Traced(fn(self._v, other._v).astype(self._v.dtype))
        if isinstance(other, (int, float, np.number)):
            return Traced(fn(self._v, other).astype(self._v.dtype))
        return NotImplemented

    def __add__(self, o): return self._binary(o, np.add)
    def __radd__(self, o): return self._binary(o, lambda a, b: b + a)
    def __sub__(self, o): return self._binary(o, np.subtract)
    def __rsub__(self, o): return self._binary(o, lambda a, b: b - a)
    def __mul__(self, o): return self._binary(o, np.multiply)
    def __rmul__(self, o): return self._binary(o, lambda a, b: b * a)
    def __truediv__(self, o): return self._binary(o, np.divide)
    def __rtruediv__(self, o): return self._binary(o, lambda a, b: b / a)
    def __pow__(self, o): return self._binary(o, np.power)
    def __mod__(self, o): return self._binary(o, np.mod)
    def __gt__(self, o): return self._binary(o, np.greater)
    def __ge__(self, o): return self._binary(o, np.greater_equal)
    def __lt__(self, o): return self._binary(o, np.less)
    def __le__(self, o): return self._binary(o, np.less_equal)
    def __eq__(self, o): return self._binary(o, np.equal)
    def __ne__(self, o): return self._binary(o, np.not_equal)
    def __neg__(self): return Traced(-self._v)
    __hash__ = object.__hash__

    def reshape(self, shape=None, reverse=False, **kwargs):
        return Traced(npf.reshape(self._v, shape, reverse=reverse, **kwargs))

    def sum(self, axis=None, keepdims=False):
        return Traced(_keep_1d(np.sum(self._v, axis=axis, keepdims=keepdims)))


def _keep_1d(a):
    a = np.asarray(a)
    return a.reshape(1) if a.ndim == 0 else a


def _unwrap(value):
    if isinstance(value, Traced):
        return value._v
    if isinstance(value, Eager):
        return np.asarray(value)
    if isinstance(value, (list, tuple)):
        return type(value)(_unwrap(v) for v in value)
    return value


def _namespace(wrap):
    """npf's operators taking and returning `wrap`-kind values."""
    def lift(fn):
        @functools.wraps(fn)
        def op(*args, **kwargs):
            out = fn(*_unwrap(list(args)), **{k: _unwrap(v) for k, v in kwargs.items()})
            return wrap(_keep_1d(out))
        return op

    ns = types.SimpleNamespace()
    for name in dir(npf):
        value = getattr(npf, name)
        if callable(value) and not name.startswith("_") and getattr(value, "__module__", "") == npf.__name__:
            setattr(ns, name, lift(value))
    ns.contrib = types.SimpleNamespace(arange_like=lift(npf._arange_like))
    for name, fn in {"sum": lambda a, axis=None, keepdims=False: np.sum(a, axis=axis, keepdims=keepdims),
                     "max": lambda a, axis=None, keepdims=False: np.max(a, axis=axis, keepdims=keepdims),
                     "mean": lambda a, axis=None, keepdims=False: np.mean(a, axis=axis, keepdims=keepdims),
                     "exp": np.exp, "tanh": np.tanh, "abs": np.abs,
                     "sigmoid": lambda a: 1 / (1 + np.exp(-a))}.items():
        setattr(ns, name, lift(fn))
    return ns


EAGER = _namespace(lambda a: np.asarray(a).view(Eager))
TRACED = _namespace(Traced)


class HybridBlock:
    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args):  # eager call, as an unhybridized Gluon block
        return self.hybrid_forward(EAGER, *args)


@contextlib.contextmanager
def fake_mxnet():
    """`import mxnet` (and `mxnet.nd`, `mxnet.gluon.nn`) resolving to the NumPy stand-ins."""
    mx = types.ModuleType("mxnet")
    gluon = types.ModuleType("mxnet.gluon")
    nn = types.ModuleType("mxnet.gluon.nn")
    nn.HybridBlock = HybridBlock
    gluon.nn = nn
    gluon.HybridBlock = HybridBlock
    mx.gluon, mx.nd, mx.ndarray, mx.sym, mx.symbol = gluon, EAGER, EAGER, TRACED, TRACED
    mx.cpu = lambda *a: "cpu(0)"
    saved = {k: sys.modules.get(k) for k in ("mxnet", "mxnet.gluon", "mxnet.gluon.nn")}
    sys.modules.update({"mxnet": mx, "mxnet.gluon": gluon, "mxnet.gluon.nn": nn})
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                sys.modules.pop(key, None)
            else:
                sys.modules[key] = value


def build(source: str, build_expr: str = "Net()"):
    namespace: dict = {"__name__": "fixture"}
    with fake_mxnet():
        exec(compile(source, "<fixture>", "exec"), namespace)
        return eval(build_expr, namespace)


def run(source: str, inputs, *, hybridized: bool, build_expr: str = "Net()"):
    """The block's output as a NumPy array (a tuple of them for several outputs)."""
    block = build(source, build_expr)
    with fake_mxnet():
        if hybridized:
            out = block.hybrid_forward(TRACED, *[Traced(np.array(a)) for a in inputs])
        else:
            out = block.hybrid_forward(EAGER, *[np.array(a).view(Eager) for a in inputs])
    return _unwrap(out) if not isinstance(out, tuple) else tuple(_unwrap(o) for o in out)
