"""A first look at a hybrid_forward with Python's own `ast`: can any rule report in it at all?

Most methods of real Gluon code are clean, and libcst's parse is the dearest step of a check (and
its import alone the dearest step of starting one), while `ast` parses the same text about ten
times faster. So each method is screened first, and only those the screen cannot clear go to
libcst and the full analysis.

The screen must never clear a method that the full check reports in, so it over-approximates the
analysis (`analysis/function.py`), whose rules it mirrors:
- each name gets *flavors*: T when some binding of it, anywhere in the method (order and branches
  ignored), could make it a tensor (the analysis's TENSOR, or MAYBE: T stands for both), M when
  one could make it a child block's result and nothing else (MAYBE), and G when one could make it
  a group or list of tensors (GROUP, SEQUENCE); the flavors of an expression follow the analysis's
  own rules, taking the union wherever it would pick one kind;
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
from collections import OrderedDict
from typing import Callable, Dict, Iterable, List, Optional

from hyblint.analysis.kinds import Kind
from hyblint.analysis.module import ND_MODULES, SYM_MODULES, ModuleFacts
from hyblint.analysis.vocabulary import (CONTEXT_ATTRIBUTES, CONVERSION_BUILTINS, CONVERSION_METHODS,
                                         COUNTED_OUTPUTS, DTYPE_ATTRIBUTES, FROZEN_CALLS, GROUP_OPS,
                                         IMPERATIVE_PREFIXES, INDEX_ARGUMENT, NAMESPACE_PREFIXES, NESTED_OPS,
                                         ITERATING_BUILTINS, LIST_METHODS, NUMPY_FUNCTIONS, PYTHON_BUILTINS, PYTHON_METHODS,
                                         PYTHON_RANDOM_PREFIXES, REMOVED_NUMPY_NAMES, SHAPE_ATTRIBUTES, STATE_WORDS,
                                         TENSOR_METHODS, UNKNOWN_COUNT, output_count)

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
_IDENTITY = (ast.Is, ast.IsNot, ast.In, ast.NotIn)
_TESTED = (ast.If, ast.While, ast.IfExp, ast.Assert)
# Statements whose bindings the screen does not follow.
_UNFOLLOWED = (ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal, ast.Match)
_REPORTABLE = frozenset({ast.Subscript, ast.Attribute, ast.AugAssign, ast.If, ast.While, ast.IfExp, ast.Assert,
                         ast.UnaryOp, ast.BoolOp, ast.Call, ast.For, ast.comprehension, ast.Starred, ast.Assign,
                         ast.AnnAssign})


def can_screen(codes: Iterable[str]) -> bool:
    return SCREENED_CODES.issuperset(codes)


# The texts (dedented) of the functions and methods named so in the method's file; None when they
# cannot be known. A helper that hybrid_forward calls with F or tensors is traced with it.
HelperTexts = Callable[[str], Optional[List[str]]]


def may_report(source: str, imports: ModuleFacts, helpers: Optional[HelperTexts] = None,
               received: Optional[Dict[str, Kind]] = None, children: Optional[Dict[str, Kind]] = None) -> bool:
    """False only when no screened rule can report in the hybrid_forward that `source` (a method cut
    out of its file and dedented) defines, nor in the helpers it calls with F or tensors (found by
    `helpers`); True when it may, or when the text is not one method. `received`: what the package
    index says the block's callers pass, by parameter (`ClassContext.parameters`); `children`: what
    it says the children called return (`ClassContext.children`; a child it does not list gives
    what the analysis takes for a child's result), None before the index is read."""
    function, nodes = _parsed_method(source)
    if function is None:
        return True
    return _Screen(function, imports, helpers=helpers, received=received, children=children,
                   nodes=nodes).may_report()


# The last methods screened, parsed and walked: a method kept by the first screening is screened
# again once the index is read (the screen never changes a tree).
_PARSED: "OrderedDict[str, tuple]" = OrderedDict()
_PARSED_SIZE = 64


def _parsed_method(source: str) -> tuple:
    """(the function `source` defines, every node under it), or (None, None)."""
    found = _PARSED.get(source)
    if found is None:
        function = _one_function(source)
        found = _PARSED[source] = (function, _walk(function) if function is not None else None)
        if len(_PARSED) > _PARSED_SIZE:
            _PARSED.popitem(last=False)
    else:
        _PARSED.move_to_end(source)
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


def _dotted(node: ast.expr) -> Optional[str]:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


# Fields that never hold a node the screen needs: names, flags, operators, load/store markers.
_NOT_CHILDREN = {"ctx", "op", "ops", "id", "attr", "arg", "name", "names", "module", "level", "kind",
                 "asname", "rest", "kwd_attrs", "conversion", "is_async", "simple", "type_comment", "type_ignores"}
_CHILD_FIELDS: Dict[type, tuple] = {ast.Constant: ()}
T = 1  # may be a tensor
G = 2  # may be a group or list of tensors
M = 4  # may be a child block's result the package index does not know: a tensor, or a tuple of them
TM = T | M
# (every rule that reports on M reports on T too, so that T alone may stand for both: only the
# results of child blocks, once the index has said what they return, are M without T)


def _child_fields(kind: type) -> tuple:
    found = _CHILD_FIELDS.get(kind)
    if found is None:
        found = _CHILD_FIELDS[kind] = tuple(f for f in kind._fields if f not in _NOT_CHILDREN)
    return found


def _children(node: ast.AST) -> List[ast.AST]:
    found = []
    for name in _child_fields(type(node)):
        value = getattr(node, name, None)
        if type(value) is list:
            found.extend(item for item in value if item is not None)  # `{**d}` has a None key
        elif value is not None:
            found.append(value)
    return found


def _walk(root: ast.AST) -> List[ast.AST]:
    """Every node under `root` that can hold or be an expression or statement, breadth first."""
    nodes = [root]
    append, extend, known = nodes.append, nodes.extend, _CHILD_FIELDS
    for node in nodes:  # the list grows as it is read; `_children`, inlined (called per node)
        kind = type(node)
        fields = known.get(kind)
        if fields is None:
            fields = _child_fields(kind)
        for name in fields:
            value = getattr(node, name, None)
            if type(value) is list:
                extend(item for item in value if item is not None)  # `{**d}` has a None key
            elif value is not None:
                append(value)
    return nodes


class _Screen:
    def __init__(self, function: ast.FunctionDef, imports: ModuleFacts, helpers: Optional[HelperTexts] = None,
                 helper: bool = False, namespace: Optional[int] = None, received: Optional[Dict[str, Kind]] = None,
                 children: Optional[Dict[str, Kind]] = None, nodes: Optional[List[ast.AST]] = None):
        """A hybrid_forward, or a `helper` whose parameter number `namespace` receives F (None:
        none does); `received`: what a hybrid_forward's callers pass; `children`: what the index
        says its children return (None: not known yet, so any child may return a tensor)."""
        self.imports = imports
        self.helpers = helpers
        self.children = children
        arguments = function.args
        positional = [a.arg for a in arguments.args]
        self.instance = positional[0] if positional else None  # `self`
        self.flavors: Dict[str, int] = {}
        self.keywords = None
        if not helper:
            self.usable = len(positional) >= 2 and not arguments.posonlyargs
            self.namespace = positional[1] if self.usable else None
            defaults = [None] * (len(arguments.args) - len(arguments.defaults)) + list(arguments.defaults)
            for argument, default in list(zip(arguments.args[2:], defaults[2:])) + list(
                    zip(arguments.kwonlyargs, arguments.kw_defaults)):
                self.flavors[argument.arg] = _parameter_flavor(argument.arg, default)
                if received and argument.arg in received and argument.annotation is None:
                    self.flavors[argument.arg] &= _received_flavor(received[argument.arg])
            # `**kwargs` holds the block's parameters: its items are tensors
            self.keywords = arguments.kwarg.arg if arguments.kwarg is not None else None
        else:
            self.usable = not arguments.posonlyargs
            self.namespace = positional[namespace] if namespace is not None and namespace < len(positional) else None
            for name in positional + [a.arg for a in arguments.kwonlyargs]:
                if name not in ("self", self.namespace):
                    self.flavors[name] = TM | G  # whatever the calls pass
        if arguments.vararg is not None:
            self.flavors[arguments.vararg.arg] = G
        self.nodes = nodes if nodes is not None else _walk(function)
        # the analysis takes a builtin's result for a Python value, unless the method binds its name
        self.locals = {node.id for node in self.nodes if type(node) is ast.Name and type(node.ctx) is not ast.Load}
        self.locals.update(positional, (a.arg for a in arguments.kwonlyargs),
                           (star.arg for star in (arguments.vararg, arguments.kwarg) if star is not None))
        self._flavor_of: Dict[ast.AST, int] = {}
        if not helper:  # (a helper's parameters are what the calls pass, whatever the uses say)
            for name in _lists_by_usage(self.nodes, [n for n, f in self.flavors.items() if f == TM | G],
                                        self.namespace):
                self.flavors[name] = G
        self.initial = dict(self.flavors)
        self._earlier: Optional[Dict[str, list]] = None
        self.function = function
        self._assignments: Optional[Dict[str, list]] = None
        self._loops: Optional[List[ast.AST]] = None

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
    def _spread_flavors(self) -> None:
        bindings = [node for node in self.nodes if type(node) in _BINDINGS]
        changed = True
        while changed:  # flavors only grow: at most two rounds per name
            changed = False
            self._flavor_of = {}
            for node in bindings:
                for name, flavor in self._bound(node):
                    old = self.flavors.get(name, 0)
                    if flavor & ~old:
                        self.flavors[name] = old | flavor
                        changed = True
        # the last round changed nothing, so what it computed stands

    def tensor_before(self, node: ast.AST) -> bool:
        """As may_be_plain_tensor (for HYB015); for a name outside loops and nested scopes, only the
        bindings that end before it count, as the analysis walks in order (`x = F.concat(*x)`
        reads the parameter)."""
        if type(node) is not ast.Name:
            return self.may_be_plain_tensor(node)
        if self._earlier is None:
            self._earlier = {}
            if self._loops is None:
                self._loops = [n for n in self.nodes[1:] if type(n) in _LOOPS]  # (nodes[0]: the method)
            for binding in self.nodes:
                if type(binding) in _BINDINGS:
                    end = (getattr(binding, "end_lineno", None), getattr(binding, "end_col_offset", None))
                    for name, flavor in self._bound(binding):
                        self._earlier.setdefault(name, []).append((end, flavor))
        start = (node.lineno, node.col_offset)
        if any(_encloses(loop, start) for loop in self._loops):
            return self.may_be_plain_tensor(node)
        flavor = self.initial.get(node.id, 0)
        for end, bound in self._earlier.get(node.id, ()):
            if end[0] is None or end <= start:  # (a clause without a position: taken to reach it)
                flavor |= bound
        return bool(flavor & T)

    def _reaching_flavor(self, node: ast.Name) -> Optional[int]:
        """The flavor of a name where it is read, when one plain assignment of the method's own body
        (`x = value`, not in a branch or loop) surely reaches the read: the last one before it, with
        no other binding of the name between them, none in a loop around the read, and the read in
        no nested function (which may run later). The analysis, walking in order, holds there what
        that assignment bound (`x = F.split(x, num_outputs=4)` and then `x[0]`); None otherwise."""
        if self._assignments is None:
            self._read_assignments()
        assigned = self._assignments.get(node.id)
        if not assigned or (len(self._binding_places[node.id]) == 1 and node.id not in self.initial):
            return None  # (bound once: what that binding gives is all the name may hold anyway)
        at = (node.lineno, node.col_offset)
        chosen = None
        for end, value in assigned:  # (in order)
            if end > at:
                break
            chosen = (end, value)
        if chosen is None:
            return None
        bindings = self._binding_places.get(node.id, ())
        if any(place is None or chosen[0] < place < at for place in bindings):
            return None  # (a clause that binds without a place of its own may be anywhere)
        for scope in self._loops:
            if _encloses(scope, at) and (type(scope) in _NESTED or any(_encloses(scope, place) for place in bindings)):
                return None
        return self.flavor(chosen[1])

    def _read_assignments(self) -> None:
        self._assignments = {}
        for statement in self.function.body:
            if type(statement) is ast.Assign and len(statement.targets) == 1 and type(statement.targets[0]) is ast.Name:
                self._assignments.setdefault(statement.targets[0].id, []).append(
                    ((statement.end_lineno, statement.end_col_offset), statement.value))
        self._binding_places: Dict[str, list] = {}
        for binding in self.nodes:
            if type(binding) in _BINDINGS:
                # an assignment binds once its value is computed, a loop before its body runs
                place = None if not hasattr(binding, "lineno") else (binding.end_lineno, binding.end_col_offset) \
                    if type(binding) in _BOUND_AFTER else (binding.lineno, binding.col_offset)
                for name in _names_bound(binding):
                    self._binding_places.setdefault(name, []).append(place)
        if self._loops is None:
            self._loops = [n for n in self.nodes[1:] if type(n) in _LOOPS]  # (nodes[0]: the method)

    def _bound(self, node: ast.AST):
        """(name, flavor) for each name that the binding statement or clause `node` binds."""
        kind = type(node)
        if kind is ast.Assign:
            for target in node.targets:
                yield from self._assigned(target, node.value)
        elif kind is ast.AnnAssign:
            if node.value is not None:
                yield from self._assigned(node.target, node.value)
        elif kind is ast.AugAssign:
            if type(node.target) is ast.Name:
                value, target = self.flavor(node.value), self.flavors.get(node.target.id, 0)
                yield node.target.id, (TM if (value | target) & TM else 0) | (target & G)
        elif kind in (ast.For, ast.AsyncFor, ast.comprehension):
            yield from _unpacked(node.target, TM if self.flavor(node.iter) else 0)
        elif kind is ast.withitem:
            if node.optional_vars is not None:
                yield from _unpacked(node.optional_vars, self.flavor(node.context_expr))
        elif kind is ast.NamedExpr:
            yield node.target.id, self.flavor(node.value)

    def _assigned(self, target: ast.expr, value: ast.expr):
        if type(target) in (ast.Tuple, ast.List):
            if type(value) in (ast.Tuple, ast.List) and len(value.elts) == len(target.elts):
                for inner, item in zip(target.elts, value.elts):
                    yield from self._assigned(inner, item)
            else:
                yield from _unpacked(target, TM if self.flavor(value) else 0)
        elif type(target) is ast.Name:
            yield target.id, self.flavor(value)
        elif type(target) is ast.Starred:
            yield from _unpacked(target, 0)

    def maybe_tensor(self, node: ast.AST) -> bool:
        """Whether `node`'s value may be a tensor (or a child block's result)."""
        return bool(self.flavor(node) & TM)

    def may_be_plain_tensor(self, node: ast.AST) -> bool:
        """Whether `node`'s value may be what the analysis takes for a tensor, not only a child's
        result (the rules that report on tensors alone: HYB005, HYB006, HYB008, HYB011, HYB015)."""
        return bool(self.flavor(node) & T)

    def flavor(self, node: ast.AST) -> int:
        found = self._flavor_of.get(node)
        if found is None:
            found = self._flavor_of[node] = self._compute_flavor(node)
        return found

    def _compute_flavor(self, node: ast.AST) -> int:
        kind = type(node)
        if kind is ast.Name:
            reached = self._reaching_flavor(node) if type(node.ctx) is ast.Load else None
            return self.flavors.get(node.id, 0) if reached is None else reached
        if kind is ast.Call:
            return self._call_flavor(node)
        if kind is ast.Attribute:
            # `x.T` is a tensor; `.shape` and the like are Python values, anything else unknown
            return TM if node.attr == "T" and self.flavor(node.value) & TM else 0
        if kind is ast.Subscript:
            if self.keywords is not None and _is_name(node.value, self.keywords):
                return TM
            base = self.flavor(node.value)
            # libcst reads `x[(a, b)]` as one index and `x[a, b]` as two: a tuple may be either
            whole = type(node.slice) is not ast.Slice
            parts = type(node.slice) in (ast.Slice, ast.Tuple)
            # (a child's result indexed by one index is another, or unknown: `out[1:]`)
            flavor = TM if base & T or base & G and whole else M if base & M and whole else 0
            return flavor | (G if base & G and parts else 0)
        if kind is ast.BinOp:
            either = self.flavor(node.left) | self.flavor(node.right)
            # (a child's result times a number is a tensor to the analysis)
            return (TM if either & TM else 0) | (either & G if type(node.op) in (ast.Add, ast.Mult) else 0)
        if kind is ast.UnaryOp:
            operand = self.flavor(node.operand)
            return (T if operand & T else 0) if type(node.op) is ast.Not else operand
        if kind is ast.Compare:
            if any(type(op) in _IDENTITY for op in node.ops):
                return 0  # `x is None`, `k in kwargs`: a Python bool whatever x is
            return TM if any(self.flavor(part) & TM for part in [node.left] + node.comparators) else 0
        if kind is ast.BoolOp:
            # the analysis keeps a kind only when both sides have it (a tensor's and a child's
            # result may meet as either)
            flavors = [self.flavor(value) for value in node.values]
            return (TM if all(f & TM for f in flavors) else 0) | (G if all(f & G for f in flavors) else 0)
        if kind is ast.IfExp:
            self.flavor(node.test)
            return self.flavor(node.body) | self.flavor(node.orelse)
        if kind in (ast.NamedExpr, ast.Starred):
            return self.flavor(node.value)
        return 0  # literals, displays, comprehensions, lambdas: Python values or unknown

    def _call_flavor(self, node: ast.Call) -> int:
        func = node.func
        arguments = [self.flavor(arg) for arg in node.args] + [self.flavor(k.value) for k in node.keywords]
        name = _dotted(func)
        imported = 0
        if name is not None:
            head, _, rest = name.partition(".")
            if head == self.namespace and rest:
                return _namespace_flavor(rest, node)
            if head == "self" and rest and "." not in rest:
                # a child block: its result may be a tensor, or what the package index says it is
                if not any(arguments):
                    return 0
                return TM | G if self.children is None else _kind_flavor(self.children.get(rest))
            if "." not in name and name in PYTHON_BUILTINS and name not in self.locals:
                return 0
            resolved = self.imports.resolve_dotted(name) if head != "self" else None
            package = resolved.split(".")[0] if resolved is not None else None
            if package == "mxnet" and resolved.startswith(NAMESPACE_PREFIXES):
                imported = _namespace_flavor(resolved.split(".", 2)[2], node)
            if package in ("mxnet", "numpy", "math") and head not in self.locals:
                return imported  # (a name bound in the method may still be the module to the analysis)
        if type(func) is ast.Attribute and self.flavor(func.value) & TM:
            if func.attr in GROUP_OPS:  # a method of the output table: one output or several
                return imported | _outputs_flavor(func.attr, node, 1)
            return imported | (0 if func.attr in PYTHON_METHODS or func.attr not in TENSOR_METHODS else TM)
        return imported

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


# Loops, and scopes whose code may run after what follows them: inside these, any binding may reach a use.
_LOOPS = (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.Lambda,
          ast.FunctionDef, ast.AsyncFunctionDef)


_NESTED = (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef)
_BOUND_AFTER = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr)


