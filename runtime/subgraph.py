"""A graph that a control-flow operator runs as part of one node (foreach's body, while_loop's
condition and body, cond's three graphs), as MXNet keeps it in the node's `subgraphs`.

Its inputs are its variables in `list_inputs()` order; the operator's attributes say which of the
node's inputs feeds each one. The kernels (runtime/kernels/control_flow.py) only call `run`,
`values`, `outputs` and `gradients`; shape and type inference read the graph's own rules.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence

import numpy as np

from runtime.base import MXNetError


class Subgraph:
    __slots__ = ("symbol", "order", "variables", "names", "heads", "_schedules")

    def __init__(self, symbol):
        from runtime.symbol import topological
        self.symbol = symbol
        self.order = topological(symbol._outputs)
        self.variables = [node for node in self.order if node.is_variable]
        self.names = [node.name for node in self.variables]
        self.heads = list(symbol._outputs)
        self._schedules: Dict = {}  # graph_gradients' work, kept with this graph

    def __len__(self) -> int:
        return len(self.heads)

    # ---- running
    def values(self, arrays: Sequence[np.ndarray], is_train: bool) -> Dict[int, List[np.ndarray]]:
        """Every node's outputs (by node id) for these values of the inputs."""
        from runtime.executor import _node_error
        values = {id(node): [array] for node, array in zip(self.variables, arrays)}
        for node in self.order:
            if node.is_variable:
                continue
            inputs = [values[id(child)][index] for child, index in node.inputs]
            try:
                values[id(node)] = node.op.run(inputs, node.attrs, is_train=is_train)
            except MXNetError as exc:
                raise _node_error(node, exc) from None
        return values

    def outputs(self, values) -> List[np.ndarray]:
        return [values[id(node)][index] for node, index in self.heads]

    def run(self, arrays: Sequence[np.ndarray], is_train: bool) -> List[np.ndarray]:
        return self.outputs(self.values(arrays, is_train))

    def gradients(self, values, out_grads: Sequence[Optional[np.ndarray]],
                  is_train: bool) -> List[Optional[np.ndarray]]:
        """The gradient reaching each input (None where none does) from these of the outputs
        (None: zeros), over the values of one forward pass."""
        from runtime.executor import graph_gradients
        outputs = self.outputs(values)
        head_grads = [np.zeros(o.shape, o.dtype) if g is None else np.asarray(g) for g, o in zip(out_grads, outputs)]
        found = graph_gradients(self.order, self.heads, values, head_grads, is_train, set(self.names),
                                self._schedules)
        return [found.get(id(node)) for node in self.variables]

    # ---- inference
    def infer_shapes(self, in_shapes: Sequence[Optional[tuple]]):
        """(input shapes, output shapes) as far as the given input shapes (None: unknown) decide them."""
        from runtime.executor import infer_shapes
        known = {name: tuple(shape) for name, shape in zip(self.names, in_shapes) if shape is not None}
        args, outs, auxes = infer_shapes(self.symbol, known, partial=True)
        by_name = dict(zip(self.symbol.list_arguments(), args or []))
        by_name.update(zip(self.symbol.list_auxiliary_states(), auxes or []))
        return [by_name.get(name) for name in self.names], list(outs or [None] * len(self.heads))

    def infer_types(self, in_dtypes: Sequence[Optional[str]]):
        """(input dtypes, output dtypes) as far as the given ones (None: unknown) decide them."""
        from runtime.executor import infer_types
        known = {name: dtype for name, dtype in zip(self.names, in_dtypes) if dtype is not None}
        args, outs, auxes = infer_types(self.symbol, known)
        by_name = dict(zip(self.symbol.list_arguments(), args))
        by_name.update(zip(self.symbol.list_auxiliary_states(), auxes))
        return [by_name.get(name) for name in self.names], list(outs)
