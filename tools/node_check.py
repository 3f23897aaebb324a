"""Node by node: each operator of a model's hybridized graph run on the runtime with the inputs MXNet
gave that node, against the output MXNet computed there.

zoo_check.py runs this for the models whose outputs differ from MXNet's. A whole model can differ
where float32 sums in another order move a value across a threshold (NMS keeping another box, a
requantization rounding to the next step) and the difference then spreads; run on MXNet's own
inputs, every node is checked apart from what came before it, so a node that computes otherwise
shows as itself, and where none does, what the whole model shows is that spread.

    record(mx, net, inputs, work, name)   MXNet's side: every output of every node of the graph
    compare(mx, work, name)               the runtime's side: each node on MXNet's inputs
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

RTOL, ATOL = 1e-4, 1e-5
# Beyond the tolerance by at most this share of the output's largest value: float32 sums in
# another order (oneDNN's, this runtime's) differ so where many terms of both signs cancel to a
# small result; reported apart from "equal", never counted as such.
NOISE = 1e-5
GROUP = 64  # node outputs computed by one MXNet executor


def record(mx, net, inputs, work: Path, name: str) -> int:
    """Export the hybridized `net` traced on `inputs` (nested lists of NDArrays) and save its graph
    (NAME.nodes.json) and every node's outputs (NAME.nodes/, a file an array); the number of nodes."""
    net.hybridize()
    net(*inputs)
    net.export(str(work / name))
    symbol = mx.sym.load(str(work / (name + "-symbol.json")))
    saved = mx.nd.load(str(work / (name + "-0000.params")))
    values = {key.split(":", 1)[1]: value for key, value in saved.items()}
    data = [n for n in symbol.list_inputs() if n not in values]  # "data", or "data0", "data1"... in call order
    values.update(zip(sorted(data, key=lambda n: int(n[4:] or 0)), _flat(inputs)))
    everything = symbol.get_internals()
    graph = json.loads(everything.tojson())
    # the operators' outputs only: MXNet's executor refuses a graph that returns its auxiliary states
    heads = [everything[i] for i, (node, *_) in enumerate(graph["heads"]) if graph["nodes"][node]["op"] != "null"]
    internals = mx.sym.Group(heads)
    # each node computed as itself: MXNet's executor would otherwise fuse convolutions and what
    # follows them into oneDNN subgraphs (and then refuses arguments bound by name)
    os.environ["MXNET_SUBGRAPH_BACKEND"] = "NONE"
    folder = work / (name + ".nodes")
    folder.mkdir(exist_ok=True)
    for start in range(0, len(heads), GROUP):  # all of a detector's outputs at once outgrow the memory
        group = mx.sym.Group(heads[start:start + GROUP])
        executor = group.bind(mx.cpu(), args={k: values[k] for k in group.list_arguments()},
                              aux_states={k: values[k] for k in group.list_auxiliary_states()}, grad_req="null")
        executor.forward(is_train=False)
        for offset, value in enumerate(executor.outputs):
            np.save(str(folder / ("o%d.npy" % (start + offset))), value.asnumpy())
        del executor
    for key in internals.list_inputs():  # the inputs and parameters
        np.save(str(folder / ("v_%s.npy" % key)), values[key].asnumpy())
    recorded = internals.tojson()
    (work / (name + ".nodes.json")).write_text(recorded)
    return sum(node["op"] != "null" for node in json.loads(recorded)["nodes"])


