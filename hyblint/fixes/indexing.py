"""Rewrite tensor indexing (`x[0, 1:3, None]`) into `F.slice*`/`F.squeeze`/`F.expand_dims`.

MXNet 1.x legacy NDArray indexing, which the rewrite must reproduce (measured on 1.9.1):
- an integer drops its axis, except that a result with no axis left keeps shape `(1,)`
  (`v[0]` on a 1-D tensor, `x[0, 0]` on a 2-D one); `F.squeeze` behaves the same way;
- `None` inserts an axis of length 1, `...` stands for every axis not named;
- slice bounds follow Python, with `None` meaning "to the end" (so `end` is never `i + 1` when
  `i` may be -1: `-1 + 1 == 0` would be an empty slice);
- an index array selects along axis 0 with negative indices counted from the end, which is
  `F.take(..., mode='wrap')` for every index the original accepts (the default `clip` maps -1
  to 0), but an index past either end, which raised IndexError, wraps instead: that rewrite is
  unsafe; several index arrays, one per leading axis, are `F.gather_nd(x, F.stack(...))`, which
  counts negative indices from the end as well and raises where the original does (measured
  on 1.9.1);
- a zero step raises (`x[1:2:0]`): it has no rewrite.

The rewrite works in three steps, each only when needed: slice the input (every axis keeps its
length-1 place), insert the `None` axes, then squeeze the axes that integers dropped. Squeezing
last means a `None` axis is still there, so the "no axis left" case only arises exactly where
MXNet's own indexing returns `(1,)`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, List, Optional, Sequence

import libcst as cst

from hyblint.fixes._code import (code, expr, fix_or_none, int_value, is_none, is_self_attribute,
                                 keeps_comments, render, tuple_text)

IsInt = Callable[[cst.BaseExpression], bool]


def literal_or_self_int(node: cst.BaseExpression) -> bool:
    """The default test for "this index is a Python int": a literal or a `self.*` attribute."""
    return int_value(node) is not None or is_self_attribute(node)


@dataclass(frozen=True)
class _Cut:
    """One axis to slice: `begin`/`end`/`step` are source text or None (meaning "open")."""

    axis: int
    begin: Optional[str]
    end: Optional[str]
    step: Optional[int]  # None or 1: unit step; any other literal step
    step_text: Optional[str] = None  # a non-literal step (only F.slice can take it)


_ATOMS = (cst.Name, cst.Attribute, cst.Integer, cst.Subscript, cst.Call)


def _int_bounds(node: cst.BaseExpression) -> tuple[str, str]:
    """begin/end text selecting the single position `node` (an int) along an axis."""
    value = int_value(node)
    if value is not None:
        return str(value), ("None" if value == -1 else str(value + 1))
    text = code(node).strip()
    if not isinstance(node, _ATOMS) and not node.lpar:
        text = f"({text})"
    # `i + 1` is 0 for i == -1, which slices nothing; `or None` turns it into "to the end".
    return text, f"{text} + 1 or None"


def _elements(index: Sequence[cst.SubscriptElement]) -> Optional[List[cst.BaseExpression | cst.Slice]]:
    """The index items, flattening `x[(0, 1)]`; None when an item is starred."""
    items: list = []
    for element in index:
        part = element.slice
        if isinstance(part, cst.Slice):
            items.append(part)
            continue
        if part.star is not None:
            return None
        value = part.value
        if len(index) == 1 and isinstance(value, cst.Tuple):
            for inner in value.elements:
                if isinstance(inner, cst.StarredElement):
                    return None
                items.append(inner.value)
            continue
        items.append(value)
    return items


def _bound_ok(node: Optional[cst.BaseExpression], is_int: IsInt) -> bool:
    return node is None or is_none(node) or is_int(node)


def _bound_text(node: Optional[cst.BaseExpression]) -> Optional[str]:
    if node is None or is_none(node):
        return None
    return code(node).strip()


def _classify(items, is_int: IsInt) -> Optional[list]:
    """Tag each item as ('int', node) / ('slice', node) / ('none',) / ('ellipsis',)."""
    tagged = []
    for item in items:
        if isinstance(item, cst.Slice):
            if not (_bound_ok(item.lower, is_int) and _bound_ok(item.upper, is_int)
                    and _bound_ok(item.step, is_int)):
                return None
            if item.step is not None and int_value(item.step) == 0:
                return None  # `x[1:2:0]` raises; no rewrite may turn that into a result
            tagged.append(("slice", item))
        elif isinstance(item, cst.Ellipsis):
            tagged.append(("ellipsis",))
        elif is_none(item):
            tagged.append(("none",))
        elif is_int(item):
            tagged.append(("int", item))
        else:
            return None
    if sum(1 for t in tagged if t[0] == "ellipsis") > 1:
        return None
    return tagged


def _cut_for(tag, axis: int) -> Optional[_Cut]:
    """The slicing an int or slice item asks for on `axis`; None for a full `:`."""
    if tag[0] == "int":
        begin, end = _int_bounds(tag[1])
        return _Cut(axis, begin, end, None)
    part: cst.Slice = tag[1]
    step_node = None if part.step is None or is_none(part.step) else part.step
    step = 1 if step_node is None else int_value(step_node)
    step_text = None
    if step_node is not None and step is None:
        step_text = code(step_node).strip()
    begin, end = _bound_text(part.lower), _bound_text(part.upper)
    if begin is None and end is None and step == 1:
        return None
    return _Cut(axis, begin, end, None if step == 1 else step, step_text)


def _apply_front_cuts(base: str, cuts: List[_Cut], F: str) -> Optional[str]:
    if not cuts:
        return base
    if len(cuts) == 1 and cuts[0].step is None and cuts[0].step_text is None:
        cut = cuts[0]
        return (f"{F}.slice_axis({base}, axis={cut.axis}, begin={cut.begin or 0}, "
                f"end={cut.end or 'None'})")
    if (len(cuts) == 1 and cuts[0].step == -1 and cuts[0].begin is None
            and cuts[0].end is None):
        return f"{F}.reverse({base}, axis={cuts[0].axis})"
    width = max(cut.axis for cut in cuts) + 1
    by_axis = {cut.axis: cut for cut in cuts}
    begin, end, step = [], [], []
    for axis in range(width):
        cut = by_axis.get(axis)
        begin.append((cut.begin if cut else None) or "None")
        end.append((cut.end if cut else None) or "None")
        if cut is None:
            step.append("None")
        elif cut.step_text is not None:
            step.append(cut.step_text)
        else:
            step.append("None" if cut.step is None else str(cut.step))
    text = f"{F}.slice({base}, begin={tuple_text(begin)}, end={tuple_text(end)}"
    if any(s != "None" for s in step):
        text += f", step={tuple_text(step)}"
    return text + ")"


def _apply_back_cuts(base: str, cuts: List[_Cut], F: str) -> Optional[str]:
    # Axes counted from the end: only slice_axis takes a negative axis (F.slice and F.reverse
    # do not), so steps other than 1 have no rewrite here.
    for cut in cuts:
        if cut.step is not None or cut.step_text is not None:
            return None
        base = (f"{F}.slice_axis({base}, axis={cut.axis}, begin={cut.begin or 0}, "
                f"end={cut.end or 'None'})")
    return base


def rewrite_index(value: cst.BaseExpression, index: Sequence[cst.SubscriptElement], F: str,
                  *, is_int: IsInt = literal_or_self_int,
                  is_index_array: Callable[[cst.BaseExpression], bool] = lambda node: False,
                  ) -> Optional[cst.BaseExpression]:
    """`value[index]` as `F.*` calls with MXNet 1.x legacy-indexing results, or None.

    `is_int` says which index expressions are Python ints (literals, `self.*`, local ints the
    caller knows of); `is_index_array` which are tensors holding indices.
    """
    items = _elements(index)
    if items is None:
        return None
    base = code(value).strip()
    if len(items) == 1 and not isinstance(items[0], cst.Slice) and is_index_array(items[0]):
        return expr(f"{F}.take({base}, {code(items[0]).strip()}, mode='wrap')")
    if len(items) > 1 and all(not isinstance(i, cst.Slice) and is_index_array(i) for i in items):
        # x[rows, cols]: one index array per leading axis, read element by element
        arrays = ", ".join(code(i).strip() for i in items)
        return expr(f"{F}.gather_nd({base}, {F}.stack({arrays}))")
    tagged = _classify(items, is_int)
    if tagged is None:
        return None
    split = next((i for i, t in enumerate(tagged) if t[0] == "ellipsis"), len(tagged))
    front, back = tagged[:split], tagged[split + 1:]

    front_cuts, squeeze, front_new = [], [], []
    axis = pos = 0
    for tag in front:
        if tag[0] == "none":
            front_new.append(pos)
        else:
            cut = _cut_for(tag, axis)
            if cut is not None:
                front_cuts.append(cut)
            if tag[0] == "int":
                squeeze.append(pos)
            axis += 1
        pos += 1

    back_cuts, back_new = [], []
    axis = pos = -1
    for tag in reversed(back):
        if tag[0] == "none":
            back_new.append(pos)
        else:
            cut = _cut_for(tag, axis)
            if cut is not None:
                back_cuts.append(cut)
            if tag[0] == "int":
                squeeze.append(pos)
            axis -= 1
        pos -= 1

    text = _apply_front_cuts(base, front_cuts, F)
    if text is not None:
        text = _apply_back_cuts(text, back_cuts, F)
    if text is None:
        return None
    for position in front_new + back_new:
        text = f"{F}.expand_dims({text}, axis={position})"
    if squeeze:
        axes = str(squeeze[0]) if len(squeeze) == 1 else tuple_text(str(a) for a in squeeze)
        text = f"{F}.squeeze({text}, axis={axes})"
    return expr(text)


@fix_or_none
def index_fix(node: cst.Subscript, rule):
    """HYB001's fix for `node` (a subscript of a tensor): ints by construction (fixes.ints) are
    positions, a value the analysis knows as a tensor is an index array."""
    from hyblint.analysis.kinds import Kind
    from hyblint.diagnostics import Applicability
    from hyblint.rules.base import CstFix

    from hyblint.fixes.ints import int_test
    is_int = int_test(rule)

    def is_index_array(expr: cst.BaseExpression) -> bool:
        return rule.kind(expr) is Kind.TENSOR

    from hyblint.fixes._code import indented_like
    with indented_like(rule.module, node):
        new = rewrite_index(node.value, node.slice, rule.F, is_int=is_int, is_index_array=is_index_array)
    if new is None:
        return None
    text = code(new)
    rendered = render(new, module=rule.module)
    if not keeps_comments(node, rendered):
        return None
    applicability = Applicability.SAFE
    if text.startswith(f"{rule.F}.take("):
        message = f"Use {rule.F}.take(..., mode='wrap')"
        # an index past either end raised an IndexError; `mode='wrap'` silently wraps it
        applicability = Applicability.UNSAFE
    elif text.startswith(f"{rule.F}.gather_nd("):
        message = f"Use {rule.F}.gather_nd with the index arrays stacked"
    elif text == code(node.value).strip():
        message = "Drop the full-range index"
    else:
        message = f"Rewrite the index with {rule.F}.slice / {rule.F}.slice_axis"
    # as text: it already reads as it will in its block (see fixes._code)
    return CstFix(((node, rendered),), message, applicability)
