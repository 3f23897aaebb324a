"""`nd.CachedOp`: a Symbol run as one operator on NDArrays, as MXNet 1.9.1's CachedOp.

The inputs come in the order of `symbol.list_inputs()` (arguments and auxiliary states as the
graph meets them). One executor is bound per input signature (shapes, dtypes, context) and reads
the caller's arrays in place at each call; auxiliary states given are updated in place (BatchNorm's
running statistics in training). Under `autograd.record()` the call is one node of the tape, whose
backward is the graph's backward over the values of that forward pass.
"""
from __future__ import annotations

from typing import Dict, List

import numpy as np

from runtime import autograd
from runtime.base import MXNetError
from runtime.ndarray import NDArray


class CachedOp:
    def __init__(self, sym, flags=()):
        self._symbol = sym
        self._flags = dict(flags)
        self._input_names = tuple(sym.list_inputs())
        self._executors: Dict[tuple, object] = {}

    def __call__(self, *args, **kwargs):
        out = kwargs.pop("out", None)
        kwargs.pop("default_ctx", None)
        if kwargs:
            raise TypeError("CachedOp.__call__ got unexpected keyword argument(s): " + ", ".join(kwargs))
        if len(args) != len(self._input_names):
            raise MXNetError("Check failed: inputs.size() == num_inputs() (%d vs. %d) : "
                             % (len(args), len(self._input_names)))
        for value in args:
            if not isinstance(value, NDArray):
                raise TypeError("CachedOp only accepts NDArray inputs, got %s" % type(value).__name__)
        executor = self._executor(args)
        is_train = autograd.is_training()
        if autograd._state.recording and autograd.needs_grad(args):
            outputs = self._recorded(executor, args, is_train)
        elif is_train and executor._has_aux_ops:
            values = self._values(executor, args, is_train)
            outputs = self._wrap(args, [values[id(n)][i] for n, i in self._symbol._outputs])
        else:
            outputs = self._wrap(args, executor.run_with(self._input_names, [a._data for a in args], is_train))
        if out is not None:
            targets = out if isinstance(out, (list, tuple)) else [out]
            for target, value in zip(targets, outputs):
                target[:] = value
            return out
        return outputs[0] if len(outputs) == 1 else outputs

    def _executor(self, args):
        key = tuple((a.shape, a._data.dtype) for a in args) + (args[0].context if args else None,)
        executor = self._executors.get(key)
        if executor is None:
            from runtime.executor import Executor
            given = {name: NDArray(np.array(a._data), a.context) for name, a in zip(self._input_names, args)}
            aux_names = self._symbol.list_auxiliary_states()
            executor = self._executors[key] = Executor(
                self._symbol, args[0].context if args else None,
                {n: given[n] for n in self._symbol.list_arguments()}, {n: given[n] for n in aux_names},
                static_alloc=bool(self._flags.get("static_alloc")))
        return executor

    def _values(self, executor, args, is_train):
        """Every node's outputs, the graph reading the caller's arrays (and updating its auxiliary states)."""
        holders = [executor.arg_dict[n] if n in executor.arg_dict else executor.aux_dict[n] for n in self._input_names]
        held = [h._data for h in holders]
        try:
            for holder, value in zip(holders, args):
                holder._data = value._data
            return executor._forward_values(is_train)
        finally:
            for holder, array in zip(holders, held):
                holder._data = array

    def _wrap(self, args, outputs) -> List[NDArray]:
        # an output that is (a view of) an input is copied: a result is always a new array
        ctx = args[0].context if args else None
        return [NDArray(o.copy() if any(np.may_share_memory(o, a._data) for a in args) else o, ctx)
                for o in outputs]

    def _recorded(self, executor, args, is_train):
        from runtime.executor import graph_gradients
        values = self._values(executor, args, is_train)
        heads = self._symbol._outputs
        outputs = self._wrap(args, [values[id(n)][i] for n, i in heads])
        order = executor._order
        variables = {node.name: node for node in order if node.is_variable}
        wanted = [variables.get(name) for name in self._input_names]
        names = {name for name, value in zip(self._input_names, args) if autograd.entry_of(value) is not None}

        def vjp(out_grads):
            grads = graph_gradients(order, heads, values, out_grads, is_train, names, executor._backward_schedules)
            return [None if node is None else grads.get(id(node)) for node in wanted]
        autograd.record_node("_CachedOp", vjp, list(args), outputs)
        return outputs
