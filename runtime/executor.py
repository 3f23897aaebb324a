"""Binding a Symbol to arrays: shape inference at bind time, then forward passes over a fixed plan."""
from __future__ import annotations

import ast
import os
import re
from typing import Dict, List, Optional, Tuple

import numpy as np

from runtime.base import FailedValue, MXNetError, OperatorIndexError
from runtime.graph import compile_plan, straight_line
from runtime.kernels import preload
from runtime.ndarray import NDArray, call_with_handle
from runtime.registry import same_shape, shape_inconsistent
from runtime.symbol import Node, Symbol, _aux_variables, topological
from runtime.util import is_np_shape

_INCOMPATIBLE = re.compile(r"Incompatible attr at")


def _node_error(node: Node, exc: Exception) -> MXNetError:
    reason = str(exc)
    if reason.startswith("Error in operator "):
        reason = reason.split(": ", 1)[1] if ": " in reason else reason
    reason = _INCOMPATIBLE.sub("Incompatible attr in node %s at" % node.name, reason)
    return MXNetError("Error in operator %s: %s" % (node.name, reason))


def _declared_shape(node: Node) -> Optional[Tuple]:
    shape = _partial_shape(node)
    return shape if shape and all(d > 0 for d in shape) else None


def _partial_shape(node: Node) -> Optional[Tuple]:
    """A variable's declared shape, 0 where a size is unknown (a deferred parameter's (40, 0))."""
    text = node.extra.get("__shape__")
    return tuple(ast.literal_eval(text)) if text else None


def infer_shapes(symbol: Symbol, known: Dict[str, Tuple], partial: bool, created: Optional[Dict[int, Tuple]] = None):
    """(argument shapes, output shapes, auxiliary shapes), like Symbol.infer_shape. Where an
    operator knows the shape of an input that another operator computes (the flat parameter vector
    of RNN, which gluon.rnn's layers concatenate from reshaped parameters), the producers that can
    work back from their output's shape (`OpDef.infer_inputs`) tell their variables, and inference
    runs again with what they learned. A creation operator declared with unknown sizes
    (`F.zeros(shape=(1, 0, 6))`, gluon.rnn's begin state of batch 0) takes the shape its consumers
    give it, as in MXNet 1.9.1: `created`, when given, receives it by node id."""
    known = dict(known)
    for _ in range(4):  # each round can only add variables' shapes
        result, learned = _infer_shapes_once(symbol, known, partial, created)
        if not learned:
            break
        known.update(learned)
    if _undecided(result) and not is_np_shape():
        # Where consumers alone do not decide a creation of partly known sizes, its known sizes go
        # on to them too, as in MXNet: `ones((2, 0)) + transpose(ones((3, 0)))` is (2, 3), each
        # creation completed back from the sum. Only then: carried from the start, a partial
        # shape would stop the consumers that decide it whole (gluon.rnn's begin states).
        given = {} if created is not None else None
        try:
            again, _ = _infer_shapes_once(symbol, known, partial, given, carry_creations=True)
        except MXNetError:
            return result
        if not _undecided(again) or partial:
            if given:
                created.update(given)
            return again
    return result


def _undecided(result) -> bool:
    """Whether an inference left an output (or everything) unknown."""
    args, outs, _ = result
    return args is None or any(s is None or s == () for s in outs)


