"""Rewrites of single operators and calls: `+=`, `nd.op`, positional reshape, implicit
broadcasting, clipped indices. Each returns a replacement node or None."""
from __future__ import annotations

from typing import Optional, Sequence

import libcst as cst

from hyblint.fixes._code import code, expr
from hyblint.fixes.shared_ops import SHARED_OPS

_ATOMS = (cst.Name, cst.Attribute, cst.Subscript, cst.Call, cst.Integer, cst.Float,
          cst.SimpleString, cst.ConcatenatedString, cst.Imaginary)

_AUG_TO_BINARY = {
    cst.AddAssign: "+", cst.SubtractAssign: "-", cst.MultiplyAssign: "*",
    cst.DivideAssign: "/", cst.FloorDivideAssign: "//", cst.ModuloAssign: "%",
    cst.PowerAssign: "**", cst.MatrixMultiplyAssign: "@", cst.BitAndAssign: "&",
    cst.BitOrAssign: "|", cst.BitXorAssign: "^", cst.LeftShiftAssign: "<<",
    cst.RightShiftAssign: ">>",
}


def operand(node: cst.BaseExpression) -> str:
    """Source of `node`, parenthesized unless it is an atom or already in parentheses."""
    text = code(node).strip()
    if isinstance(node, _ATOMS) or node.lpar:
        return text
    if isinstance(node, cst.UnaryOperation) and isinstance(node.expression, (cst.Integer, cst.Float)):
        return text  # `x * -1.5` needs no parentheses
    return f"({text})"


def rewrite_augassign(node: cst.AugAssign) -> Optional[cst.Assign]:
    """`x op= y` -> `x = x op y` (a Name target only: `x[0] += 1` stays an item assignment)."""
    if not isinstance(node.target, cst.Name):
        return None
    op = _AUG_TO_BINARY.get(type(node.operator))
    if op is None:
        return None
    name = node.target.value
    statement = f"{name} = {name} {op} {operand(node.value)}"
    try:
        new = cst.parse_statement(statement).body[0]
    except cst.ParserSyntaxError:
        return None
    return new if isinstance(new, cst.Assign) else None


# `nd`, `mx.nd`, `mx.ndarray`, `mxnet.nd`, `mxnet.ndarray` (and names the caller adds).
IMPERATIVE_PREFIXES = frozenset({"nd", "ndarray", "mx.nd", "mx.ndarray", "mxnet.nd",
                                 "mxnet.ndarray"})


def dotted(node: cst.BaseExpression) -> Optional[str]:
    """`a.b.c` as a string, None for anything that is not a plain dotted name."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        head = dotted(node.value)
        return None if head is None else f"{head}.{node.attr.value}"
    return None


def rewrite_namespace(func: cst.BaseExpression, F: str,
                      prefixes: Sequence[str] = IMPERATIVE_PREFIXES) -> Optional[cst.BaseExpression]:
    """`nd.relu` / `mx.nd.contrib.box_nms` -> `F.relu` / `F.contrib.box_nms` (the callee only),
    for ops that exist in both the ndarray and the symbol namespace."""
    name = dotted(func)
    if name is None:
        return None
    for prefix in sorted(prefixes, key=len, reverse=True):
        if name.startswith(prefix + "."):
            op = name[len(prefix) + 1:]
            if op in SHARED_OPS:
                return expr(f"{F}.{op}")
            return None
    return None


def rewrite_positional_reshape(call: cst.Call) -> Optional[cst.Call]:
    """`x.reshape(-1, 1)` -> `x.reshape((-1, 1))`: on a Symbol the second positional int binds
    to `reverse`, so every positional dimension goes into one tuple."""
    positional = [arg for arg in call.args if arg.keyword is None and not arg.star]
    if len(positional) < 2 or any(arg.star for arg in call.args):
        return None
    if any(arg.keyword is None for arg in call.args[len(positional):]):
        return None
    dims = ", ".join(code(arg.value).strip() for arg in positional)
    keywords = [code(arg).strip().rstrip(",") for arg in call.args[len(positional):]]
    text = f"{code(call.func).strip()}(({dims}){''.join(', ' + k for k in keywords)})"
    new = expr(text)
    return new if isinstance(new, cst.Call) else None


BROADCAST_OPS = {
    cst.Add: "broadcast_add", cst.Subtract: "broadcast_sub", cst.Multiply: "broadcast_mul",
    cst.Divide: "broadcast_div", cst.Modulo: "broadcast_mod", cst.Power: "broadcast_power",
    cst.Equal: "broadcast_equal", cst.NotEqual: "broadcast_not_equal",
    cst.GreaterThan: "broadcast_greater", cst.GreaterThanEqual: "broadcast_greater_equal",
    cst.LessThan: "broadcast_lesser", cst.LessThanEqual: "broadcast_lesser_equal",
}


def rewrite_broadcast(node: cst.BaseExpression, F: str) -> Optional[cst.BaseExpression]:
    """`a + b` / `a < b` between two tensors -> `F.broadcast_add(a, b)` / `F.broadcast_lesser`."""
    if isinstance(node, cst.BinaryOperation):
        left, right, op = node.left, node.right, type(node.operator)
    elif isinstance(node, cst.Comparison) and len(node.comparisons) == 1:
        left, right = node.left, node.comparisons[0].comparator
        op = type(node.comparisons[0].operator)
    else:
        return None
    name = BROADCAST_OPS.get(op)
    if name is None:
        return None
    # a node's own parentheses lie outside its span: the replacement must not repeat them
    return expr(f"{F}.{name}({code(left).strip()}, {code(right).strip()})")


def rewrite_wrap_mode(call: cst.Call) -> Optional[cst.Call]:
    """`F.take(x, idx)` / `F.pick(x, idx)` -> `..., mode='wrap')`, replacing an explicit
    `mode='clip'` (negative indices then count from the end instead of meaning 0)."""
    mode = next((arg for arg in call.args if arg.keyword and arg.keyword.value == "mode"), None)
    wrap = cst.SimpleString("'wrap'")
    if mode is not None:
        if isinstance(mode.value, cst.SimpleString) and mode.value.evaluated_value == "wrap":
            return None
        return call.deep_replace(mode.value, wrap)
    args = list(call.args)
    if not args or any(arg.star for arg in args):
        return None
    new_arg = cst.Arg(value=wrap, keyword=cst.Name("mode"),
                      equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                            whitespace_after=cst.SimpleWhitespace("")))
    last = args[-1]
    if last.comma is cst.MaybeSentinel.DEFAULT or last.comma is None:
        args[-1] = last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        args.append(new_arg)
    else:
        args.append(new_arg.with_changes(comma=last.comma))
        args[-2] = last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    return call.with_changes(args=args)
