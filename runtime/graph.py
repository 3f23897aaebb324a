"""A bound graph compiled into a flat plan: each step calls its kernel with attributes already
bound and reads and writes numbered slots, so a forward pass does no name or attribute lookups.
Elementwise chains become one generated Numba kernel each (runtime/fusion.py); a linear layer
followed by an activation becomes one step that applies the activation in place on the product's
buffer, saving an allocation and a pass over memory."""
from __future__ import annotations

import functools
from typing import Callable, Dict, List, Sequence, Tuple

import numpy as np

from runtime import fusion
from runtime.base import MXNetError
from runtime.kernels import elementwise
from runtime.symbol import Node

_INPLACE_ACTIVATIONS = {
    "relu": lambda out: np.maximum(out, 0, out=out),
    "tanh": lambda out: np.tanh(out, out=out),
    "sigmoid": lambda out: np.copyto(out, elementwise.sigmoid(out)),
}


class Step:
    __slots__ = ("run", "inputs", "output", "count", "node")

    def __init__(self, run: Callable, inputs: Tuple[int, ...], output: int, count: int, node: Node):
        self.run, self.inputs, self.output, self.count, self.node = run, inputs, output, count, node


def _kernel_call(node: Node, is_train: bool) -> Callable:
    op = node.op
    attrs = dict(node.attrs)
    if op.wants_training:
        attrs["is_train"] = is_train
    kernel = functools.partial(op.kernel, **attrs)

    def run(arrays):
        result = kernel(*arrays)
        return result if isinstance(result, (tuple, list)) else (result,)
    return run


def _fused_linear_activation(node: Node, activation: Node) -> Callable:
    """FullyConnected or Convolution then Activation, in one step: the activation overwrites the
    product's fresh buffer instead of allocating another."""
    if node.op.name == "Convolution" and activation.attrs["act_type"] == "relu":
        # the convolution kernel applies it per image, while the image is in cache
        kernel = functools.partial(node.op.kernel, relu=True, **node.attrs)

        def run_relu(arrays):
            return (kernel(*arrays),)
        return run_relu
    apply = _INPLACE_ACTIVATIONS[activation.attrs["act_type"]]
    kernel = functools.partial(node.op.kernel, **node.attrs)

    def run(arrays):
        out = kernel(*arrays)
        apply(out)
        return (out,)
    return run


def fold_constants(order: Sequence[Node]) -> Dict[int, tuple]:
    """Outputs of the nodes that depend on no variable (`F.ones((3,)) * 2`), computed once."""
    values: Dict[int, tuple] = {}
    for node in order:
        if node.is_variable or node.op.wants_training:
            continue
        if all(id(child) in values for child, _ in node.inputs):
            arrays = [values[id(child)][index] for child, index in node.inputs]
            values[id(node)] = tuple(node.op.run(arrays, node.attrs))
    return values


def compile_plan(order: Sequence[Node], heads, is_train: bool, reuse: bool = False):
    """(steps, slot of each (node, output), number of slots, constant slot values) for nodes in
    topological order. Nodes read from a variable nowhere are evaluated here, once. With `reuse`
    (hybridize(static_alloc=True)), fused kernels keep their result buffers from call to call."""
    constants = fold_constants(order)
    order = [n for n in order if id(n) not in constants]
    constant_slots: Dict[int, object] = {}
    consumers: Dict[int, int] = {}
    for node in order:
        for child, _ in node.inputs:
            consumers[id(child)] = consumers.get(id(child), 0) + 1
    for node, _ in heads:
        consumers[id(node)] = consumers.get(id(node), 0) + 1

    slots: Dict[Tuple[int, int], int] = {}
    steps: List[Step] = []
    absorbed = set()
    sinks: Dict[int, list] = {}
    kernels = {}
    if fusion.enabled():
        for group in fusion.find_groups(order, consumers):
            try:
                kernels[id(group[-1])] = fusion.compile_group(group, reuse)
            except Exception:  # no kernel (a compiler or cache problem): run these operators one by one
                continue
            sinks[id(group[-1])] = group
            absorbed.update(id(member) for member in group[:-1])
    count = 0
    for node_id, outputs in constants.items():
        for index, value in enumerate(outputs):
            slots[(node_id, index)] = count
            constant_slots[count] = value
            count += 1
    for node in order:
        if node.is_variable:
            slots[(id(node), 0)] = count
            count += 1
            continue
        if id(node) in absorbed:
            continue
        if id(node) in sinks:
            leaves, run = kernels[id(node)]
            slots[(id(node), 0)] = count
            steps.append(Step(run, tuple(slots[leaf] for leaf in leaves), count, 1, node))
            count += 1
            continue
        inputs = tuple(slots[(id(child), index)] for child, index in node.inputs)
        fused = _fusable_activation(node, order, consumers, absorbed | set(sinks))
        if fused is not None:
            absorbed.add(id(fused))
            run = _fused_linear_activation(node, fused)
            slots[(id(node), 0)] = slots[(id(fused), 0)] = count
            steps.append(Step(run, inputs, count, 1, fused))
            count += 1
            continue
        outputs = node.num_outputs()
        for i in range(outputs):
            slots[(id(node), i)] = count + i
        steps.append(Step(_kernel_call(node, is_train), inputs, count, outputs, node))
        count += outputs
    return steps, slots, count, constant_slots


def _fusable_activation(node: Node, order, consumers, in_groups) -> "Node | None":
    if node.op.name not in ("FullyConnected", "Convolution") or consumers.get(id(node), 0) != 1:
        return None
    for candidate in order:
        if candidate.op is not None and candidate.op.name == "Activation" and candidate.inputs \
                and candidate.inputs[0][0] is node and candidate.attrs["act_type"] in _INPLACE_ACTIVATIONS \
                and id(candidate) not in in_groups:
            return candidate
    return None


def run_plan(steps: List[Step], values: list, node_error: Callable[[Node, Exception], MXNetError]) -> None:
    for step in steps:
        try:
            results = step.run([values[i] for i in step.inputs])
        except MXNetError as exc:
            raise node_error(step.node, exc) from None
        except (ValueError, IndexError, TypeError, ZeroDivisionError) as exc:
            raise node_error(step.node, MXNetError(str(exc))) from None
        base = step.output
        for i in range(step.count):
            values[base + i] = results[i]
