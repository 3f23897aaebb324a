"""A first look at a hybrid_forward with Python's own `ast`: can any rule report in it at all?

Most methods of real Gluon code are clean, and libcst's parse is the dearest step of a check (and
its import alone the dearest step of starting one), while `ast` parses the same text about ten
times faster. So each method is screened first, and only those the screen cannot clear go to
libcst and the full analysis.

The screen must never clear a method that the full check reports in, so it over-approximates the
analysis (`analysis/function.py`), whose rules it mirrors:
- each name and expression gets *flavors* (`analysis/flavors.py`): what it may hold, a tensor, a
  child block's result or a group of tensors, as the analysis's kinds would say at most;
- a method is cleared only when no construct that a screened rule reports has an operand of the
  flavor that rule needs. A rule it does not know (HYB012 here) turns the screen off;
- a method kept is screened again once the package index has read its block's callers and
  children: a parameter that they pass a list, or Python values, has that kind to the analysis
  too, and a child's call gives what the index says it returns (M where it says nothing; before
  the index is read, a child may return anything).
The tests run every rule's examples through the full engine, screen included, and compare
screened and unscreened checks of generated methods, so a screen that misses a case fails them.
"""
from __future__ import annotations

import ast
from typing import Dict, Iterable, List, Optional

from hyblint.analysis.flavors import M, T, Flavors, HelperTexts, _dotted, _is_name, _walk
from hyblint.analysis.kinds import Kind
from hyblint.analysis.module import ND_MODULES, SYM_MODULES, ModuleFacts
from hyblint.analysis.vocabulary import (CONTEXT_ATTRIBUTES, CONVERSION_BUILTINS, CONVERSION_METHODS, DTYPE_ATTRIBUTES,
                                         FROZEN_CALLS, IMPERATIVE_PREFIXES, INDEX_ARGUMENT, ITERATING_BUILTINS,
                                         NUMPY_FUNCTIONS, PYTHON_RANDOM_PREFIXES, REMOVED_NUMPY_NAMES,
                                         SHAPE_ATTRIBUTES)
from hyblint.recent import Recent

# What each rule reports on, as the rule class names it (`Rule.screen_triggers`; a test keeps the
# two equal). The screen is sound for the codes listed here only: a selected rule absent from this
# table (HYB012) turns it off, and a rule class naming no triggers fails the test suite.
SCREEN_TRIGGERS = {
    "HYB001": ("tensor-subscript",), "HYB002": ("tensor-attribute", "tensor-call"),
    "HYB003": ("tensor-attribute",), "HYB004": ("tensor-attribute",), "HYB005": ("tensor-subscript",),
    "HYB006": ("tensor-augassign",), "HYB007": ("tensor-attribute", "tensor-call", "numpy-call"),
    "HYB008": ("tensor-test",), "HYB009": ("imperative-call",), "HYB010": ("tensor-call",),
    "HYB011": ("positional-reshape",), "HYB013": ("frozen-call",), "HYB014": ("negative-index",),
    "HYB015": ("iteration",), "HYB016": ("python-random",), "HYB017": ("self-assignment",),
    "HYB018": (),  # judges noqa comments after the other rules ran: nothing to find in a method
    "HYB019": ("removed-numpy-name",),
}
SCREENED_CODES = frozenset(SCREEN_TRIGGERS)
_TENSOR_ATTRIBUTES = SHAPE_ATTRIBUTES | DTYPE_ATTRIBUTES | CONTEXT_ATTRIBUTES | CONVERSION_METHODS
_CALLS_ON_TENSORS = CONVERSION_BUILTINS | {"len", "print"}
_REMOVED_NUMPY_ATTRIBUTES = frozenset(name.rpartition(".")[2] for name in REMOVED_NUMPY_NAMES)
_TESTED = (ast.If, ast.While, ast.IfExp, ast.Assert)
# Statements whose bindings the screen does not follow.
_UNFOLLOWED = (ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal, ast.Match)
_REPORTABLE = frozenset({ast.Subscript, ast.Attribute, ast.AugAssign, ast.If, ast.While, ast.IfExp, ast.Assert,
                         ast.UnaryOp, ast.BoolOp, ast.Call, ast.For, ast.comprehension, ast.Starred, ast.Assign,
                         ast.AnnAssign})


def can_screen(codes: Iterable[str]) -> bool:
    return SCREENED_CODES.issuperset(codes)




