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

from typing import Callable, Dict, List, Optional, Tuple

import libcst as cst

from hyblint.recent import Recent

# Control-flow operators call Python functions and may return their inputs themselves.
_PASSING_OPS = frozenset({"cond", "foreach", "while_loop", "Custom"})


def is_fresh(name: str, statement: cst.BaseSmallStatement, function: cst.FunctionDef, F: str,
             is_tensor: Callable[[cst.BaseExpression], bool]) -> bool:
    """Whether `name` holds a fresh tensor when `statement` (an in-place write into it) runs."""
    facts = _facts_of(function, F, is_tensor)
    if name in facts.declared_outside:
        return False
    place = facts.places.get(id(statement))
    if place is None or not _only_read_safely(name, statement, F, skip=_write_target(statement)):
        return False
    items, index = place
    return index > 0 and facts.fresh_after_each(name, items)[index - 1]


class _FunctionFacts:
    """What every question about one function shares, read once: a method with many in-place
    writes asks once per write, and reading the whole method each time would cost the square of
    its length."""

    def __init__(self, function: cst.FunctionDef, F: str, is_tensor) -> None:
        self.function, self.F, self.is_tensor = function, F, is_tensor
        self.declared_outside = _declared_outside(function)
        # each block's statements (small and compound, in order) by the id of its suite, and each
        # small statement's block and place there; the lists live as long as these facts, so
        # that their ids name them
        self.blocks: Dict[int, List[cst.CSTNode]] = {}
        self.places: Dict[int, Tuple[List[cst.CSTNode], int]] = {}
        _index_blocks(function.body, self.blocks, self.places)
        self._fresh: Dict[Tuple[str, int], List[bool]] = {}

    def fresh_after_each(self, name: str, items: List[cst.CSTNode]) -> List[bool]:
        """Whether `name` holds a fresh tensor once each of `items` (one block's statements) has
        run: a binding decides; a safe read leaves it as it was, any other use makes it stale; an
        if/elif/else decides by the ends of its branches."""
        key = (name, id(items))
        found = self._fresh.get(key)
        if found is not None:
            return found
        F, is_tensor = self.F, self.is_tensor
        states: List[bool] = []
        fresh = False
        for item in items:
            if isinstance(item, cst.Assign) and _binds_only(item, name):
                fresh = _is_fresh_value(item.value, F, is_tensor)
            elif isinstance(item, cst.AugAssign) and isinstance(item.target, cst.Name) and item.target.value == name:
                # the same array, still fresh (eagerly) or a new one (once rewritten)
                fresh = fresh and _only_read_safely(name, item.value, F)
            elif isinstance(item, cst.If):
                # an if/elif/else whose every branch ends with the name fresh: fresh on every path
                branches = _branches(item)
                fresh = branches is not None and all(self._fresh_at_end(name, self.blocks[id(b)]) for b in branches)
            else:
                fresh = fresh and _only_read_safely(name, item, F)
            states.append(fresh)
        self._fresh[key] = states
        return states

    def _fresh_at_end(self, name: str, items: List[cst.CSTNode]) -> bool:
        states = self.fresh_after_each(name, items)
        return bool(states) and states[-1]


# The facts of the functions checked last: the rules of one check ask about the same function.
_FACTS: "Recent[tuple, _FunctionFacts]" = Recent(8)


def _facts_of(function: cst.FunctionDef, F: str, is_tensor) -> _FunctionFacts:
    # a bound method is a new object at each access: its instance and function identify it
    judge = (id(getattr(is_tensor, "__self__", None)), getattr(is_tensor, "__func__", is_tensor))
    key = (id(function), F, judge)
    found = _FACTS.recall(key)
    if found is not None and found.function is function:
        return found
    return _FACTS.keep(key, _FunctionFacts(function, F, is_tensor))


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


def _declared_outside(function: cst.FunctionDef) -> frozenset:
    """The names the function declares `global` or `nonlocal`."""
    found = set()

    class Declarations(cst.CSTVisitor):
        def visit_Global(self, node: cst.Global) -> None:
            found.update(n.name.value for n in node.names)

        def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
            found.update(n.name.value for n in node.names)

    function.body.visit(Declarations())
    return frozenset(found)


def _index_blocks(body: cst.BaseSuite, blocks: Dict[int, List[cst.CSTNode]],
                  places: Dict[int, Tuple[List[cst.CSTNode], int]]) -> None:
    """Notes the statements of each block under `body` (itself included), and for each small
    statement its block and its place there."""
    items: List[cst.CSTNode] = []
    blocks[id(body)] = items
    lines = body.body if isinstance(body, cst.IndentedBlock) else [body]
    for line in lines:
        if isinstance(line, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            for small in line.body:
                places[id(small)] = (items, len(items))
                items.append(small)
            continue
        for suite in _suites(line):
            _index_blocks(suite, blocks, places)
        items.append(line)


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
