"""Recording and training modes, and the tape that computes gradients.

Under `record()`, every operator whose inputs include a marked variable (`attach_grad`,
`mark_variables`) or the result of a recorded operator is written to the tape as a `TapeNode`: the
inputs' places on the tape and a closure computing the vector-Jacobian product of the operator
(its declaration's `gradient`, over the NumPy arrays it saw). `backward` walks the tape from the
heads in reverse topological order, summing the gradients that reach each output, and writes the
variables' gradient buffers as their `grad_req` says ('write' replaces, 'add' accumulates).
"""
from __future__ import annotations

import contextlib
import threading
import weakref
from typing import Callable, Dict, List, Optional, Sequence

import numpy as np

from runtime.base import MXNetError


class _State(threading.local):
    # class attributes are every thread's defaults: reading them costs less than getattr's default
    training = False
    recording = False


_state = _State()

NOT_IN_GRAPH = ("Check failed: !AGInfo: :IsNone(*i): Cannot differentiate node because it is not in a computational "
                "graph. You need to set is_recording to true or use autograd.record() to save computational graphs "
                "for backward. If you want to differentiate the same graph twice, you need to pass retain_graph=True "
                "to backward.")
_GRAD_REQS = ("null", "write", "add", "inplace")


def is_training() -> bool:
    return _state.training


def is_recording() -> bool:
    return _state.recording


def set_training(train_mode: bool) -> bool:
    previous = is_training()
    _state.training = bool(train_mode)
    return previous


def set_recording(is_record: bool) -> bool:
    previous = is_recording()
    _state.recording = bool(is_record)
    return previous


@contextlib.contextmanager
def _scope(recording, training):
    old = (is_recording(), is_training())
    if recording is not None:
        _state.recording = recording
    if training is not None:
        _state.training = training
    try:
        yield
    finally:
        _state.recording, _state.training = old


def record(train_mode: bool = True):
    return _scope(True, train_mode)


def pause(train_mode: bool = False):
    return _scope(False, train_mode)


def train_mode():
    return _scope(None, True)


def predict_mode():
    return _scope(None, False)


# ---- the tape
class Leaf:
    """A marked variable: where its gradient goes and how (`req` is 'write' or 'add').

    The variable is held by a weak reference: it holds its Leaf (`_entry`), and a strong one back
    would make every variable a reference cycle, freed only when the cyclic collector runs, which
    large arrays do not hasten (a loop of attach_grad on 512 MiB copies held gigabytes)."""
    __slots__ = ("_owner", "grad", "req", "shape", "dtype")

    def __init__(self, owner, grad, req: str):
        self._owner, self.grad, self.req = weakref.ref(owner), grad, req
        # the gradient's shape and type when the variable is gone and a tape still reaches it
        self.shape, self.dtype = owner.shape, owner._data.dtype

    @property
    def owner(self):
        """The variable, or None once it is freed."""
        return self._owner()

    def target(self):
        """(shape, dtype) a gradient of the variable takes."""
        owner = self._owner()
        return (self.shape, self.dtype) if owner is None else (owner.shape, owner._data.dtype)


class TapeNode:
    """One recorded operator call. `vjp(out_grads)` returns one gradient (or None) per input;
    `inputs` holds each input's place on the tape (a Leaf, a (TapeNode, output index) pair, or
    None for an input that needs no gradient)."""
    __slots__ = ("name", "vjp", "inputs", "out_meta", "freed", "symbol_info", "__weakref__")

    def __init__(self, name: str, vjp: Optional[Callable], inputs: List, out_meta: List[tuple], symbol_info=None):
        self.name, self.vjp, self.inputs, self.out_meta = name, vjp, inputs, out_meta
        self.freed = False
        # (op, attrs, input NDArrays) for get_symbol and create_graph; None for custom functions
        self.symbol_info = symbol_info


def entry_of(array):
    """The array's place on the tape, or None when no gradient can flow to it. A result of a graph
    that a backward pass has freed is out of the graph from then on, as MXNet 1.9.1 clears its
    record: later operations take it as a constant."""
    entry = getattr(array, "_entry", None)
    if type(entry) is tuple and entry[0].freed:
        return None
    return entry


def needs_grad(arrays: Sequence) -> bool:
    for array in arrays:
        if entry_of(array) is not None:
            return True
    return False


def record_node(name: str, vjp: Optional[Callable], inputs: Sequence, outputs: Sequence, symbol_info=None) -> TapeNode:
    """Put one call that is not a registry operator on the tape (a custom Function, indexing, a
    hybridized graph): `inputs` and `outputs` are NDArrays; the outputs' entries point at the node."""
    node = TapeNode(name, vjp, [entry_of(a) for a in inputs],
                    [(o.shape, o._data.dtype) for o in outputs], symbol_info)
    for index, output in enumerate(outputs):
        output._entry = (node, index)
    return node