def _infer_shapes_once(symbol: Symbol, known: Dict[str, Tuple], partial: bool,
                       created: Optional[Dict[int, Tuple]] = None, carry_creations: bool = False):
    order = topological(symbol._outputs)
    shapes: Dict[int, List[Optional[Tuple]]] = {}
    declared: Dict[int, Tuple] = {}  # creation nodes of unknown sizes: their declared partial shape
    wanted: List[Tuple[Node, int, Tuple]] = []  # shapes consumers gave outputs that were unknown
    # partial answers (infer_shape_partial) also carry what declared shapes know, 0 for an unknown
    # size (`var('data', shape=(1, 0, 0, 0))`; -1 under np_shape(), where 0 is a size), through
    # the operators, as MXNet 1.9.1's do
    carry_partial = partial
    unknown = -1 if is_np_shape() else 0
    legacy = unknown == 0
    for node in order:
        if node.is_variable:
            shape = tuple(known[node.name]) if node.name in known else _declared_shape(node)
            if shape is None and carry_partial:
                shape = _partial_shape(node)
                if shape is not None and unknown == -1 and 0 in shape:
                    shape = None  # a Gluon parameter's deferred (16, 0): unknown sizes as 0, not carried
            shapes[id(node)] = [shape]
            continue
        in_shapes = [shapes[id(child)][index] for child, index in node.inputs]
        if node.op.infer is None and any(s is None for s in in_shapes):
            shapes[id(node)] = [None] * node.num_outputs()
            continue
        # (a shape given with an unknown size is partial in any inference, as MXNet 1.x's 0 is)
        unsure = any(s is not None and unknown in s for s in in_shapes) and (carry_partial or legacy)
        try:
            completed, out_shapes = node.op.infer_shapes(in_shapes, node.attrs)
        except MXNetError as exc:
            if unsure:  # a rule that cannot work with unknown sizes: its outputs stay unknown
                shapes[id(node)] = [None] * node.num_outputs()
                continue
            raise _node_error(node, exc) from None
        for (child, index), before, after in zip(node.inputs, in_shapes, completed):
            if unsure and before is not None and after is not None and _completes(before, after, unknown):
                if child.is_variable:
                    shapes[id(child)][index] = tuple(after)  # a declared partial shape, completed
                else:  # an operator's partial output, completed: what its inputs must then be
                    wanted.append((child, index, tuple(after)))
            elif before is None and after is not None:
                if child.is_variable:
                    shapes[id(child)][index] = tuple(after)
                else:
                    wanted.append((child, index, tuple(after)))
            elif before is not None and after is not None and tuple(before) != tuple(after):
                raise MXNetError("Error in operator %s: %s" % (node.name, shape_inconsistent(before, after, node.op.bracket_shapes)))
        shapes[id(node)] = [tuple(s) if s is not None else None for s in (out_shapes or [None])]
        if legacy and node.op.no_inputs and not node.inputs and shapes[id(node)][0] is not None \
                and (0 in shapes[id(node)][0] or -1 in shapes[id(node)][0] or _shapeless(node)):
            # 0 (or -1) is an unknown size in MXNet's legacy shapes, and () (or no shape) an
            # unknown shape: the consumers decide it (`carry_creations`: see infer_shapes)
            partial_shape = tuple(0 if d == -1 else d for d in shapes[id(node)][0])
            declared[id(node)] = () if _shapeless(node) else partial_shape
            shapes[id(node)] = [partial_shape if carry_creations and not _shapeless(node) else None]
    learned: Dict[str, Tuple] = {}

    def settle(node: Node, shape: Tuple) -> bool:
        """Whether `node` is a creation operator of unknown sizes (then given `shape`, where it fits)."""
        if id(node) not in declared:
            return False
        if declared[id(node)] == () or _completes(declared[id(node)], shape):
            shapes[id(node)][0] = shape
            if created is not None:
                created[id(node)] = shape
        return True

    for node, index, shape in wanted:
        _work_back(node, shape, shapes, learned, settle)
    for node_id, shape in declared.items():
        if (shapes[node_id][0] is None or shapes[node_id][0] == shape) and (shape != () or partial):
            shapes[node_id] = [shape]  # still partial: reported as declared (an unknown shape as ())
    aux = _aux_variables(order)
    args = [shapes[id(n)][0] for n in order if n.is_variable and id(n) not in aux]
    auxes = [shapes[id(n)][0] for n in order if n.is_variable and id(n) in aux]
    outs = [shapes[id(n)][i] if i < len(shapes[id(n)]) else None for n, i in symbol._outputs]
    if not partial and any(s is None or (legacy and unknown in s) for s in args + auxes + outs):
        return (None, None, None), learned
    return (args, outs, auxes), learned


def _work_back(node: Node, shape: Tuple, shapes, learned: Dict[str, Tuple], settle=lambda node, shape: False) -> None:
    """`node`'s output must have `shape`: the variables (and, through `settle`, the creation
    operators of unknown sizes) it reads whose shapes that decides. Depth first with a stack of its
    own, in the order of the operators' inputs, so that chains thousands of operators long work."""
    stack = [(node, shape)]
    while stack:
        node, shape = stack.pop()
        if settle(node, shape):
            continue
        if node.is_variable:
            declared = _partial_shape(node)
            if declared is None or (len(declared) == len(shape)
                                    and all(d in (0, s) for d, s in zip(declared, shape))):
                learned[node.name] = shape
            continue
        if node.op.infer is same_shape and len(node.inputs) == 1:
            # an elementwise operator (cast, relu): its input has its output's shape
            child, index = node.inputs[0]
            before = shapes[id(child)][index]
            if before is None or _completes(before, shape):
                stack.append((child, shape))
            continue
        if node.op.infer_inputs is None:
            continue
        partials = [shapes[id(child)][index] or (_partial_shape(child) if child.is_variable else None)
                    for child, index in node.inputs]
        completed = node.op.infer_inputs(shape, partials, node.attrs)
        pending = []
        for (child, index), before, after in zip(node.inputs, [shapes[id(c)][i] for c, i in node.inputs], completed):
            if after is not None and (before is None or _completes(before, after)):
                pending.append((child, tuple(after)))
        stack.extend(reversed(pending))


