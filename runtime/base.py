"""MXNet's exception types, with MXNet's messages."""
from __future__ import annotations

import ctypes
import os

import numpy as np


def data_dir_default() -> str:
    """Where MXNet keeps downloaded models and data sets unless MXNET_HOME says otherwise."""
    if os.name == "nt":
        return os.path.join(os.environ.get("APPDATA", ""), "mxnet")
    return os.path.join(os.path.expanduser("~"), ".mxnet")


def data_dir() -> str:
    """MXNET_HOME, or the default: model zoos build their default `root=` arguments from it."""
    return os.getenv("MXNET_HOME", data_dir_default())


class MXNetError(RuntimeError):
    """An operator, shape or attribute error, as raised by MXNet's backend."""


class NotImplementedForSymbol(MXNetError):
    def __init__(self, function, alias=None, *args):
        super().__init__()
        self.function = function.__name__ if callable(function) else str(function)
        self.alias = alias
        self.args_types = tuple(type(a) for a in args)

    def __str__(self) -> str:
        message = "Function {}".format(self.function)
        if self.alias:
            message += ' (namely operator "{}")'.format(self.alias)
        if self.args_types:
            message += " with arguments ({})".format(", ".join(str(t) for t in self.args_types))
        return message + " is not implemented for Symbol and only available in NDArray."


class OperatorIndexError(IndexError):
    """An index out of bounds that MXNet's backend reports as Python's own IndexError (gather_nd)
    rather than as MXNetError: operators let it through as it is."""


class FailedValue:
    """What an executor's output holds after its operator failed in forward: MXNet runs a bound
    graph asynchronously and raises the operator's error where the output is read (asnumpy,
    wait_to_read), not in forward itself. Any use of the value raises that error."""
    __slots__ = ("error",)

    def __init__(self, error: Exception):
        self.error = error

    def __getattr__(self, name):
        raise self.error


def op_error(op: str, reason: str) -> MXNetError:
    return MXNetError("Error in operator {}: {}".format(op, reason))


# ---- the helpers of `mxnet.base` that user code imports
# MXNet's handle types: a monitor callback is handed an array as an NDArrayHandle, which
# NDArray(handle) turns back into the array (runtime.ndarray.handle_of)
NDArrayHandle = ctypes.c_void_p
SymbolHandle = ctypes.c_void_p

string_types = (str,)
mx_real_t = np.float32  # MXNet's default real type
integer_types = (int, np.integer)
numeric_types = (float, int, np.generic)
# the C API's handle types: names only (libraries import them; nothing here has a C handle)
NDArrayHandle = SymbolHandle = ctypes.c_void_p
py_str = lambda value: value.decode("utf-8") if isinstance(value, bytes) else value  # noqa: E731


def _as_list(obj):
    """A list as it is; anything else in a one-element list (MXNet's rule for "one or many")."""
    return obj if isinstance(obj, list) else [obj]


class classproperty:
    """A read-only property of the class itself."""

    def __init__(self, getter):
        self._getter = getter

    def __get__(self, instance, owner):
        return self._getter(owner)
