"""Inference-time rewrites of a compiled plan (predict mode only; training keeps the plain graph).

A 2-D convolution followed by BatchNorm, a residual addition and ReLU/ReLU6 (any of them, in that
order, each the only reader of the one before) becomes one step: the BatchNorm is folded into the
convolution as a per-channel scale and shift, computed at each call from the current parameters,
and the whole tail is applied while the product is put in place (runtime/kernels/conv.py). A
BatchNorm that follows no convolution (DenseNet's BN-ReLU-Conv) becomes one pass with its addition
and activation. Set HYBLINT_RUNTIME_INFERENCE_FUSION=0 to run the operators one by one.
"""
from __future__ import annotations

import os
from typing import Dict, List, Optional, Sequence, Set, Tuple

import numpy as np

from runtime.kernels import conv as conv_kernels
from runtime.symbol import Node


def enabled() -> bool:
    return os.environ.get("HYBLINT_RUNTIME_INFERENCE_FUSION", "1") != "0"


class Chain:
    """Nodes merged into one step: `leaves` are the (node, output index) pairs it reads, in the
    order its function takes them; `nodes` run in order, the last (the sink) giving the result."""

    def __init__(self, nodes: List[Node], leaves: List[Tuple[Node, int]], function, attrs: Dict):
        self.nodes, self.leaves, self.function, self.attrs = nodes, leaves, function, attrs

    @property
    def sink(self) -> Node:
        return self.nodes[-1]


def _activation(node: Node) -> Optional[int]:
    name = node.op.name
    if name == "relu":
        return conv_kernels.RELU_OP
    if name == "Activation" and node.attrs["act_type"] == "relu":
        return conv_kernels.RELU
    if name == "clip" and float(node.attrs["a_min"]) == 0.0 and float(node.attrs["a_max"]) == 6.0:
        return conv_kernels.RELU6
    return None


def _inference_batch_norm(node: Node, reads: Dict[int, Set[int]]) -> bool:
    attrs = node.attrs
    return node.op.name == "BatchNorm" and attrs["axis"] in (1, -3) and not attrs["output_mean_var"] \
        and reads.get(id(node), set()) <= {0}


def find_chains(order: Sequence[Node], heads, consumers: Dict[int, int]) -> List[Chain]:
    """The chains of a topologically ordered graph, for a predict-mode plan."""
    readers: Dict[int, List[Node]] = {}
    reads: Dict[int, Set[int]] = {}
    for node in order:
        for child, index in node.inputs:
            readers.setdefault(id(child), []).append(node)
            reads.setdefault(id(child), set()).add(index)
    for node, index in heads:
        reads.setdefault(id(node), set()).add(index)

    chains: List[Chain] = []
    taken: Set[int] = set()

    def sole_reader(node: Node) -> Optional[Node]:
        """The one node reading `node`'s outputs, once, if not in a chain already (ResNet's shortcut
        and body both end in the addition: the first chain found takes it)."""
        found = readers.get(id(node), [])
        if consumers.get(id(node)) == 1 and len(found) == 1 and id(found[0]) not in taken:
            return found[0]
        return None

    for node in order:
        if node.op is None or id(node) in taken:
            continue
        if node.op.name == "Convolution" and len(node.attrs["kernel"]) == 2 \
                and node.attrs.get("layout") in (None, "NCHW"):
            chain = _convolution_chain(node, sole_reader, reads)
        elif _inference_batch_norm(node, reads):
            chain = _batch_norm_chain(node, sole_reader)
        else:
            continue
        if chain is not None:
            chains.append(chain)
            taken.update(id(n) for n in chain.nodes)
    return chains


def _tail(current: Node, sole_reader, leaves: List[Tuple[Node, int]], nodes: List[Node]) -> Tuple[bool, int]:
    """Extends `nodes` with an addition (its other operand joining `leaves`) and an activation
    after `current`, where present: (whether an addition was taken, the activation)."""
    residual = False
    following = sole_reader(current)
    if following is not None and following.op.name == "elemwise_add":
        operands = [(child, index) for child, index in following.inputs if child is not current]
        if len(operands) == 1:
            leaves.append(operands[0])
            nodes.append(following)
            residual, current = True, following
            following = sole_reader(current)
    act = conv_kernels.NONE
    if following is not None and _activation(following) is not None:
        act = _activation(following)
        nodes.append(following)
    return residual, act


