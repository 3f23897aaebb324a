"""HYB001's rewrite: NDArray indexing as F.slice / F.slice_axis / F.squeeze / F.expand_dims.

The result reproduces MXNet 1.x's legacy NDArray indexing: integer indices drop their axes (and
an index that drops every axis leaves shape (1,), as `F.squeeze` does), `None` inserts one, `...`
stands for the axes not named. "To the end" is always `None`, never `i + 1` (that is 0 for -1).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional

import libcst as cst

from hyblint.analysis.kinds import Kind
from hyblint.diagnostics import Applicability
from hyblint.rules.base import CstFix


@dataclass
class _Axis:
    axis: int                 # input axis; negative when counted from the end (after `...`)
    begin: str
    end: str
    step: Optional[str] = None
    drop: bool = False        # an integer index: the axis disappears


def index_fix(node: cst.Subscript, rule) -> Optional[CstFix]:
    F = rule.F
    base = rule.code_of(node.value)
    elements = [e.slice for e in node.slice]
    if len(elements) == 1 and isinstance(elements[0], cst.Index) and rule.kind(elements[0].value) is Kind.TENSOR:
        index = rule.code_of(elements[0].value)
        return _fix(node, "%s.take(%s, %s, mode='wrap')" % (F, base, index), "Use %s.take(..., mode='wrap')" % F)
    plan = _plan(elements, rule)
    if plan is None:
        return None
    axes, new_axes = plan
    expr = _slice_expression(F, base, axes)
    if expr is None:
        return None
    dropped = [a.axis for a in axes if a.drop]
    if dropped:
        axis = str(dropped[0]) if len(dropped) == 1 else "(%s)" % ", ".join(map(str, dropped))
        expr = "%s.squeeze(%s, axis=%s)" % (F, expr, axis)
    for position in new_axes:
        expr = "%s.expand_dims(%s, axis=%d)" % (F, expr, position)
    if expr == base:
        return _fix(node, base, "Drop the full-range index")
    return _fix(node, expr, "Rewrite the index with %s.slice / %s.slice_axis" % (F, F))


def _fix(node: cst.Subscript, code: str, message: str) -> CstFix:
    return CstFix(((node, code),), message, Applicability.SAFE)


def _plan(elements, rule):
    """Per-axis slicing and the output positions of new axes, or None when not rewritable."""
    ellipsis_at = [i for i, e in enumerate(elements) if _is_ellipsis(e)]
    if len(ellipsis_at) > 1:
        return None
    split = ellipsis_at[0] if ellipsis_at else len(elements)
    before, after = elements[:split], elements[split + 1:]
    axes: List[_Axis] = []
    new_axes: List[int] = []
    out = 0
    axis = 0
    for element in before:
        if _is_none(element):
            new_axes.append(out)
            out += 1
            continue
        item = _axis(element, axis, rule)
        if item is None:
            return None
        axes.append(item)
        axis += 1
        out += 0 if item.drop else 1
    if ellipsis_at:
        # axes after `...` are counted from the end, both in the input and in the output
        consumed = sum(1 for e in after if not _is_none(e))
        kept_after = sum(1 for e in after if not _is_none(e) and not _is_int_index(e, rule))
        axis = -consumed
        out_from_end = -(kept_after + sum(1 for e in after if _is_none(e)))
        for element in after:
            if _is_none(element):
                new_axes.append(out_from_end)
                out_from_end += 1
                continue
            item = _axis(element, axis, rule)
            if item is None:
                return None
            axes.append(item)
            axis += 1
            if not item.drop:
                out_from_end += 1
    # squeezing removes axes before new ones are inserted: new positions are final positions
    return axes, new_axes


def _is_ellipsis(element) -> bool:
    return isinstance(element, cst.Index) and isinstance(element.value, cst.Ellipsis)


def _is_none(element) -> bool:
    return isinstance(element, cst.Index) and isinstance(element.value, cst.Name) and element.value.value == "None"


def _is_int_index(element, rule) -> bool:
    return isinstance(element, cst.Index) and not _is_none(element)


def _int_value(expr) -> Optional[int]:
    if isinstance(expr, cst.Integer):
        return int(expr.value, 0)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus) \
            and isinstance(expr.expression, cst.Integer):
        return -int(expr.expression.value, 0)
    return None


def _python_int(expr, rule) -> Optional[str]:
    """The code of an index bound known to be a Python value (a literal, self.*, a local int)."""
    if _int_value(expr) is not None:
        return str(_int_value(expr))
    if rule.kind(expr) is Kind.PYTHON:
        code = rule.code_of(expr)
        return code if isinstance(expr, (cst.Name, cst.Attribute, cst.Subscript, cst.Call)) else "(%s)" % code
    return None


def _axis(element, axis: int, rule) -> Optional[_Axis]:
    if isinstance(element, cst.Index):
        value = _int_value(element.value)
        if value is not None:
            return _Axis(axis, str(value), "None" if value == -1 else str(value + 1), drop=True)
        code = _python_int(element.value, rule)
        if code is None:
            return None
        return _Axis(axis, code, "(%s + 1) or None" % code, drop=True)
    # a slice
    parts = []
    for bound in (element.lower, element.upper, element.step):
        if bound is None:
            parts.append(None)
            continue
        code = _python_int(bound, rule)
        if code is None:
            return None
        parts.append(code)
    lower, upper, step = parts
    if step is not None and _int_value(element.step) == 1:
        step = None
    return _Axis(axis, lower or "None", upper or "None", step)


def _slice_expression(F: str, base: str, axes: List[_Axis]) -> Optional[str]:
    sliced = [a for a in axes if not (a.begin == "None" and a.end == "None" and a.step is None)]
    if not sliced:
        return base
    if len(sliced) == 1 and sliced[0].step is None:
        a = sliced[0]
        return "%s.slice_axis(%s, axis=%d, begin=%s, end=%s)" % (F, base, a.axis, _zero(a.begin), a.end)
    if len(sliced) == 1 and sliced[0].step == "-1" and sliced[0].begin == "None" and sliced[0].end == "None":
        return "%s.reverse(%s, axis=%d)" % (F, base, sliced[0].axis)
    if any(a.axis < 0 for a in sliced):
        if any(a.step is not None for a in sliced):
            return None
        expr = base
        for a in sliced:
            expr = "%s.slice_axis(%s, axis=%d, begin=%s, end=%s)" % (F, expr, a.axis, _zero(a.begin), a.end)
        return expr
    last = max(a.axis for a in sliced)
    by_axis = {a.axis: a for a in sliced}
    begin = [by_axis[i].begin if i in by_axis else "None" for i in range(last + 1)]
    end = [by_axis[i].end if i in by_axis else "None" for i in range(last + 1)]
    text = "%s.slice(%s, begin=%s, end=%s" % (F, base, _tuple(begin), _tuple(end))
    if any(a.step is not None for a in sliced):
        step = [by_axis[i].step or "None" if i in by_axis else "None" for i in range(last + 1)]
        text += ", step=%s" % _tuple(step)
    return text + ")"


def _zero(begin: str) -> str:
    """slice_axis needs an integer begin: an open start is 0."""
    return "0" if begin == "None" else begin


def _tuple(items: List[str]) -> str:
    return "(%s,)" % items[0] if len(items) == 1 else "(%s)" % ", ".join(items)
