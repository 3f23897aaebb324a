"""Rewrite item assignment (`x[:] = e`, `x[i] = v`, `x[a:b] = v`) and an if/else that assigns
one name into plain assignments with `F.where`.

The `F.where` masks are built from `F.contrib.arange_like(x, axis=0)`, so no shape is read and
no slice can come out empty (an empty `F.slice_axis` is an error in MXNet). `F.where` accepts a
1-D condition as long as the first axis, which selects whole rows: exactly axis-0 assignment.
Negative positions count from the end through the reversed positions (`n-1, ..., 0`).
"""
from __future__ import annotations

from typing import Callable, Optional

import libcst as cst

from hyblint.analysis.walk import visit_all
from hyblint.fixes._code import code, int_value, is_none
from hyblint.fixes.operators import operand

IsScalar = Callable[[cst.BaseExpression], bool]


def _statement(text: str) -> Optional[cst.BaseSmallStatement]:
    try:
        return cst.parse_statement(text).body[0]
    except cst.ParserSyntaxError:
        return None


def _single_target(node: cst.Assign) -> Optional[cst.Subscript]:
    if len(node.targets) != 1 or not isinstance(node.targets[0].target, cst.Subscript):
        return None
    target = node.targets[0].target
    if not isinstance(target.value, cst.Name):
        return None
    return target


def _is_full(part) -> bool:
    if isinstance(part, cst.Slice):
        return all(b is None or is_none(b) for b in (part.lower, part.upper, part.step))
    return isinstance(part.value, cst.Ellipsis)


def _positions(F: str, name: str, lower: Optional[int], upper: Optional[int],
               axis: int = 0) -> Optional[str]:
    """A 1-D 0/1 condition over `axis` of `name`, true on positions lower..upper-1."""
    forward = f"{F}.contrib.arange_like({name}, axis={axis})"
    backward = f"{F}.reverse({forward}, axis=0)"  # n-1 ... 0: position -k has value k-1
    if lower is not None and (upper == lower + 1 or (lower == -1 and upper is None)):
        if lower >= 0:
            return f"{forward} == {lower}"
        return f"{backward} == {-lower - 1}"
    tests = []
    for bound, op in ((lower, ">="), (upper, "<")):
        if bound is None or (bound == 0 and op == ">="):
            continue
        if bound >= 0:
            tests.append(f"({forward} {op} {bound})")
        else:
            flipped = "<=" if op == ">=" else ">"
            tests.append(f"({backward} {flipped} {-bound - 1})")
    if not tests:
        return None
    return " * ".join(tests)


def rewrite_item_assignment(node: cst.Assign, F: str, *, is_scalar: IsScalar,
                            is_tensor: Callable[[cst.BaseExpression], bool]
                            ) -> Optional[cst.BaseSmallStatement]:
    """`x[:] = e` -> `x = e` (e a tensor) or `x = F.ones_like(x) * v` (v a number);
    `x[i] = v` / `x[a:b] = v` (int literals, number v) ->
    `x = F.where(<rows>, F.ones_like(x) * v, x)`; on another axis (`x[:, i] = v`) the same
    between two `F.swapaxes`."""
    target = _single_target(node)
    if target is None:
        return None
    name = target.value.value
    value = node.value
    parts = [element.slice for element in target.slice]
    if any(isinstance(p, cst.Index) and p.star for p in parts):
        return None
    if all(_is_full(p) for p in parts):
        if is_tensor(value):
            return _statement(f"{name} = {code(value).strip()}")
        if is_scalar(value):
            return _statement(f"{name} = {F}.ones_like({name}) * {operand(value)}")
        return None
    if not is_scalar(value):
        return None
    # one position or slice on axis k, every other axis whole: `x[:, 2] = v`, `x[1:3, ...] = v`
    selective = [i for i, p in enumerate(parts) if not _is_full(p)]
    if len(selective) != 1 or any(isinstance(p, cst.Index) for p in parts[:selective[0]]):
        return None
    axis = selective[0]
    part = parts[axis]
    if isinstance(part, cst.Slice):
        if part.step is not None and not is_none(part.step) and int_value(part.step) != 1:
            return None
        bounds = []
        for bound in (part.lower, part.upper):
            if bound is None or is_none(bound):
                bounds.append(None)
            elif int_value(bound) is not None:
                bounds.append(int_value(bound))
            else:
                return None
        lower, upper = bounds
        if lower is not None and upper is not None and (lower < 0) != (upper < 0):
            return None  # mixed signs need the length to compare
    else:
        index = int_value(part.value)
        if index is None:
            return None
        lower, upper = index, (None if index == -1 else index + 1)
    condition = _positions(F, name, lower, upper, axis)
    if condition is None:
        return None
    if axis == 0:
        filled = f"{F}.ones_like({name}) * {operand(value)}"
        return _statement(f"{name} = {F}.where({condition}, {filled}, {name})")
    # F.where selects along the first axis only: bring axis k there and back
    swapped = f"{F}.swapaxes({name}, dim1=0, dim2={axis})"
    selected = f"{F}.where({condition}, {F}.ones_like({swapped}) * {operand(value)}, {swapped})"
    return _statement(f"{name} = {F}.swapaxes({selected}, dim1=0, dim2={axis})")


