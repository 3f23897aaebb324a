"""Flow-sensitive facts for one hybrid_forward: the kind of every expression, and guarded code.

The walk follows statements in order with an environment of name -> Kind. Branches are walked
separately and joined; loop bodies are walked twice, so that a value that becomes a tensor in the
first iteration (`acc = 0; acc += F.sum(x)`) is seen as one in the second.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Dict, FrozenSet, List, Optional, Set, Tuple

import libcst as cst

from hyblint.analysis.index import ClassContext, Helper
from hyblint.analysis.kinds import Kind, join
from hyblint.analysis.module import ModuleFacts, dotted
from hyblint.analysis.vocabulary import (COUNTED_OUTPUTS, GROUP_OPS, LIST_METHODS, NAMESPACE_PREFIXES, NESTED_OPS,
                                         PYTHON_BUILTINS, PYTHON_METHODS, STATE_WORDS, TENSOR_METHODS, TENSOR_PLURALS,
                                         UNKNOWN_COUNT, output_count)
from hyblint.analysis.walk import preorder

# Methods only a tensor has: a parameter used with one is a tensor, whatever its name.
TENSOR_EVIDENCE_METHODS = {"reshape", "transpose", "expand_dims", "astype", "sum", "mean", "max", "min", "swapaxes",
                           "slice_axis", "flatten", "squeeze", "broadcast_to", "broadcast_like", "softmax", "exp",
                           "log", "relu", "sigmoid", "tanh", "clip", "abs", "argmax", "argmin", "tile", "norm",
                           "asnumpy", "asscalar", "as_in_context", "zeros_like", "ones_like", "reshape_like"}


def _is_none(expr) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "None"


@dataclass
class FunctionFacts:
    """The outcome of the walk, which rules query."""

    namespace: str                          # the name of hybrid_forward's F parameter
    params: FrozenSet[str]                  # names bound in the function (shadow module aliases)
    kinds: Dict[int, Kind] = field(default_factory=dict)  # by the node's id (libcst nodes hash in Python)
    imperative_only: Set[cst.CSTNode] = field(default_factory=set)  # statements under `F is nd`
    nodes: List[cst.CSTNode] = field(default_factory=list)  # the body's nodes in source order
    ends: List[int] = field(default_factory=list)           # for each, the index past its subtree

    def kind(self, node: cst.CSTNode) -> Kind:
        return self.kinds.get(id(node), Kind.UNKNOWN)


_LITERALS = frozenset({cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString,
                       cst.FormattedString, cst.Ellipsis})


class _Walker:
    def __init__(self, module: ModuleFacts, namespace: str, local_names: FrozenSet[str],
                 context: Optional[ClassContext] = None, keywords: Optional[str] = None):
        self.module = module
        self.F = namespace
        self.local_names = local_names
        self.context = context
        self.keywords = keywords  # the `**kwargs` parameter: Gluon passes the block's parameters there
        self.kinds: Dict[int, Kind] = {}  # by the node's id
        self.imperative_only: Set[cst.CSTNode] = set()

    # ---- expressions
    def expr(self, node: cst.BaseExpression, env: Dict[str, Kind]) -> Kind:
        kind = self._expr(node, env)
        previous = self.kinds.get(id(node))
        # A node walked twice (loops) keeps the most specific danger seen: a tensor once is enough.
        if previous is None or previous is Kind.UNKNOWN or kind is Kind.TENSOR:
            self.kinds[id(node)] = kind
        return kind

    def _expr(self, node, env) -> Kind:
        # (the commonest node types compared by identity: isinstance against libcst's classes
        # goes through ABCMeta's Python-level check; these are concrete, never subclassed)
        kind = type(node)
        if kind is cst.Name:
            if node.value == "None":
                return Kind.NONE
            if node.value in ("True", "False"):
                return Kind.PYTHON
            return env.get(node.value, Kind.UNKNOWN)
        if kind in _LITERALS:
            return Kind.PYTHON
        if kind is cst.Attribute:
            return self._attribute(node, env)
        if kind is cst.Call:
            return self._call(node, env)
        if kind is cst.Subscript:
            return self._subscript(node, env)
        if isinstance(node, (cst.List, cst.Tuple, cst.Set, cst.Dict)):
            for element in node.elements:
                if isinstance(element, (cst.DictElement,)):
                    self.expr(element.key, env)
                    self.expr(element.value, env)
                elif hasattr(element, "value"):
                    self.expr(element.value, env)
            return Kind.PYTHON
        if isinstance(node, (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)):
            self._comprehension(node, env)
            return Kind.PYTHON
        if kind is cst.BinaryOperation:
            left = self.expr(node.left, env)
            right = self.expr(node.right, env)
            if Kind.TENSOR in (left, right):
                return Kind.TENSOR
            if {left, right} & {Kind.GROUP, Kind.SEQUENCE} and isinstance(node.operator, (cst.Add, cst.Multiply)):
                return Kind.SEQUENCE  # list concatenation / repetition
            if left is Kind.PYTHON and right is Kind.PYTHON:
                return Kind.PYTHON
            if Kind.MAYBE in (left, right):
                return Kind.TENSOR if Kind.PYTHON in (left, right) else Kind.MAYBE
            return Kind.UNKNOWN
        if isinstance(node, cst.UnaryOperation):
            operand = self.expr(node.expression, env)
            if isinstance(node.operator, cst.Not):
                return Kind.PYTHON if operand is not Kind.TENSOR else Kind.TENSOR
            return operand if operand is not Kind.NONE else Kind.UNKNOWN
        if isinstance(node, cst.Comparison):
            kinds = [self.expr(node.left, env)]
            identity = False
            for target in node.comparisons:
                kinds.append(self.expr(target.comparator, env))
                if isinstance(target.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)):
                    identity = True
            if identity:
                return Kind.PYTHON
            if Kind.TENSOR in kinds:
                return Kind.TENSOR
            return Kind.PYTHON if all(k is Kind.PYTHON for k in kinds) else Kind.UNKNOWN
        if isinstance(node, cst.BooleanOperation):
            left = self.expr(node.left, env)
            right = self.expr(node.right, env)
            return left if left is right else Kind.UNKNOWN
        if isinstance(node, cst.IfExp):
            self.expr(node.test, env)
            body_env, else_env = self._narrowed(node.test, env)
            return join(self.expr(node.body, body_env), self.expr(node.orelse, else_env))
        if isinstance(node, cst.Lambda):
            return Kind.PYTHON
        if isinstance(node, cst.NamedExpr):
            kind = self.expr(node.value, env)
            if isinstance(node.target, cst.Name):
                env[node.target.value] = kind
            return kind
        if isinstance(node, (cst.StarredElement,)):
            return self.expr(node.value, env)
        return Kind.UNKNOWN

    def _comprehension(self, node, env):
        inner = dict(env)
        clause = node.for_in
        while clause is not None:
            iterated = self.expr(clause.iter, inner)
            self._bind(clause.target, _element_of(iterated), inner)
            for condition in clause.ifs:
                self.expr(condition.test, inner)
            clause = clause.inner_for_in
        if isinstance(node, cst.DictComp):
            self.expr(node.key, inner)
            self.expr(node.value, inner)
        else:
            self.expr(node.elt, inner)

    def _attribute(self, node: cst.Attribute, env) -> Kind:
        base = self.expr(node.value, env)
        attr = node.attr.value
        if base in (Kind.TENSOR, Kind.MAYBE):
            if attr in ("shape", "size", "ndim", "dtype", "context", "ctx"):
                return Kind.PYTHON
            if attr == "T":
                return Kind.TENSOR
        if isinstance(node.value, cst.Name) and node.value.value == "self":
            return Kind.PYTHON
        if base is Kind.PYTHON:
            return Kind.PYTHON
        return Kind.UNKNOWN

    def _call(self, node: cst.Call, env) -> Kind:
        for arg in node.args:
            self.expr(arg.value, env)
        func = node.func
        name = dotted(func)
        if name is not None:
            head, _, rest = name.partition(".")
            if head == self.F and rest:
                return self._namespace_call(rest, node)
            if head == "self" and rest and "." not in rest:
                # a child block (or a helper method): a tensor, or a tuple of them, unless the
                # package index knows what the child returns
                if any(self.kinds.get(id(a.value)) in (Kind.TENSOR, Kind.MAYBE, Kind.GROUP, Kind.SEQUENCE)
                       for a in node.args):
                    known = self.context.child(rest) if self.context is not None else None
                    return known if known is not None else Kind.MAYBE
                return Kind.UNKNOWN
            if "." not in name and name in PYTHON_BUILTINS and name not in self.local_names:
                return Kind.PYTHON
            if head not in self.local_names and head != "self":
                resolved = self.module.resolve(func)
                if resolved is not None and resolved.split(".")[0] in ("mxnet",):
                    if resolved.startswith(NAMESPACE_PREFIXES):
                        return self._namespace_call(resolved.split(".", 2)[2], node)
                    return Kind.UNKNOWN
                if resolved is not None and resolved.split(".")[0] in ("numpy", "math"):
                    return Kind.PYTHON
        if isinstance(func, cst.Attribute):
            receiver = self.expr(func.value, env)
            method = func.attr.value
            if receiver in (Kind.TENSOR, Kind.MAYBE):
                if method not in TENSOR_METHODS:
                    return Kind.UNKNOWN  # `dist.log_prob(x)`: no tensor has it, so the receiver is something else
                if method in GROUP_OPS:  # `x.split(num_outputs=2)`, `x.topk(ret_typ='both')`
                    return _outputs_kind(method, node, 1)
                if method in PYTHON_METHODS:
                    return Kind.PYTHON
                return Kind.TENSOR
            if receiver in (Kind.GROUP, Kind.SEQUENCE) and method in ("index", "count"):
                return Kind.PYTHON
        return Kind.UNKNOWN

    def _namespace_call(self, op: str, node: cst.Call) -> Kind:
        short = op.rsplit(".", 1)[-1]
        if short in NESTED_OPS:
            return Kind.SEQUENCE
        if op.startswith(("np.", "npx.")):
            return Kind.UNKNOWN
        return _outputs_kind(short, node, 0)

    def _subscript(self, node: cst.Subscript, env) -> Kind:
        base = self.expr(node.value, env)
        for element in node.slice:
            if isinstance(element.slice, cst.Index):
                self.expr(element.slice.value, env)
            else:
                for part in (element.slice.lower, element.slice.upper, element.slice.step):
                    if part is not None:
                        self.expr(part, env)
        single_int = len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index)
        if self.keywords is not None and _is_name(node.value, self.keywords) and single_int:
            return Kind.TENSOR  # `kwargs['gamma']`: a parameter of the block
        if base is Kind.TENSOR:
            return Kind.TENSOR
        if base is Kind.GROUP:
            return Kind.TENSOR if single_int else Kind.GROUP
        if base is Kind.SEQUENCE:
            return Kind.MAYBE if single_int else Kind.SEQUENCE
        if base is Kind.MAYBE:
            return Kind.MAYBE if single_int else Kind.UNKNOWN
        return Kind.UNKNOWN

    # ---- statements
    def block(self, statements, env: Dict[str, Kind]) -> bool:
        """Walk statements; False when the rest of the function is imperative-only or unreachable."""
        for index, statement in enumerate(statements):
            outcome = self.statement(statement, env)
            if outcome == "stop":
                for rest in statements[index + 1:]:
                    self.imperative_only.add(rest)
                return False
            if outcome == "exit":
                return False
        return True

    def statement(self, node, env):
        if isinstance(node, cst.SimpleStatementLine):
            for small in node.body:
                result = self.small(small, env)
                if result:
                    return result
            return None
        if isinstance(node, cst.If):
            return self._if(node, env)
        if isinstance(node, (cst.For,)):
            iterated = self.expr(node.iter, env)
            element = _element_of(iterated)
            # the second pass starts where the first ended: the loop's back edge
            body_env = dict(env)
            for _ in range(2):
                self._bind(node.target, element, body_env)
                self.block(node.body.body, body_env)
            _merge_into(env, body_env)
            if node.orelse is not None:
                self.block(node.orelse.body.body, env)
            return None
        if isinstance(node, cst.While):
            body_env = dict(env)
            for _ in range(2):
                self.expr(node.test, body_env)
                self.block(node.body.body, body_env)
            _merge_into(env, body_env)
            return None
        if isinstance(node, cst.With):
            for item in node.items:
                kind = self.expr(item.item, env)
                if item.asname is not None:
                    self._bind(item.asname.name, kind, env)
            return None if self.block(node.body.body, env) else "exit"
        if isinstance(node, cst.Try):
            body_env = dict(env)
            self.block(node.body.body, body_env)
            for handler in node.handlers:
                handler_env = dict(env)
                self.block(handler.body.body, handler_env)
                _merge_into(body_env, handler_env)
            env.clear()
            env.update(body_env)
            if node.orelse is not None:
                self.block(node.orelse.body.body, env)
            if node.finalbody is not None:
                self.block(node.finalbody.body.body, env)
            return None
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            env[node.name.value] = Kind.PYTHON
            return None
        return None

    def small(self, node, env):
        if isinstance(node, cst.Assign):
            kind = self.expr(node.value, env)
            for target in node.targets:
                self._assign_target(target.target, node.value, kind, env)
        elif isinstance(node, cst.AnnAssign):
            if node.value is not None:
                kind = self.expr(node.value, env)
                self._assign_target(node.target, node.value, kind, env)
        elif isinstance(node, cst.AugAssign):
            value = self.expr(node.value, env)
            target = self.expr(node.target, env)
            if isinstance(node.target, cst.Name):
                if Kind.TENSOR in (value, target):
                    combined = Kind.TENSOR
                elif target in (Kind.GROUP, Kind.SEQUENCE) or (target is Kind.PYTHON and value is Kind.PYTHON):
                    combined = target
                else:
                    combined = Kind.UNKNOWN
                env[node.target.value] = combined
        elif isinstance(node, cst.Expr):
            self.expr(node.value, env)
        elif isinstance(node, cst.Return):
            if node.value is not None:
                self.expr(node.value, env)
            return "exit"
        elif isinstance(node, cst.Raise):
            if node.exc is not None:
                self.expr(node.exc, env)
            return "exit"
        elif isinstance(node, cst.Assert):
            self.expr(node.test, env)
        elif isinstance(node, cst.Del):
            pass
        return None

    def _assign_target(self, target, value, kind: Kind, env):
        if isinstance(target, (cst.Tuple, cst.List)):
            starred = any(isinstance(t, cst.StarredElement) for t in target.elements)
            if isinstance(value, (cst.Tuple, cst.List)) and len(value.elements) == len(target.elements) \
                    and not starred:
                for t, v in zip(target.elements, value.elements):
                    self._assign_target(t.value, v.value, self.kinds.get(id(v.value), Kind.UNKNOWN), env)
                return
            element = _element_of(kind)
            for t in target.elements:
                # `x, *rest = F.split(...)`: a starred target is always a Python list
                self._bind(t.value, Kind.SEQUENCE if isinstance(t, cst.StarredElement) else element, env)
            return
        if isinstance(target, (cst.Subscript, cst.Attribute)):
            self.expr(target, env)
            return
        self._bind(target, kind, env)

    def _bind(self, target, kind: Kind, env):
        if isinstance(target, cst.Name):
            env[target.value] = kind
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._bind(element.value, Kind.UNKNOWN if kind is not Kind.PYTHON else kind, env)
        elif isinstance(target, cst.StarredElement):
            self._bind(target.value, Kind.PYTHON, env)

    def _if(self, node: cst.If, env):
        guard = self._namespace_guard(node.test)
        self.expr(node.test, env)
        body_env, else_env = self._narrowed(node.test, env)
        if guard == "imperative":
            self.imperative_only.add(node.body)
            body_alive = not _ends_in_exit(node.body.body)
        else:
            body_alive = self.block(node.body.body, body_env)
        else_alive = True
        if node.orelse is not None:
            if guard == "symbolic":
                self.imperative_only.add(node.orelse)
                else_alive = not _ends_in_exit(_branch_body(node.orelse))
            elif isinstance(node.orelse, cst.If):
                else_alive = self._if(node.orelse, else_env) not in ("exit", "stop")
            else:
                else_alive = self.block(node.orelse.body.body, else_env)
        if guard == "symbolic" and not body_alive:
            return "stop"  # `if F is mx.sym: raise ...`: what follows runs imperatively only
        if guard == "imperative" and not else_alive:
            return "exit"
        if not body_alive and not else_alive:
            return "exit"
        env.clear()
        if body_alive and else_alive:
            env.update(body_env)
            _merge_into(env, else_env)
        else:
            env.update(body_env if body_alive else else_env)
        return None

    def _narrowed(self, test, env):
        """The environments of the two branches of `test`: a name checked to be a list or tuple
        (`isinstance(y, (list, tuple))`, `type(y) in (list, tuple)`) is a Python sequence where
        the check holds, whatever it was taken for before."""
        body_env, else_env = dict(env), dict(env)
        negate = False
        while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            negate, test = not negate, test.expression
        name = _sequence_check(test)
        if name is not None and env.get(name) in (Kind.TENSOR, Kind.MAYBE):
            (else_env if negate else body_env)[name] = Kind.SEQUENCE
        return body_env, else_env

    def _namespace_guard(self, test) -> Optional[str]:
        """'imperative' for `F is nd` / `isinstance(x, NDArray)`, 'symbolic' for `F is sym`."""
        negate = False
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            negate, test = True, test.expression
        kind = None
        if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
            left, comparison = test.left, test.comparisons[0]
            right = comparison.comparator
            if isinstance(comparison.operator, (cst.Is, cst.Equal, cst.IsNot, cst.NotEqual)):
                other = right if _is_name(left, self.F) else left if _is_name(right, self.F) else None
                if other is not None:
                    if self.module.is_nd_module(other, self.local_names):
                        kind = "imperative"
                    elif self.module.is_sym_module(other, self.local_names):
                        kind = "symbolic"
                    if kind and isinstance(comparison.operator, (cst.IsNot, cst.NotEqual)):
                        negate = not negate
        elif isinstance(test, cst.Call) and _is_name(test.func, "isinstance") and len(test.args) == 2:
            cls = dotted(test.args[1].value) or ""
            if cls.endswith("NDArray"):
                kind = "imperative"
            elif cls.endswith("Symbol"):
                kind = "symbolic"
        if kind and negate:
            kind = "symbolic" if kind == "imperative" else "imperative"
        return kind


def _is_name(node, name: str) -> bool:
    return isinstance(node, cst.Name) and node.value == name


_SEQUENCE_TYPES = frozenset({"list", "tuple", "List", "Tuple", "Sequence", "collections.abc.Sequence",
                             "typing.List", "typing.Tuple", "typing.Sequence"})


def _sequence_check(test) -> Optional[str]:
    """The name that `test` checks to be a list or tuple, or None."""
    if isinstance(test, cst.Call) and _is_name(test.func, "isinstance") and len(test.args) == 2 \
            and isinstance(test.args[0].value, cst.Name):
        types = test.args[1].value
        names = [e.value for e in types.elements] if isinstance(types, cst.Tuple) else [types]
        if names and all((dotted(n) or "") in _SEQUENCE_TYPES for n in names):
            return test.args[0].value.value
        return None
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        left, comparison = test.left, test.comparisons[0]
        if not (isinstance(left, cst.Call) and _is_name(left.func, "type") and len(left.args) == 1
                and isinstance(left.args[0].value, cst.Name)):
            return None
        right = comparison.comparator
        if isinstance(comparison.operator, cst.In) and isinstance(right, (cst.Tuple, cst.List, cst.Set)):
            names = [e.value for e in right.elements]
        elif isinstance(comparison.operator, (cst.Is, cst.Equal)):
            names = [right]
        else:
            return None
        if names and all((dotted(n) or "") in _SEQUENCE_TYPES for n in names):
            return left.args[0].value.value
    return None


def _outputs_kind(op: str, call: cst.Call, shift: int) -> Kind:
    """A tensor for an op with one output, a group for several; where the count is unknown, a
    group for the split family (which is for several) and a tensor or group for a flag left to
    `**kwargs`. `shift`: 1 for a method, whose data is the receiver, not the first argument."""
    count = output_count(op, lambda name: _literal_argument(call, name),
                         lambda index: _literal_argument(call, index - shift))
    if count == UNKNOWN_COUNT:
        return Kind.GROUP if op in COUNTED_OUTPUTS else Kind.MAYBE
    return Kind.TENSOR if count == 1 else Kind.GROUP


def _literal_argument(call: cst.Call, which):
    """The literal value of a keyword (by name) or positional (by index) argument, None when it
    is absent, UNKNOWN_COUNT when it is there but not a literal (or `*args`/`**kwargs` may hold it)."""
    position = 0
    for arg in call.args:
        if arg.star:
            return UNKNOWN_COUNT
        if arg.keyword is None:
            if position == which:
                return _literal(arg.value)
            position += 1
        elif arg.keyword.value == which:
            return _literal(arg.value)
    return None


def _literal(node):
    if isinstance(node, (cst.Integer, cst.SimpleString)):
        return node.evaluated_value
    if isinstance(node, cst.Name) and node.value in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[node.value]
    if isinstance(node, (cst.Tuple, cst.List)):
        values = tuple(_literal(element.value) for element in node.elements)
        return UNKNOWN_COUNT if UNKNOWN_COUNT in values else values
    return UNKNOWN_COUNT


def _branch_body(orelse):
    return orelse.body.body if isinstance(orelse, cst.Else) else [orelse]


def _ends_in_exit(statements) -> bool:
    if not statements:
        return False
    last = statements[-1]
    return isinstance(last, cst.SimpleStatementLine) and any(
        isinstance(s, (cst.Return, cst.Raise)) for s in last.body)


def _merge_into(env: Dict[str, Kind], other: Dict[str, Kind]) -> None:
    for name in set(env) | set(other):
        if name in env and name in other:
            env[name] = join(env[name], other[name])
        else:
            # bound on one path only: after the merge it may be unbound, so keep what is known
            env[name] = env.get(name, other.get(name))


def _element_of(container: Kind) -> Kind:
    """What iterating over, or unpacking, a value of this kind gives."""
    return {Kind.GROUP: Kind.TENSOR, Kind.SEQUENCE: Kind.MAYBE, Kind.MAYBE: Kind.MAYBE,
            Kind.PYTHON: Kind.PYTHON}.get(container, Kind.UNKNOWN)


def _parameter_kind(param: cst.Param, evidence: Dict[str, str], context: Optional[ClassContext]) -> Kind:
    """What the package's call sites pass, or what the annotation says; where neither is known, a
    tensor, unless the name or the way the body uses it says it is a list of them."""
    name = param.name.value
    if param.default is not None and not _is_none(param.default):
        return Kind.PYTHON if isinstance(param.default, (cst.Integer, cst.Float, cst.SimpleString, cst.Name)) \
            else Kind.UNKNOWN
    annotated = _annotation_kind(param.annotation.annotation) if param.annotation is not None else None
    if annotated is not None:
        return annotated
    received = context.parameter(name) if context is not None else None
    guessed = _guessed_parameter_kind(name, evidence)
    if received is not None and received[1]:
        # every call site in the package is understood; but a parameter that its name or its uses
        # say is a list is never taken for a tensor: the evidence disagrees, so nothing is known
        # (and the `ast` screen, which sees no call sites, reads the name and the uses alone)
        if received[0] in (Kind.TENSOR, Kind.MAYBE) and (_named_for_states(name)
                                                         or evidence.get(name) == "sequence"):
            return Kind.UNKNOWN
        return received[0]
    return join(received[0], guessed) if received is not None else guessed


# Annotations that say what a parameter is: containers of values, whatever their items.
_SEQUENCE_ANNOTATIONS = frozenset({"List", "Tuple", "Sequence", "list", "tuple", "Iterable"})
_PYTHON_ANNOTATIONS = frozenset({"Dict", "dict", "Mapping", "int", "float", "str", "bool", "MutableMapping"})


def _annotation_kind(annotation) -> Optional[Kind]:
    if isinstance(annotation, cst.Subscript):
        head = (dotted(annotation.value) or "").rsplit(".", 1)[-1]
        if head == "Optional" and len(annotation.slice) == 1 and isinstance(annotation.slice[0].slice, cst.Index):
            return _annotation_kind(annotation.slice[0].slice.value)
        annotation = annotation.value
    head = (dotted(annotation) or "").rsplit(".", 1)[-1]
    if head in _SEQUENCE_ANNOTATIONS:
        return Kind.SEQUENCE
    if head in _PYTHON_ANNOTATIONS:
        return Kind.PYTHON
    return None


# `label : list, length 2` (numpydoc) or `label (list of NDArray): ...` (Google) in a docstring.
_DOCUMENTED_TYPE = re.compile(r"^[ \t]*\**(\w+)[ \t]*(?::[ \t]*([^\n]+)|\(([^)\n]+)\)[ \t]*:)", re.MULTILINE)
_SEQUENCE_WORD = re.compile(r"[ \t]*(?:list|tuple|sequence|iterable)\b", re.IGNORECASE)


def _documented_sequences(function: cst.FunctionDef, names: Set[str], evidence: Dict[str, str]) -> List[str]:
    """Parameters the method's own docstring declares lists or tuples (every alternative of the
    type named, `list of NDArray` but not `NDArray or list`), as an annotation would, unless the
    body uses them as a tensor could only be used."""
    docstring = function.get_docstring(clean=False)
    if not docstring:
        return []
    declared = []
    for match in _DOCUMENTED_TYPE.finditer(docstring):
        name, kind = match.group(1), (match.group(2) or match.group(3)).split(",")[0]
        if name in names and evidence.get(name) != "tensor" and all(
                _SEQUENCE_WORD.match(alternative) for alternative in re.split(r"\bor\b|\|", kind)):
            declared.append(name)
    return declared


def _named_for_states(name: str) -> bool:
    lowered = name.lower()
    return any(word in lowered for word in STATE_WORDS) or lowered.endswith("list")


def _guessed_parameter_kind(name: str, evidence: Dict[str, str]) -> Kind:
    seen = evidence.get(name)
    lowered = name.lower()
    if seen == "sequence" or _named_for_states(name):
        return Kind.SEQUENCE
    if seen == "tensor":
        return Kind.TENSOR
    if lowered.endswith("s") and not lowered.endswith("ss") and lowered not in TENSOR_PLURALS \
            and lowered.split("_")[-1] not in TENSOR_PLURALS:
        return Kind.MAYBE  # `layers`, `features`: most likely a list; only list-impossible uses count
    return Kind.TENSOR


def _usage_evidence(nodes: List[cst.CSTNode], names: Set[str], namespace: str) -> Dict[str, str]:
    """'sequence' or 'tensor' for parameters whose uses only fit one of the two."""
    evidence: Dict[str, str] = {}
    loop_names: Set[str] = set()

    def note(node, what):
        if isinstance(node, cst.Name) and node.value in names:
            if what == "tensor" or evidence.get(node.value) != "tensor":
                evidence[node.value] = what

    class Collector:
        def visit_For(self, node: cst.For) -> None:
            note(node.iter, "sequence")
            _names_in(node.target, loop_names)

        def visit_Call(self, node: cst.Call) -> None:
            func = node.func
            if isinstance(func, cst.Name) and func.value in ("len", "enumerate", "zip", "list", "tuple", "reversed"):
                for arg in node.args:
                    note(arg.value, "sequence")
            if isinstance(func, cst.Attribute):
                if func.attr.value in LIST_METHODS:
                    note(func.value, "sequence")
                elif func.attr.value in TENSOR_EVIDENCE_METHODS:
                    note(func.value, "tensor")
                if isinstance(func.value, cst.Name) and func.value.value == namespace:
                    for arg in node.args:
                        if arg.star == "" and arg.keyword is None:
                            note(arg.value, "tensor")
            for arg in node.args:
                if arg.star == "*":
                    note(arg.value, "sequence")

        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            self._item_target(node.target)

        def _item_target(self, target) -> None:
            if isinstance(target, (cst.Tuple, cst.List)):
                for element in target.elements:
                    self._item_target(element.value)
            elif isinstance(target, cst.Subscript) and len(target.slice) == 1 \
                    and isinstance(target.slice[0].slice, cst.Index) \
                    and isinstance(target.slice[0].slice.value, cst.Name) \
                    and target.slice[0].slice.value.value in loop_names:
                note(target.value, "sequence")  # layers[i] = ... in a loop: a list being rebuilt

        def visit_Attribute(self, node: cst.Attribute) -> None:
            if node.attr.value in ("shape", "dtype", "context", "ndim", "size"):
                note(node.value, "tensor")

        def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
            if isinstance(node.left, cst.List) or isinstance(node.right, cst.List):
                note(node.left, "sequence")
                note(node.right, "sequence")
            elif not isinstance(node.operator, (cst.Add, cst.Multiply)):
                note(node.left, "tensor")  # `x / n`, `x - y`: no list does arithmetic
                note(node.right, "tensor")

    collector = Collector()
    handlers = {cst.For: collector.visit_For, cst.Call: collector.visit_Call,
                cst.AssignTarget: collector.visit_AssignTarget, cst.Attribute: collector.visit_Attribute,
                cst.BinaryOperation: collector.visit_BinaryOperation}
    for node in nodes:
        handler = handlers.get(type(node))
        if handler is not None:
            handler(node)
    for name in _returned_states(nodes, names):
        if evidence.get(name) != "tensor":
            evidence[name] = "sequence"
    return evidence


def _returned_states(nodes: List[cst.CSTNode], names: Set[str]) -> List[str]:
    """Parameters unpacked into names that the block returns packed again: `h, c = hc` and
    `return out, (h, c)`. That is a recurrent state: what the block gives its callers to feed back
    in is a tuple of its own making (osmr/imgclsmob's DIA attention, whose units pass it on),
    whatever the parameter is called."""
    unpacked: Dict[str, Set[Tuple[str, ...]]] = {}
    packed: Set[Tuple[str, ...]] = set()
    for node in nodes:
        if type(node) is cst.Assign and isinstance(node.value, cst.Name) and node.value.value in names:
            for target in node.targets:
                pattern = _plain_names(target.target)
                if pattern is not None:
                    unpacked.setdefault(node.value.value, set()).add(pattern)
        elif type(node) is cst.Return and node.value is not None:
            shown = [node.value] + [e.value for e in getattr(node.value, "elements", ())
                                    if isinstance(node.value, (cst.Tuple, cst.List))]
            packed.update(pattern for pattern in map(_plain_names, shown) if pattern is not None)
    return [name for name, patterns in unpacked.items() if patterns & packed]


def _plain_names(node: cst.BaseExpression) -> Optional[Tuple[str, ...]]:
    """`(h, c)` or `[h, c]`: the names, in order, of a display of two or more plain names."""
    if not isinstance(node, (cst.Tuple, cst.List)) or len(node.elements) < 2:
        return None
    if not all(isinstance(e, cst.Element) and isinstance(e.value, cst.Name) for e in node.elements):
        return None
    return tuple(e.value.value for e in node.elements)


def analyze(function: cst.FunctionDef, module: ModuleFacts,
            context: Optional[ClassContext] = None) -> Optional[FunctionFacts]:
    """Facts for a hybrid_forward, or None when it has no namespace parameter; `context` is what
    the package index knows of the class's callers and children."""
    params = list(function.params.params)
    if len(params) < 2:
        return None
    namespace = params[1].name.value
    env: Dict[str, Kind] = {"self": Kind.PYTHON, namespace: Kind.PYTHON}
    tensors = params[2:] + list(function.params.kwonly_params)
    nodes, ends = preorder(function.body)  # one walk serves the scans below and the rules
    evidence = _usage_evidence(nodes, {p.name.value for p in tensors}, namespace)
    for name in _documented_sequences(function, {p.name.value for p in tensors}, evidence):
        evidence[name] = "sequence"
    for param in tensors:
        env[param.name.value] = _parameter_kind(param, evidence, context)
    return _walk_function(function, module, namespace, env, nodes, ends, context, True)


def analyze_helper(function: cst.FunctionDef, module: ModuleFacts, helper: Helper) -> FunctionFacts:
    """Facts for a method or function that hybrid_forward calls with F or tensors: its parameters
    are what the calls pass (F, tensors, Python values), and nothing else is guessed."""
    # no F passed: a name no code uses stands for the namespace (rules build fixes with it)
    namespace = helper.namespace or "__namespace__"
    received = dict(helper.parameters)
    env: Dict[str, Kind] = {"self": Kind.PYTHON}
    if helper.namespace:
        env[helper.namespace] = Kind.PYTHON
    for param in list(function.params.params) + list(function.params.kwonly_params):
        env.setdefault(param.name.value, received.get(param.name.value, Kind.UNKNOWN))
    nodes, ends = preorder(function.body)
    return _walk_function(function, module, namespace, env, nodes, ends, None, False)


def _walk_function(function, module, namespace, env, nodes, ends, context, forward: bool) -> FunctionFacts:
    star = function.params.star_arg
    if isinstance(star, cst.Param):
        env[star.name.value] = Kind.SEQUENCE
    keywords = None
    if function.params.star_kwarg is not None:
        keywords = function.params.star_kwarg.name.value
        env[keywords] = Kind.PYTHON  # in hybrid_forward, a dict of the block's parameters by name
        keywords = keywords if forward else None
    assigned = _assigned_names(nodes)
    local_names = frozenset(env) | frozenset(assigned)
    if keywords in assigned:
        keywords = None
    walker = _Walker(module, namespace, local_names, context, keywords)
    walker.block(function.body.body, env)
    return FunctionFacts(namespace=namespace, params=local_names, kinds=walker.kinds,
                         imperative_only=walker.imperative_only, nodes=nodes, ends=ends)


def _assigned_names(nodes: List[cst.CSTNode]) -> Set[str]:
    names: Set[str] = set()
    for node in nodes:
        kind = type(node)  # (concrete classes: see `_expr`)
        if kind is cst.AssignTarget or kind is cst.For:
            _names_in(node.target, names)
        elif kind is cst.ImportAlias:
            if node.asname is not None:
                _names_in(node.asname.name, names)
            else:
                names.add((dotted(node.name) or "").split(".")[0])
    return names


def _names_in(target, names: Set[str]) -> None:
    if isinstance(target, cst.Name):
        names.add(target.value)
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            _names_in(element.value, names)
    elif isinstance(target, cst.StarredElement):
        _names_in(target.value, names)