def _shapeless(node: Node) -> bool:
    """A creation operator given no shape, or (): one its consumers decide in MXNet's legacy
    shapes (`sym.random.normal(0, 1) + x`), where eagerly it makes one element."""
    return "shape" in node.op.attrs and tuple(node.attrs.get("shape") or ()) == ()


def _completes(partial: Tuple, shape: Tuple, unknown: int = 0) -> bool:
    """Whether `shape` fills in the unknown sizes (0, or -1 under np_shape()) of a partial shape
    and agrees with the rest (a gluon.rnn parameter declared (40, 0) until its input size is known)."""
    return unknown in partial and len(partial) == len(shape) and all(p in (unknown, s) for p, s in zip(partial, shape))


def _declared_dtype(node: Node) -> Optional[str]:
    flag = node.extra.get("__dtype__")
    if flag is None:
        return None
    from runtime.serialization import _TYPE_FLAGS
    text = str(flag)
    return np.dtype(_TYPE_FLAGS[int(text)]).name if text.isdigit() and int(text) in _TYPE_FLAGS else np.dtype(text).name


def infer_types(symbol: Symbol, known: Dict[str, str]):
    """(argument dtypes, output dtypes, auxiliary dtypes) by names, like Symbol.infer_type: None
    where the given dtypes do not decide them all; a contradiction raises MXNet's error."""
    order = topological(symbol._outputs)
    dtypes: Dict[int, List[Optional[str]]] = {}
    for node in order:
        if node.is_variable:
            given = known.get(node.name)
            dtypes[id(node)] = [np.dtype(given).name if given is not None else _declared_dtype(node)]
            continue
        in_dtypes = [dtypes[id(child)][index] for child, index in node.inputs]
        try:
            completed, out_dtypes = node.op.infer_types(in_dtypes, node.attrs)
        except MXNetError as exc:
            raise _node_error(node, exc) from None
        for (child, index), before, after in zip(node.inputs, in_dtypes, completed):
            if child.is_variable and before is None and after is not None:
                dtypes[id(child)][index] = after
        dtypes[id(node)] = list(out_dtypes)
    aux = _aux_variables(order)
    args = [dtypes[id(n)][0] for n in order if n.is_variable and id(n) not in aux]
    auxes = [dtypes[id(n)][0] for n in order if n.is_variable and id(n) in aux]
    outs = [dtypes[id(n)][i] if i < len(dtypes[id(n)]) else None for n, i in symbol._outputs]
    return args, outs, auxes