def _names_bound(node: ast.AST) -> List[str]:
    """The names a binding statement or clause binds (as `_Screen._bound` finds them)."""
    kind = type(node)
    if kind is ast.Assign:
        targets = list(node.targets)  # (a copy: the tree stays as it is)
    elif kind in (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor, ast.comprehension, ast.NamedExpr):
        targets = [node.target]
    elif kind is ast.withitem:
        targets = [node.optional_vars] if node.optional_vars is not None else []
    else:
        targets = []
    names = []
    while targets:
        target = targets.pop()
        if type(target) is ast.Name:
            names.append(target.id)
        elif type(target) in (ast.Tuple, ast.List):
            targets.extend(target.elts)
        elif type(target) is ast.Starred:
            targets.append(target.value)
    return names


def _encloses(node: ast.AST, position) -> bool:
    return (node.lineno, node.col_offset) <= position < (node.end_lineno, node.end_col_offset)


_BINDINGS = frozenset({ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor, ast.comprehension,
                       ast.withitem, ast.NamedExpr})


def _is_name(node: ast.expr, name: Optional[str]) -> bool:
    return type(node) is ast.Name and node.id == name


def _unpacked(target: ast.expr, flavor: int):
    """Names bound by unpacking into `target`: each gets what an item may be (nested ones: unknown)."""
    if type(target) is ast.Name:
        yield target.id, flavor
    elif type(target) in (ast.Tuple, ast.List):
        for inner in target.elts:
            yield from _unpacked(inner, flavor if type(inner) is ast.Name else 0)
    elif type(target) is ast.Starred:
        yield from _unpacked(target.value, 0)


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