def may_report(source: str, imports: ModuleFacts, helpers: Optional[HelperTexts] = None,
               received: Optional[Dict[str, Kind]] = None, children: Optional[Dict[str, Kind]] = None,
               parsed: Optional[tuple] = None) -> bool:
    """False only when no screened rule can report in the hybrid_forward that `source` (a method cut
    out of its file and dedented) defines, nor in the helpers it calls with F or tensors (found by
    `helpers`); True when it may, or when the text is not one method. `received`: what the package
    index says the block's callers pass, by parameter (`ClassContext.parameters`); `children`: what
    it says the children called return (`ClassContext.children`; a child it does not list gives
    what the analysis takes for a child's result), None before the index is read. `parsed`: the
    method's tree and its nodes, parsed from the same lines elsewhere (the file's rows, columns)."""
    function, nodes = parsed if parsed is not None else _parsed_method(source)
    if function is None:
        return True
    return _Screen(function, imports, helpers=helpers, received=received, children=children,
                   nodes=nodes).may_report()


# The last methods screened, parsed and walked: a method kept by the first screening is screened
# again once the index is read (the screen never changes a tree).
_PARSED: "Recent[str, tuple]" = Recent(64)


def _parsed_method(source: str) -> tuple:
    """(the function `source` defines, every node under it), or (None, None)."""
    found = _PARSED.recall(source)
    if found is None:
        function = _one_function(source)
        found = _PARSED.keep(source, (function, _walk(function) if function is not None else None))
    return found


def _one_function(source: str) -> Optional[ast.FunctionDef]:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.FunctionDef):
        return None
    return tree.body[0]


def helper_may_report(source: str, imports: ModuleFacts, namespace: Optional[str]) -> bool:
    """Whether a rule may report in a helper (`source`, its definition cut out and dedented) whose
    parameter `namespace` receives F (None: none does), whatever its others receive: the same test
    that clears a hybrid_forward calling it."""
    function = _one_function(source)
    if function is None:
        return True
    positional = [a.arg for a in function.args.args]
    if namespace is not None and namespace not in positional:
        return True
    place = positional.index(namespace) if namespace is not None else None
    return _Screen(function, imports, helper=True, namespace=place).may_report()


def _helper_may_report(source: str, imports: ModuleFacts, namespace: Optional[int]) -> bool:
    """Whether a rule may report in a helper whose parameter number `namespace` receives F and
    whose others receive anything (the analysis gives them what the calls pass)."""
    function = _one_function(source)
    if function is None:
        return True
    return _Screen(function, imports, helper=True, namespace=namespace).may_report()