class Executor:
    """A symbol bound to its arguments. `forward()` runs the plan and fills `outputs`."""

    # hook(node, input arrays, output arrays) after each operator that runs node by node: a
    # hybridized block's register_op_hook sets it for a call
    _op_hook = None

    def __init__(self, symbol: Symbol, ctx, args, aux_states=None, static_alloc: bool = False, args_grad=None,
                 grad_req="write"):
        self._symbol = symbol
        self._static_alloc = static_alloc  # buffers reused from one forward to the next
        self._ctx = ctx
        self._order = topological(symbol._outputs)
        arg_names = symbol.list_arguments()
        aux_names = symbol.list_auxiliary_states()
        self.arg_dict = self._named(arg_names, args, "argument")
        self.aux_dict = self._named(aux_names, aux_states, "auxiliary state")
        self._plans: Dict[Tuple[bool, Tuple[str, ...]], tuple] = {}
        self._backward_schedules: Dict = {}  # graph_gradients' work per wanted variables and mode
        self._has_aux_ops = any(node.op is not None and node.op.aux for node in self._order)
        # shapes are checked once, now, so that a graph that cannot run fails at bind time as in MXNet
        self.outputs: List[NDArray] = []
        bound = {**self.arg_dict, **self.aux_dict}
        created: Dict[int, Tuple] = {}
        _, out_shapes, _ = infer_shapes(symbol, {n: a.shape for n, a in bound.items()}, partial=True,
                                        created=created)
        # creation operators of unknown sizes make what inference decided for these arguments
        self._attrs = {node_id: dict(node.attrs, shape=created[node_id])
                       for node_id, node in ((id(n), n) for n in self._order) if node_id in created}
        _, out_types, _ = infer_types(symbol, {n: a.dtype for n, a in bound.items()})
        # the outputs exist from bind on, as in MXNet; forward passes refill these same arrays
        if all(s is not None for s in out_shapes):
            self.outputs = [NDArray(np.zeros(s, t or np.float32), ctx) for s, t in zip(out_shapes, out_types)]
            if any(a.stype != "default" for a in bound.values()):
                self.outputs = self._in_inferred_storage(bound)
        self._grad_reqs = _grad_requests(arg_names, grad_req)
        self.grad_dict = _named_gradients(arg_names, args_grad, self._grad_reqs)
        # as MXNet's bind builds the backward graph: an operator the gradients must cross needs one
        self._differentiated = differentiated_nodes(self._order, symbol._outputs, set(self.grad_dict)) \
            if self.grad_dict else []
        for node in self._differentiated:
            if node.op.gradient is None:
                raise MXNetError("Operator %s is non-differentiable because it didn't register FGradient attribute."
                                 % node.op.name)
        self._saved_values = None  # every node's outputs of the last forward, kept for backward
        self._eliminate_common_expr = os.environ.get("MXNET_ELIMINATE_COMMON_EXPR", "1") != "0"
        self._monitor = None  # (callback, monitor_all): see set_monitor_callback

    def _in_inferred_storage(self, bound) -> List[NDArray]:
        """The outputs in the storage MXNet infers for them from the bound arrays' storage, each
        operator's rule (runtime/ops/sparse.py) applied in graph order; forward refills them."""
        from runtime.sparse import from_dense
        stypes = {}
        for node in self._order:
            if node.is_variable:
                stypes[(id(node), 0)] = bound[node.name].stype if node.name in bound else "default"
                continue
            given = [stypes.get((id(child), i), "default") for child, i in node.inputs]
            result = "default"
            if node.op.storage is not None and (node.op.makes_sparse or any(s != "default" for s in given)):
                result = node.op.storage(given, node.op.parse_attrs(node.attrs))
            for i in range(node.num_outputs()):
                stypes[(id(node), i)] = result if isinstance(result, str) else result[i]
        return [from_dense(out._data, stypes[(id(n), i)], self._ctx)
                for out, (n, i) in zip(self.outputs, self._symbol._outputs)]

    @staticmethod
    def _named(names: List[str], given, what: str) -> Dict[str, NDArray]:
        if given is None:
            given = {}
        if isinstance(given, (list, tuple)):
            if len(given) != len(names):
                raise MXNetError("Length of %ss (%d) does not match the symbol's %ss (%d)"
                                 % (what, len(given), what, len(names)))
            given = dict(zip(names, given))
        missing = [n for n in names if n not in given]
        if missing:
            raise MXNetError("Must specify all the %ss: missing %s" % (what, ", ".join(missing)))
        return {n: given[n] if isinstance(given[n], NDArray) else NDArray(np.asarray(given[n], np.float32))
                for n in names}

    @property
    def arg_arrays(self) -> List[NDArray]:
        return list(self.arg_dict.values())

    @property
    def aux_arrays(self) -> List[NDArray]:
        return list(self.aux_dict.values())

    @property
    def output_dict(self) -> Dict[str, NDArray]:
        return dict(zip(self._symbol.list_outputs(), self.outputs))

    @property
    def grad_arrays(self) -> List[Optional[NDArray]]:
        return [self.grad_dict.get(name) for name in self._symbol.list_arguments()]

    def copy_params_from(self, arg_params, aux_params=None, allow_extra_params: bool = False) -> None:
        """Copy the given arrays into the bound ones of the same names, cast to their dtypes; a name
        the symbol lacks is an error unless allow_extra_params (MXNet's ValueError and words)."""
        for given, bound, what in ((arg_params, self.arg_dict, "Find name \"%s\" that is not in the arguments"),
                                   (aux_params or {}, self.aux_dict, "Find name %s that is not in the auxiliary states")):
            for name, array in given.items():
                if name in bound:
                    array.astype(bound[name].dtype).copyto(bound[name])
                elif not allow_extra_params:
                    raise ValueError(what % name)

    def forward(self, is_train: bool = False, **kwargs) -> List[NDArray]:
        for name, value in kwargs.items():
            if name not in self.arg_dict:
                raise MXNetError("Unknown argument %s" % name)
            self.arg_dict[name]._data[...] = value._data if isinstance(value, NDArray) else value
        try:
            if self.grad_dict or self._monitor is not None:
                # gradients are wanted, or a monitor: run node by node, keeping what backward reads
                self._saved_values = None
                self._saved_values = self._forward_values(is_train)
                self._saved_train = is_train
                values = [self._saved_values[id(n)][i] for n, i in self._symbol._outputs]
            else:
                values = self.run_with((), [], is_train)
        except (MXNetError, OperatorIndexError) as exc:
            # MXNet's forward only queues the operators: a failing one raises where its outputs are read
            values = [FailedValue(exc)] * len(self._symbol._outputs)
        self._refill_outputs(values)
        return self.outputs

    def _refill_outputs(self, values: List[np.ndarray]) -> None:
        if len(self.outputs) == len(values):
            for output, value in zip(self.outputs, values):
                output._data = value  # the same NDArray objects, as MXNet's exe.outputs stay the same handles
        else:
            self.outputs = [NDArray(value, self._ctx) for value in values]

    def _plan(self, is_train: bool, names: Tuple[str, ...]) -> tuple:
        """(the compiled forward function of the named inputs, its steps); it reads the other
        bound arrays itself, at each call."""
        plan = self._plans.get((is_train, names))
        if plan is None:
            preload.wait()  # the kernels being loaded in the background: ready before the first pass
            steps, slots, _, constants = compile_plan(self._order, self._symbol._outputs, is_train,
                                                      reuse=self._static_alloc, attrs=self._attrs)
            bound = {**self.arg_dict, **self.aux_dict}
            variables = [n for n in self._order if n.is_variable]
            slot_of = {n.name: slots[(id(n), 0)] for n in variables}
            rest = [n for n in variables if n.name not in names]
            # an input the graph does not read (hybrid_forward ignored it) takes a parameter too
            forward = straight_line(steps, [slot_of.get(name) for name in names],
                                    [(slot_of[n.name], bound[n.name]) for n in rest],
                                    [slots[(id(n), i)] for n, i in self._symbol._outputs], constants, _node_error)
            plan = self._plans[(is_train, names)] = (forward, steps)
        return plan

    def plan_steps(self, is_train: bool = False, names: Tuple[str, ...] = ()) -> list:
        """The steps the compiled graph runs for these named inputs (for inspection)."""
        return self._plan(is_train, names)[1]

    def run_with(self, names: Tuple[str, ...], arrays: List[np.ndarray], is_train: bool) -> List[np.ndarray]:
        """The outputs (NumPy arrays) for these values of the named arguments, which are read in
        place rather than copied into the bound arrays: the path of a hybridized block's calls.
        No kernel writes into its inputs, so the caller's arrays are left as they are."""
        if is_train and self._has_aux_ops:
            # training updates auxiliary states (BatchNorm's running statistics): node by node
            holders = [self.arg_dict[name] for name in names]
            held = [holder._data for holder in holders]
            try:
                for holder, array in zip(holders, arrays):
                    holder._data = array  # read in place for this call, as the compiled plan does
                values = self._forward_values(is_train)
            finally:
                for holder, array in zip(holders, held):
                    holder._data = array
            return [values[id(n)][i] for n, i in self._symbol._outputs]
        return self._plan(is_train, names)[0](*arrays)

    def _forward_interpreted(self, is_train: bool) -> List[NDArray]:
        values = self._forward_values(is_train)
        self.outputs = [NDArray(values[id(n)][i], self._ctx) for n, i in self._symbol._outputs]
        return self.outputs

    def get_optimized_symbol(self) -> Symbol:
        """The graph after MXNet 1.9.1's bind-time simplification: common subexpressions
        eliminated, unless the environment said MXNET_ELIMINATE_COMMON_EXPR=0 at bind time. (This
        executor's compiled plan runs the graph as given; the values are the same.)"""
        if not self._eliminate_common_expr:
            return self._symbol
        from runtime.cse import eliminate_common_expr
        return eliminate_common_expr(self._symbol)

    def debug_str(self) -> str:
        """The graph (Symbol.debug_str), then the memory this executor's runs hold, in MB: every
        operator's outputs and the gradient arrays when a backward pass is to run (the forward keeps
        all it reads), else the most that the forward pass holds at once, each output released
        after its last reader."""
        return self._symbol.debug_str() + "Total %d MB allocated\n" % (self._memory_bytes() >> 20)

    def _memory_bytes(self) -> int:
        internals = self._symbol.get_internals()
        bound = {**self.arg_dict, **self.aux_dict}
        _, shapes, _ = infer_shapes(internals, {n: a.shape for n, a in bound.items()}, partial=True)
        _, dtypes, _ = infer_types(internals, {n: a.dtype for n, a in bound.items()})
        size = {(id(node), index): int(np.prod(shape or ())) * np.dtype(dtype or np.float32).itemsize
                for (node, index), shape, dtype in zip(internals._outputs, shapes, dtypes)}
        operators = [n for n in self._order if not n.is_variable]
        if self._differentiated:
            grads = sum(g._data.nbytes for g in self.grad_dict.values())
            return grads + sum(size.get((id(n), i), 0) for n in operators for i in range(n.num_outputs()))
        readers: Dict[int, int] = {}
        for node in operators:
            for child, _ in node.inputs:
                readers[id(child)] = readers.get(id(child), 0) + 1
        for node, _ in self._symbol._outputs:
            readers[id(node)] = readers.get(id(node), 0) + 1
        live = peak = 0
        for node in operators:
            live += sum(size.get((id(node), i), 0) for i in range(node.num_outputs()))
            peak = max(peak, live)
            for child, _ in node.inputs:
                readers[id(child)] -= 1
                if readers[id(child)] == 0 and not child.is_variable:
                    live -= sum(size.get((id(child), i), 0) for i in range(child.num_outputs()))
        return peak

    def set_monitor_callback(self, callback, monitor_all: bool = False) -> None:
        """`callback(name, handle)` for each output of each operator as forward runs it, named
        `NODE_OUTPUT` (`conv_output`); with `monitor_all`, for its inputs first too: each input by its
        own name, then as `NODE_INPUT` (`conv_weight`). As in MXNet, the name comes as bytes and the
        array as a handle: `NDArray(ctypes.cast(handle, NDArrayHandle))` is the array."""
        self._monitor = (callback, monitor_all)

    def _monitor_inputs(self, node, arrays) -> None:
        callback = self._monitor[0]
        names = node.op.input_names(node.attrs)
        if node.op.unnamed_inputs:
            names = ["input%d" % i for i in range(len(names))]
        for (child, index), name, array in zip(node.inputs, names, arrays):
            call_with_handle(callback, _entry_name(child, index), NDArray(array, self._ctx))
            call_with_handle(callback, "%s_%s" % (node.name, name), NDArray(array, self._ctx))

    def _monitor_outputs(self, node, results) -> None:
        for index, array in enumerate(results):
            call_with_handle(self._monitor[0], _entry_name(node, index), NDArray(array, self._ctx))

    def _relu_epilogues(self) -> Dict[int, object]:
        """The operators whose kernel applies the ReLU that alone reads their output (a layer with
        activation='relu'), by node id: each with its attributes plus relu=True, and each such
        Activation with its producer. The producer's output is then the ReLU's: one pass over
        the result fewer, and one array fewer alive until backward. Backward reads the same: the
        producers' gradients do not read their outputs, and relu(x) > 0 where x > 0."""
        found = getattr(self, "_epilogues", None)
        if found is None:
            readers: Dict[Tuple[int, int], List[Node]] = {}
            for node in self._order:
                for child, index in node.inputs:
                    readers.setdefault((id(child), index), []).append(node)
            heads = {id(node) for node, _ in self._symbol._outputs}
            found = {}
            for node in self._order:
                reader = readers.get((id(node), 0), [])
                if node.op is not None and node.op.name in _RELU_EPILOGUE and len(reader) == 1 \
                        and node.num_outputs() == 1 and id(node) not in heads and not node.attrs.get("relu") \
                        and reader[0].op.name == "Activation" and reader[0].attrs.get("act_type") == "relu":
                    found[id(node)] = dict(node.attrs, relu=True)
                    found[id(reader[0])] = node
            self._epilogues = found
        return found

    def _forward_values(self, is_train: bool) -> Dict[int, List[np.ndarray]]:
        """Every node's outputs (by node id), running the graph node by node."""
        values: Dict[int, List[np.ndarray]] = {}
        bound = {**self.arg_dict, **self.aux_dict}
        # a monitor or hook sees every operator's own output: nothing fused then
        fused = self._relu_epilogues() if self._monitor is None and self._op_hook is None else {}
        for node in self._order:
            if node.is_variable:
                values[id(node)] = [bound[node.name]._data]
                continue
            # (a creation operator's sizes may come from its consumers: inferred at bind)
            attrs = fused[id(node)] if id(node) in fused else self._attrs.get(id(node), node.attrs)
            if isinstance(attrs, Node):  # a ReLU its producer applied
                values[id(node)] = values[id(attrs)]
                continue
            arrays = [values[id(child)][index] for child, index in node.inputs]
            if self._monitor is not None and self._monitor[1]:
                self._monitor_inputs(node, arrays)
            try:
                results = node.op.run(arrays, attrs, is_train=is_train)
            except MXNetError as exc:
                raise _node_error(node, exc) from None
            values[id(node)] = results
            if self._monitor is not None:
                self._monitor_outputs(node, results)
            if self._op_hook is not None:
                self._op_hook(node, arrays, results)
        return values

    def backward(self, out_grads=None, is_train=True) -> None:
        """Gradients of the outputs (times out_grads, ones where not given) into grad_arrays, as
        each argument's grad_req says."""
        if not self.grad_dict:
            return  # no gradient arrays bound, or every grad_req null: nothing to write (MXNet raises nothing)
        if self._saved_values is None:
            # as MXNet, backward may come first: it then reads the bound arguments as they are
            self._saved_values = self._forward_values(True)
            self._saved_train = True
        heads = self._symbol._outputs
        if out_grads is None:
            out_grads = []
        elif isinstance(out_grads, NDArray):
            out_grads = [out_grads]
        given = [g._data if isinstance(g, NDArray) else np.asarray(g) for g in out_grads]
        head_grads = []
        for index, (node, output) in enumerate(heads):
            value = self._saved_values[id(node)][output]
            if index < len(given) and given[index] is not None:
                unread = not node.is_variable and not node.op.reads_head_gradients()
                if tuple(given[index].shape) != tuple(value.shape) and not unread:
                    raise MXNetError("Shape inconsistent: out_grads[%d] has shape %s, the output %s"
                                     % (index, tuple(given[index].shape), tuple(value.shape)))
                # copied into an array of the output's dtype, as MXNet does (a float head gradient
                # under 1 reaching an int32 output is 0)
                head_grads.append(np.zeros(value.shape, value.dtype) if unread
                                  else given[index].astype(value.dtype, copy=False))
            else:
                head_grads.append(np.ones(value.shape, value.dtype))
        grads = graph_gradients(self._order, heads, self._saved_values, head_grads, is_train, set(self.grad_dict),
                                self._backward_schedules)
        for node in self._order:
            target = self.grad_dict.get(node.name) if node.is_variable else None
            if target is None:
                continue
            value = grads.get(id(node))
            if value is None:
                value = np.zeros(target.shape, target._data.dtype)
            if self._grad_reqs.get(node.name) == "add":
                target._data += value.astype(target._data.dtype, copy=False)
            else:
                np.copyto(target._data, value, casting="unsafe")


