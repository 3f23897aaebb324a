"""Elementwise chains of a bound graph, fused into one generated Numba kernel each.

`relu(a + b)` is two operators and two full passes over memory; fused, it is one loop that reads
`a` and `b` once and writes the result once. Each kernel's source is written to a file in the user's
cache directory and compiled with `cache=True`, so a new process loads the machine code from disk
instead of compiling again.
"""
from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Set

import numpy as np

from runtime.cache_dir import cache_dir
from runtime.symbol import Node

# How one element of each fusable operator is computed from its operands ({0}, {1}) and `scalar`.
UNARY = {
    "relu": "max({0}, 0.0)", "sigmoid": "1.0 / (1.0 + math.exp(-{0}))", "tanh": "math.tanh({0})",
    "exp": "math.exp({0})", "log": "math.log({0})", "sqrt": "math.sqrt({0})", "square": "{0} * {0}",
    "abs": "abs({0})", "negative": "-{0}", "identity": "{0}",
}
SCALAR = {
    "_plus_scalar": "{0} + {s}", "_minus_scalar": "{0} - {s}", "_rminus_scalar": "{s} - {0}",
    "_mul_scalar": "{0} * {s}", "_div_scalar": "{0} / {s}", "_rdiv_scalar": "{s} / {0}",
}
BINARY = {"elemwise_add": "{0} + {1}", "elemwise_sub": "{0} - {1}", "elemwise_mul": "{0} * {1}",
          "elemwise_div": "{0} / {1}"}
ACTIVATIONS = {"relu", "sigmoid", "tanh"}
# MXNet's Activation keeps what is above 0, so NaN gives 0; its `relu` operator (UNARY) keeps NaN
ACTIVATION_RELU = "({0} if {0} > 0.0 else 0.0)"
FORMAT = "2"  # bump when the generated source changes shape: old cache entries are then ignored


# The most operators one kernel takes: Numba's compile time grows faster than a kernel's length
# (800 ReLUs in one loop took seconds, 1,500 minutes), so a longer chain is cut into kernels of this
# many operators, which are compiled once when their sources are the same (a chain of one operator).
MAX_GROUP = 64


def enabled() -> bool:
    return os.environ.get("HYBLINT_RUNTIME_FUSION", "1") != "0"


def _number(value) -> str:
    """A float as the generated source writes it (`math.inf` where repr gives `inf`)."""
    value = float(value)
    if value != value:
        return "math.nan"
    if value in (float("inf"), float("-inf")):
        return "math.inf" if value > 0 else "-math.inf"
    return repr(value)


def element_expression(node: Node) -> Optional[str]:
    """The per-element template of a node, or None when it cannot be fused."""
    name = node.op.name
    if name in UNARY:
        return UNARY[name]
    if name in SCALAR:
        return SCALAR[name].replace("{s}", _number(node.attrs["scalar"]))
    if name == "clip":  # MXNet's order: above a_max takes it, then below a_min takes that (NaN stays)
        low, high = _number(node.attrs["a_min"]), _number(node.attrs["a_max"])
        return "(%s if {0} > %s else (%s if {0} < %s else {0}))" % (high, high, low, low)
    if name in BINARY:
        return BINARY[name]
    if name == "Activation" and node.attrs["act_type"] in ACTIVATIONS:
        return ACTIVATION_RELU if node.attrs["act_type"] == "relu" else UNARY[node.attrs["act_type"]]
    return None


def find_groups(order: Sequence[Node], consumers: Dict[int, int]) -> List[List[Node]]:
    """Trees of two to MAX_GROUP fusable nodes whose inner results feed exactly one member each."""
    fusable = {id(n) for n in order if n.op is not None and element_expression(n) is not None}
    position = {id(n): k for k, n in enumerate(order)}
    consumer_of: Dict[int, Node] = {}
    for node in order:
        for child, _ in node.inputs:
            consumer_of[id(child)] = node
    groups: List[List[Node]] = []
    taken: Set[int] = set()
    for node in reversed(order):  # sinks first: each absorbs what only it consumes
        if id(node) not in fusable or id(node) in taken:
            continue
        members, frontier = [node], [node]
        while frontier and len(members) < MAX_GROUP:
            current = frontier.pop()
            for child, _ in current.inputs:
                if id(child) in fusable and id(child) not in taken and consumers.get(id(child)) == 1 \
                        and consumer_of.get(id(child)) is current and len(members) < MAX_GROUP:
                    members.append(child)
                    frontier.append(child)
        if len(members) > 1:
            taken.update(id(m) for m in members)
            groups.append(sorted(members, key=lambda member: position[id(member)]))
    return groups


def _source(group: List[Node], leaves: List[tuple]) -> str:
    names = {}
    lines = []
    leaf_names = {key: "a%d" % i for i, key in enumerate(leaves)}
    for i, node in enumerate(group):
        operands = [names.get(id(child)) or leaf_names[(id(child), index)] for child, index in node.inputs]
        names[id(node)] = "t%d" % i
        lines.append("        t%d = %s" % (i, element_expression(node).format(*operands)))
    loads = "\n".join("        a%d = in%d[i]" % (k, k) for k in range(len(leaves)))
    params = ", ".join(["out"] + ["in%d" % k for k in range(len(leaves))])
    return ("import math\nimport numba\n\n\n@numba.njit(cache=True, nogil=True)\ndef kernel(%s):\n"
            "    for i in range(out.size):\n%s\n%s\n        out[i] = t%d\n" % (params, loads, "\n".join(lines),
                                                                           len(group) - 1))


_LOADED: Dict[str, Callable] = {}


def _cache_dir() -> Path:
    return cache_dir() / ("fused-kernels-%s" % FORMAT)


def compile_group(group: List[Node], reuse: bool = False):
    """(leaves as (node id, output index), a function of the leaf arrays, passed positionally,
    returning the result). With `reuse`, the result buffer is allocated once and overwritten by
    every later call."""
    members = {id(n) for n in group}
    leaves: List[tuple] = []
    for node in group:
        for child, index in node.inputs:
            key = (id(child), index)
            if id(child) not in members and key not in leaves:
                leaves.append(key)
    source = _source(group, leaves)
    digest = hashlib.sha1(source.encode()).hexdigest()[:16]
    kernel = _LOADED.get(digest)
    if kernel is None:
        folder = _cache_dir()
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / ("fused_%s.py" % digest)
        if not path.exists():
            temporary = path.with_suffix(".tmp%d" % os.getpid())
            temporary.write_text(source)
            os.replace(temporary, path)
        spec = importlib.util.spec_from_file_location("hyblint_fused_%s" % digest, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # numba's disk cache finds the kernel's module by name
        spec.loader.exec_module(module)
        kernel = module.kernel
        # compile (or load from disk) now for float32, so that a kernel that cannot be built fails
        # here, where the caller can fall back to running the operators one by one
        probe = np.zeros(1, np.float32)
        kernel(probe, *[probe] * len(leaves))
        _LOADED[digest] = kernel

    buffers = {}

    def run(*arrays):
        first = arrays[0]
        out = buffers.get((first.shape, first.dtype)) if reuse else None
        if out is None:
            out = np.empty(first.shape, dtype=first.dtype)
            if reuse:
                buffers[(first.shape, first.dtype)] = out
        kernel(out.reshape(-1), *[np.ascontiguousarray(a).reshape(-1) for a in arrays])
        return out
    return leaves, run
