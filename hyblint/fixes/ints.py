"""Which expressions in a hybrid_forward are Python ints: index positions and slice bounds.

An index that could be a list (`idx = [0, 2]; x[idx]`) must not become a slice position, so only
what is an int by construction counts: literals, `self.*` attributes (fixed when the block was
built), `len(...)`/`int(...)`, arithmetic on those, and local names whose every binding is one of
them (including `for i in range(...)` and the dimensions unpacked from `x.shape`).
"""
from __future__ import annotations

from typing import Dict, List, Set

import libcst as cst

from hyblint.analysis.walk import visit_all
from hyblint.fixes._code import int_value, is_self_attribute

_INT_OPERATORS = (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide, cst.Modulo)
_INT_CALLS = {"len", "int", "abs", "min", "max", "round"}


def is_int_expression(node: cst.BaseExpression, names: Set[str]) -> bool:
    if int_value(node) is not None or is_self_attribute(node):
        return True
    if isinstance(node, cst.Name):
        return node.value in names
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        return is_int_expression(node.expression, names)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, _INT_OPERATORS):
        return is_int_expression(node.left, names) and is_int_expression(node.right, names)
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in _INT_CALLS:
        if node.func.value in ("len", "int"):
            return len(node.args) == 1 and not node.args[0].star
        return bool(node.args) and all(not a.star and is_int_expression(a.value, names) for a in node.args)
    return False


def _is_shape(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Attribute) and node.attr.value == "shape"


class _Bindings:
    """name -> the expressions bound to it (None for a binding that is not an int by form)."""

    def __init__(self) -> None:
        self.bound: Dict[str, List] = {}

    def _bind(self, target, value) -> None:
        if isinstance(target, cst.Name):
            self.bound.setdefault(target.value, []).append(value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            values = None
            if isinstance(value, (cst.Tuple, cst.List)) and len(value.elements) == len(target.elements):
                values = [e.value for e in value.elements]
            for index, element in enumerate(target.elements):
                if values is not None:
                    item = values[index]
                elif value is not None and _is_shape(value):
                    item = cst.Integer("1")  # a dimension of a shape: an int
                else:
                    item = None
                self._bind(element.value, item)
        elif isinstance(target, cst.StarredElement):
            self._bind(target.value, None)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._bind(target.target, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._bind(node.target, node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.operator, (cst.AddAssign, cst.SubtractAssign, cst.MultiplyAssign,
                                      cst.FloorDivideAssign, cst.ModuloAssign)):
            self._bind(node.target, node.value)
        else:
            self._bind(node.target, None)

    def visit_For(self, node: cst.For) -> None:
        it = node.iter
        if isinstance(it, cst.Call) and isinstance(it.func, cst.Name) and it.func.value == "range":
            self._bind(node.target, cst.Integer("0"))
        elif (isinstance(it, cst.Call) and isinstance(it.func, cst.Name) and it.func.value == "enumerate"
              and isinstance(node.target, cst.Tuple) and len(node.target.elements) == 2):
            self._bind(node.target.elements[0].value, cst.Integer("0"))
            self._bind(node.target.elements[1].value, None)
        else:
            self._bind(node.target, None)

    def _opaque(self, target) -> None:
        if target is not None:
            self._bind(target, None)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self._opaque(node.asname.name)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._opaque(node.target)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._bind(node.target, node.value)

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if node.name is not None:
            self._opaque(node.name.name)

    def visit_Param(self, node: cst.Param) -> None:
        self._bind(node.name, None)


def int_names(function: cst.FunctionDef) -> Set[str]:
    """Local names of `function` that hold a Python int wherever they are bound."""
    visitor = _Bindings()
    visit_all(function, visitor)
    names = {name for name, values in visitor.bound.items() if all(v is not None for v in values)}
    changed = True
    while changed:  # drop names bound from something that is not an int (given the others)
        changed = False
        for name in sorted(names):
            if not all(is_int_expression(v, names) for v in visitor.bound[name]):
                names.discard(name)
                changed = True
    return names


def int_test(rule):
    """`is_int(expr)` for the rule's current hybrid_forward (names computed once per function)."""
    cached = getattr(rule, "_int_names_cache", None)
    if cached is None or cached[0] is not rule.function:
        cached = (rule.function, int_names(rule.function))
        rule._int_names_cache = cached
    names = cached[1]
    return lambda expr: is_int_expression(expr, names)
