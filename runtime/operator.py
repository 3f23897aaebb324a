"""`mxnet.operator`: operators written in Python (CustomOp / CustomOpProp), registered by name with
`register` and called as `nd.Custom(..., op_type=name)` or `sym.Custom(..., op_type=name)`."""
from __future__ import annotations

import ctypes  # noqa: F401  (MXNet's module offers ctypes and NDArrayHandle to `from mxnet.operator import *`)
import warnings
from collections import namedtuple
from typing import Dict, Type

from runtime.base import MXNetError, NDArrayHandle, py_str  # noqa: F401

_PROPS: Dict[str, Type["CustomOpProp"]] = {}


class CustomOp:
    """The computation: forward fills out_data, backward fills in_grad, each through `assign`."""

    def forward(self, is_train, req, in_data, out_data, aux):
        raise NotImplementedError("forward")

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        raise NotImplementedError("backward")

    def assign(self, dst, req, src):
        """Write src into dst as the request says: 'write'/'inplace' replace, 'add' accumulates, 'null' skips."""
        if req == "null":
            return
        if req in ("write", "inplace"):
            dst[:] = src
        elif req == "add":
            dst[:] = dst + src
        else:
            raise MXNetError("unknown request %r" % (req,))


class CustomOpProp:
    """The description: argument and output names, shape and type inference, and the operator."""

    def __init__(self, need_top_grad=True):
        self.need_top_grad_ = need_top_grad

    def infer_shape(self, in_shape):
        return in_shape, (in_shape[0],) * len(self.list_outputs()), ()

    def infer_type(self, in_type):
        return in_type, [in_type[0]] * len(self.list_outputs()), [in_type[0]] * len(self.list_auxiliary_states())

    def infer_storage_type(self, in_stype):
        return in_stype, ["default"] * len(self.list_outputs()), ["default"] * len(self.list_auxiliary_states())

    def list_outputs(self):
        return ["output"]

    def list_arguments(self):
        return ["data"]

    def list_auxiliary_states(self):
        return []

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        deps = list(out_grad) if self.need_top_grad_ else []
        return deps + list(in_data) + list(out_data)

    def create_operator(self, ctx, in_shapes, in_dtypes):
        return CustomOp()


class PythonOp:
    """MXNet's deprecated base of NumpyOp and NDArrayOp: forward, backward, infer_shape, list_arguments
    and list_outputs on one object, whose get_symbol puts it in a graph (node hint `_native`)."""

    def __init__(self, need_top_grad=True):
        self.need_top_grad_ = need_top_grad
        warnings.warn("PythonOp has been deprecated. Please use CustomOp")

    def __call__(self, *args, **kwargs):
        return self.get_symbol(*args, **kwargs)

    def get_symbol(self, *args, **kwargs):
        from runtime.custom_op import symbolic
        op_type = "_python_op_%d" % id(self)
        if op_type not in _PROPS:
            _PROPS[op_type] = _python_op_prop(self)
        return symbolic(*args, op_type=op_type, public_name="_Native", **kwargs)

    def forward(self, in_data, out_data):
        out_data[0][:] = in_data[0]

    def backward(self, out_grad, in_data, out_data, in_grad):
        in_grad[0][:] = 1.0

    def infer_shape(self, in_shape):
        return in_shape, [in_shape[0]]

    def list_outputs(self):
        return ["output"]

    def list_arguments(self):
        return ["data"]

    def need_top_grad(self):
        return self.need_top_grad_

    _hands_numpy = False  # NumpyOp: forward and backward get NumPy arrays to write into


class NumpyOp(PythonOp):
    """A PythonOp whose forward and backward read and write NumPy arrays."""
    _hands_numpy = True

    def __init__(self, need_top_grad=True):
        super().__init__(need_top_grad)
        warnings.warn("NumpyOp has been deprecated. Please use CustomOp")


class NDArrayOp(PythonOp):
    """A PythonOp whose forward and backward read and write NDArrays."""

    def __init__(self, need_top_grad=True):
        super().__init__(need_top_grad)
        warnings.warn("NDArrayOp has been deprecated. Please use CustomOp")


def _python_op_prop(python_op: PythonOp):
    """A CustomOpProp class running a PythonOp (the Custom machinery does the rest)."""
    def handed(arrays):
        return [a.asnumpy() for a in arrays] if python_op._hands_numpy else list(arrays)

    class Running(CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            outs = handed(out_data)
            python_op.forward(in_data=handed(in_data), out_data=outs)
            for dst, r, src in zip(out_data, req, outs):
                self.assign(dst, r, src)

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            grads = handed(in_grad)
            python_op.backward(out_grad=handed(out_grad), in_data=handed(in_data), out_data=handed(out_data),
                               in_grad=grads)
            for dst, r, src in zip(in_grad, req, grads):
                self.assign(dst, r, src)

    class Prop(CustomOpProp):
        def __init__(self):
            super().__init__(python_op.need_top_grad())

        def list_arguments(self):
            return python_op.list_arguments()

        def list_outputs(self):
            return python_op.list_outputs()

        def infer_shape(self, in_shape):
            ishape, oshape = python_op.infer_shape(in_shape)
            return ishape, oshape, []

        def create_operator(self, ctx, shapes, dtypes):
            return Running()
    return Prop


def register(reg_name: str):
    """Class decorator: make a CustomOpProp subclass callable as op_type=reg_name."""
    def do_register(prop_cls):
        _PROPS[reg_name] = prop_cls
        return prop_cls
    return do_register


def get_all_registered_operators():
    """The names of the built-in operators, aliases included (MXNet lists its C++ registry)."""
    from runtime.registry import public_names
    return sorted(public_names())


OperatorArguments = namedtuple("OperatorArguments", ["narg", "names", "types"])


def get_operator_arguments(op_name: str) -> OperatorArguments:
    """The operator's inputs then its parameters, with MXNet's words for their types."""
    from runtime.registry import get
    op = get(op_name)
    inputs = [] if op.no_inputs or op.variadic else list(op.inputs)
    names = inputs + list(op.attrs)
    types = ["NDArray-or-Symbol"] * len(inputs) + [a.describe() for a in op.attrs.values()]
    if op.variadic:
        names, types = ["data"] + names, ["NDArray-or-Symbol[]"] + types
    return OperatorArguments(len(names), names, types)


def prop_class(op_type: str) -> Type[CustomOpProp]:
    try:
        return _PROPS[op_type]
    except KeyError:
        raise MXNetError("Cannot find custom operator %s" % op_type) from None
