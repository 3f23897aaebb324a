"""MXNet 1.9.1's graph quantization on the fused float graph (runtime.contrib.fuse_mkldnn):
which nodes become quantized operators, where quantize_v2, requantize and dequantize go and how
they are named, which tensors calibration measures, how the measured ranges are written in,
and the CPU post-pass that folds each requantize into the operator before it.

The rules, as MXNet applies them:
  - fused convolutions and dense layers must be quantized; pooling (max, avg), Flatten, Concat
    (dim > 0), Activation(relu), BatchNorm, elemwise_add and elemwise_mul may be; in 'smart'
    mode a may-node is quantized only between must-nodes (fed by one and feeding one), in
    'full' mode always; excluded node names (or any operator of a fused node's subgraph) and
    excluded operator names stay float;
  - a quantized node reading a float tensor reads it through `<producer>_<output>_quantize`
    (one per tensor), a float node reading a quantized one through `<producer>_dequantize`;
    weights, biases and BatchNorm statistics stay float inputs (dense layers' tensor-wise weights
    and biases are quantized offline into `<name>_quantize`, `_min` and `_max` variables);
  - convolutions, dense layers and elementwise sums and products give int32 through a
    `requantize_<name>` node; calibration measures the float tensor each quantize_v2 and
    requantize reads (and each BatchNorm's output), and the post-pass moves a calibrated
    requantize's range into the convolution / sum / dense layer / product before it (a dense
    layer or product followed only by dequantize gives float32 instead);
  - the producers of a quantized concat (through pooling and other concats) share one range.
"""
from __future__ import annotations

from typing import Dict, Iterable, List, Optional, Tuple

import numpy as np

from runtime.contrib.graph_nodes import Node, consumers, num_outputs, output_name, post_order, quantize_suffix

_MUST = ("_sg_mkldnn_conv", "_sg_mkldnn_fully_connected")
_NEEDS_REQUANTIZE = ("_sg_mkldnn_conv", "_sg_mkldnn_fully_connected", "_contrib_quantized_elemwise_add",
                     "_contrib_quantized_elemwise_mul")


def calib_text(value) -> str:
    """A range as MXNet writes it into the symbol (std::to_string of a float: six decimals)."""
    return "%f" % float(np.float32(value))


def _subgraph_ops(node: Node) -> List[dict]:
    return [n for n in node.subgraphs[0]["nodes"] if n["op"] != "null"] if node.subgraphs else []


def quantized_form(node: Node, granularity: str) -> Optional[Node]:
    """The quantized operator MXNet makes of a float node (unwired), or None."""
    op, attrs = node.op, node.attrs
    if op == "_sg_mkldnn_conv" and not node.flag("quantized"):
        return Node(op, "quantized_" + node.name, dict(attrs, quantized="true"), subgraphs=node.subgraphs)
    if op == "_sg_mkldnn_fully_connected" and not node.flag("quantized"):
        extra = {"quantized": "True"}
        if granularity == "channel-wise":
            extra["channel_wise_quantize"] = "True"
        return Node(op, "quantized_" + node.name, dict(attrs, **extra), subgraphs=node.subgraphs)
    simple = {"Flatten": "_contrib_quantized_flatten", "BatchNorm": "_contrib_quantized_batch_norm",
              "elemwise_add": "_contrib_quantized_elemwise_add", "elemwise_mul": "_contrib_quantized_elemwise_mul"}
    if op in simple:
        return Node(simple[op], "quantized_" + node.name, attrs)
    if op == "Pooling" and attrs.get("pool_type", "max") in ("max", "avg"):
        return Node("_contrib_quantized_pooling", "quantized_" + node.name, attrs)
    if op in ("Concat", "concat") and int(attrs.get("dim", "1")) > 0:
        return Node("_contrib_quantized_concat", "quantized_" + node.name, attrs)
    if op == "Activation" and attrs.get("act_type") == "relu":
        return Node("_contrib_quantized_act", "quantized_" + node.name, attrs)
    return None


def _keeps_float(node: Node, slot: int, granularity: str) -> bool:
    """Whether a quantized node reads this input as it is (MXNet's FAvoidQuantizeInput)."""
    if node.op == "_sg_mkldnn_conv":
        conv = next(n for n in _subgraph_ops(node) if n["op"] == "Convolution")
        no_bias = conv.get("attrs", {}).get("no_bias", "False").lower() in ("true", "1")
        parameters = 1 + (0 if no_bias else 1) + (4 if node.flag("with_bn") else 0)
        return 1 <= slot <= parameters
    if node.op == "_sg_mkldnn_fully_connected":
        return granularity == "channel-wise" and slot in (1, 2)
    if node.op == "BatchNorm":
        return slot != 0
    return False


def _excluded(node: Node, names, operators) -> bool:
    if node.name in names or node.op in operators:
        return True
    return any(n["name"] in names for n in _subgraph_ops(node))


