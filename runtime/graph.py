"""A bound graph compiled into a flat plan: each step calls its kernel with attributes already
bound and reads and writes numbered slots, so a forward pass does no name or attribute lookups.
Elementwise chains become one generated Numba kernel each (runtime/fusion.py); a linear layer
followed by an activation becomes one step that applies the activation in place on the product's
buffer, saving an allocation and a pass over memory; consecutive dense layers become one chain, and
a convolution followed by max pooling one step that never writes the convolution's output."""
from __future__ import annotations

from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from runtime import concat_elision, fusion, inference
from runtime.base import MXNetError
from runtime.kernels import elementwise
from runtime.kernels import nn as nn_kernels
from runtime.symbol import Node

_INPLACE_ACTIVATIONS = {
    "relu": lambda out: np.copyto(out, 0, where=~(out > 0)),  # the Activation's: NaN gives 0
    "tanh": lambda out: np.tanh(out, out=out),
    "sigmoid": lambda out: np.copyto(out, elementwise.sigmoid(out)),
}


class Step:
    """One node (or a fused group) of a plan: `function(*arrays, **attrs)` over the values of the
    `inputs` slots, returning an array, or a sequence whose first `count` items fill the slots
    from `output` on. A `reused` step returns the same buffer at every call (static_alloc)."""
    __slots__ = ("function", "attrs", "inputs", "output", "count", "node", "reused")

    def __init__(self, function: Callable, attrs: Dict, inputs: Tuple[int, ...], output: int, count: int,
                 node: Node, reused: bool = False):
        self.function, self.attrs, self.inputs = function, attrs, inputs
        self.output, self.count, self.node, self.reused = output, count, node, reused


def _kernel_attrs(node: Node, is_train: bool) -> Dict:
    attrs = dict(node.attrs)
    if node.op.wants_training:
        attrs["is_train"] = is_train
    return attrs


def _fused_linear_activation(node: Node, activation: Node) -> Tuple[Callable, Dict]:
    """FullyConnected or Convolution then Activation, in one step: the activation overwrites the
    product's fresh buffer instead of allocating another."""
    if activation.attrs["act_type"] == "relu":
        # the kernels apply it while results are in registers or cache
        return node.op.kernel, dict(node.attrs, relu=True)
    apply = _INPLACE_ACTIVATIONS[activation.attrs["act_type"]]
    kernel = node.op.kernel

    def linear_then_activation(*arrays, **attrs):
        out = kernel(*arrays, **attrs)
        apply(out)
        return out
    return linear_then_activation, dict(node.attrs)


def fold_constants(order: Sequence[Node], attrs: Optional[Dict[int, dict]] = None) -> Dict[int, tuple]:
    """Outputs of the nodes that depend on no variable (`F.ones((3,)) * 2`), computed once;
    `attrs`: a node's attributes as shape inference completed them (by node id), if it did."""
    values: Dict[int, tuple] = {}
    attrs = attrs or {}
    for node in order:
        if node.is_variable or node.op.wants_training:
            continue
        if all(id(child) in values for child, _ in node.inputs):
            arrays = [values[id(child)][index] for child, index in node.inputs]
            values[id(node)] = tuple(node.op.run(arrays, attrs.get(id(node), node.attrs)))
    return values