class _Screen(Flavors):
    """Whether any screened rule may report in a method, given its flavors."""

    def may_report(self) -> bool:
        if not self.usable or any(isinstance(node, _UNFOLLOWED) for node in self.nodes):
            return True
        self._spread_flavors()
        skipped = {id(node) for statement in self._imperative_only() for node in _walk(statement)}
        return any(self._reportable(node) for node in self.nodes
                   if type(node) in _REPORTABLE and id(node) not in skipped)

    # ---- code the rules skip: it runs only imperatively (`if F is nd:`), never traced
    def _imperative_only(self) -> List[ast.stmt]:
        skipped: List[ast.stmt] = []
        if not any(self._namespace_guard(node.test) for node in self.nodes if type(node) is ast.If):
            return skipped
        for node in self.nodes:
            for name in ("body", "orelse", "finalbody"):
                statements = getattr(node, name, None)
                if type(statements) is not list:
                    continue
                for index, statement in enumerate(statements):
                    if type(statement) is not ast.If:
                        continue
                    guard = self._namespace_guard(statement.test)
                    if guard == "imperative":
                        skipped.extend(statement.body)
                    elif guard == "symbolic":
                        skipped.extend(statement.orelse)
                        if statement.body and type(statement.body[-1]) in (ast.Return, ast.Raise):
                            skipped.extend(statements[index + 1:])  # `if F is sym: raise ...`
                            break
        return skipped

    def _namespace_guard(self, test: ast.expr) -> Optional[str]:
        """As the analysis reads `F is nd` / `isinstance(x, NDArray)` (and their negations); None
        where it might read the test otherwise (a module name the method may rebind)."""
        negate = False
        if type(test) is ast.UnaryOp and type(test.op) is ast.Not:
            negate, test = True, test.operand
        kind = None
        if type(test) is ast.Compare and len(test.ops) == 1:
            operator, left, right = type(test.ops[0]), test.left, test.comparators[0]
            if operator in (ast.Is, ast.Eq, ast.IsNot, ast.NotEq):
                other = right if _is_name(left, self.namespace) else left if _is_name(right, self.namespace) else None
                name = _dotted(other) if other is not None else None
                if name is not None and name.partition(".")[0] not in self.locals:
                    resolved = self.imports.resolve_dotted(name)
                    kind = "imperative" if resolved in ND_MODULES else "symbolic" if resolved in SYM_MODULES else None
                    if kind and operator in (ast.IsNot, ast.NotEq):
                        negate = not negate
        elif type(test) is ast.Call and _is_name(test.func, "isinstance") and len(test.args) == 2 \
                and not test.keywords:
            cls = _dotted(test.args[1]) or ""
            kind = "imperative" if cls.endswith("NDArray") else "symbolic" if cls.endswith("Symbol") else None
        if kind and negate:
            kind = "symbolic" if kind == "imperative" else "imperative"
        return kind

    # ---- what names may hold
    def _reportable(self, node: ast.AST) -> bool:
        """Whether some rule could report on `node`, given what its operands may be."""
        if isinstance(node, ast.Subscript):                                   # HYB001, HYB005
            base = self.flavor(node.value)
            # a child's result is flagged only where a tuple of outputs could not be indexed so
            return bool(base & T) or bool(base & M) and not _tuple_can_take(node.slice)
        if isinstance(node, ast.Attribute):                                   # HYB002-004, HYB007
            if node.attr in _TENSOR_ATTRIBUTES and self.maybe_tensor(node.value):
                return True
            name = _dotted(node) if node.attr in _REMOVED_NUMPY_ATTRIBUTES else None  # HYB019
            return name is not None and self.imports.resolve_dotted(name) in REMOVED_NUMPY_NAMES
        if isinstance(node, ast.AugAssign):                                   # HYB006, HYB017
            return self.maybe_tensor(node.target) or self.maybe_tensor(node.value) or self._on_instance(node.target)
        if isinstance(node, (ast.For, ast.comprehension, ast.Starred)):      # HYB015
            return self.tensor_before(node.iter if not isinstance(node, ast.Starred) else node.value)
        if isinstance(node, ast.Assign):                                      # HYB015 unpacking, HYB017
            return any(self._on_instance(target) for target in node.targets) and self._changes(node.value) or (
                any(type(target) in (ast.Tuple, ast.List) for target in node.targets)
                and self.tensor_before(node.value))  # (a child the index says returns one tensor too)
        if isinstance(node, ast.AnnAssign):                                   # HYB017
            return self._on_instance(node.target) and node.value is not None and self._changes(node.value)
        if isinstance(node, _TESTED):                                         # HYB008
            return self.may_be_plain_tensor(node.test)  # (HYB013's calls are found as calls)
        if isinstance(node, ast.UnaryOp):                                     # HYB008 `not`
            return isinstance(node.op, ast.Not) and self.may_be_plain_tensor(node.operand)
        if isinstance(node, ast.BoolOp):                                      # HYB008 `and`/`or`
            return any(self.may_be_plain_tensor(value) for value in node.values)
        if isinstance(node, ast.Call):
            return self._reportable_call(node)
        return False

    def _reportable_call(self, node: ast.Call) -> bool:
        func = node.func
        tensor_argument = any(self.maybe_tensor(arg) for arg in node.args) or any(
            self.maybe_tensor(keyword.value) for keyword in node.keywords)
        if isinstance(func, ast.Name):
            if func.id in _CALLS_ON_TENSORS and tensor_argument:              # HYB002 len, HYB007, HYB010
                return True
            if func.id in ITERATING_BUILTINS and any(self.tensor_before(arg) for arg in node.args):  # HYB015
                return True
            if func.id == "setattr":                                          # HYB017
                return True
        if isinstance(func, ast.Attribute):
            if func.attr == "reshape" and self._positional_shape(node):       # HYB011
                return True
            if func.attr in INDEX_ARGUMENT and _negative_index(node):         # HYB014
                return True
        if self.helpers is not None and self._reportable_helper(node, tensor_argument):
            return True
        name = _dotted(func)
        if name is None:
            return False
        resolved = self.imports.resolve_dotted(name)
        if resolved is None:
            return False
        return resolved.startswith(IMPERATIVE_PREFIXES) or (                 # HYB009
            resolved in NUMPY_FUNCTIONS and tensor_argument) or (           # HYB007
            resolved in FROZEN_CALLS) or resolved.startswith(PYTHON_RANDOM_PREFIXES)  # HYB013, HYB016

    def _changes(self, value: ast.expr) -> bool:
        """HYB017's test, over-approximated: anything but a literal value, `len(...)` of one, or a
        display of them (the analysis's PYTHON, with no attribute of the block in it)."""
        return not _plain_python(value)

    def _on_instance(self, target: ast.expr) -> bool:
        """An attribute of the block (`self.a`, `self.a.b`), or one inside a tuple target."""
        if type(target) in (ast.Tuple, ast.List):
            return any(self._on_instance(element) for element in target.elts)
        if type(target) is not ast.Attribute:
            return False
        while type(target) is ast.Attribute:
            target = target.value
        return _is_name(target, self.instance)

    def _reportable_helper(self, call: ast.Call, tensor_argument: bool) -> bool:
        """A call of a method or function of the file with F or tensors: the analysis checks the
        callee with what the call passes, so may any of the definitions so named report?"""
        func = call.func
        if type(func) is ast.Attribute and _is_name(func.value, "self"):
            name, bound = func.attr, True
        elif type(func) is ast.Name:
            name, bound = func.id, False
        else:
            return False
        if any(_is_name(keyword.value, self.namespace) for keyword in call.keywords):
            return True  # F passed by keyword: kept, without looking for where it lands
        position = next((i for i, arg in enumerate(call.args) if _is_name(arg, self.namespace)), None)
        if position is None and not tensor_argument:
            return False
        texts = self.helpers(name)
        if texts is None:
            return True
        # F's place among the callee's parameters: after `self` for a method (one defined without
        # `self`, a static method, is read both ways)
        places = [None] if position is None else [position + 1, position] if bound else [position]
        # (a file's helpers are asked about by each method that calls them: `verdicts`, where
        # the helpers' reader keeps them, remembers the answers for the file)
        verdicts = getattr(self.helpers, "verdicts", None)
        for text in texts:
            for place in places:
                verdict = verdicts.get((text, place)) if verdicts is not None else None
                if verdict is None:
                    verdict = _helper_may_report(text, self.imports, place)
                    if verdicts is not None:
                        verdicts[(text, place)] = verdict
                if verdict:
                    return True
        return False

    def _positional_shape(self, call: ast.Call) -> bool:
        """`x.reshape(a, b)` or `F.reshape(x, a, b)`: two dimensions or more, none a tuple or list."""
        if any(isinstance(arg, ast.Starred) for arg in call.args) or any(k.arg is None for k in call.keywords):
            return False
        on_namespace = isinstance(call.func.value, ast.Name) and call.func.value.id == self.namespace
        if not on_namespace and not self.maybe_tensor(call.func.value):
            return False
        dimensions = call.args[1:] if on_namespace else call.args
        return len(dimensions) >= 2 and not any(isinstance(d, (ast.Tuple, ast.List)) for d in dimensions)