def record_op(op, attrs: Dict, inputs: Sequence, results: Sequence[np.ndarray], outputs: Sequence, is_train: bool):
    """Record a registry operator's call: `results` are all its output arrays (hidden ones too),
    `outputs` the NDArrays the caller got for the visible ones."""
    arrays = [a._data for a in inputs]
    gradient = op.gradient
    if gradient is None:
        vjp = None
    else:
        call_attrs = dict(attrs, is_train=is_train) if op.wants_training else attrs
        if op.gradient_selective:
            call_attrs = dict(call_attrs, needed=[a._entry is not None for a in inputs])

        def vjp(out_grads):
            return gradient(arrays, results, out_grads, **call_attrs)
    node = TapeNode(op.name, vjp, [entry_of(a) for a in inputs],
                    [(r.shape, r.dtype) for r in results], (op, attrs, list(inputs)))
    for index, output in enumerate(outputs):
        output._entry = (node, index)
    return node


def mark_variables(variables, gradients, grad_reqs="write") -> None:
    """Mark arrays as variables whose gradients `backward` writes into `gradients`."""
    from runtime.ndarray import NDArray
    if isinstance(variables, NDArray):
        variables, gradients = [variables], [gradients]
    if isinstance(grad_reqs, str):
        grad_reqs = [grad_reqs] * len(variables)
    for variable, gradient, req in zip(variables, gradients, grad_reqs):
        if req not in _GRAD_REQS:
            raise KeyError(req)
        variable._grad = gradient
        variable._entry = Leaf(variable, gradient, req) if req != "null" else None
        variable._fresh_grad = False


def _heads_and_grads(heads, head_grads):
    from runtime.ndarray import NDArray
    if isinstance(heads, NDArray):
        heads = [heads]
        if head_grads is not None and not isinstance(head_grads, (list, tuple)):
            head_grads = [head_grads]
    heads = list(heads)
    if head_grads is None:
        head_grads = [None] * len(heads)
    else:
        head_grads = list(head_grads)
        if len(heads) != len(head_grads):
            raise AssertionError("heads and head_grads must be lists of the same length")
    for head, grad in zip(heads, head_grads):
        if grad is not None and tuple(grad.shape) != tuple(head.shape):
            raise MXNetError("Check failed: ograd.shape() == head.shape(): the head gradient's shape (%s) differs "
                             "from the head's (%s)" % (",".join(map(str, grad.shape)), ",".join(map(str, head.shape))))
    return heads, head_grads


def _reachable(roots: List[TapeNode]) -> List[TapeNode]:
    """Nodes reachable from the roots, each after every node that reads its outputs."""
    order: List[TapeNode] = []
    seen = set()
    stack = [(root, False) for root in roots]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.append((node, True))
        for entry in node.inputs:
            if type(entry) is tuple and id(entry[0]) not in seen:
                stack.append((entry[0], False))
    order.reverse()  # post-order reversed: consumers before producers
    return order


def _accumulate(table: Dict, key, value: np.ndarray, holder=None) -> None:
    current = table.get(key)
    if current is None:
        table[key] = (holder, value) if holder is not None else value
    elif holder is not None:
        table[key] = (holder, current[1] + value)
    else:
        table[key] = current + value


def _propagate(heads, head_grads, retain_graph: bool, train: bool, keep=frozenset()):
    """(the summed gradients of the tape outputs named in `keep`, by (node id, index); the
    gradients of the leaves reached, by id) from the heads."""
    node_grads: Dict = {}
    kept: Dict = {}
    leaf_grads: Dict = {}
    roots = []
    for head, grad in zip(heads, head_grads):
        entry = entry_of(head)
        if entry is None or (type(entry) is tuple and entry[0].freed):
            raise MXNetError(NOT_IN_GRAPH)
        value = np.ones(head.shape, head._data.dtype) if grad is None else np.asarray(grad._data, head._data.dtype)
        if type(entry) is tuple:
            _accumulate(node_grads, (id(entry[0]), entry[1]), value)
            roots.append(entry[0])
        else:
            _accumulate(leaf_grads, id(entry), value, entry)
    order = _reachable(roots)
    previous = set_training(train)
    try:
        for node in order:
            if node.freed:
                raise MXNetError(NOT_IN_GRAPH)
            out_grads = [node_grads.pop((id(node), i), None) for i in range(len(node.out_meta))]
            for i, value in enumerate(out_grads):
                if value is not None and (id(node), i) in keep:
                    kept[(id(node), i)] = value
            if all(g is None for g in out_grads):
                # reached only through inputs that take no gradient (an index): nothing to compute
                if not retain_graph:
                    node.freed, node.vjp = True, None
                continue
            if node.vjp is None:
                raise MXNetError("Operator %s is non-differentiable because it didn't register FGradient attribute."
                                 % node.name)
            out_grads = [g if g is not None else np.zeros(shape, dtype)
                         for g, (shape, dtype) in zip(out_grads, node.out_meta)]
            in_grads = node.vjp(out_grads)
            for entry, grad in zip(node.inputs, in_grads):
                if entry is None or (grad is None and type(entry) is tuple):
                    continue
                if grad is None:  # a variable the operator gives no gradient: zeros, as MXNet writes
                    grad = 0.0
                if type(entry) is tuple:
                    shape, dtype = entry[0].out_meta[entry[1]]
                    _accumulate(node_grads, (id(entry[0]), entry[1]), _fit(grad, shape, dtype))
                else:
                    _accumulate(leaf_grads, id(entry), _fit(grad, *entry.target()), entry)
            if not retain_graph:
                node.freed = True
                node.vjp = None
    finally:
        set_training(previous)
    return kept, leaf_grads


