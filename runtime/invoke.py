"""How a Python call of an operator maps onto its declaration: inputs, then attributes.

MXNet's generated functions take the inputs first (positionally or by name), then the attributes
in declaration order, positionally or by keyword. The same rules serve NDArray and Symbol calls.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Tuple

from runtime.base import MXNetError
from runtime.registry import OpDef

_RESERVED = ("out", "name", "attr")


def split_arguments(op: OpDef, args: Tuple, kwargs: Dict[str, Any], is_array: Callable[[Any], bool]):
    """(inputs by position, attribute values by name) from a Python call."""
    kwargs = dict(kwargs)
    if op.variadic:
        inputs: List[Any] = []
        rest = []
        for value in args:
            if is_array(value):
                inputs.append(value)
            elif isinstance(value, (list, tuple)) and value and all(is_array(v) for v in value):
                inputs.extend(value)
            else:
                rest.append(value)
        kwargs.setdefault("num_args", len(inputs))
        return inputs, _positional_attrs(op, rest, kwargs, skip=("num_args",))
    names = list(op.inputs)
    inputs = [None] * len(names)
    position = 0
    leftover = []
    for value in args:
        if position < len(names) and (is_array(value) or value is None) and not leftover:
            inputs[position] = value
            position += 1
        else:
            leftover.append(value)
    for index, input_name in enumerate(names):
        if input_name in kwargs:
            inputs[index] = kwargs.pop(input_name)
    attrs = _positional_attrs(op, leftover, kwargs)
    return inputs, attrs


def _positional_attrs(op: OpDef, values, kwargs, skip=()):
    order = [name for name in op.attrs if name not in skip]
    if len(values) > len(order):
        raise MXNetError("Operator %s takes at most %d positional attributes, got %d" % (op.name, len(order), len(values)))
    for name, value in zip(order, values):
        if name in kwargs:
            raise MXNetError("Operator %s got attribute %s twice" % (op.name, name))
        kwargs[name] = value
    return {k: v for k, v in kwargs.items() if k not in _RESERVED}


def present_inputs(op: OpDef, inputs: List[Optional[Any]], attrs: Dict) -> List[Tuple[str, Optional[Any]]]:
    """(input name, value or None) for the inputs this call of the operator uses."""
    if op.variadic:
        return [("arg%d" % i, v) for i, v in enumerate(inputs)]
    wanted = op.input_names(attrs)
    return [(name, inputs[op.inputs.index(name)]) for name in wanted]
