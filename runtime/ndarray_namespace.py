"""The eager namespace (`runtime.nd`), generated from the operator registry."""
from __future__ import annotations

import types
from typing import Callable, Dict

import numpy as np

from runtime import namespace
from runtime import random as _random
from runtime.ndarray import HELPERS, NDArray, invoke
from runtime.namespace import operator_functions
from runtime.registry import REGISTRY

_FUNCTIONS: Dict[str, Callable] = {}


def _make(op, public_name: str) -> Callable:
    def function(*args, **kwargs):
        return invoke(op, args, kwargs, public_name)
    function.__name__ = public_name.rsplit(".", 1)[-1]
    function.__doc__ = "MXNet operator %s (eager)." % op.name
    return function


def function_for(name: str) -> Callable:
    found = _FUNCTIONS.get(name)
    if found is None:
        found = _FUNCTIONS[name] = _make(REGISTRY[name], name)
    return found


def _random_function(sampler):
    def function(*params, shape=None, ctx=None, dtype=None, out=None, **kwargs):
        values = sampler(*params, size=(shape if shape is not None else ()) or None, **kwargs)
        result = NDArray(np.asarray(values, dtype=dtype or "float32").reshape(shape or (1,) if np.ndim(values) == 0
                                                                              else np.shape(values)), ctx)
        if out is not None:
            out[:] = result
            return out
        return result
    return function


def build_module(name: str) -> types.ModuleType:
    top, subs = operator_functions(function_for)
    top.update(HELPERS)
    subs["random"].update({
        "uniform": _random_function(lambda low=0.0, high=1.0, size=None: _random.generator().uniform(low, high, size)),
        "normal": _random_function(lambda loc=0.0, scale=1.0, size=None: _random.generator().normal(loc, scale, size)),
        "randint": _random_function(lambda low, high, size=None: _random.generator().integers(low, high, size)),
        "seed": _random.seed,
    })
    return namespace.build_module(name, "MXNet-compatible eager operators (NDArray).", top, subs)
