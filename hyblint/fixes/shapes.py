"""HYB002's rewrites: shape idioms without reading `.shape`: reshape special codes and `*_like` operators.

MXNet's reshape codes (measured semantics of 1.9.1): a positive value is that size; `0` copies
the input dimension at the current input position; `-1` is inferred; `-2` copies all remaining
input dimensions; `-3` merges the next two input dimensions; with `reverse=True` the codes are
matched from the right. Every code except `-2` advances the input position by one (`-3` by two),
so `x.shape[k]` becomes `0` only where the input position is `k` at that point.
"""
from __future__ import annotations

from typing import Callable, Dict, Optional, Sequence

import libcst as cst

from hyblint.analysis.walk import children, subtree
from hyblint.fixes._code import code, expr, fix_or_none, int_value, render, tuple_text

IsInt = Callable[[cst.BaseExpression], bool]


def shape_of(node: cst.BaseExpression) -> Optional[str]:
    """`t` when `node` is `t.shape` (t rendered as source), else None."""
    if isinstance(node, cst.Attribute) and node.attr.value == "shape":
        return code(node.value).strip()
    return None


def dim_of(node: cst.BaseExpression, dims: Dict[str, tuple] | None = None) -> Optional[tuple]:
    """`(t, k)` when `node` is `t.shape[k]` (int literal k), or a name bound to one in `dims`."""
    if isinstance(node, cst.Name) and dims and node.value in dims:
        return dims[node.value]
    if (isinstance(node, cst.Subscript) and len(node.slice) == 1
            and isinstance(node.slice[0].slice, cst.Index)):
        tensor = shape_of(node.value)
        k = int_value(node.slice[0].slice.value)
        if tensor is not None and k is not None:
            return tensor, k
    return None


def _product_of_dims(node, dims):
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Multiply):
        a, b = dim_of(node.left, dims), dim_of(node.right, dims)
        if a and b and a[0] == b[0]:
            return a[0], a[1], b[1]
    return None


def _items(shape: cst.BaseExpression) -> Optional[list]:
    """The items of a shape expression: tuple elements, concatenations (`+`), and slices of a
    shape: `t.shape[:k]` gives k items `("dim", t, j)`, `t.shape[k:]` one `("rest", t, k)`."""
    if isinstance(shape, (cst.Tuple, cst.List)):
        if any(isinstance(e, cst.StarredElement) for e in shape.elements):
            return None
        return [e.value for e in shape.elements]
    if isinstance(shape, cst.BinaryOperation) and isinstance(shape.operator, cst.Add):
        left, right = _items(shape.left), _items(shape.right)
        return None if left is None or right is None else left + right
    tensor = shape_of(shape)
    if tensor is not None:
        return [("rest", tensor, 0)]
    if (isinstance(shape, cst.Subscript) and len(shape.slice) == 1
            and isinstance(shape.slice[0].slice, cst.Slice) and shape_of(shape.value) is not None):
        part, tensor = shape.slice[0].slice, shape_of(shape.value)
        lower = 0 if part.lower is None else int_value(part.lower)
        upper = None if part.upper is None else int_value(part.upper)
        if part.step is not None or lower is None or lower < 0:
            return None
        if upper is None:
            return [("rest", tensor, lower)]
        if lower == 0 and upper >= 0:
            return [("dim", tensor, j) for j in range(upper)]
    return None


def reshape_codes(data: str, items: Sequence[cst.BaseExpression], *, is_int: IsInt,
                  dims: Dict[str, tuple] | None = None) -> Optional[tuple[list, bool]]:
    """Special codes for a reshape of tensor `data` to `items`, and whether `reverse=True` is
    needed; None when some item reads a shape the codes cannot express."""
    forward = _codes(data, items, is_int, dims, reverse=False)
    if forward is not None:
        return forward, False
    if items and isinstance(items[-1], tuple) and items[-1][0] == "rest":
        # `(-1,) + x.shape[2:]`: the -1 can only stand for the two dimensions before the rest
        merged = _codes(data, items, is_int, dims, reverse=False, unknown_merges_two=True)
        return (merged, False) if merged is not None else None
    backward = _codes(data, list(reversed(items)), is_int, dims, reverse=True)
    if backward is not None:
        return list(reversed(backward)), True
    return None


