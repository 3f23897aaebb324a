"""What a value inside hybrid_forward is known to be: a small lattice, precision first."""
from __future__ import annotations

import enum


class Kind(enum.Enum):
    TENSOR = "tensor"        # an NDArray eagerly, a Symbol once hybridized
    GROUP = "group"          # several outputs of one op (F.split): integer indexing gives a tensor
    SEQUENCE = "sequence"    # a Python list/tuple argument (*args, RNN states): items may be anything
    MAYBE = "maybe"          # a child block's result or a list's item: a tensor, or a tuple of them
    NONE = "none"            # the literal None (an optional tensor argument left out)
    PYTHON = "python"        # numbers, strings, lists, self attributes, shapes
    UNKNOWN = "unknown"      # anything else: never reported


def join(a: Kind, b: Kind) -> Kind:
    """The kind of a name after two control-flow paths meet."""
    if a is b:
        return a
    if a is Kind.NONE:
        return b if b in (Kind.TENSOR, Kind.MAYBE) else Kind.UNKNOWN
    if b is Kind.NONE:
        return a if a in (Kind.TENSOR, Kind.MAYBE) else Kind.UNKNOWN
    if {a, b} == {Kind.TENSOR, Kind.MAYBE}:
        return Kind.MAYBE
    return Kind.UNKNOWN


def is_tensor(kind: Kind) -> bool:
    return kind is Kind.TENSOR


def may_be_tensor(kind: Kind) -> bool:
    """A tensor or a child block's result: for operations that no tuple supports either."""
    return kind in (Kind.TENSOR, Kind.MAYBE)
