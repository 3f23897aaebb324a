"""The eager namespace (`runtime.nd`), generated from the operator registry."""
from __future__ import annotations

import types
from typing import Callable, Dict

import numpy as np

from runtime import random as _random
from runtime.ndarray import HELPERS, NDArray, invoke
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


def split_v2(ary, indices_or_sections, axis=0, squeeze_axis=False):
    if isinstance(indices_or_sections, int):
        return function_for("_split_v2")(ary, axis=axis, squeeze_axis=squeeze_axis, sections=indices_or_sections)
    return function_for("_split_v2")(ary, indices=(0,) + tuple(indices_or_sections), axis=axis,
                                     squeeze_axis=squeeze_axis)


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


def namespaces():
    """(top-level functions, {sub-namespace: functions}) for every registered name."""
    top: Dict[str, Callable] = {}
    subs: Dict[str, Dict[str, Callable]] = {"contrib": {}, "linalg": {}, "random": {}, "image": {}, "op": {}}
    for name in REGISTRY:
        if name.startswith(("_contrib_", "contrib.")):
            subs["contrib"][name.split(".", 1)[1] if "." in name else name[len("_contrib_"):]] = function_for(name)
        elif name.startswith(("_linalg_", "linalg.", "linalg_")):
            subs["linalg"][name.split(".", 1)[1] if "." in name else name.split("_", 2)[-1]] = function_for(name)
        if "." not in name:
            top[name] = function_for(name)
    top.update(HELPERS)
    top["split_v2"] = split_v2
    subs["random"].update({
        "uniform": _random_function(lambda low=0.0, high=1.0, size=None: _random.generator().uniform(low, high, size)),
        "normal": _random_function(lambda loc=0.0, scale=1.0, size=None: _random.generator().normal(loc, scale, size)),
        "randint": _random_function(lambda low, high, size=None: _random.generator().integers(low, high, size)),
        "seed": _random.seed,
    })
    subs["op"].update(top)
    return top, subs


def build_module(name: str) -> types.ModuleType:
    module = types.ModuleType(name, "MXNet-compatible eager operators (NDArray).")
    top, subs = namespaces()
    module.__dict__.update(top)
    for sub, functions in subs.items():
        child = types.ModuleType(name + "." + sub)
        child.__dict__.update(functions)
        setattr(module, sub, child)
    return module