def _codes(data, items, is_int, dims, reverse, unknown_merges_two=False) -> Optional[list]:
    out, position = [], 0
    unknowns = 0
    for index, item in enumerate(items):
        if isinstance(item, tuple):
            kind, tensor, k = item
            if tensor != data or reverse:
                return None
            if kind == "rest":
                if index != len(items) - 1 or k != position:
                    return None
                out.append("-2")
                continue
            dim, merged = (tensor, k), None
        else:
            dim = dim_of(item, dims)
            merged = _product_of_dims(item, dims)
        if int_value(item) == -1 and not isinstance(item, tuple) and unknown_merges_two:
            unknowns += 1
            if unknowns > 1:
                return None
            out.append("-3")
            position += 2
            continue
        if dim is not None:
            tensor, k = dim
            if tensor != data:
                return None
            want = -(position + 1) if reverse else position
            if k != want:
                return None
            out.append("0")
            position += 1
        elif merged is not None:
            tensor, k1, k2 = merged
            if tensor != data:
                return None
            ks = sorted((k1, k2), reverse=reverse)
            want = [-(position + 1), -(position + 2)] if reverse else [position, position + 1]
            if ks != want:
                return None
            out.append("-3")
            position += 2
        elif not isinstance(item, tuple) and int_value(item) is not None:
            if int_value(item) in (0, -2, -3, -4) or int_value(item) < -4:
                return None  # the original meant a literal 0 size or a code already
            out.append(str(int_value(item)))
            position += 1
        elif is_int(item):
            # A Python int of unknown value could be 0 or a negative code: only sizes are safe
            # where no special code precedes it. Keep it as is.
            out.append(code(item).strip())
            position += 1
        else:
            return None
    return out


def rewrite_reshape(data: cst.BaseExpression, shape: cst.BaseExpression, F: str, *,
                    is_int: IsInt = lambda node: False, dims: Dict[str, tuple] | None = None,
                    ) -> Optional[cst.BaseExpression]:
    """`data.reshape(shape)` / `F.reshape(data, shape)` without `.shape` reads, or None.

    `shape` may be `other.shape` (-> `F.reshape_like`) or a tuple mixing literal sizes, `-1`,
    Python ints and `data.shape[k]` (or names in `dims`, which map a local name to
    `(tensor source, k)` from `b, c, h, w = data.shape`)."""
    data_text = code(data).strip()
    other = shape_of(shape)
    if other is not None:
        if other == data_text:
            return expr(data_text)
        return expr(f"{F}.reshape_like({data_text}, {other})")
    items = _items(shape)
    if items is None:
        return None
    if not any(isinstance(i, tuple) or dim_of(i, dims) or _product_of_dims(i, dims) for i in items):
        return None  # nothing reads a shape: not this rewrite's business
    found = reshape_codes(data_text, items, is_int=is_int, dims=dims)
    if found is None:
        return None
    codes, reverse = found
    text = f"{F}.reshape({data_text}, shape={tuple_text(codes)}"
    return expr(text + (", reverse=True)" if reverse else ")"))


def _args(call: cst.Call):
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    if any(a.star for a in call.args):
        return None, None
    return positional, keywords