def _entry_name(node: Node, index: int) -> str:
    """An output's name as MXNet's monitor gives it: a variable's own, else NODE_OUTPUT."""
    if node.is_variable:
        return node.name
    if node.op.output_names:
        return "%s_%s" % (node.name, node.op.output_names[index])
    return "%s_output" % node.name if node.num_outputs() == 1 else "%s_output%d" % (node.name, index)


# Operators whose kernels take relu=True (a ReLU applied as their results are written).
_RELU_EPILOGUE = ("Convolution", "FullyConnected")


def _gives_zero_gradient(node: Node) -> bool:
    """Operators whose gradient is zero everywhere (stop_gradient, rounding, sign): MXNet 1.9.1
    propagates the zeros without running the operators before them, which may have no gradient."""
    from runtime.ops.grad_math import zero_gradient
    return node.op.gradient is zero_gradient


def differentiated_nodes(order: List[Node], heads, wanted) -> List[Node]:
    """The operators a backward pass runs the gradient of: reached from the heads by gradients
    that are not zero, and fed by a variable named in `wanted`."""
    fed = set()
    for node in order:
        if (node.name in wanted) if node.is_variable else any(id(c) in fed for c, _ in node.inputs):
            fed.add(id(node))
    reached = {id(node) for node, _ in heads}
    found = []
    for node in reversed(order):
        if node.is_variable or id(node) not in reached or id(node) not in fed or _gives_zero_gradient(node):
            continue
        found.append(node)
        reached.update(id(child) for child, _ in node.inputs)
    return found