def _convolution_chain(conv: Node, sole_reader, reads) -> Optional[Chain]:
    nodes, leaves = [conv], list(conv.inputs)
    normalize = None
    following = sole_reader(conv)
    if following is not None and _inference_batch_norm(following, reads) and following.inputs[0][0] is conv:
        nodes.append(following)
        leaves.extend(following.inputs[1:5])
        normalize = (float(following.attrs["eps"]), bool(following.attrs["fix_gamma"]))
    residual, act = _tail(nodes[-1], sole_reader, leaves, nodes)
    if len(nodes) == 1 or (normalize is None and not residual and act == conv_kernels.RELU):
        return None  # a plain convolution (with its ReLU) stays as it was, free to merge with pooling
    attrs = {key: conv.attrs[key] for key in ("kernel", "stride", "dilate", "pad", "num_filter", "num_group",
                                              "no_bias")}
    attrs.update(normalize=normalize, residual=residual, act=act)
    chain = Chain(nodes, leaves, conv_kernels.convolution_chain, attrs)
    attrs["fallback"] = one_by_one(chain)
    return chain


def _batch_norm_chain(norm: Node, sole_reader) -> Optional[Chain]:
    nodes, leaves = [norm], list(norm.inputs)
    residual, act = _tail(norm, sole_reader, leaves, nodes)
    attrs = {"eps": float(norm.attrs["eps"]), "fix_gamma": bool(norm.attrs["fix_gamma"]), "residual": residual,
             "act": act}
    chain = Chain(nodes, leaves, conv_kernels.batch_norm_chain, attrs)
    attrs["fallback"] = one_by_one(chain)
    return chain


def one_by_one(chain: Chain):
    """A function of the chain's leaves that runs its operators one after another (for inputs
    the fused kernels do not take)."""
    position = {(id(node), index): k for k, (node, index) in enumerate(chain.leaves)}
    recipe = []
    for node in chain.nodes:
        sources = [("previous", None) if recipe and child is recipe[-1][0] else ("leaf", position[(id(child), index)])
                   for child, index in node.inputs]
        recipe.append((node, sources))

    def run(*arrays):
        value = None
        for node, sources in recipe:
            inputs = [value if kind == "previous" else arrays[k] for kind, k in sources]
            results = node.op.run(inputs, node.attrs, is_train=False)
            value = results[0] if isinstance(results, (list, tuple)) else results
        return value
    return run


class Buffer:
    """A step's output memory in a plan's arena: one byte buffer per arena slot, shared by steps
    whose outputs are never alive at the same time, grown to the largest of them on first use and
    reused by every later call (hybridize(static_alloc=True))."""
    __slots__ = ("arena", "index")

    def __init__(self, arena: List, index: int):
        self.arena, self.index = arena, index

    def __call__(self, shape, dtype):
        dtype = np.dtype(dtype)
        size = dtype.itemsize
        for extent in shape:
            size *= extent
        raw = self.arena[self.index]
        if raw is None or raw.size < size:
            raw = self.arena[self.index] = np.empty(max(size, 1), np.uint8)
        return raw[:size].view(dtype).reshape(shape)


# kernels known to return a fresh array (never a view of an input)
_FRESH = {"convolution_chain", "batch_norm_chain", "convolution", "convolution_max_pool", "pooling",
          "fully_connected", "concat", "dense_chain"}


def writes_fresh(step) -> bool:
    """Whether the step's output is memory of its own: a kernel known to write a fresh array, or a
    buffer of its own reused from call to call."""
    return getattr(step.function, "__name__", "") in _FRESH or step.reused


def share_buffers(steps, last: Dict[int, int]) -> int:
    """Gives each fused step (convolution_chain, batch_norm_chain) an arena Buffer for its output,
    a slot being shared by steps whose outputs' lifetimes (from the step to its last reader) do not
    overlap; `last` gives the index of each output's last reader (len(steps) for the plan's
    outputs). A slot returns to the free list only when every reader is a kernel known to write
    a fresh array (not a view of its input, which would outlive the reader). Returns the number of
    arena slots."""
    readers: Dict[int, List] = {}
    for step in steps:
        for slot in step.inputs:
            readers.setdefault(slot, []).append(step)
    arena: List = []
    free: List[int] = []
    releases: Dict[int, List[int]] = {}
    for index, step in enumerate(steps):
        for slot_index in releases.pop(index - 1, []):
            free.append(slot_index)
        if step.function not in (conv_kernels.convolution_chain, conv_kernels.batch_norm_chain) \
                or "buffer" in step.attrs:  # its place given already (runtime/concat_elision.py)
            continue
        if free:
            slot_index = free.pop()
        else:
            arena.append(None)
            slot_index = len(arena) - 1
        step.attrs["buffer"] = Buffer(arena, slot_index)
        step.reused = True  # the plan returns a copy if this is an output
        end = last.get(step.output, index)
        plain = all(writes_fresh(r) for r in readers.get(step.output, []))
        if plain and end < len(steps):
            releases.setdefault(end, []).append(slot_index)
    return len(arena)
