"""A first look at a hybrid_forward with Python's own `ast`: can any rule report in it at all?

Most methods of real Gluon code are clean, and libcst's parse is the dearest step of a check (and
its import alone the dearest step of starting one), while `ast` parses the same text about ten
times faster. So each method is screened first, and only those the screen cannot clear go to
libcst and the full analysis.

The screen must never clear a method that the full check reports in, so it over-approximates:
- a name is *tainted* when any binding of it anywhere in the method (order and branches ignored)
  could give it a tensor, a tensor group, or a list of them; the full analysis's kinds TENSOR,
  MAYBE, GROUP and SEQUENCE only ever arise from the sources that taint here (the method's
  parameters, `F`, imperative-namespace calls) and from operations on them;
- a method is cleared only when it holds none of the constructs any screened rule reports, with a
  tainted operand. A rule it does not know (HYB012 here) turns the screen off.
The test suite runs every rule's examples through the full engine, screen included, so a screen
that misses a construct fails those tests.
"""
from __future__ import annotations

import ast
from typing import Dict, FrozenSet, Iterable, List, Optional, Set

from hyblint.analysis.module import ModuleFacts
from hyblint.analysis.vocabulary import (CONTEXT_ATTRIBUTES, CONVERSION_BUILTINS, CONVERSION_METHODS,
                                         DTYPE_ATTRIBUTES, FROZEN_CALLS, IMPERATIVE_PREFIXES, INDEX_ARGUMENT,
                                         NUMPY_FUNCTIONS, PYTHON_BUILTINS, SHAPE_ATTRIBUTES)

SCREENED_CODES = frozenset({"HYB001", "HYB002", "HYB003", "HYB004", "HYB005", "HYB006", "HYB007", "HYB008",
                            "HYB009", "HYB010", "HYB011", "HYB013", "HYB014"})
_TENSOR_ATTRIBUTES = SHAPE_ATTRIBUTES | DTYPE_ATTRIBUTES | CONTEXT_ATTRIBUTES | CONVERSION_METHODS
_CALLS_ON_TENSORS = CONVERSION_BUILTINS | {"len", "print"}
_IDENTITY = (ast.Is, ast.IsNot, ast.In, ast.NotIn)
_TESTED = (ast.If, ast.While, ast.IfExp, ast.Assert)
# Statements whose bindings the taint does not follow.
_UNFOLLOWED = (ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal, ast.Match)
_REPORTABLE = frozenset({ast.Subscript, ast.Attribute, ast.AugAssign, ast.If, ast.While, ast.IfExp, ast.Assert,
                         ast.UnaryOp, ast.BoolOp, ast.Call})


def can_screen(codes: Iterable[str]) -> bool:
    return SCREENED_CODES.issuperset(codes)