def _backward_schedule(order: List[Node], wanted, is_train: bool) -> list:
    """What graph_gradients does at each node of `order`, last first, worked out once per graph,
    wanted variables and mode: (variable node id,) for a variable; for an operator (node, its
    id, whether to run its gradient, its operator, its attributes for the call, its inputs'
    keys). (The operator, not its gradient: a gradient declared later is still found.)"""
    relevant = None
    if wanted is not None:
        relevant = set()
        for node in order:  # a node matters when a wanted variable feeds it
            if (node.name in wanted) if node.is_variable else any(id(c) in relevant for c, _ in node.inputs):
                relevant.add(id(node))
    schedule = []
    for node in reversed(order):
        if node.is_variable:
            schedule.append((id(node),))
            continue
        # zeros reach the inputs of a zero gradient: nothing to run or add (MXNet's zero propagation)
        runs = (relevant is None or id(node) in relevant) and not _gives_zero_gradient(node)
        attrs = dict(node.attrs, is_train=is_train) if node.op.wants_training else node.attrs
        if node.op.gradient_selective:
            attrs = dict(attrs, needed=[relevant is None or id(child) in relevant for child, _ in node.inputs])
        schedule.append((node, id(node), runs, node.op, attrs, [(id(c), i) for c, i in node.inputs]))
    return schedule


