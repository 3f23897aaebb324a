"""A symbol file's graph as linked nodes, for the quantization flow's rewriting passes
(runtime.contrib.fuse_mkldnn, runtime.contrib.quantize_pass): each node holds its operator's
name, its attributes as the strings a symbol file stores, its inputs as (node, output index)
entries and, for fused operators, its subgraphs as symbol-file dictionaries.

The passes must name and order nodes exactly as MXNet 1.9.1 does, since the names reach the
quantized symbol (and users' `exclude_layers`), so the orders here are MXNet's: nodes in
depth-first post-order from the heads, inputs visited in order.
"""
from __future__ import annotations

import json
from typing import Dict, List, Optional, Tuple

# operators whose outputs MXNet names itself (FListOutputNames): a float tensor leaving one of
# them is quantized under the name `<node>_<output name>_quantize`, others `<node>_<index>_quantize`
_NAMED_OUTPUTS = {
    "Activation": ("output",), "LeakyReLU": ("output",), "BatchNorm": ("output", "mean", "var"),
    "Pooling": ("output",), "Dropout": ("output", "mask"), "Concat": ("output",), "concat": ("output",),
    "FullyConnected": ("output",), "Convolution": ("output",), "Deconvolution": ("output",),
    "elemwise_add": ("output",), "softmax": ("output",), "log_softmax": ("output",), "LRN": ("output", "tmp_norm"),
    "UpSampling": ("output",), "SoftmaxOutput": ("output",), "LayerNorm": ("output", "mean", "std"),
    "GroupNorm": ("output", "mean", "std"), "make_loss": ("output",), "SoftmaxActivation": ("output",),
    "_sg_mkldnn_conv": ("output", "output_min", "output_max"),
    "_sg_mkldnn_fully_connected": ("output", "min_output", "max_output"),
    "_contrib_quantized_pooling": ("output", "min_output", "max_output"),
    "_contrib_quantized_flatten": ("output", "min_output", "max_output"),
    "_contrib_quantized_concat": ("output", "min_output", "max_output"),
    "_contrib_quantized_act": ("output", "min_output", "max_output"),
    "_contrib_quantized_batch_norm": ("output", "min_output", "max_output"),
    "_contrib_quantized_elemwise_add": ("output", "min_output", "max_output"),
    "_contrib_quantized_elemwise_mul": ("output", "min_output", "max_output"),
}


class Node:
    """One node of a graph; `op` is None for a variable."""

    def __init__(self, op: Optional[str], name: str, attrs: Optional[Dict[str, str]] = None,
                 inputs: Optional[List[Tuple["Node", int]]] = None, subgraphs: Optional[List[dict]] = None):
        self.op = op
        self.name = name
        self.attrs = dict(attrs or {})
        self.inputs = list(inputs or [])
        self.subgraphs = list(subgraphs or [])

    @property
    def is_variable(self) -> bool:
        return self.op is None

    def flag(self, key: str) -> bool:
        return self.attrs.get(key, "false").lower() in ("true", "1")

    def __repr__(self):
        return "Node(%s, %s)" % (self.op or "null", self.name)


def num_outputs(node: Node) -> int:
    """The outputs a consumer can read (MXNet's visible outputs)."""
    if node.is_variable:
        return 1
    if node.op == "_sg_mkldnn_conv":
        return 3 if node.flag("quantized") else 1
    if node.op == "_sg_mkldnn_fully_connected":
        return 3 if node.flag("quantized") and not node.flag("enable_float_output") else 1
    if node.op == "_contrib_quantized_elemwise_mul":
        return 1 if node.flag("enable_float_output") else 3
    if node.op in ("_contrib_quantize_v2", "_contrib_requantize") or node.op.startswith("_contrib_quantized_"):
        return 3
    return 1


def output_name(node: Node, index: int) -> str:
    """MXNet's name of one output of a node (what its monitor reports and calibration keys by)."""
    if node.is_variable:
        return node.name
    names = _NAMED_OUTPUTS.get(node.op)
    if names is not None:
        return "%s_%s" % (node.name, names[index])
    if num_outputs(node) == 1:
        return node.name + "_output"
    return "%s_output%d" % (node.name, index)


