"""The float fusions MXNet 1.9.1's CPU quantization flow makes before it quantizes (its
MKLDNN_QUANTIZE subgraph backend): identities (`_copy`, inference's Dropout) go, a Convolution
with the BatchNorm, elementwise sum and activation after it becomes one `_sg_mkldnn_conv`, a
FullyConnected with its activation one `_sg_mkldnn_fully_connected`, each holding the fused
operators as its subgraph.

The rules, as MXNet applies them:
  - a chain grows only through nodes whose output has a single reader, and never into a node
    an earlier chain (in graph order) holds: of two convolutions summed, the first one fuses
    the sum;
  - Convolution (2-D or 3-D window) -> [BatchNorm] -> [elemwise_add] -> [activation]: the
    activation is Activation(relu) (the only one a quantized convolution fuses), LeakyReLU
    (leaky or gelu) or clip with a_min = 0 (not after a sum); a chain ends at its activation;
  - FullyConnected -> [Activation(relu) | LeakyReLU(leaky, elu, gelu) | abs | clip(a_min = 0)];
  - fused nodes are numbered per kind in graph order (`sg_mkldnn_conv_bn_add_act_3`,
    `sg_mkldnn_fully_connected_eltwise_0`);
  - the fused node's inputs are the outside entries in MXNet's entry order, the summand moved
    last; the subgraph's variables are named after the entry (`<output name><use count>`).
"""
from __future__ import annotations

import ast
from typing import Dict, List, Tuple

from runtime.contrib.graph_nodes import Node, consumers, entry_order, output_name, post_order, to_dict


def _only_reader(node: Node, readers, taken) -> Node | None:
    """The node's one reader, unless another fused chain holds it already."""
    found = readers[id(node)]
    return found[0][0] if len(found) == 1 and id(found[0][0]) not in taken else None


def _conv_chain(conv: Node, readers, taken) -> List[Node]:
    chain, stage = [conv], "start"
    while True:
        nxt = _only_reader(chain[-1], readers, taken)
        if nxt is None or nxt.is_variable:
            return chain
        if stage == "start" and nxt.op == "BatchNorm":
            chain.append(nxt)
            stage = "bn"
            continue
        if stage in ("start", "bn") and nxt.op == "elemwise_add":
            chain.append(nxt)
            stage = "sum"
            continue
        if _conv_activation(nxt, after_sum=stage == "sum"):
            chain.append(nxt)
        return chain


def _conv_activation(node: Node, after_sum: bool) -> bool:
    if node.op == "Activation":
        return node.attrs.get("act_type") == "relu"
    if node.op == "LeakyReLU":
        return node.attrs.get("act_type", "leaky") in ("leaky", "gelu")
    if node.op == "clip":
        return not after_sum and float(node.attrs.get("a_min", "nan")) == 0.0
    return False


def _dense_chain(dense: Node, readers, taken) -> List[Node]:
    nxt = _only_reader(dense, readers, taken)
    if nxt is None or nxt.is_variable:
        return [dense]
    fused = (nxt.op == "Activation" and nxt.attrs.get("act_type") == "relu") or \
        (nxt.op == "LeakyReLU" and nxt.attrs.get("act_type", "leaky") in ("leaky", "elu", "gelu")) or \
        nxt.op == "abs" or (nxt.op == "clip" and float(nxt.attrs.get("a_min", "nan")) == 0.0)
    return [dense, nxt] if fused else [dense]


def _kernel_dims(node: Node) -> int:
    return len(ast.literal_eval(node.attrs.get("kernel", "()")))


