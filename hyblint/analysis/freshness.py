"""Whether a name holds a **fresh** tensor where a statement writes into it in place.

Fresh: on every path reaching the statement, the name was last bound to the result of an `F.*`
operator or of tensor arithmetic (a new array nobody else holds), and from that binding to the
statement it was only read as an operand of arithmetic or an argument of an `F.*` operator
(neither keeps a reference). Then an eager in-place write (`y += 1`, `y[:] = e`) is seen through
no other name, container, attribute or caller, and rebinding the name instead changes nothing
another reader could observe.

Every binding is looked for in the statement's own block, before it, and in an if/elif/else
there whose every branch ends with the name fresh: a name bound fresh in only one branch, or in
an outer block, is not fresh. (On MXNet 1.9.1, every imperative operator
call, `reshape`, `expand_dims`, `identity` and `BlockGrad` included, returns a new array, so any
`F.*` result qualifies, except one written into `out=`.)
"""
from __future__ import annotations

from typing import Callable, List, Optional

import libcst as cst

# Control-flow operators call Python functions and may return their inputs themselves.
_PASSING_OPS = frozenset({"cond", "foreach", "while_loop", "Custom"})


def is_fresh(name: str, statement: cst.BaseSmallStatement, function: cst.FunctionDef, F: str,
             is_tensor: Callable[[cst.BaseExpression], bool]) -> bool:
    """Whether `name` holds a fresh tensor when `statement` (an in-place write into it) runs."""
    if _declared_outside(name, function):
        return False
    before = _preceding(statement, function.body)
    if before is None or not _only_read_safely(name, statement, F, skip=_write_target(statement)):
        return False
    return _fresh_after(name, before, F, is_tensor)


def _fresh_after(name: str, items: List[cst.CSTNode], F: str, is_tensor) -> bool:
    """Whether `name` holds a fresh tensor once `items` (one block's statements) have run."""
    for item in reversed(items):
        if isinstance(item, cst.Assign) and _binds_only(item, name):
            return _is_fresh_value(item.value, F, is_tensor)
        if isinstance(item, cst.AugAssign) and isinstance(item.target, cst.Name) and item.target.value == name:
            # the same array, still fresh (eagerly) or a new one (once rewritten)
            if not _only_read_safely(name, item.value, F):
                return False
            continue
        if isinstance(item, cst.If):
            # an if/elif/else whose every branch ends with the name fresh: fresh on every path
            branches = _branches(item)
            return branches is not None and all(_fresh_after(name, _items(b), F, is_tensor) for b in branches)
        if not _only_read_safely(name, item, F):
            return False
    return False


def _branches(node: cst.If) -> Optional[List[cst.BaseSuite]]:
    """The bodies of an if/elif.../else chain, or None when it has no final else (a path that
    runs none of them keeps the name's earlier binding)."""
    branches = [node.body]
    while isinstance(node.orelse, cst.If):
        node = node.orelse
        branches.append(node.body)
    if node.orelse is None:
        return None
    branches.append(node.orelse.body)
    return branches


