"""Source text of an expression used as an operand of a new binary operation."""
from __future__ import annotations

import libcst as cst

from hyblint.fixes._code import code

_ATOMS = (cst.Name, cst.Attribute, cst.Subscript, cst.Call, cst.Integer, cst.Float,
          cst.SimpleString, cst.ConcatenatedString, cst.Imaginary)


def operand(node: cst.BaseExpression) -> str:
    """Source of `node`, parenthesized unless it is an atom or already in parentheses."""
    text = code(node).strip()
    if isinstance(node, _ATOMS) or node.lpar:
        return text
    if isinstance(node, cst.UnaryOperation) and isinstance(node.expression, (cst.Integer, cst.Float)):
        return text  # `x * -1.5` needs no parentheses
    return f"({text})"