def quantize_suffix(node: Node, index: int) -> str:
    """What the name of the quantize node of a float tensor adds after its producer's name."""
    if node.is_variable:
        return ""
    names = _NAMED_OUTPUTS.get(node.op)
    return "_" + (names[index] if names is not None else str(index))


def post_order(heads: List[Tuple[Node, int]]) -> List[Node]:
    """Every node reachable from the heads, each after its inputs (MXNet's DFSVisit order)."""
    order: List[Node] = []
    seen = set()
    for head, _ in heads:
        if id(head) in seen:
            continue
        seen.add(id(head))
        stack = [(head, 0)]
        while stack:
            node, position = stack[-1]
            if position < len(node.inputs):
                stack[-1] = (node, position + 1)
                child = node.inputs[position][0]
                if id(child) not in seen:
                    seen.add(id(child))
                    stack.append((child, 0))
            else:
                stack.pop()
                order.append(node)
    return order


def entry_order(heads: List[Tuple[Node, int]]) -> Dict[Tuple[int, int], int]:
    """The position of each (consumer, input slot) in MXNet's topological sort of entries: an
    entry to a node seen before counts when met, the entry that first reaches a node counts
    when that node's inputs are done. Subgraph partitioning orders a fused node's inputs so."""
    order: Dict[Tuple[int, int], int] = {}
    seen = set()
    for head, _ in heads:
        if id(head) in seen:
            continue
        seen.add(id(head))
        stack = [(head, 0, None)]
        while stack:
            node, position, via = stack[-1]
            if position < len(node.inputs):
                stack[-1] = (node, position + 1, via)
                child = node.inputs[position][0]
                if id(child) in seen:
                    order[(id(node), position)] = len(order)
                else:
                    seen.add(id(child))
                    stack.append((child, 0, (id(node), position)))
            else:
                stack.pop()
                if via is not None:
                    order[via] = len(order)
    return order


def consumers(order: List[Node]) -> Dict[int, List[Tuple[Node, int]]]:
    """For each node (by id), the (consumer, input slot) pairs reading it, in graph order."""
    found: Dict[int, List[Tuple[Node, int]]] = {id(n): [] for n in order}
    for node in order:
        for slot, (child, _) in enumerate(node.inputs):
            found[id(child)].append((node, slot))
    return found


def from_json(text) -> Tuple[List[Tuple[Node, int]], dict]:
    """(heads, the graph's own attributes) of a symbol file's JSON text or dictionary."""
    graph = json.loads(text) if isinstance(text, str) else text
    nodes: List[Node] = []
    for record in graph["nodes"]:
        op = None if record["op"] == "null" else record["op"]
        attrs = record.get("attrs", record.get("param", {})) or {}
        inputs = [(nodes[i[0]], i[1]) for i in record.get("inputs", [])]
        nodes.append(Node(op, record["name"], attrs, inputs, record.get("subgraphs")))
    return [(nodes[h[0]], h[1]) for h in graph["heads"]], graph.get("attrs", {})


def to_dict(heads: List[Tuple[Node, int]], graph_attrs: Optional[dict] = None) -> dict:
    """The symbol-file dictionary of a graph, nodes in MXNet's order."""
    order = post_order(heads)
    position = {id(n): i for i, n in enumerate(order)}
    nodes = []
    for node in order:
        record = {"op": node.op or "null", "name": node.name,
                  "inputs": [[position[id(child)], index, 0] for child, index in node.inputs]}
        if node.attrs:
            record["attrs"] = dict(node.attrs)
        if node.subgraphs:
            record["subgraphs"] = node.subgraphs
        nodes.append(record)
    graph = {"nodes": nodes, "arg_nodes": [i for i, n in enumerate(order) if n.is_variable],
             "heads": [[position[id(node)], index, 0] for node, index in heads]}
    if graph_attrs is not None:
        graph["attrs"] = graph_attrs
    return graph


def to_json(heads: List[Tuple[Node, int]], graph_attrs: Optional[dict] = None) -> str:
    return json.dumps(to_dict(heads, graph_attrs if graph_attrs is not None else {"mxnet_version": ["int", 10901]}))