PURE_CALL_ROOTS = ("F",)


_IMPURE_METHODS = {"attach_grad", "wait_to_read", "copyto", "backward", "detach"}


def is_pure(node: cst.CSTNode, F: str,
            is_tensor: Callable[[cst.BaseExpression], bool] = lambda node: False) -> bool:
    """No call other than `F.*` operators and tensor methods, no walrus, no lambda, no
    await/yield: evaluating it when the original would not have changes nothing but time."""
    ok = True

    class Visitor:
        def visit_Call(self, call: cst.Call) -> None:
            nonlocal ok
            func = call.func
            if (isinstance(func, cst.Attribute) and is_tensor(func.value)
                    and not func.attr.value.endswith("_")
                    and func.attr.value not in _IMPURE_METHODS):
                return
            while isinstance(func, cst.Attribute):
                func = func.value
            if not (isinstance(func, cst.Name) and func.value == F):
                ok = False

        def visit_NamedExpr(self, _node) -> None:
            nonlocal ok
            ok = False

        def visit_Await(self, _node) -> None:
            nonlocal ok
            ok = False

        def visit_Yield(self, _node) -> None:
            nonlocal ok
            ok = False

        def visit_Lambda(self, _node) -> None:
            nonlocal ok
            ok = False

    visit_all(node, Visitor())
    return ok


def _only_assign(block: cst.BaseSuite) -> Optional[cst.Assign]:
    if not isinstance(block, cst.IndentedBlock) or len(block.body) != 1:
        return None
    line = block.body[0]
    if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
        return None
    assign = line.body[0]
    if (not isinstance(assign, cst.Assign) or len(assign.targets) != 1
            or not isinstance(assign.targets[0].target, cst.Name)):
        return None
    return assign


def rewrite_if_to_where(node: cst.If, F: str, *, is_tensor: Callable[[cst.BaseExpression], bool],
                        is_scalar: IsScalar) -> Optional[cst.SimpleStatementLine]:
    """`if c: y = a` / `else: y = b` (c a tensor, a and b pure) ->
    `y = F.where(F.broadcast_mul(c, F.ones_like(a)), a, b)`; the condition is broadcast to the
    branches' shape because `F.where` wants it full-shaped (or 1-D over the first axis).
    Unsafe by nature: both branches are evaluated."""
    if node.orelse is None or not isinstance(node.orelse, cst.Else):
        return None
    yes, no = _only_assign(node.body), _only_assign(node.orelse.body)
    if yes is None or no is None:
        return None
    name = yes.targets[0].target.value
    if no.targets[0].target.value != name:
        return None
    where = _where(node.test, yes.value, no.value, F, is_tensor, is_scalar)
    if where is None:
        return None
    text = f"{name} = {code(where)}\n"
    try:
        line = cst.parse_statement(text)
    except cst.ParserSyntaxError:
        return None
    return line if isinstance(line, cst.SimpleStatementLine) else None


def rewrite_ifexp_to_where(node: cst.IfExp, F: str, *, is_tensor: Callable[[cst.BaseExpression], bool],
                           is_scalar: IsScalar) -> Optional[cst.BaseExpression]:
    """`a if c else b` (c a tensor, a and b pure) -> `F.where(F.broadcast_mul(c, F.ones_like(a)), a, b)`;
    unsafe like the if/else form: both branches are evaluated."""
    return _where(node.test, node.body, node.orelse, F, is_tensor, is_scalar)


def _where(cond, a, b, F, is_tensor, is_scalar) -> Optional[cst.BaseExpression]:
    if isinstance(cond, (cst.BooleanOperation, cst.UnaryOperation)) or not is_tensor(cond):
        return None
    if not all(is_pure(n, F, is_tensor) for n in (cond, a, b)):
        return None
    a_text, b_text = operand_free(a), operand_free(b)
    if is_tensor(a) and is_tensor(b):
        shape_of = a_text
    elif is_tensor(a) and is_scalar(b):
        shape_of, b_text = a_text, f"{F}.ones_like({a_text}) * {operand(b)}"
    elif is_scalar(a) and is_tensor(b):
        shape_of, a_text = b_text, f"{F}.ones_like({b_text}) * {operand(a)}"
    else:
        return None
    mask = f"{F}.broadcast_mul({operand_free(cond)}, {F}.ones_like({shape_of}))"
    from hyblint.fixes._code import expr
    return expr(f"{F}.where({mask}, {a_text}, {b_text})")


def operand_free(node: cst.BaseExpression) -> str:
    """Source of `node` as a call argument (any expression but a bare tuple is fine there)."""
    return code(node).strip()