def _tuple_can_take(index: ast.expr) -> bool:
    """As HYB001's test: `y[0]` or `y[1:]` work on a tuple of outputs too. (`ast` reads `y[a, b]`
    and `y[(a, b)]` alike, where libcst sees two indices and one: a tuple is taken for two.)"""
    if type(index) is ast.Slice:
        return True
    return type(index) is not ast.Tuple and not (type(index) is ast.Constant and index.value is None)


def _negative_index(call: ast.Call) -> bool:
    """A negative number in the index argument of `F.take`/`F.pick` called without `mode`, found
    where HYB014 looks for one."""
    keyword, position = INDEX_ARGUMENT[call.func.attr]
    if any(k.arg == "mode" for k in call.keywords):
        return False
    if any(isinstance(arg, ast.Starred) for arg in call.args) or any(k.arg is None for k in call.keywords):
        return True  # the index may be anywhere
    index = [k.value for k in call.keywords if k.arg == keyword]
    if len(call.args) > position:
        index.append(call.args[position])
    return any(_negative_number(argument) for argument in index)


def _negative_number(node: ast.expr) -> bool:
    """`-1`, or one inside a product, a tuple or list, or an `F.full`/`F.array` argument."""
    kind = type(node)
    if kind is ast.UnaryOp:
        return type(node.op) is ast.USub and type(node.operand) is ast.Constant
    if kind is ast.BinOp:
        return type(node.op) is ast.Mult and (_negative_number(node.left) or _negative_number(node.right))
    if kind in (ast.Tuple, ast.List):
        return any(_negative_number(element) for element in node.elts)
    if kind is ast.Call and type(node.func) is ast.Attribute and node.func.attr in ("full", "array"):
        return any(_negative_number(part) for part in list(node.args[:2]) + [k.value for k in node.keywords])
    return False


def _plain_python(value: ast.expr) -> bool:
    """A value the analysis surely takes for a Python value and that reads nothing of the block."""
    kind = type(value)
    if kind is ast.Constant:
        return True
    if kind is ast.UnaryOp:
        return _plain_python(value.operand)
    if kind in (ast.List, ast.Tuple) and not value.elts:
        return True
    return False