def rewrite_like_call(call: cst.Call, F: str) -> Optional[cst.BaseExpression]:
    """`F.zeros(x.shape)` -> `F.zeros_like(x)`, `F.ones(x.shape)` -> `F.ones_like(x)`,
    `F.full(x.shape, v)` -> `F.ones_like(x) * v`, `F.broadcast_to(y, x.shape)` ->
    `F.broadcast_like(y, x)`, `F.arange(x.shape[k])` -> `F.contrib.arange_like(x, axis=k)`,
    `F.reshape(y, x.shape)` -> `F.reshape_like(y, x)`. The callee must be `F.<op>`."""
    func = call.func
    if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)
            and func.value.value == F):
        return None
    op = func.attr.value
    positional, keywords = _args(call)
    if positional is None:
        return None
    if op in ("zeros", "ones", "full"):
        shape = positional[0] if positional else keywords.get("shape")
        extra = set(keywords) - {"shape", "val"}
        if shape is None or extra or shape_of(shape) is None:
            return None
        like = f"{F}.{'zeros' if op == 'zeros' else 'ones'}_like({shape_of(shape)})"
        if op != "full":
            return None if len(positional) > 1 else expr(like)
        value = positional[1] if len(positional) > 1 else keywords.get("val")
        if value is None:
            return None
        from hyblint.fixes.operators import operand
        return expr(f"{like} * {operand(value)}")
    if op == "broadcast_to":
        data = positional[0] if positional else keywords.get("data")
        shape = positional[1] if len(positional) > 1 else keywords.get("shape")
        if data is None or shape is None or shape_of(shape) is None or len(keywords) > 2:
            return None
        return expr(f"{F}.broadcast_like({code(data).strip()}, {shape_of(shape)})")
    if op == "arange":
        stop = positional[0] if len(positional) == 1 else keywords.get("start")
        if stop is None or set(keywords) - {"start"} or len(positional) > 1:
            return None
        dim = dim_of(stop)
        if dim is None:
            return None
        return expr(f"{F}.contrib.arange_like({dim[0]}, axis={dim[1]})")
    if op == "reshape":
        data = positional[0] if positional else keywords.get("data")
        shape = positional[1] if len(positional) > 1 else keywords.get("shape")
        if data is None or shape is None or set(keywords) - {"data", "shape"}:
            return None
        return rewrite_reshape(data, shape, F)
    return None


def rewrite_reshape_method(call: cst.Call, F: str, *, is_int: IsInt = lambda node: False,
                           dims: Dict[str, tuple] | None = None) -> Optional[cst.BaseExpression]:
    """`y.reshape(shape)` / `y.reshape(a, b, ...)` reading shapes -> `F.reshape(...)`."""
    func = call.func
    if not (isinstance(func, cst.Attribute) and func.attr.value == "reshape"):
        return None
    positional, keywords = _args(call)
    if positional is None or set(keywords) - {"shape"}:
        return None
    if keywords:
        if positional:
            return None
        shape = keywords["shape"]
    elif len(positional) == 1:
        shape = positional[0]
    elif len(positional) > 1:
        shape = expr(tuple_text(code(p).strip() for p in positional))
    else:
        return None
    return rewrite_reshape(func.value, shape, F, is_int=is_int, dims=dims)


# ---- HYB002's fix: find the idiom around a `.shape` read

def parents_of(rule) -> Dict[cst.CSTNode, cst.CSTNode]:
    """Child -> parent for the rule's current hybrid_forward (computed once per function)."""
    cached = getattr(rule, "_parents_cache", None)
    if cached is not None and cached[0] is rule.function:
        return cached[1]
    parents: Dict[cst.CSTNode, cst.CSTNode] = {}

    for node in subtree(rule.function):
        for child in children(node):
            parents[child] = node
    rule._parents_cache = (rule.function, parents)
    return parents


def _enclosing_call(node: cst.CSTNode, parents) -> Optional[cst.Call]:
    """The call whose argument (or an item of whose argument tuple) `node` is."""
    current = node
    for _ in range(8):
        parent = parents.get(current)
        if parent is None:
            return None
        if isinstance(parent, cst.Call):
            return parent if current is not parent.func else None
        if not isinstance(parent, (cst.Arg, cst.Element, cst.Tuple, cst.List, cst.Subscript,
                                   cst.SubscriptElement, cst.Index, cst.BinaryOperation)):
            return None
        current = parent
    return None


def _python_int_test(rule):
    from hyblint.fixes.ints import int_test
    return int_test(rule)