def _fit(grad, shape, dtype) -> np.ndarray:
    grad = np.asarray(grad)
    if grad.shape != tuple(shape):
        grad = np.broadcast_to(grad, shape)
    return grad.astype(dtype, copy=False)


def backward(heads, head_grads=None, retain_graph: bool = False, train_mode: bool = True) -> None:
    """Gradients of the heads (times head_grads, ones where None) into the variables' buffers."""
    heads, head_grads = _heads_and_grads(heads, head_grads)
    _, leaf_grads = _propagate(heads, head_grads, retain_graph, train_mode)
    for leaf, value in leaf_grads.values():
        target = leaf.grad._data
        if leaf.req == "add":
            target += value
        else:
            np.copyto(target, value, casting="unsafe")
        owner = leaf.owner
        if owner is not None:
            owner._fresh_grad = True


def grad(heads, variables, head_grads=None, retain_graph=None, create_graph: bool = False,
         train_mode: bool = True):
    """The gradients of the heads with respect to `variables`, returned as new arrays; the
    variables' own gradient buffers are left as they are."""
    from runtime.ndarray import NDArray
    single = isinstance(variables, NDArray)
    if single:
        variables = [variables]
    heads, head_grads = _heads_and_grads(heads, head_grads)
    if retain_graph is None:
        retain_graph = create_graph
    for variable in variables:
        if entry_of(variable) is None:
            raise MXNetError(NOT_IN_GRAPH)
    if create_graph:
        return _recorded_gradients(heads, head_grads, variables, train_mode, single)
    keep = {(id(e[0]), e[1]) for e in (entry_of(v) for v in variables) if type(e) is tuple}
    node_grads, leaf_grads = _propagate(heads, head_grads, retain_graph, train_mode, keep)
    results = []
    for variable in variables:
        entry = entry_of(variable)
        if type(entry) is tuple:
            value = node_grads.get((id(entry[0]), entry[1]))
        else:
            found = leaf_grads.get(id(entry))
            value = None if found is None else found[1]
        if value is None:
            value = np.zeros(variable.shape, variable._data.dtype)
        results.append(NDArray(np.array(value, dtype=variable._data.dtype), variable.context))
    return results[0] if single else results


def _recorded_gradients(heads, head_grads, variables, train: bool, single: bool):
    """autograd.grad with create_graph=True: the backward pass runs recorded NDArray operators
    (runtime.higher_order), so the gradients it returns are on the tape themselves."""
    import runtime
    from runtime.higher_order import GRADIENTS
    nd = runtime.nd
    pending: Dict = {}
    leaves: Dict = {}

    def add(table, key, value):
        table[key] = value if key not in table else table[key] + value
    roots = []
    with _scope(True, train):
        for head, grad in zip(heads, head_grads):
            entry = entry_of(head)
            if entry is None or (type(entry) is tuple and entry[0].freed):
                raise MXNetError(NOT_IN_GRAPH)
            value = nd.ones_like(head) if grad is None else grad
            if type(entry) is tuple:
                add(pending, (id(entry[0]), entry[1]), value)
                roots.append(entry[0])
            else:
                add(leaves, id(entry), value)
        for node in _reachable(roots):
            out_grads = [pending.pop((id(node), i), None) for i in range(len(node.out_meta))]
            if all(g is None for g in out_grads):
                continue
            info = node.symbol_info
            gradient = GRADIENTS.get(info[0].name) if info is not None else None
            in_grads = gradient(nd, info[2], [g if g is not None else nd.zeros(shape, dtype=dtype) for g, (shape, dtype)
                                              in zip(out_grads, node.out_meta)], info[1]) if gradient else None
            if in_grads is None:
                raise MXNetError("Operator %s has no gradient that can be differentiated again "
                                 "(autograd.grad with create_graph=True)" % node.name)
            for entry, value in zip(node.inputs, in_grads):
                if entry is None or value is None:
                    continue
                if type(entry) is tuple:
                    add(pending, (id(entry[0]), entry[1]), value)
                else:
                    add(leaves, id(entry), value)
    results = []
    for variable in variables:
        entry = entry_of(variable)
        value = leaves.get(id(entry)) if type(entry) is not tuple else None
        results.append(value if value is not None else nd.zeros_like(variable))
    return results[0] if single else results


