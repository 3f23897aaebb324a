"""The deferred namespace (`runtime.sym`), generated from the same operator registry as `runtime.nd`."""
from __future__ import annotations

import types
from typing import Callable, Dict

from runtime import namespace
from runtime.namespace import operator_functions
from runtime.registry import REGISTRY
from runtime.symbol import Group, Symbol, Variable, compose, load, load_json, var

_FUNCTIONS: Dict[str, Callable] = {}


def function_for(name: str) -> Callable:
    found = _FUNCTIONS.get(name)
    if found is None:
        op = REGISTRY[name]

        def function(*args, **kwargs):
            return compose(op, name, args, kwargs)
        function.__name__ = name.rsplit(".", 1)[-1]
        function.__doc__ = "MXNet operator %s (symbolic)." % op.name
        found = _FUNCTIONS[name] = function
    return found


def _creation(op_name: str, hint: str):
    def function(shape=None, dtype=None, name=None, **kwargs):
        if shape is not None:
            kwargs["shape"] = shape
        if dtype is not None:
            kwargs["dtype"] = dtype
        kwargs.pop("ctx", None)
        return compose(REGISTRY[op_name], hint, (), dict(kwargs, name=name))
    return function


def full(shape, val, dtype=None, name=None, **kwargs):
    return _creation("_full", "_full")(shape, dtype, name, value=val)


def arange(start, stop=None, step=1.0, repeat=1, infer_range=False, name=None, dtype=None, **kwargs):
    return compose(REGISTRY["_arange"], "_arange", (), dict(start=start, stop=stop, step=step, repeat=repeat,
                                                            dtype=dtype or "float32", name=name))


def linspace(start, stop, num, endpoint=True, name=None, dtype=None, **kwargs):
    return compose(REGISTRY["_linspace"], "_linspace", (), dict(start=start, stop=stop, num=num, endpoint=endpoint,
                                                                dtype=dtype or "float32", name=name))


def eye(N, M=0, k=0, dtype=None, name=None, **kwargs):
    return compose(REGISTRY["_eye"], "_eye", (), dict(N=N, M=M, k=k, dtype=dtype or "float32", name=name))


def _binary_function(op: str, scalar_op: str, reverse_scalar_op: str = None):
    def function(lhs, rhs):
        if isinstance(lhs, Symbol) and isinstance(rhs, Symbol):
            return function_for(op)(lhs, rhs)
        if isinstance(lhs, Symbol):
            return function_for(scalar_op)(lhs, scalar=float(rhs))
        if isinstance(rhs, Symbol):
            return function_for(reverse_scalar_op or scalar_op)(rhs, scalar=float(lhs))
        raise TypeError("expected a Symbol operand")
    return function


def build_module(name: str) -> types.ModuleType:
    top, subs = operator_functions(function_for)
    namespace.add_composites(top, subs, function_for, eager=False)
    top.update({
        "var": var, "Variable": Variable, "Group": Group, "Symbol": Symbol, "load": load, "load_json": load_json,
        "zeros": _creation("_zeros", "_zeros"), "ones": _creation("_ones", "_ones"), "full": full,
        "arange": arange, "linspace": linspace, "eye": eye,
        "maximum": _binary_function("_Maximum", "_MaximumScalar"),
        "minimum": _binary_function("_Minimum", "_MinimumScalar"),
        "power": _binary_function("_Power", "_PowerScalar", "_RPowerScalar"),
        "pow": _binary_function("_Power", "_PowerScalar", "_RPowerScalar"),
    })
    from runtime import custom_op
    top["Custom"] = custom_op.symbolic  # operators written in Python (runtime.operator)
    from runtime import control_flow  # foreach, while_loop, cond: traced graphs run by one node
    subs["contrib"].update(control_flow.SYMBOLIC)
    from runtime.ops.sparse import namespace_functions
    subs["sparse"] = namespace_functions(function_for)
    return namespace.build_module(name, "MXNet-compatible deferred operators (Symbol).", top, subs)
