"""MXNet's exception types, with MXNet's messages."""
from __future__ import annotations


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


def op_error(op: str, reason: str) -> MXNetError:
    return MXNetError("Error in operator {}: {}".format(op, reason))