def compile_plan(order: Sequence[Node], heads, is_train: bool, reuse: bool = False,
                 attrs: Optional[Dict[int, dict]] = None):
    """(steps, slot of each (node, output), number of slots, constant slot values) for nodes in
    topological order. Nodes read from a variable nowhere are evaluated here, once (with `attrs`,
    by node id, where shape inference completed a creation operator's shape). With `reuse`
    (hybridize(static_alloc=True)), fused kernels keep their result buffers from call to call."""
    constants = fold_constants(order, attrs)
    order = [n for n in order if id(n) not in constants]
    constant_slots: Dict[int, object] = {}
    consumers: Dict[int, int] = {}
    reader: Dict[int, Node] = {}
    for node in order:
        for child, _ in node.inputs:
            consumers[id(child)] = consumers.get(id(child), 0) + 1
            reader[id(child)] = node
    for node, _ in heads:
        consumers[id(node)] = consumers.get(id(node), 0) + 1

    slots: Dict[Tuple[int, int], int] = {}
    steps: List[Step] = []
    absorbed = set()
    sinks: Dict[int, list] = {}
    kernels = {}
    chains = {}
    if not is_train and inference.enabled():  # predict mode: convolution + BatchNorm + add + ReLU as one step
        chains = {id(chain.sink): chain for chain in inference.find_chains(order, heads, consumers)}
        absorbed.update(id(member) for chain in chains.values() for member in chain.nodes[:-1])
    if fusion.enabled():
        in_chains = absorbed | set(chains)
        for group in fusion.find_groups([n for n in order if id(n) not in in_chains], consumers):
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
        if id(node) in chains:
            chain = chains[id(node)]
            slots[(id(node), 0)] = count
            steps.append(Step(chain.function, chain.attrs, tuple(slots[(id(n), i)] for n, i in chain.leaves), count,
                              1, node))
            count += 1
            continue
        if id(node) in sinks:
            leaves, run = kernels[id(node)]
            slots[(id(node), 0)] = count
            steps.append(Step(run, {}, tuple(slots[leaf] for leaf in leaves), count, 1, node, reused=reuse))
            count += 1
            continue
        inputs = tuple(slots[(id(child), index)] for child, index in node.inputs)
        fused = _fusable_activation(node, reader, consumers, absorbed | set(sinks))
        if fused is not None:
            absorbed.add(id(fused))
            function, attrs = _fused_linear_activation(node, fused)
            slots[(id(node), 0)] = slots[(id(fused), 0)] = count
            steps.append(Step(function, attrs, inputs, count, 1, fused))
            count += 1
            continue
        outputs = node.num_outputs()
        for i in range(outputs):
            slots[(id(node), i)] = count + i
        steps.append(Step(node.op.kernel, _kernel_attrs(node, is_train), inputs, count, outputs, node))
        count += outputs
    head_slots = [slots[(id(n), i)] for n, i in heads]
    for merge in (_chain_dense, _pool_convolution):
        steps = _merge_pairs(steps, head_slots, merge)
    if not is_train and inference.enabled():  # Concats' operands written in place (runtime/concat_elision.py)
        concat_elision.elide(steps, head_slots, keep=reuse)
    if reuse and chains:  # static_alloc: fused steps write into an arena shared by liveness
        inference.share_buffers(steps, last_reads(steps, head_slots))
    return steps, slots, count, constant_slots


def _linear_layer(step: Step) -> bool:
    """A FullyConnected step with a bias, flattening, and at most a ReLU after it."""
    attrs = step.attrs
    return step.function is nn_kernels.fully_connected and not attrs["no_bias"] and attrs["flatten"] \
        and len(step.inputs) == 3


def _chain_dense(first: Step, second: Step) -> Optional[Step]:
    """Consecutive linear layers (an MLP) as one dense_chain step: one kernel call for the whole
    chain at small batch sizes."""
    if not _linear_layer(second) or not (first.function is nn_kernels.dense_chain or _linear_layer(first)):
        return None
    relus = first.attrs["relus"] if first.function is nn_kernels.dense_chain else (first.attrs.get("relu", False),)
    return Step(nn_kernels.dense_chain, {"relus": relus + (second.attrs.get("relu", False),)},
                first.inputs + second.inputs[1:], second.output, 1, second.node)


def _pool_convolution(first: Step, second: Step) -> Optional[Step]:
    """A 2-D convolution (with or without its ReLU) then max pooling without padding (LeNet, VGG,
    SqueezeNet's stem) as one convolution_max_pool step: the convolution's output is never written."""
    conv, pool = first.attrs, second.attrs
    if first.function is not nn_kernels.convolution or second.function is not nn_kernels.pooling \
            or len(conv["kernel"]) != 2 or conv.get("layout") not in (None, "NCHW"):
        return None
    if pool["pool_type"] != "max" or pool["global_pool"] or pool["pooling_convention"] not in ("valid", "full") \
            or len(pool["kernel"]) != 2 or any(pool["pad"]) or pool.get("layout") not in (None, "NCHW"):
        return None
    return Step(nn_kernels.convolution_max_pool,
                dict(conv, pool_kernel=tuple(pool["kernel"]), pool_stride=tuple(pool["stride"] or (1, 1)),
                     pool_convention=pool["pooling_convention"]),
                first.inputs, second.output, 1, second.node)


def _merge_pairs(steps: List[Step], heads: Sequence[int], merge: Callable[[Step, Step], Optional[Step]]):
    """Steps with each pair (a step, the next step) merged where the next is the only reader of the
    first's single output and `merge` gives one step for both."""
    reads: Dict[int, int] = {}
    for slot in [slot for step in steps for slot in step.inputs] + list(heads):
        reads[slot] = reads.get(slot, 0) + 1
    merged: List[Step] = []
    for step in steps:
        last = merged[-1] if merged else None
        if last is not None and last.count == 1 and step.inputs and step.inputs[0] == last.output \
                and reads[last.output] == 1:
            both = merge(last, step)
            if both is not None:
                merged[-1] = both
                continue
        merged.append(step)
    return merged