def may_report(source: str, imports: ModuleFacts) -> bool:
    """False only when no screened rule can report in the hybrid_forward that `source` (a method cut
    out of its file and dedented) defines; True when it may, or when the text is not one method."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return True
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.FunctionDef):
        return True
    return _Screen(tree.body[0], imports).may_report()


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
_ALWAYS = None  # the dependencies of a value that is a tensor whatever the names hold


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
    for node in nodes:  # the list grows as it is read
        nodes.extend(_children(node))
    return nodes


def _names(target: ast.AST) -> List[str]:
    if type(target) is ast.Name:
        return [target.id]
    return [node.id for node in _walk(target) if type(node) is ast.Name]


class _Screen:
    def __init__(self, function: ast.FunctionDef, imports: ModuleFacts):
        self.imports = imports
        arguments = function.args
        positional = [a.arg for a in arguments.posonlyargs + arguments.args]
        self.usable = len(positional) >= 2
        self.namespace = positional[1] if self.usable else None
        # everything hybrid_forward receives may be a tensor, a list of them, or the namespace
        # (`**kwargs` is a dict to the analysis: its items are never taken for tensors)
        self.tainted: Set[str] = set(positional[1:]) | {a.arg for a in arguments.kwonlyargs}
        if arguments.vararg is not None:
            self.tainted.add(arguments.vararg.arg)
        self.nodes = _walk(function)
        # a builtin's result is a Python value, unless the method rebinds its name
        self.builtins = PYTHON_BUILTINS.difference(
            [node.id for node in self.nodes if type(node) is ast.Name and type(node.ctx) is not ast.Load],
            positional, [a.arg for a in arguments.kwonlyargs],
            [star.arg for star in (arguments.vararg, arguments.kwarg) if star is not None])
        self._dependencies_of: Dict[ast.AST, Optional[FrozenSet[str]]] = {}

    def may_report(self) -> bool:
        if not self.usable or any(isinstance(node, _UNFOLLOWED) for node in self.nodes):
            return True
        self._spread_taint()
        return any(self._reportable(node) for node in self.nodes if type(node) in _REPORTABLE)

    def _spread_taint(self) -> None:
        bindings = []
        for node in self.nodes:
            kind = type(node)
            if kind is ast.Assign:
                bindings.extend((target, node.value) for target in node.targets)
            elif kind in (ast.AugAssign, ast.AnnAssign, ast.NamedExpr) and node.value is not None:
                bindings.append((node.target, node.value))
            elif kind in (ast.For, ast.AsyncFor, ast.comprehension):
                bindings.append((node.target, node.iter))
            elif kind is ast.withitem and node.optional_vars is not None:
                bindings.append((node.optional_vars, node.context_expr))
        pending = [(_names(target), self._dependencies(value)) for target, value in bindings]
        changed = True
        while changed:  # until no binding taints a new name: at most once per name
            changed = False
            for names, dependencies in pending:
                if self.tainted.issuperset(names):
                    continue
                if dependencies is _ALWAYS or not self.tainted.isdisjoint(dependencies):
                    self.tainted.update(names)
                    changed = True

    def taints(self, node: ast.AST) -> bool:
        """Whether the value of `node` may be a tensor (or a group or list of them)."""
        dependencies = self._dependencies(node)
        return dependencies is _ALWAYS or not self.tainted.isdisjoint(dependencies)

    def _dependencies(self, node: ast.AST) -> Optional[FrozenSet[str]]:
        """The names whose taint would taint `node`'s value; _ALWAYS when it is tainted anyway."""
        found = self._dependencies_of.get(node, False)
        if found is False:
            found = self._dependencies_of[node] = self._compute_dependencies(node)
        return found

    def _compute_dependencies(self, node: ast.AST) -> Optional[FrozenSet[str]]:
        kind = type(node)
        if kind is ast.Name:
            return frozenset((node.id,))
        if kind in (ast.Constant, ast.Lambda):
            return frozenset()
        if kind is ast.Compare and all(isinstance(op, _IDENTITY) for op in node.ops):
            return frozenset()  # `x is None`, `k in kwargs`: a Python bool whatever x is
        if kind is ast.Call:
            func = node.func
            if type(func) is ast.Name and func.id in self.builtins:
                return frozenset()  # `isinstance(x, list)`, `len(states)`
            name = _dotted(func)
            if name is not None and self._imperative(name):
                return _ALWAYS
        union: Set[str] = set()
        for child in _children(node):
            dependencies = self._dependencies(child)
            if dependencies is _ALWAYS:
                return _ALWAYS
            union.update(dependencies)
        return frozenset(union)

    def _imperative(self, name: str) -> bool:
        resolved = self.imports.resolve_dotted(name)
        return resolved is not None and resolved.startswith(IMPERATIVE_PREFIXES + ("mxnet.symbol.", "mxnet.sym."))

    def _reportable(self, node: ast.AST) -> bool:
        """Whether some rule could report on `node`, were its tainted operands tensors."""
        if isinstance(node, ast.Subscript):                                   # HYB001, HYB005
            return self.taints(node.value)
        if isinstance(node, ast.Attribute):                                   # HYB002-004, HYB007
            return node.attr in _TENSOR_ATTRIBUTES and self.taints(node.value)
        if isinstance(node, ast.AugAssign):                                   # HYB006
            return self.taints(node.target) or self.taints(node.value)
        if isinstance(node, _TESTED):                                         # HYB008, HYB013
            return self.taints(node.test) or (isinstance(node, ast.If) and self._frozen_call_in(node.test))
        if isinstance(node, ast.UnaryOp):                                     # HYB008 `not`
            return isinstance(node.op, ast.Not) and self.taints(node.operand)
        if isinstance(node, ast.BoolOp):                                      # HYB008 `and`/`or`
            return any(self.taints(value) for value in node.values)
        if isinstance(node, ast.Call):
            return self._reportable_call(node)
        return False

    def _reportable_call(self, node: ast.Call) -> bool:
        func = node.func
        tainted_argument = any(self.taints(arg) for arg in node.args) or any(
            self.taints(keyword.value) for keyword in node.keywords)
        if isinstance(func, ast.Name) and func.id in _CALLS_ON_TENSORS:       # HYB002 len, HYB007, HYB010
            return tainted_argument
        if isinstance(func, ast.Attribute):
            if func.attr == "reshape" and self._positional_shape(node):       # HYB011
                return True
            if func.attr in INDEX_ARGUMENT and _negative_index(node):         # HYB014
                return True
        name = _dotted(func)
        if name is None:
            return False
        resolved = self.imports.resolve_dotted(name)
        if resolved is None:
            return False
        return resolved.startswith(IMPERATIVE_PREFIXES) or (                 # HYB009
            resolved in NUMPY_FUNCTIONS and tainted_argument)                # HYB007

    def _positional_shape(self, call: ast.Call) -> bool:
        """`x.reshape(a, b)` or `F.reshape(x, a, b)`: two dimensions or more, none a tuple or list."""
        if any(isinstance(arg, ast.Starred) for arg in call.args) or any(k.arg is None for k in call.keywords):
            return False
        on_namespace = isinstance(call.func.value, ast.Name) and call.func.value.id == self.namespace
        dimensions = call.args[1:] if on_namespace else call.args
        return len(dimensions) >= 2 and not any(isinstance(d, (ast.Tuple, ast.List)) for d in dimensions)

    def _frozen_call_in(self, test: ast.expr) -> bool:
        for node in _walk(test):
            if type(node) is ast.Call:
                name = _dotted(node.func)
                if name is not None and self.imports.resolve_dotted(name) in FROZEN_CALLS:
                    return True
        return False


def _negative_index(call: ast.Call) -> bool:
    """A minus sign in the index argument of `F.take`/`F.pick` called without `mode`."""
    keyword, position = INDEX_ARGUMENT[call.func.attr]
    if any(k.arg == "mode" for k in call.keywords):
        return False
    index = [k.value for k in call.keywords if k.arg == keyword]
    if len(call.args) > position and not any(isinstance(arg, ast.Starred) for arg in call.args[:position + 1]):
        index.append(call.args[position])
    elif any(isinstance(arg, ast.Starred) for arg in call.args) or any(k.arg is None for k in call.keywords):
        return True  # the index may be anywhere
    return any(isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)
               for argument in index for node in _walk(argument))


def cleared(source: str, imports: ModuleFacts, codes: FrozenSet[str]) -> bool:
    """True when the screen proves that the method in `source` has nothing to report."""
    return can_screen(codes) and not may_report(source, imports)