def _items(suite: cst.BaseSuite) -> List[cst.CSTNode]:
    """A block's statements in order, the small statements of one line each on its own."""
    items: List[cst.CSTNode] = []
    for line in suite.body if isinstance(suite, cst.IndentedBlock) else [suite]:
        if isinstance(line, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            items.extend(line.body)
        else:
            items.append(line)
    return items


def _write_target(statement) -> Optional[cst.Name]:
    """The name node the statement writes into: `y` of `y += e` or of `y[...] = e`."""
    if isinstance(statement, cst.AugAssign):
        target = statement.target
    elif isinstance(statement, cst.Assign) and len(statement.targets) == 1:
        target = statement.targets[0].target
    else:
        return None
    if isinstance(target, cst.Subscript):
        target = target.value
    return target if isinstance(target, cst.Name) else None


def _binds_only(assign: cst.Assign, name: str) -> bool:
    return len(assign.targets) == 1 and isinstance(assign.targets[0].target, cst.Name) \
        and assign.targets[0].target.value == name


def _is_fresh_value(value: cst.BaseExpression, F: str, is_tensor) -> bool:
    if isinstance(value, (cst.BinaryOperation, cst.UnaryOperation)):
        return is_tensor(value)  # arithmetic on a tensor allocates its result
    return isinstance(value, cst.Call) and _is_operator(value, F) and is_tensor(value)


def _is_operator(call: cst.Call, F: str) -> bool:
    """An `F.*` operator call that writes into no given array and calls no Python function."""
    func = call.func
    if not isinstance(func, cst.Attribute) or func.attr.value in _PASSING_OPS:
        return False
    root = func.value
    while isinstance(root, cst.Attribute):
        root = root.value
    if not (isinstance(root, cst.Name) and root.value == F):
        return False
    return all((arg.keyword is None or arg.keyword.value != "out") and not arg.star
               and not isinstance(arg.value, cst.Lambda) for arg in call.args)


def _declared_outside(name: str, function: cst.FunctionDef) -> bool:
    found = False

    class Declarations(cst.CSTVisitor):
        def visit_Global(self, node: cst.Global) -> None:
            nonlocal found
            found = found or any(n.name.value == name for n in node.names)

        def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
            nonlocal found
            found = found or any(n.name.value == name for n in node.names)

    function.body.visit(Declarations())
    return found


def _preceding(statement, body: cst.BaseSuite) -> Optional[List[cst.CSTNode]]:
    """The statements (small ones and compound ones) before `statement` in its own block, in
    order; None when it is not found."""
    items: List[cst.CSTNode] = []
    lines = body.body if isinstance(body, cst.IndentedBlock) else [body]
    for line in lines:
        if isinstance(line, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            for small in line.body:
                if small is statement:
                    return items
                items.append(small)
            continue
        for suite in _suites(line):
            found = _preceding(statement, suite)
            if found is not None:
                return found
        items.append(line)
    return None


def _suites(compound) -> List[cst.BaseSuite]:
    suites = []
    for attr in ("body", "orelse", "finalbody"):
        part = getattr(compound, attr, None)
        while part is not None:
            if isinstance(part, cst.BaseSuite):
                suites.append(part)
                break
            suites.append(part.body)  # Else / Finally / an elif's If
            part = getattr(part, "orelse", None) if isinstance(part, cst.If) else None
    for handler in getattr(compound, "handlers", ()):
        suites.append(handler.body)
    return [s for s in suites if isinstance(s, cst.BaseSuite)]


def _only_read_safely(name: str, node: cst.CSTNode, F: str, skip: Optional[cst.Name] = None) -> bool:
    """Whether every occurrence of `name` in `node` (but `skip`) is an operand of arithmetic or a
    comparison, or a positional or keyword argument of an `F.*` operator: uses that keep no
    reference to its array and bind nothing."""
    ok = True

    class Uses(cst.CSTVisitor):
        def __init__(self) -> None:
            self.parents: List[cst.CSTNode] = []

        def on_visit(self, child: cst.CSTNode) -> bool:
            nonlocal ok
            if isinstance(child, cst.Name) and child.value == name and child is not skip:
                ok = ok and _safe_use(child, self.parents, F)
            self.parents.append(child)
            return ok

        def on_leave(self, original: cst.CSTNode) -> None:
            self.parents.pop()

    node.visit(Uses())
    return ok


def _safe_use(name: cst.Name, parents: List[cst.CSTNode], F: str) -> bool:
    if not parents:
        return False
    parent = parents[-1]
    if isinstance(parent, (cst.BinaryOperation, cst.UnaryOperation)):
        return True
    if isinstance(parent, cst.Comparison) and parent.left is name:
        return True
    if isinstance(parent, cst.ComparisonTarget) and parent.comparator is name:
        return True
    if isinstance(parent, cst.Arg) and parent.value is name and len(parents) >= 2:
        call = parents[-2]
        return isinstance(call, cst.Call) and call.func is not name and _is_operator(call, F)
    return False
