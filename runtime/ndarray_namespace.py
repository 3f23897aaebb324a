"""The eager namespace (`runtime.nd`), generated from the operator registry."""
from __future__ import annotations

import functools
import types
from typing import Callable, Dict

import numpy as np

from runtime import autograd, namespace
from runtime import random as _random
from runtime.base import MXNetError
from runtime.ndarray import HELPERS, NDArray, _known_outputs, _own, invoke
from runtime.namespace import operator_functions
from runtime.registry import REGISTRY

_FUNCTIONS: Dict[str, Callable] = {}


def _default_kernel(op):
    """The kernel with its default attributes bound, for a one-input, one-output operator whose
    attributes all have defaults; None when calls must go through `invoke`."""
    if op.variadic or op.aux or op.wants_training or op.no_inputs or len(op.inputs) != 1 or op.check is not None:
        return None
    if any(a.required for a in op.attrs.values()):
        return None
    defaults = op.parse_attrs({})
    if op.visible(defaults) != 1 or op.outputs(defaults) != 1:
        return None
    return functools.partial(op.kernel, **defaults)


def _make(op, public_name: str) -> Callable:
    kernel = _default_kernel(op)

    def function(*args, **kwargs):
        # `nd.relu(x)`: the commonest call, without the general argument handling
        if kernel is not None and not kwargs and len(args) == 1 and type(args[0]) is NDArray \
                and not (autograd._state.recording and args[0]._entry is not None):
            data = args[0]._data
            try:
                result = kernel(data)
            except (ValueError, IndexError, TypeError, ZeroDivisionError) as exc:
                raise MXNetError("Error in operator %s: %s" % (op.name, exc)) from None
            if not result.size:
                _known_outputs(op, args, [result])
            return NDArray(_own(result, (data,)), args[0]._ctx)
        return invoke(op, args, kwargs, public_name)
    function.__name__ = public_name.rsplit(".", 1)[-1]
    function.__doc__ = "MXNet operator %s (eager)." % op.name
    return function


def function_for(name: str) -> Callable:
    found = _FUNCTIONS.get(name)
    if found is None:
        found = _FUNCTIONS[name] = _make(REGISTRY[name], name)
    return found


def _random_function(name, sampler, parameters=2, default_dtype="float32"):
    """A sampler with MXNet's signature: its distribution's parameters, then `shape`, each of which
    may be given by position (`nd.random.normal(0, 1, (2, 3))`)."""
    per_element = "_sample_" + name

    def function(*params, shape=None, ctx=None, dtype=None, out=None, **kwargs):
        if len(params) > parameters:  # MXNet's order after the parameters: shape, dtype, ctx
            if len(params) > parameters + 3:
                raise TypeError("%s takes at most %d positional arguments" % (function.__name__, parameters + 3))
            given = dict(zip(("shape", "dtype", "ctx"), params[parameters:]))
            for name, value in (("shape", shape), ("dtype", dtype), ("ctx", ctx)):
                if name in given and value is not None:
                    raise TypeError("%s got multiple values for argument '%s'" % (function.__name__, name))
            shape, dtype, ctx = given.get("shape", shape), given.get("dtype", dtype), given.get("ctx", ctx)
            params = params[:parameters]
        if isinstance(shape, int):
            shape = (shape,)
        names = sampler.__code__.co_varnames[:parameters]
        given = list(params) + [kwargs[n] for n in names[len(params):] if n in kwargs]
        if given and isinstance(given[0], NDArray) and per_element in REGISTRY:
            # arrays of parameters: `shape` samples per element (MXNet's _sample_normal...)
            params = given
            options = {k: v for k, v in kwargs.items() if k not in names}
            options["shape"] = shape or ()
            if dtype is not None:
                options["dtype"] = dtype
            if out is not None:
                options["out"] = out
            return function_for(per_element)(*params, **options)
        values = sampler(*params, size=(shape if shape is not None else ()) or None, **kwargs)
        result = NDArray(np.asarray(values, dtype=dtype or default_dtype).reshape(shape or (1,) if np.ndim(values) == 0
                                                                              else np.shape(values)), ctx)
        if out is not None:
            out[:] = result
            return out
        return result
    function.__name__ = name
    return function


def _randn(*shape, loc=0.0, scale=1.0, dtype=None, ctx=None, **kwargs):
    """`nd.random.randn(2, 3)`: normal samples with the shape given as separate integers (per
    element of loc and scale when they are arrays, as random.normal draws)."""
    if isinstance(loc, NDArray):
        return function_for("_sample_normal")(loc, scale, shape=shape, **(dict(kwargs, dtype=dtype) if dtype else kwargs))
    values = _random.generator().normal(loc, scale, size=shape or None)
    return NDArray(np.asarray(values, dtype=dtype or "float32").reshape(shape or (1,)), ctx)


def build_module(name: str) -> types.ModuleType:
    top, subs = operator_functions(function_for)
    namespace.add_composites(top, subs, function_for, eager=True)
    top.update(HELPERS)
    from runtime import custom_op
    top["Custom"] = custom_op.eager  # operators written in Python (runtime.operator)
    from runtime.adamw import FUNCTIONS as adamw_functions  # Python front-end functions in MXNet too
    subs["contrib"].update(adamw_functions)
    from runtime import control_flow  # foreach, while_loop, cond: Python loops and branches eagerly
    subs["contrib"].update(control_flow.EAGER)
    from runtime.cached_op import CachedOp
    top["CachedOp"] = CachedOp
    from runtime import dlpack
    top.update(to_dlpack_for_read=dlpack.to_dlpack_for_read, to_dlpack_for_write=dlpack.to_dlpack_for_write,
               from_dlpack=dlpack.from_dlpack)
    subs["random"].update({
        "uniform": _random_function(
            "uniform", lambda low=0.0, high=1.0, size=None: _random.generator().uniform(low, high, size)),
        "normal": _random_function(
            "normal", lambda loc=0.0, scale=1.0, size=None: _random.generator().normal(loc, scale, size)),
        "randint": _random_function(
            "randint", lambda low, high, size=None: _random.generator().integers(low, high, size),
            default_dtype="int32"),
        "seed": _random.seed,
        "randn": _randn,
    })
    # MXNet 1.x also offers the samplers at the top of `nd` (`nd.uniform(shape=(2, 3))`)
    for alias in ("uniform", "normal"):
        top.setdefault(alias, subs["random"][alias])
    return namespace.build_module(name, "MXNet-compatible eager operators (NDArray).", top, subs)
