"""Small helpers to render libcst nodes to source and build nodes back from source text."""
from __future__ import annotations

from typing import Optional

import libcst as cst

_EMPTY = cst.Module(body=[])


def code(node: cst.CSTNode) -> str:
    """The source text of `node`, exactly as written (comments and spacing included)."""
    return _EMPTY.code_for_node(node)


def expr(text: str) -> Optional[cst.BaseExpression]:
    """Parse `text` as one expression; None when it is not valid Python."""
    try:
        return cst.parse_expression(text)
    except cst.ParserSyntaxError:
        return None


def int_value(node: cst.BaseExpression) -> Optional[int]:
    """The value of an integer literal (`3`, `-1`, `+2`, `(4)`), else None."""
    if isinstance(node, cst.Integer):
        return int(node.value, 0)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.expression, cst.Integer):
        inner = int_value(node.expression)
        if inner is None:
            return None
        if isinstance(node.operator, cst.Minus):
            return -inner
        if isinstance(node.operator, cst.Plus):
            return inner
    return None


def is_none(node: Optional[cst.BaseExpression]) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


def is_self_attribute(node: cst.BaseExpression) -> bool:
    """`self.x` or `self.x.y`: a Python value fixed when the block was built."""
    while isinstance(node, cst.Attribute):
        node = node.value
    return isinstance(node, cst.Name) and node.value == "self"


def tuple_text(items) -> str:
    """Python source of a tuple of already-rendered items: `(a,)`, `(a, b)`."""
    items = list(items)
    if len(items) == 1:
        return f"({items[0]},)"
    return "(" + ", ".join(items) + ")"