def _choose(order: List[Node], names, operators, mode: str, granularity: str) -> Dict[int, Node]:
    """The nodes to quantize (by id) and their quantized forms."""
    chosen: Dict[int, Node] = {}
    must, may = [], {}
    for node in order:
        if node.is_variable or _excluded(node, names, operators):
            continue
        form = quantized_form(node, granularity)
        if form is None:
            continue
        chosen[id(node)] = form
        if node.op in _MUST:
            must.append(node)
        else:
            may[id(node)] = 0
    if mode == "full":
        return chosen
    if mode != "smart":
        raise ValueError("unknown quantize_mode %s, expected 'full' or 'smart'" % mode)
    readers = consumers(order)
    for direction, bit in (("up", 1), ("down", 2)):
        queue = list(must)
        while queue:
            node = queue.pop(0)
            nexts = [c for c, _ in node.inputs] if direction == "up" else [c for c, _ in readers[id(node)]]
            for other in nexts:
                if id(other) in may:
                    may[id(other)] |= bit
                    queue.append(other)
    for key, marks in may.items():
        if marks != 3:
            del chosen[key]
    return chosen


class QuantizedGraph:
    """The quantized graph (`heads`) and the float tensors calibration must measure (`calib_names`)."""

    def __init__(self, heads, calib_names: List[str]):
        self.heads = heads
        self.calib_names = calib_names


def quantize(heads, excluded_names=(), excluded_ops=(), offline_params: Iterable[str] = (),
             quantized_dtype: str = "int8", quantize_mode: str = "full",
             quantize_granularity: str = "tensor-wise") -> QuantizedGraph:
    order = post_order(heads)
    chosen = _choose(order, set(excluded_names), set(excluded_ops), quantize_mode, quantize_granularity)
    mirror: Dict[int, Node] = {}       # float node -> the node that stands for it in the new graph
    source: Dict[int, Node] = {}       # new node -> the float node it stands for
    quantizers: Dict[Tuple[int, int], Node] = {}  # float tensor -> its quantize_v2

    def ranges_of(node: Node, index: int) -> Tuple[int, int]:
        first = num_outputs(node) - 2 + 2 * index
        return first, first + 1

    for node in order:
        if id(node) in chosen:
            new = chosen[id(node)]
            for slot, (child, index) in enumerate(node.inputs):
                held = mirror[id(child)]
                if _keeps_float(node, slot, quantize_granularity):
                    new.inputs.append((held, index))
                elif id(child) not in chosen:
                    key = (id(child), index)
                    if key not in quantizers:
                        suffix = "" if held.is_variable else quantize_suffix(child, index)
                        name = child.name + suffix + "_quantize"
                        quantizers[key] = Node("_contrib_quantize_v2", name, {"out_type": quantized_dtype},
                                               [(held, index)])
                    new.inputs.append((quantizers[key], 0))
                elif held.op == "_contrib_dequantize":
                    new.inputs.append((held.inputs[0][0], index))
                else:
                    new.inputs.append((held, index))
            for slot, (child, index) in enumerate(node.inputs):
                if _keeps_float(node, slot, quantize_granularity):
                    continue
                if id(child) in chosen:
                    held = mirror[id(child)]
                    held = held.inputs[0][0] if held.op == "_contrib_dequantize" else held
                    low, high = ranges_of(held, index)
                    new.inputs += [(held, low), (held, high)]
                else:
                    quantizer = quantizers[(id(child), index)]
                    new.inputs += [(quantizer, 1), (quantizer, 2)]
            source[id(new)] = node
            if new.op in _NEEDS_REQUANTIZE:
                new = Node("_contrib_requantize", "requantize_" + node.name, {"out_type": quantized_dtype},
                           [(new, 0), (new, 1), (new, 2)])
        else:
            new = Node(node.op, node.name, node.attrs, subgraphs=node.subgraphs)
            for child, index in node.inputs:
                held = mirror[id(child)]
                if id(child) in chosen and held.op != "_contrib_dequantize":
                    low, high = ranges_of(held, index)
                    dequantized = Node("_contrib_dequantize", child.name + "_dequantize", {},
                                       [(held, index), (held, low), (held, high)])
                    mirror[id(child)] = dequantized
                    source[id(dequantized)] = child
                    new.inputs.append((dequantized, 0))
                elif (id(child), index) in quantizers:
                    new.inputs.append((quantizers[(id(child), index)].inputs[0][0], index))
                else:
                    new.inputs.append((held, index))
        mirror[id(node)] = new
        source[id(new)] = node
    outputs = []
    for node, index in heads:
        held = mirror[id(node)]
        if id(node) in chosen:
            held = held.inputs[0][0] if held.op == "_contrib_dequantize" else held
            low, high = num_outputs(node) + 2 * index, num_outputs(node) + 2 * index + 1
            outputs.append((Node("_contrib_dequantize", node.name + "_dequantize", {},
                                 [(held, index), (held, low), (held, high)]), 0))
        else:
            outputs.append((held, index))
    outputs = _offline(outputs, set(offline_params))
    return QuantizedGraph(outputs, _calib_names(outputs, source))


