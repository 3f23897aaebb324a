"""Binding a Symbol to arrays: shape inference at bind time, then forward passes over a fixed plan."""
from __future__ import annotations

import ast
import re
from typing import Dict, List, Optional, Tuple

import numpy as np

from runtime.base import MXNetError
from runtime.graph import compile_plan, straight_line
from runtime.ndarray import NDArray
from runtime.registry import shape_inconsistent
from runtime.symbol import Node, Symbol, _aux_variables, topological

_INCOMPATIBLE = re.compile(r"Incompatible attr at")


def _node_error(node: Node, exc: Exception) -> MXNetError:
    reason = str(exc)
    if reason.startswith("Error in operator "):
        reason = reason.split(": ", 1)[1] if ": " in reason else reason
    reason = _INCOMPATIBLE.sub("Incompatible attr in node %s at" % node.name, reason)
    return MXNetError("Error in operator %s: %s" % (node.name, reason))


def _declared_shape(node: Node) -> Optional[Tuple]:
    text = node.extra.get("__shape__")
    if not text:
        return None
    shape = tuple(ast.literal_eval(text))
    return shape if shape and all(d > 0 for d in shape) else None


def infer_shapes(symbol: Symbol, known: Dict[str, Tuple], partial: bool):
    """(argument shapes, output shapes, auxiliary shapes), like Symbol.infer_shape."""
    order = topological(symbol._outputs)
    shapes: Dict[int, List[Optional[Tuple]]] = {}
    for node in order:
        if node.is_variable:
            shapes[id(node)] = [tuple(known[node.name]) if node.name in known else _declared_shape(node)]
            continue
        in_shapes = [shapes[id(child)][index] for child, index in node.inputs]
        if node.op.infer is None and any(s is None for s in in_shapes):
            shapes[id(node)] = [None] * node.num_outputs()
            continue
        try:
            completed, out_shapes = node.op.infer_shapes(in_shapes, node.attrs)
        except MXNetError as exc:
            raise _node_error(node, exc) from None
        for (child, index), before, after in zip(node.inputs, in_shapes, completed):
            if child.is_variable and before is None and after is not None:
                shapes[id(child)][index] = tuple(after)
            elif before is not None and after is not None and tuple(before) != tuple(after):
                raise MXNetError("Error in operator %s: %s" % (node.name, shape_inconsistent(before, after, node.op.bracket_shapes)))
        shapes[id(node)] = [tuple(s) if s is not None else None for s in (out_shapes or [None])]
    aux = _aux_variables(order)
    args = [shapes[id(n)][0] for n in order if n.is_variable and id(n) not in aux]
    auxes = [shapes[id(n)][0] for n in order if n.is_variable and id(n) in aux]
    outs = [shapes[id(n)][i] if i < len(shapes[id(n)]) else None for n, i in symbol._outputs]
    if not partial and any(s is None for s in args + auxes + outs):
        return None, None, None
    return args, outs, auxes


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

    def __init__(self, symbol: Symbol, ctx, args, aux_states=None, static_alloc: bool = False):
        self._symbol = symbol
        self._static_alloc = static_alloc  # buffers reused from one forward to the next
        self._ctx = ctx
        self._order = topological(symbol._outputs)
        arg_names = symbol.list_arguments()
        aux_names = symbol.list_auxiliary_states()
        self.arg_dict = self._named(arg_names, args, "argument")
        self.aux_dict = self._named(aux_names, aux_states, "auxiliary state")
        self._plans: Dict[Tuple[bool, Tuple[str, ...]], tuple] = {}
        self._has_aux_ops = any(node.op is not None and node.op.aux for node in self._order)
        # shapes are checked once, now, so that a graph that cannot run fails at bind time as in MXNet
        self.outputs: List[NDArray] = []
        bound = {**self.arg_dict, **self.aux_dict}
        _, out_shapes, _ = infer_shapes(symbol, {n: a.shape for n, a in bound.items()}, partial=True)
        _, out_types, _ = infer_types(symbol, {n: a.dtype for n, a in bound.items()})
        # MXNet allocates the outputs at bind time: they can be read (as zeros) before forward
        if all(s is not None for s in out_shapes):
            self.outputs = [NDArray(np.zeros(s, dtype=t or np.float32), ctx) for s, t in zip(out_shapes, out_types)]

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

    def forward(self, is_train: bool = False, **kwargs) -> List[NDArray]:
        for name, value in kwargs.items():
            if name not in self.arg_dict:
                raise MXNetError("Unknown argument %s" % name)
            self.arg_dict[name]._data[...] = value._data if isinstance(value, NDArray) else value
        self.outputs = [NDArray(value, self._ctx) for value in self.run_with((), [], is_train)]
        return self.outputs

    def _plan(self, is_train: bool, names: Tuple[str, ...]) -> tuple:
        """(the compiled forward function of the named inputs, its steps); it reads the other
        bound arrays itself, at each call."""
        plan = self._plans.get((is_train, names))
        if plan is None:
            steps, slots, _, constants = compile_plan(self._order, self._symbol._outputs, is_train,
                                                      reuse=self._static_alloc)
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
            for name, array in zip(names, arrays):
                self.arg_dict[name]._data[...] = array
            return [output._data for output in self._forward_interpreted(is_train)]
        return self._plan(is_train, names)[0](*arrays)

    def _forward_interpreted(self, is_train: bool) -> List[NDArray]:
        values: Dict[int, List[np.ndarray]] = {}
        bound = {**self.arg_dict, **self.aux_dict}
        for node in self._order:
            if node.is_variable:
                values[id(node)] = [bound[node.name]._data]
                continue
            arrays = [values[id(child)][index] for child, index in node.inputs]
            try:
                results = node.op.run(arrays, node.attrs, is_train=is_train)
            except MXNetError as exc:
                raise _node_error(node, exc) from None
            if is_train and node.op.aux and node.op.name == "BatchNorm" and not node.attrs["use_global_stats"]:
                momentum = node.attrs["momentum"]
                arrays[3][...] = momentum * arrays[3] + (1 - momentum) * results[1]
                arrays[4][...] = momentum * arrays[4] + (1 - momentum) * results[2]
            values[id(node)] = results
        self.outputs = [NDArray(values[id(n)][i], self._ctx) for n, i in self._symbol._outputs]
        return self.outputs

    def backward(self, out_grads=None, is_train=True):
        raise MXNetError("this runtime computes forward passes only")