def _fused_node(chain: List[Node], subgraph_id: int, order_of, kind: str) -> Node:
    """The fused node of a chain: its name and flags, its subgraph, its inputs."""
    members = {id(n) for n in chain}
    outside = [(node, slot) for node in chain for slot, (child, _) in enumerate(node.inputs)
               if id(child) not in members]
    outside.sort(key=lambda entry: order_of[(id(entry[0]), entry[1])])
    # the subgraph's copies of the chain's nodes, reading variables for the outside entries
    copies = {id(n): Node(n.op, n.name, n.attrs) for n in chain}
    uses: Dict[str, int] = {}
    variables = {}
    for node, slot in outside:
        child, index = node.inputs[slot]
        name = output_name(child, index)
        uses[name] = uses.get(name, -1) + 1
        variables[(id(node), slot)] = Node(None, name + str(uses[name]))
    for node in chain:
        copies[id(node)].inputs = [(copies[id(c)], i) if id(c) in members else (variables[(id(node), slot)], 0)
                                   for slot, (c, i) in enumerate(node.inputs)]
    attrs, parts = {}, []
    for node in chain:
        if node.op in ("Convolution", "FullyConnected"):
            parts.append("conv" if kind == "conv" else "fully_connected")
        elif node.op == "BatchNorm":
            parts.append("bn")
            attrs["with_bn"] = "true"
        elif node.op == "elemwise_add":
            parts.append("add")
            attrs["with_sum"] = "true"
            added = copies[id(node)]
            if id(node.inputs[1][0]) in members:  # the chain's value goes first, the summand last
                added.inputs = added.inputs[::-1]
                outside = outside[1:] + outside[:1]
        elif kind == "conv":
            parts.append("act")
            attrs["with_postsum_act" if "with_sum" in attrs else "with_act"] = "true"
        else:
            parts.append("eltwise")
            attrs["with_eltwise"] = "True"
    subgraph = to_dict([(copies[id(chain[-1])], 0)])
    op = "_sg_mkldnn_conv" if kind == "conv" else "_sg_mkldnn_fully_connected"
    name = "sg_mkldnn_%s_%d" % ("_".join(parts), subgraph_id)
    return Node(op, name, attrs, [node.inputs[slot] for node, slot in outside], [subgraph])


def _partition(heads, kind: str):
    order = post_order(heads)
    readers = consumers(order)
    order_of = entry_order(heads)
    taken = set()
    replaced: Dict[int, Node] = {}
    count = 0
    for node in order:
        if id(node) in taken:
            continue
        if kind == "conv" and node.op == "Convolution" and _kernel_dims(node) in (2, 3):
            chain = _conv_chain(node, readers, taken)
        elif kind == "fc" and node.op == "FullyConnected":
            chain = _dense_chain(node, readers, taken)
        else:
            continue
        taken.update(id(n) for n in chain)
        replaced[id(chain[-1])] = _fused_node(chain, count, order_of, kind)
        count += 1
    if not replaced:
        return heads
    return _rewire(heads, replaced)


def _rewire(heads, replaced: Dict[int, Node]):
    """The graph with each fused chain's last node read through its fused node."""
    def entry(e: Tuple[Node, int]):
        node, index = e
        return (replaced[id(node)], 0) if id(node) in replaced else e
    fused_nodes = list(replaced.values())
    for node in post_order(heads) + fused_nodes:
        node.inputs = [entry(e) for e in node.inputs]
    for node in fused_nodes:
        node.inputs = [entry(e) for e in node.inputs]
    return [entry(h) for h in heads]


def drop_identities(heads):
    """The graph without the operators MXNet's CPU backend drops for inference: `_copy`, and
    Dropout outside its 'always' mode, each over an operator's output (not over a variable)."""
    skipped: Dict[Tuple[int, int], Tuple[Node, int]] = {}
    for node in post_order(heads):
        node.inputs = [skipped.get((id(c), i), (c, i)) for c, i in node.inputs]
        identity = node.op == "_copy" or (node.op == "Dropout" and node.attrs.get("mode", "training") != "always")
        if identity and not node.inputs[0][0].is_variable:
            skipped[(id(node), 0)] = node.inputs[0]
    return [skipped.get((id(c), i), (c, i)) for c, i in heads]


def fuse_for_quantization(heads):
    """The graph after MXNet's identity pass, its convolution pass, then its FullyConnected pass."""
    return _partition(_partition(drop_identities(heads), "conv"), "fc")
