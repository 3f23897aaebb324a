"""What each name and expression of a method may hold, read from Python's `ast`: the screen's
(`analysis/screen.py`) over-approximation of the kinds the analysis (`analysis/function.py`) gives.

Flavors are bits: T when the value may be a tensor (the analysis's TENSOR, or MAYBE: T stands for
both), M when it may be a child block's result and nothing else (MAYBE: what an unknown child
gives once the package index has been read), G when it may be a group or list of tensors (GROUP,
SEQUENCE). A name's flavor is the union of what its bindings give, anywhere in the method (order
and branches ignored), except where one plain assignment of the method's body surely reaches the
read; an expression's follows the analysis's own rules, taking the union wherever it would pick
one kind.
"""
from __future__ import annotations

import ast
from typing import Callable, Dict, List, Optional, Set

from hyblint.analysis.kinds import Kind
from hyblint.analysis.module import ModuleFacts
from hyblint.analysis.vocabulary import (COUNTED_OUTPUTS, GROUP_OPS, LIST_METHODS, NAMESPACE_PREFIXES, NESTED_OPS,
                                         PYTHON_BUILTINS, PYTHON_METHODS, STATE_WORDS, TENSOR_METHODS,
                                         UNKNOWN_COUNT, output_count)

# The texts (dedented) of the functions and methods named so in the method's file; None when they
# cannot be known. A helper that hybrid_forward calls with F or tensors is traced with it.
HelperTexts = Callable[[str], Optional[List[str]]]
_IDENTITY = (ast.Is, ast.IsNot, ast.In, ast.NotIn)


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


class Flavors:
    """The flavors of a hybrid_forward's names and expressions (or a helper's, see `__init__`)."""

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
        self._read: Set[str] = set()  # the names whose flavor was read since `_flavor_of` was emptied
        if not helper:  # (a helper's parameters are what the calls pass, whatever the uses say)
            for name in _lists_by_usage(self.nodes, [n for n, f in self.flavors.items() if f == TM | G],
                                        self.namespace):
                self.flavors[name] = G
        self.initial = dict(self.flavors)
        self._earlier: Optional[Dict[str, list]] = None
        self.function = function
        self._assignments: Optional[Dict[str, list]] = None
        self._loops: Optional[List[ast.AST]] = None

    def _spread_flavors(self) -> None:
        bindings = [node for node in self.nodes if type(node) in _BINDINGS]
        stale = True
        while stale:  # flavors only grow: at most two rounds per name
            stale = False
            self._flavor_of = {}
            self._read = set()
            for node in bindings:
                for name, flavor in self._bound(node):
                    old = self.flavors.get(name, 0)
                    if flavor & ~old:
                        self.flavors[name] = old | flavor
                        # a name read before it grew in this round: what was computed from it is
                        # stale, and another round follows (a name that only grows before it is
                        # read, as in straight-line code, leaves the round's values standing)
                        stale = stale or name in self._read
        # the last round computed every flavor from the names' final flavors, so what it computed stands

    def tensor_before(self, node: ast.AST) -> bool:
        """As may_be_plain_tensor (for HYB015); for a name outside loops and nested scopes, only the
        bindings that end before it count, as the analysis walks in order (`x = F.concat(*x)`
        reads the parameter)."""
        if type(node) is not ast.Name:
            return self.may_be_plain_tensor(node)
        if self._earlier is None:
            self._earlier = {}
            for binding in self.nodes:
                if type(binding) in _BINDINGS:
                    end = (getattr(binding, "end_lineno", None), getattr(binding, "end_col_offset", None))
                    for name, flavor in self._bound(binding):
                        self._earlier.setdefault(name, []).append((end, flavor))
        start = (node.lineno, node.col_offset)
        if any(_encloses(loop, start) for loop in self._scopes()):
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
        for scope in self._scopes():
            if _encloses(scope, at) and (type(scope) in _NESTED or any(_holds(scope, place) for place in bindings)):
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

    def _scopes(self) -> List[ast.AST]:
        """The method's loops and nested scopes (`_LOOPS`)."""
        if self._loops is None:
            self._loops = [n for n in self.nodes[1:] if type(n) in _LOOPS]  # (nodes[0]: the method)
        return self._loops

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
                self._read.add(node.target.id)
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
            self._read.add(node.id)
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


def _holds(node: ast.AST, place) -> bool:
    """Whether a binding that takes effect at `place` (where its statement ends) is inside `node`:
    the last statement of a loop's body ends where the loop ends."""
    return (node.lineno, node.col_offset) <= place <= (node.end_lineno, node.end_col_offset)


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