def _fusable_activation(node: Node, reader: Dict[int, Node], consumers, in_groups) -> "Node | None":
    """The in-place activation that is the only reader of a FullyConnected's or Convolution's
    output (`reader`: the last node reading each node, by id), if any."""
    if node.op.name not in ("FullyConnected", "Convolution") or consumers.get(id(node), 0) != 1:
        return None
    candidate = reader.get(id(node))
    if candidate is not None and candidate.op is not None and candidate.op.name == "Activation" \
            and candidate.inputs and candidate.inputs[0][0] is node \
            and candidate.attrs["act_type"] in _INPLACE_ACTIVATIONS and id(candidate) not in in_groups:
        return candidate
    return None


def last_reads(steps: Sequence[Step], heads: Sequence[int]) -> Dict[int, int]:
    """For each slot that a step reads, the index of the last step reading it; slots the plan
    returns (heads) are read after every step."""
    last: Dict[int, int] = {}
    for index, step in enumerate(steps):
        for slot in step.inputs:
            last[slot] = index
    for slot in heads:
        last[slot] = len(steps)
    return last


def straight_line(steps: List[Step], parameters: Sequence[Optional[int]], held: Sequence[Tuple[int, object]],
                  heads: Sequence[int], constants: Dict[int, object],
                  node_error: Callable[[Node, Exception], MXNetError]) -> Callable:
    """The plan as one generated Python function of the values of `parameters` (slots; None for an
    argument it ignores), returning the values of `heads` (copies of reused buffers and of
    constants). The other variables are `held`: (slot, an object whose `_data` is read at each
    call, such as a parameter's NDArray). Slots become local variables and each step one line, so
    a forward pass pays no loop, list or slot-table costs, only the kernels' calls."""
    names = {"MXNetError": MXNetError, "node_error": node_error, "SEQUENCES": (tuple, list),
             "nodes": [step.node for step in steps]}
    local = {}
    for slot, value in constants.items():
        local[slot] = "c%d" % slot
        names[local[slot]] = value
    arguments = ["v%d" % slot if slot is not None else "unused%d" % i for i, slot in enumerate(parameters)]
    local.update((slot, "v%d" % slot) for slot in parameters if slot is not None)
    body = []
    last_reader = last_reads(steps, heads)
    for slot, holder in held:
        names["h%d" % slot] = holder
        local[slot] = "v%d" % slot
        body.append("v%d = h%d._data" % (slot, slot))
    produced = {step.output + i for step in steps for i in range(step.count)}
    for index, step in enumerate(steps):
        names["k%d" % index] = step.function
        arguments_of_step = [local[slot] for slot in step.inputs]
        for key, value in step.attrs.items():
            # attributes are passed by keyword from constants bound to the function's globals:
            # a keyword call costs less than functools.partial's merging of dictionaries
            names["a%d_%s" % (index, key)] = value
            arguments_of_step.append("%s=a%d_%s" % (key, index, key))
        call = "k%d(%s)" % (index, ", ".join(arguments_of_step))
        outputs = ["v%d" % (step.output + i) for i in range(step.count)]
        body.append("at = %d" % index)
        if step.count == 1:
            body.append("%s = %s" % (outputs[0], call))
            body.append("if %s.__class__ in SEQUENCES: %s = %s[0]" % (outputs[0], outputs[0], outputs[0]))
        else:
            body.append("r = %s" % call)
            body.extend("%s = r[%d]" % (name, i) for i, name in enumerate(outputs))
        for i, name in enumerate(outputs):
            local[step.output + i] = name
        # intermediates are released after the last step that reads them, so that the memory a
        # forward pass holds at once is that of the live arrays, not of all of them
        done = sorted({slot for slot in step.inputs if last_reader.get(slot) == index and slot in produced})
        if done:
            body.append("del %s" % ", ".join(local[slot] for slot in done))
    lines = ["def forward(%s):" % ", ".join(arguments)]
    if body:
        # `at` names the running step, so that an error is reported on its node as MXNet does
        lines += ["    try:"] + ["        " + line for line in body] + [
            "    except MXNetError as exc:",
            "        raise node_error(nodes[at], exc) from None",
            "    except (ValueError, IndexError, TypeError, ZeroDivisionError) as exc:",
            "        raise node_error(nodes[at], MXNetError(str(exc))) from None"]
    # a buffer that the next call overwrites, or a folded constant, which every call returns, is
    # returned as a copy (the caller may write into what it gets), and so is what may be a view of
    # one (a Flatten of a reused convolution's output)
    shared = {step.output for step in steps if step.reused} | set(constants)
    for step in steps:
        if not inference.writes_fresh(step) and any(slot in shared for slot in step.inputs):
            shared.update(step.output + i for i in range(step.count))
    lines.append("    return [%s]" % ", ".join(local[slot] + (".copy()" if slot in shared else "") for slot in heads))
    exec(compile("\n".join(lines), "<compiled graph>", "exec"), names)
    return names["forward"]