class GraphCall:
    """A hybridized block's call on the tape, as get_symbol shows it: the graph's operators when
    it is `inlined`, else one _CachedOp node over its inputs and parameters (MXNet 1.9.1's
    rendering; such a node does not run again)."""

    def __init__(self, symbol, names, inputs, inlined: bool):
        self.symbol, self.names, self.inputs, self.inlined = symbol, names, inputs, inlined

    def build(self, children):
        if self.inlined:
            return self.symbol(**dict(zip(self.names, children)))
        from runtime import name as naming
        from runtime.registry import OpDef
        from runtime.symbol import Node, Symbol

        def kernel(*arrays):
            raise MXNetError("a _CachedOp node of autograd.get_symbol does not run")
        count = len(self.symbol._outputs)
        op = OpDef(name="_CachedOp", inputs=tuple(self.names), attrs={}, kernel=kernel, num_outputs=count)
        node = Node(op, naming.current().get(None, "_cachedop"), {}, [c._outputs[0] for c in children])
        return Symbol([(node, i) for i in range(count)])


def get_symbol(x):
    """The recorded computation that produced `x`, as a Symbol over variables var0, var1, ..."""
    from runtime.symbol import compose, var
    names: Dict[int, object] = {}
    built: Dict[int, object] = {}

    def leaf(entry, array):
        key = id(entry) if entry is not None else id(array)
        if key not in names:
            names[key] = var("var%d" % len(names))
        return names[key]

    def build(node):
        if node.symbol_info is None:
            raise MXNetError("get_symbol: %s was computed by a custom Function" % node.name)
        if isinstance(node.symbol_info, GraphCall):
            call = node.symbol_info
            return call.build([symbol_of(e, a) for e, a in zip(node.inputs, call.inputs)])
        op, attrs, inputs = node.symbol_info
        children = [symbol_of(e, a) for e, a in zip(node.inputs, inputs)]
        return compose(op, op.name, tuple(children), {k: v for k, v in attrs.items() if v is not None})

    def symbol_of(entry, array):
        if entry is None or type(entry) is not tuple:
            return leaf(entry, array)
        node, index = entry
        return built[id(node)][index]

    def recorded(node):
        """(entry, array) of each input; none for a node build() refuses (a custom Function's)."""
        info = node.symbol_info
        if info is None:
            return []
        return list(zip(node.inputs, info.inputs if isinstance(info, GraphCall) else info[2]))

    # children before parents, with a stack of its own (a recorded chain can be thousands deep);
    # each node's inputs in their order, variables numbered as a depth-first walk meets them
    root = entry_of(x)
    if root is None or type(root) is not tuple:
        return leaf(root, x)
    stack = [(root[0], iter(recorded(root[0])))]
    while stack:
        node, entries = stack[-1]
        for entry, array in entries:
            if entry is None or type(entry) is not tuple:
                leaf(entry, array)
            elif id(entry[0]) not in built:
                stack.append((entry[0], iter(recorded(entry[0]))))
                break
        else:
            stack.pop()
            if id(node) not in built:
                built[id(node)] = build(node)
    return symbol_of(root, x)


class Function:
    """A user-defined differentiable function: subclass with `forward` and `backward` over NDArrays."""

    def __init__(self):
        self._used = False
        self.saved_tensors = ()

    def save_for_backward(self, *args) -> None:
        self.saved_tensors = args

    def __call__(self, *inputs):
        from runtime.ndarray import NDArray
        if self._used:
            raise AssertionError("Each Function instance can only be called once. Please create another instance.")
        self._used = True
        with pause():
            outputs = self.forward(*inputs)
        single = isinstance(outputs, NDArray)
        outs = [outputs] if single else list(outputs)
        if is_recording() and needs_grad(inputs):
            function = self

            def vjp(out_grads):
                with pause():
                    grads = function.backward(*[NDArray(g) for g in out_grads])
                if isinstance(grads, NDArray):
                    grads = [grads]
                if len(grads) != len(inputs):
                    raise AssertionError("%s.backward must return exactly the same number of NDArrays as the number "
                                         "of NDArrays arguments to forward. Expecting %d got %d"
                                         % (type(function).__name__, len(inputs), len(grads)))
                return [g._data for g in grads]
            record_node(type(self).__name__, vjp, list(inputs), outs)
        return outputs

    def forward(self, *inputs):
        raise NotImplementedError

    def backward(self, *output_grads):
        raise NotImplementedError
