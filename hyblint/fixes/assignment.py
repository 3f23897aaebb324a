"""HYB005's rewrites: item assignment as rebinding or F.where with a shape-free mask."""
from __future__ import annotations

from typing import Optional

import libcst as cst

from hyblint.analysis.freshness import is_fresh
from hyblint.analysis.walk import visit_all
from hyblint.diagnostics import Applicability
from hyblint.fixes._code import fix_or_none, int_value, keeps_comments, render
from hyblint.fixes.assign import rewrite_item_assignment
from hyblint.rules.base import CstFix


def _is_number(expr: cst.BaseExpression, rule) -> bool:
    from hyblint.analysis.kinds import Kind
    if int_value(expr) is not None or isinstance(expr, cst.Float):
        return True
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.expression, cst.Float):
        return True
    if isinstance(expr, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.List,
                         cst.Tuple, cst.Dict, cst.Set)):
        return False
    return rule.kind(expr) is Kind.PYTHON


def observable_outside(name: str, rule) -> bool:
    """Whether rebinding `name` instead of writing into its tensor changes what someone else sees:
    a hybrid_forward argument (the caller holds the same NDArray), or a tensor that another name,
    a container or an attribute also refers to."""
    return name in _arguments(rule.function) or aliased(name, rule)


def aliased(name: str, rule) -> bool:
    """Whether another name, a container or a list append also refers to `name`'s array in the
    current hybrid_forward (`y = x`, `outs.append(x)`): an in-place write shows through those."""
    return name in _aliased_names(rule.function)


# The aliased names of the function last asked about: a fix asks once per diagnostic, and walking
# the body each time made a method with many fixes quadratic.
_ALIASED: list = [None, frozenset()]


def _aliased_names(function: cst.FunctionDef) -> frozenset:
    if _ALIASED[0] is function:
        return _ALIASED[1]
    names: set = set()

    class Aliases:
        def visit_Assign(self, node: cst.Assign) -> None:
            _referred(node.value, names)
            if isinstance(node.value, cst.Name):  # `y = x`: both names now hold one array
                for target in node.targets:
                    _referred(target.target, names)

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            if node.value is not None:
                _referred(node.value, names)

        def visit_Call(self, node: cst.Call) -> None:
            func = node.func
            # list.append(x) / outs.extend([x]) keep a reference
            if isinstance(func, cst.Attribute) and func.attr.value in ("append", "extend", "insert"):
                for arg in node.args:
                    _referred(arg.value, names)

    visit_all(function.body, Aliases())
    _ALIASED[:] = [function, frozenset(names)]
    return _ALIASED[1]


def _referred(value: cst.BaseExpression, names: set) -> None:
    """Add the names whose arrays `value` holds: itself, or the elements of a literal container."""
    if isinstance(value, cst.Name):
        names.add(value.value)
    elif isinstance(value, (cst.Tuple, cst.List, cst.Set)):
        for element in value.elements:
            _referred(element.value, names)
    elif isinstance(value, cst.Dict):
        for element in value.elements:
            if isinstance(element, cst.DictElement):
                _referred(element.value, names)


def _arguments(function: cst.FunctionDef) -> set:
    params = function.params
    names = {p.name.value for p in list(params.posonly_params) + list(params.params)
             + list(params.kwonly_params)}
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            names.add(star.name.value)
    return names


def _may_broadcast(node: cst.Assign, name: str, rule) -> bool:
    """`x[:] = e` broadcasts `e` into x's shape; `x = e` keeps e's. They agree when `e` is
    elementwise arithmetic with `x` itself as an operand (its shape is then at least x's, and
    an assignment only accepts exactly x's)."""
    value = node.value
    parts = [element.slice for element in node.targets[0].target.slice]
    if not all(isinstance(p, cst.Slice) or isinstance(getattr(p, "value", None), cst.Ellipsis)
               for p in parts) or not rule.is_tensor(value):
        return False  # a number, or a where-mask rewrite: shapes are kept by construction
    if isinstance(value, cst.BinaryOperation):
        return not any(isinstance(side, cst.Name) and side.value == name for side in (value.left, value.right))
    return not _elementwise_of(value, name, rule.F)


# Operators whose result has exactly the shape of their first argument.
_SHAPE_KEEPING = frozenset({"relu", "sigmoid", "tanh", "exp", "log", "abs", "sqrt", "square", "negative",
                            "sign", "floor", "ceil", "round", "softsign", "erf", "reciprocal", "clip",
                            "Activation", "LeakyReLU", "softmax", "log_softmax", "zeros_like", "ones_like"})


def _elementwise_of(value: cst.BaseExpression, name: str, F: str) -> bool:
    """`F.relu(x)`, `F.clip(x, 0, 1)`: a shape-keeping operator applied to `x` itself."""
    if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.args
            and isinstance(value.func.value, cst.Name) and value.func.value.value == F
            and value.func.attr.value in _SHAPE_KEEPING):
        return False
    first = value.args[0]
    return first.keyword is None and not first.star and isinstance(first.value, cst.Name) \
        and first.value.value == name


@fix_or_none
def item_assignment_fix(node: cst.Assign, target: cst.Subscript, rule) -> Optional[CstFix]:
    from hyblint.fixes._code import indented_like
    with indented_like(rule.module, node):
        new = rewrite_item_assignment(node, rule.F, is_scalar=lambda e: _is_number(e, rule),
                                      is_tensor=rule.is_tensor)
    if new is None:
        return None
    rendered = render(new, module=rule.module)
    if not keeps_comments(node, rendered):
        return None
    name = target.value.value
    # a fresh tensor (an operator's result nobody else holds) makes rebinding unobservable
    hidden = is_fresh(name, node, rule.function, rule.F, rule.is_tensor) or not observable_outside(name, rule)
    unsafe = not hidden or _may_broadcast(node, name, rule)
    message = "Rebind `%s` to a new tensor" % name
    if "where(" in rule.code_of(new):
        message = "Rebind `%s` with %s.where over the assigned rows" % (name, rule.F)
    # as text: it already reads as it will in its block (see fixes._code)
    return CstFix(((node, rendered),), message, Applicability.UNSAFE if unsafe else Applicability.SAFE)