def graph_gradients(order: List[Node], heads, values: Dict[int, List[np.ndarray]], head_grads: List[np.ndarray],
                    is_train: bool, wanted=None, schedules: Optional[Dict] = None) -> Dict[int, np.ndarray]:
    """The gradient reaching each variable node (by node id), from the nodes' gradients run in
    reverse topological order over the values of a forward pass. With `wanted` (variable names),
    only the nodes between those variables and the heads are differentiated. `schedules`, a dict
    the caller keeps with the graph, holds what is worked out once per graph (its key
    names the wanted variables and the mode, so it must belong to this `order` alone)."""
    key = (frozenset(wanted) if wanted is not None else None, is_train)
    schedule = schedules.get(key) if schedules is not None else None
    if schedule is None:
        schedule = _backward_schedule(order, wanted, is_train)
        if schedules is not None:
            schedules[key] = schedule
    pending: Dict[Tuple[int, int], np.ndarray] = {}

    def add(key, grad):
        pending[key] = grad if key not in pending else pending[key] + grad
    for (node, index), grad in zip(heads, head_grads):
        add((id(node), index), grad)
    found: Dict[int, np.ndarray] = {}
    for step in schedule:
        if len(step) == 1:  # a variable
            grad = pending.pop((step[0], 0), None)
            if grad is not None:
                found[step[0]] = grad
            continue
        node, node_id, runs, op, attrs, input_keys = step
        outputs = values[node_id]
        out_grads = [pending.pop((node_id, i), None) for i in range(len(outputs))]
        if not runs or all(g is None for g in out_grads):
            continue
        gradient = op.gradient
        if gradient is None:
            raise MXNetError("Operator %s is non-differentiable because it didn't register FGradient attribute."
                             % node.op.name)
        out_grads = [np.zeros(o.shape, o.dtype) if g is None else g for g, o in zip(out_grads, outputs)]
        inputs = [values[k][i] for k, i in input_keys]
        try:
            in_grads = gradient(inputs, outputs, out_grads, **attrs)
        except MXNetError as exc:
            raise _node_error(node, exc) from None
        for input_key, grad, value in zip(input_keys, in_grads, inputs):
            if grad is not None:
                add(input_key, np.asarray(grad).reshape(value.shape))
    return found