def _lists_by_usage(nodes: List[ast.AST], names: List[str], namespace: str) -> List[str]:
    """The parameters among `names` that the analysis's usage evidence (`_usage_evidence`) surely
    takes for lists: used as one (`for _ in p`, `*p`, `len(p)`, `p.append`) and nowhere as a tensor
    could be (`p.<attr>`, `F.op(p)`, `p - q`), the latter over-approximated. Sound while a
    parameter's kind comes from its name and uses alone: evidence from elsewhere (callers) that
    can make such a parameter a tensor must end this refinement."""
    if not names:
        return []
    wanted = set(names)
    as_list, maybe_tensor = set(), set()

    def name_of(node):
        return node.id if type(node) is ast.Name and node.id in wanted else None

    for node in nodes:
        kind = type(node)
        if kind in (ast.For, ast.AsyncFor):
            as_list.add(name_of(node.iter))
        elif kind is ast.Call:
            func = node.func
            if type(func) is ast.Name and func.id in ("len", "enumerate", "zip", "list", "tuple", "reversed"):
                as_list.update(name_of(arg) for arg in node.args)
            if type(func) is ast.Attribute and _is_name(func.value, namespace):  # `F.op(p)`
                maybe_tensor.update(name_of(arg) for arg in node.args)
            as_list.update(name_of(arg.value) for arg in node.args if type(arg) is ast.Starred)
        elif kind is ast.Attribute:
            (as_list if node.attr in LIST_METHODS else maybe_tensor).add(name_of(node.value))
        elif kind is ast.BinOp and type(node.op) not in (ast.Add, ast.Mult):
            maybe_tensor.update((name_of(node.left), name_of(node.right)))
    return [name for name in names if name in as_list and name not in maybe_tensor]