def compare(mx, work: Path, name: str) -> dict:
    """Each operator node of the recorded graph, alone, on the runtime with MXNet's inputs: how many
    give MXNet's outputs bit for bit, within the tolerance, close (beyond it by at most NOISE of the
    output's largest value), beyond that, or fail; the five worst beyond the tolerance listed, with
    their excess over it relative to the output's largest value, and the operators of the nodes not
    bit for bit counted."""
    graph = json.loads((work / (name + ".nodes.json")).read_text())
    values = _Recorded(work / (name + ".nodes"))
    where = {(node, index): "o%d" % i for i, (node, index, *_) in enumerate(graph["heads"])}
    where.update({(number, 0): "v_" + node["name"]
                  for number, node in enumerate(graph["nodes"]) if node["op"] == "null"})
    returned = {}  # the outputs of each node that MXNet returned
    for node, index in where:
        returned.setdefault(node, []).append(index)
    counts = {"nodes": 0, "bit-equal": 0, "within": 0, "close": 0, "beyond": 0, "failed": 0}
    worst, failed, inexact = [], [], {}
    for number, node in enumerate(graph["nodes"]):
        if node["op"] == "null":
            continue
        counts["nodes"] += 1
        outputs = sorted(returned[number])
        try:
            found = _run_alone(mx, graph, node, [values[where[tuple(entry[:2])]] for entry in node["inputs"]], outputs)
        except Exception as exc:  # an operator that raises on MXNet's own inputs
            counts["failed"] += 1
            failed.append("%s %s: %s: %s" % (node["op"], node["name"], type(exc).__name__, str(exc)[:120]))
            continue
        wanted = [values[where[(number, index)]] for index in outputs]
        if all(a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)
               for a, b in zip(found, wanted)):
            counts["bit-equal"] += 1
            continue
        inexact[node["op"]] = inexact.get(node["op"], 0) + 1
        excess = excess_over_tolerance(found, wanted)
        if excess <= 0:
            counts["within"] += 1
        else:
            counts["close" if excess <= NOISE else "beyond"] += 1
            worst.append((excess, "%s %s" % (node["op"], node["name"])))
    worst.sort(reverse=True)
    return dict(counts, worst=["%s (%.3g)" % (node, excess) for excess, node in worst[:5]], failures=failed[:10],
                not_bit_for_bit=inexact)


def _run_alone(mx, graph: dict, node: dict, inputs, outputs):
    """The node's operator in a graph of its own, its inputs variables bound to `inputs`."""
    alone = {"nodes": [{"op": "null", "name": "input%d" % i, "inputs": []} for i in range(len(inputs))]
             + [dict(node, inputs=[[i, 0, 0] for i in range(len(inputs))])],
             "arg_nodes": list(range(len(inputs))),
             "heads": [[len(inputs), index, 0] for index in outputs],
             "attrs": graph.get("attrs", {})}
    symbol = mx.sym.load_json(json.dumps(alone))
    bound = {"input%d" % i: mx.nd.array(value, dtype=value.dtype) for i, value in enumerate(inputs)}
    aux = set(symbol.list_auxiliary_states())
    executor = symbol.bind(mx.cpu(), args={k: v for k, v in bound.items() if k not in aux},
                           aux_states={k: v for k, v in bound.items() if k in aux}, grad_req="null")
    executor.forward(is_train=False)
    return [value.asnumpy() for value in executor.outputs]


class _Recorded:
    """The recorded arrays, each read from its file when asked for."""

    def __init__(self, folder: Path):
        self.folder = folder

    def __getitem__(self, key: str):
        return np.load(str(self.folder / (key + ".npy")))


def excess_over_tolerance(found, wanted) -> float:
    """How far the worst element is beyond rtol/atol, divided by the largest magnitude of its output;
    infinite for other shapes or NaN in other places."""
    worst = float("-inf")
    for a, b in zip(found, wanted):
        if a.shape != b.shape or (np.isnan(a.astype("float64")) != np.isnan(b.astype("float64"))).any():
            return float("inf")
        if a.size:
            a, b = a.astype("float64"), b.astype("float64")
            excess = np.abs(a - b) - (ATOL + RTOL * np.abs(b))
            scale = max(float(np.nanmax(np.abs(b))) if not np.isnan(b).all() else 1.0, 1.0)
            worst = max(worst, float(np.nanmax(excess)) / scale if not np.isnan(excess).all() else 0.0)
    return worst if worst != float("-inf") else 0.0


def _flat(value):
    if isinstance(value, (list, tuple)):
        return [array for item in value for array in _flat(item)]
    return [value]
