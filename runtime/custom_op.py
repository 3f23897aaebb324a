"""`nd.Custom` / `sym.Custom`: an operator written in Python (runtime.operator.CustomOpProp,
registered by name) becomes a declaration like the built-in ones, one per op_type and set of
keyword arguments, so that the eager path, graphs, autograd and executors run it unchanged.

As in MXNet, the property class is built with the keyword arguments as strings; its
list_arguments / list_auxiliary_states / list_outputs name the inputs, auxiliary states and
outputs; infer_shape and infer_type decide the outputs; create_operator gives the CustomOp whose
forward and backward write through `assign` into the NDArrays they are handed."""
from __future__ import annotations

from typing import Dict, Tuple

import numpy as np

from runtime.base import MXNetError
from runtime.registry import Attr, OpDef, str_

_DEFS: Dict[Tuple, OpDef] = {}


def custom_def(op_type, kwargs) -> OpDef:
    """The declaration for this op_type with these (string) keyword arguments."""
    from runtime.operator import prop_class
    if op_type is None:
        raise MXNetError("Required parameter op_type of Custom is not presented")
    params = {k: str(v) for k, v in kwargs.items()}
    key = (op_type, tuple(sorted(params.items())))
    found = _DEFS.get(key)
    if found is None:
        prop = prop_class(op_type)(**params)
        found = _DEFS[key] = _declaration(op_type, prop, params)
    return found


def _declaration(op_type, prop, params) -> OpDef:
    arguments = list(prop.list_arguments())
    aux_names = list(prop.list_auxiliary_states())
    outputs = list(prop.list_outputs())
    n_args = len(arguments)

    def shapes(in_shapes, attrs):
        given = [list(s) if s is not None else None for s in in_shapes]
        inferred = list(prop.infer_shape(given[:n_args]))
        arg_shapes, out_shapes = inferred[0], inferred[1]
        aux_shapes = inferred[2] if len(inferred) > 2 else []
        completed = [tuple(s) if s is not None else None for s in list(arg_shapes) + list(aux_shapes)]
        return completed, [tuple(s) if s is not None else None for s in out_shapes]

    def types(in_dtypes, attrs, names):
        known = [np.dtype(d).type if d is not None else None for d in in_dtypes[:n_args]]
        if n_args and known[0] is None:
            return in_dtypes, [None] * len(outputs)
        result = prop.infer_type(known)
        arg_types, out_types = result[0], result[1]
        aux_types = result[2] if len(result) > 2 else []
        return ([np.dtype(t).name for t in list(arg_types) + list(aux_types)],
                [np.dtype(t).name for t in out_types])

    def kernel(*arrays, is_train=False, **attrs):
        from runtime.ndarray import NDArray
        in_shapes = [a.shape for a in arrays]
        in_dtypes = [a.dtype for a in arrays]
        _, out_shapes = shapes(in_shapes, attrs)
        _, out_types = types([a.dtype.name for a in arrays], attrs, None)
        operator = prop.create_operator(None, in_shapes[:n_args], in_dtypes[:n_args])
        in_data = [NDArray(a) for a in arrays[:n_args]]
        aux = [NDArray(a) for a in arrays[n_args:]]
        out_data = [NDArray(np.zeros(s, t or np.float32)) for s, t in zip(out_shapes, out_types)]
        _run_python(operator.forward, is_train, ["write"] * len(out_data), in_data, out_data, aux)
        return tuple(o._data for o in out_data)

    def gradient(inputs, results, out_grads, is_train=True, **attrs):
        from runtime.ndarray import NDArray
        operator = prop.create_operator(None, [a.shape for a in inputs[:n_args]],
                                        [a.dtype for a in inputs[:n_args]])
        in_grad = [NDArray(np.zeros(a.shape, a.dtype)) for a in inputs[:n_args]]
        _run_python(operator.backward, ["write"] * n_args, [NDArray(g) for g in out_grads],
                    [NDArray(a) for a in inputs[:n_args]], [NDArray(r) for r in results], in_grad,
                    [NDArray(a) for a in inputs[n_args:]])
        return [g._data for g in in_grad] + [None] * len(aux_names)

    op = OpDef(name="Custom", inputs=tuple(arguments + aux_names),
               attrs={name: Attr(name, str_, None) for name in ["op_type"] + list(params)},
               kernel=kernel, infer=shapes, num_outputs=len(outputs), aux=tuple(aux_names),
               wants_training=True, types=types, output_names=tuple(outputs), gradient=gradient,
               no_inputs=not arguments)
    op.custom_params = dict(params, op_type=op_type)
    return op


def _run_python(method, *args):
    """Call the user's forward or backward: whatever it raises reaches the caller as an MXNetError."""
    try:
        method(*args)
    except MXNetError:
        raise
    except Exception as exc:  # noqa: BLE001  (user code: MXNet reports any failure as its own error)
        raise MXNetError("Error in operator Custom: %s: %s" % (type(exc).__name__, exc)) from exc


def eager(*args, op_type=None, **kwargs):
    from runtime.ndarray import invoke
    params = {k: v for k, v in kwargs.items() if k not in ("out", "name", "attr") and not _is_array(v)}
    op = custom_def(op_type, params)
    return invoke(op, args, dict(kwargs, op_type=op_type), "Custom")


def symbolic(*args, op_type=None, public_name="Custom", **kwargs):
    from runtime.symbol import Symbol, compose
    params = {k: v for k, v in kwargs.items() if k not in ("name", "attr") and not isinstance(v, Symbol)}
    op = custom_def(op_type, params)
    return compose(op, public_name, args, dict(kwargs, op_type=op_type))


def _is_array(value) -> bool:
    from runtime.ndarray import NDArray
    return isinstance(value, NDArray)
