"""tools/node_check.py: each node of a recorded graph run alone on the recorded inputs. Here the runtime
records and compares (the tool runs the recording on MXNet): a model agrees with itself node for
node, and a recording changed at one node is found there, and only there."""
import importlib.util
from pathlib import Path

import json
import shutil

import numpy as np
import pytest

import runtime
from runtime import gluon, initializer, nd

TOOL = Path(__file__).resolve().parents[1] / "tools" / "node_check.py"
spec = importlib.util.spec_from_file_location("node_check", TOOL)
tool = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tool)


class Branches(gluon.HybridBlock):
    """Two inputs, a convolution with its BatchNorm, a Concat, a split with two outputs and a top-k."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.conv = gluon.nn.Conv2D(4, 3, padding=1, in_channels=3)
            self.norm = gluon.nn.BatchNorm(in_channels=4)

    def hybrid_forward(self, F, x, y):
        z = F.concat(self.norm(self.conv(x)), y, dim=1)
        left, right = F.split(z, num_outputs=2, axis=1)
        return F.topk(F.relu(left) + right, axis=1, k=1, ret_typ="both")


@pytest.fixture(scope="module")
def mx():
    with runtime.as_mxnet():
        import mxnet
        yield mxnet


@pytest.fixture(scope="module")
def recorded(mx, tmp_path_factory):
    work = tmp_path_factory.mktemp("nodes")
    net = Branches()
    net.initialize(initializer.Uniform())
    rng = np.random.RandomState(0)
    net.norm.running_mean.set_data(nd.array(rng.uniform(-1, 1, 4)))
    inputs = [nd.array(rng.uniform(-1, 1, (2, 3, 5, 5))), nd.array(rng.uniform(-1, 1, (2, 2, 5, 5)))]
    count = tool.record(mx, net, inputs, work, "branches")
    return work, count


def test_a_model_agrees_with_itself_node_for_node(mx, recorded):
    work, count = recorded
    found = tool.compare(mx, work, "branches")
    assert count == found["nodes"] == 7  # Convolution, BatchNorm, Concat, split, relu, add, topk
    assert found["beyond"] == found["close"] == found["failed"] == 0
    assert found["bit-equal"] + found["within"] == found["nodes"]


def test_a_node_computed_otherwise_is_found_at_that_node_alone(mx, recorded, tmp_path):
    work, _ = recorded
    graph = (work / "branches.nodes.json").read_text()
    (tmp_path / "branches.nodes.json").write_text(graph)
    shutil.copytree(work / "branches.nodes", tmp_path / "branches.nodes")
    names = [node["name"] for node in json.loads(graph)["nodes"]]
    heads = json.loads(graph)["heads"]
    relu = tmp_path / "branches.nodes" / ("o%d.npy" % next(i for i, (node, *_) in enumerate(heads)
                                                          if "relu" in names[node]))
    np.save(str(relu), np.load(str(relu)) + 0.5)  # as if MXNet's relu had given other values
    found = tool.compare(mx, tmp_path, "branches")
    # the relu itself, and the addition that takes the changed values as its input, now disagree
    assert found["beyond"] == 2 and found["failed"] == 0 and found["not_bit_for_bit"] == {"relu": 1, "elemwise_add": 1}
    assert sorted(entry.split()[0] for entry in found["worst"]) == ["elemwise_add", "relu"]


def test_excess_is_relative_to_the_largest_value_and_infinite_for_other_nans():
    wanted = np.array([100.0, 1.0], dtype="float32")
    assert tool.excess_over_tolerance([wanted], [wanted]) < 0
    assert tool.excess_over_tolerance([wanted + [0.02, 0]], [wanted]) == pytest.approx((0.02 - 1e-5 - 1e-2) / 100)
    assert tool.excess_over_tolerance([np.array([np.nan, 1.0])], [wanted]) == float("inf")
