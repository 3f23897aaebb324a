"""Common-subexpression elimination over a Symbol's graph, as MXNet 1.9.1's executor does it at
bind time (unless MXNET_ELIMINATE_COMMON_EXPR=0): operator nodes with the same operator, the same
attributes and the same inputs become one. Nodes that must stay apart are left: those without
inputs, those that mutate an input (auxiliary states, the optimizer updates), and those whose
results are not a function of their inputs (random sampling, Dropout) or keep state (RNN, the
training-mode operators). Outputs that end up the same entry get a `_copy` each after the first,
named NODE_i_copy, so that the graph's outputs stay distinct arrays.
"""
from __future__ import annotations

from typing import Dict, Tuple

from runtime.registry import REGISTRY
from runtime.symbol import Node, Symbol, _attr_text, topological

_RANDOM_PREFIXES = ("_random_", "random_", "_sample_", "sample_", "_shuffle", "shuffle", "_npi_random")


def _mergeable(node: Node) -> bool:
    op = node.op
    if not node.inputs or op.aux or op.wants_training or op.name.endswith("_update"):
        return False
    return not op.name.startswith(_RANDOM_PREFIXES) and op.name not in ("RNN", "Custom")


def eliminate_common_expr(symbol: Symbol) -> Symbol:
    same: Dict[int, Node] = {}           # id of an original node -> the node standing for it
    seen: Dict[Tuple, Node] = {}          # (operator, attributes, inputs) -> its first node
    for node in topological(symbol._outputs):
        if node.is_variable:
            same[id(node)] = node
            continue
        inputs = [(same[id(child)], index) for child, index in node.inputs]
        key = (node.op.name, tuple(sorted((k, _attr_text(v)) for k, v in node.attrs.items())),
               tuple((id(child), index) for child, index in inputs))
        if _mergeable(node) and key in seen:
            same[id(node)] = seen[key]
            continue
        rebuilt = Node(node.op, node.name, node.attrs, inputs, node.extra)
        same[id(node)] = rebuilt
        seen.setdefault(key, rebuilt)
    outputs = []
    copies: Dict[Tuple[int, int], int] = {}
    for node, index in symbol._outputs:
        entry = (same[id(node)], index)
        key = (id(entry[0]), index)
        if key in copies:
            copy = Node(REGISTRY["_copy"], "%s_%d_copy" % (entry[0].name, copies[key]), {}, [entry])
            copies[key] += 1
            entry = (copy, 0)
        else:
            copies[key] = 0
        outputs.append(entry)
    return Symbol(outputs)