def _parameter_flavor(name: str, default: Optional[ast.expr]) -> int:
    """A parameter is a tensor or a list of them, as its callers in the package, its annotation, its
    name and its uses say (`_parameter_kind`); only the name is read here (the analysis never takes
    a parameter named for states for a tensor), so both are possible unless it or a default decides."""
    if default is not None and not (type(default) is ast.Constant and default.value is None):
        return 0  # a Python default: a Python value
    lowered = name.lower()
    if any(word in lowered for word in STATE_WORDS) or lowered.endswith("list"):
        return G
    return TM | G


def _received_flavor(kind: Kind) -> int:
    """What a parameter may be, given the kind its callers pass (`_parameter_kind`, where an
    annotation, read first, would decide instead): whether or not every call site is known, the
    analysis keeps a Python value's kind or takes it for unknown, and likewise a list's, or a
    group's; a tensor it may take for anything."""
    if kind in (Kind.PYTHON, Kind.UNKNOWN):
        return 0
    if kind in (Kind.SEQUENCE, Kind.GROUP):
        return G
    return TM | G


def _kind_flavor(kind: Optional[Kind]) -> int:
    """What the call of a child gives, given the kind the package index says it returns (None:
    unknown, a child's result to the analysis)."""
    if kind is None or kind is Kind.MAYBE:
        return M
    if kind is Kind.TENSOR:
        return T
    if kind in (Kind.SEQUENCE, Kind.GROUP):
        return G
    return 0