def _offline(heads, offline: set):
    """Weights quantized ahead of time: each quantize_v2 of such a variable becomes variables
    `<quantize node>`, `<quantize node>_min` and `<quantize node>_max`."""
    made: Dict[Tuple[int, int], Node] = {}
    for node in post_order(heads):
        for slot, (child, index) in enumerate(node.inputs):
            if child.op == "_contrib_quantize_v2" and child.inputs[0][0].is_variable and \
                    child.inputs[0][0].name in offline:
                key = (id(child), index)
                if key not in made:
                    made[key] = Node(None, child.name + ("", "_min", "_max")[index])
                node.inputs[slot] = (made[key], 0)
    return heads


def _calib_names(heads, source: Dict[int, Node]) -> List[str]:
    names = []
    for node in post_order(heads):
        if node.op in ("_contrib_quantize_v2", "_contrib_requantize"):
            child, index = node.inputs[0]
            if child.is_variable:
                names.append(child.name)
            elif id(child) in source:
                names.append(output_name(source[id(child)], index))
            else:
                raise ValueError("no calibration tensor found for %s" % node.name)
        elif node.op == "_contrib_quantized_batch_norm":
            names.append(output_name(source[id(node)], 0))
    return names


def set_calibration(heads, table: Dict[str, Tuple[float, float]]):
    """Writes each measured range into the quantize_v2, requantize and quantized BatchNorm
    nodes whose tensor it belongs to (names of quantized nodes lose their `quantized_`)."""
    for node in post_order(heads):
        if node.op in ("_contrib_quantize_v2", "_contrib_requantize"):
            child, index = node.inputs[0]
        elif node.op == "_contrib_quantized_batch_norm":
            child, index = node, 0
        else:
            continue
        name = output_name(child, index)
        if child.name.startswith("quantized_"):
            name = name[len("quantized_"):]
        if name in table:
            low, high = table[name]
            node.attrs["min_calib_range"], node.attrs["max_calib_range"] = calib_text(low), calib_text(high)
    return heads


def _calibrated(node: Node) -> bool:
    return "min_calib_range" in node.attrs and "max_calib_range" in node.attrs


def _redirect(heads, old: Node, new: Node):
    """Every reader of `old` reads the same output of `new` instead."""
    for node in post_order(heads):
        node.inputs = [(new, i) if c is old else (c, i) for c, i in node.inputs]
    return [(new, i) if c is old else (c, i) for c, i in heads]


def fold_requantize(heads):
    """MXNet's CPU post-pass: each calibrated requantize after a quantized convolution, sum,
    dense layer or product is folded into it; a dense layer or product read only by a
    dequantize then gives float32."""
    for node in post_order(heads):
        if node.op not in _NEEDS_REQUANTIZE or (node.op == "_sg_mkldnn_conv" and not node.flag("quantized")):
            continue
        readers = {id(r): r for r, _ in consumers(post_order(heads))[id(node)]}
        if len(readers) != 1:
            continue
        requantize = next(iter(readers.values()))
        if requantize.op != "_contrib_requantize" or not _calibrated(requantize):
            continue
        after = {id(r): r for r, _ in consumers(post_order(heads))[id(requantize)]}
        only = next(iter(after.values())) if len(after) == 1 else None
        if node.op in ("_sg_mkldnn_fully_connected", "_contrib_quantized_elemwise_mul") and only is not None \
                and only.op == "_contrib_dequantize":
            node.attrs["enable_float_output"] = "True"
            heads = _redirect(heads, only, node)
        else:
            node.attrs["min_calib_range"] = calib_text(float(requantize.attrs["min_calib_range"]))
            node.attrs["max_calib_range"] = calib_text(float(requantize.attrs["max_calib_range"]))
        heads = _redirect(heads, requantize, node)
    return heads


def align_concat_scales(heads):
    """The calibrated producers of each quantized concat (reached through quantized pooling and
    concats, each read only inside that group) take one range: the smallest min and largest
    max, with 0 inside it."""
    order = post_order(heads)
    readers = consumers(order)
    for node in order:
        if node.op != "_contrib_quantized_concat":
            continue
        visited, matched, queue = {id(node)}, [], [node]
        single_reader = len({id(r) for r, _ in readers[id(node)]}) <= 1
        while queue:
            current = queue.pop(0)
            for child, _ in current.inputs:
                if child.is_variable or any(id(r) not in visited for r, _ in readers[id(child)]):
                    continue
                if _calibrated(child):
                    if child not in matched:
                        matched.append(child)
                elif child.op in ("_contrib_quantized_concat", "_contrib_quantized_pooling") and \
                        id(child) not in visited:
                    visited.add(id(child))
                    queue.append(child)
            if single_reader:
                for reader, _ in readers[id(current)]:
                    if reader.op in ("_contrib_quantized_concat", "_contrib_quantized_pooling") and \
                            id(reader) not in visited:
                        visited.add(id(reader))
                        queue.append(reader)
        if len(matched) < 2:
            continue
        low = min([np.float32(0)] + [np.float32(n.attrs["min_calib_range"]) for n in matched])
        high = max([np.float32(0)] + [np.float32(n.attrs["max_calib_range"]) for n in matched])
        for child in matched:
            child.attrs["min_calib_range"], child.attrs["max_calib_range"] = calib_text(low), calib_text(high)
    return heads