def _rewrite_call(call: cst.Call, rule, dims=None) -> Optional[cst.BaseExpression]:
    F = rule.F
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value == "reshape":
        if isinstance(func.value, cst.Name) and func.value.value == F:
            positional, keywords = _args(call)
            if positional is None or set(keywords) - {"data", "shape"}:
                return None
            data = positional[0] if positional else keywords.get("data")
            shape = positional[1] if len(positional) > 1 else keywords.get("shape")
            if data is None or shape is None or len(positional) > 2:
                return None
            return rewrite_reshape(data, shape, F, is_int=_python_int_test(rule), dims=dims)
        if not rule.is_tensor(func.value):
            return None
        return rewrite_reshape_method(call, F, is_int=_python_int_test(rule), dims=dims)
    if (isinstance(func, cst.Attribute) and func.attr.value == "broadcast_to"
            and rule.is_tensor(func.value) and dims is None):
        positional, keywords = _args(call)
        if positional is None:
            return None
        shape = positional[0] if len(positional) == 1 and not keywords else keywords.get("shape")
        if shape is None or len(positional) + len(keywords) != 1 or shape_of(shape) is None:
            return None
        return expr(f"{F}.broadcast_like({code(func.value).strip()}, {shape_of(shape)})")
    if dims is None:
        return rewrite_like_call(call, F)
    return None


def _fix(replacements, message, unsafe=False):
    from hyblint.diagnostics import Applicability
    from hyblint.rules.base import CstFix
    # as text: new nodes already read as they will in their block (see fixes._code)
    replacements = [(old, new if not isinstance(new, cst.CSTNode) else render(new)) for old, new in replacements]
    return CstFix(tuple(replacements), message,
                  Applicability.UNSAFE if unsafe else Applicability.SAFE)


# `F.zeros(x.shape)` and friends create float32 by default; the `*_like` forms keep x's dtype.
_DTYPE_CHANGING = ("zeros_like", "ones_like", "arange_like")


@fix_or_none
def shape_fix(node: cst.Attribute, rule):
    """A fix for the `.shape` read `node`: the idiom around it rewritten without shapes."""
    if node.attr.value != "shape":
        return None
    from hyblint.fixes._code import indented_like
    with indented_like(rule.module, node):
        return _shape_fix(node, rule)


def _shape_fix(node: cst.Attribute, rule):
    parents = parents_of(rule)
    unpack = _unpack_fix(node, rule, parents)
    if unpack is not None:
        return unpack
    call = _enclosing_call(node, parents)
    if call is None:
        return None
    new = _rewrite_call(call, rule)
    if new is None:
        return None
    text = code(new)
    unsafe = any(f".{name}(" in text for name in _DTYPE_CHANGING)
    if unsafe:
        message = "Use a `*_like` operator (keeps the input's dtype, where the original made float32)"
    elif "reshape_like" in text or "broadcast_like" in text:
        message = "Use a `*_like` operator instead of reading the shape"
    else:
        message = "Use reshape's special codes instead of reading the shape"
    return _fix([(call, new)], message, unsafe=unsafe)


def _names_in(node: cst.CSTNode) -> set:
    found = set()

    for name in subtree(node):
        if isinstance(name, cst.Name):
            found.add(name.value)
    return found


def _unpack_fix(node, rule, parents):
    """`b, c, h, w = x.shape` then reshapes of x from those names: special codes, and the
    unpacking goes, when every use of every name is such a reshape."""
    assign = parents.get(node)
    if not (isinstance(assign, cst.Assign) and assign.value is node and len(assign.targets) == 1):
        return None
    target = assign.targets[0].target
    if not isinstance(target, (cst.Tuple, cst.List)):
        return None
    names = []
    for element in target.elements:
        if not isinstance(element.value, cst.Name) or isinstance(element, cst.StarredElement):
            return None
        names.append(element.value.value)
    tensor = code(node.value).strip()
    dims = {name: (tensor, k) for k, name in enumerate(names) if name != "_"}
    line = parents.get(assign)
    if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
        return None
    uses = [n for n in parents if isinstance(n, cst.Name) and n.value in dims]
    replacements = {}
    for use in uses:
        parent = parents.get(use)
        if isinstance(parent, cst.Element) and parents.get(parent) is target:
            continue  # the unpacking itself
        if isinstance(parent, cst.Attribute) and parent.attr is use:
            continue  # `obj.h` is not the name h
        call = _enclosing_call(use, parents)
        if call is None:
            return None
        if call not in replacements:
            new = _rewrite_call(call, rule, dims=dims)
            if new is None or _names_in(new) & set(dims):
                return None
            replacements[call] = new
    if not replacements:
        return None
    from hyblint.rules.base import REMOVE
    edits = [(line, REMOVE)] + list(replacements.items())
    return _fix(edits, "Use reshape's special codes and drop the shape unpacking")