_GRAD_REQ_NAMES = ("null", "write", "add", "inplace")


def _grad_requests(names: List[str], grad_req) -> Dict[str, str]:
    """grad_req as a string for all, a list in argument order, or a dict by name (absent: null)."""
    if isinstance(grad_req, str):
        requests = {n: grad_req for n in names}
    elif isinstance(grad_req, (list, tuple)):
        requests = dict(zip(names, grad_req))
    else:
        requests = {n: grad_req.get(n, "null") for n in names}
    for name, request in requests.items():
        if request not in _GRAD_REQ_NAMES:
            raise MXNetError("Invalid grad_req %r for %s: one of %s" % (request, name, ", ".join(_GRAD_REQ_NAMES)))
    return {n: ("write" if r == "inplace" else r) for n, r in requests.items()}


def _named_gradients(names: List[str], args_grad, requests: Dict[str, str]) -> Dict[str, NDArray]:
    """The gradient arrays by argument name (those whose grad_req is not null)."""
    if args_grad is None:
        return {}
    if isinstance(args_grad, (list, tuple)):
        if len(args_grad) != len(names):
            raise MXNetError("Length of args_grad (%d) does not match the symbol's arguments (%d)"
                             % (len(args_grad), len(names)))
        args_grad = dict(zip(names, args_grad))
    return {n: g for n, g in args_grad.items() if n in requests and requests[n] != "null" and g is not None}