def _namespace_flavor(op: str, call: ast.Call) -> int:
    """What `F.<op>(...)` gives, as the analysis's `_namespace_call` decides, from the same table."""
    short = op.rsplit(".", 1)[-1]
    if short in NESTED_OPS:
        return G
    if op.startswith(("np.", "npx.")):
        return 0
    if short not in GROUP_OPS:
        return TM
    return _outputs_flavor(short, call, 0)


def _outputs_flavor(op: str, call: ast.Call, shift: int) -> int:
    """As the analysis's `_outputs_kind` (`shift`: 1 for a method, whose data is its receiver)."""
    count = output_count(op, lambda name: _literal_argument(call, name),
                         lambda index: _literal_argument(call, index - shift))
    # where `ast` reads a literal that libcst does not (`"bo" "th"` is one string here), the
    # analysis may see a group; an unknown flag makes a tensor or a group
    return G if count > 1 or op in COUNTED_OUTPUTS and count == UNKNOWN_COUNT else TM | G


def _literal_argument(call: ast.Call, which):
    """As the analysis's `_literal_argument`: a literal value, None when absent, else UNKNOWN_COUNT."""
    if any(type(arg) is ast.Starred for arg in call.args) or any(k.arg is None for k in call.keywords):
        return UNKNOWN_COUNT
    if type(which) is int:
        node = call.args[which] if len(call.args) > which else None
    else:
        node = next((k.value for k in call.keywords if k.arg == which), None)
    if node is None:
        return None
    try:
        return ast.literal_eval(node) if type(node) in (ast.Constant, ast.Tuple, ast.List) else UNKNOWN_COUNT
    except ValueError:
        return UNKNOWN_COUNT
