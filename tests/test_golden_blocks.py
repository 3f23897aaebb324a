"""The Gluon blocks recorded from real MXNet 1.9.1 run unmodified on the runtime, eagerly and hybridized."""
import contextlib
import io
import json
from pathlib import Path

import numpy as np
import pytest

import runtime

CASES = [json.loads(line) for line in
         (Path(__file__).resolve().parents[1] / "fixtures" / "golden" / "blocks.jsonl").read_text().splitlines()]


def build(case):
    with runtime.as_mxnet():
        import mxnet as mx
        namespace = {}
        exec(compile(case["source"], case["id"], "exec"), namespace)
        net = eval(case["build"], namespace)
        net.initialize(mx.init.Uniform(0.5))
        with contextlib.suppress(Exception):
            net(*fresh_inputs(case))  # resolves deferred parameter shapes, as the recording did
        params = net._collect_params_with_prefix()
        assert sorted(params) == sorted(case["params"]), "structural parameter names differ from MXNet's"
        for name, value in case["params"].items():
            params[name].set_data(mx.nd.array(np.array(value["data"], dtype=value["dtype"]).reshape(value["shape"])))
    return net


def fresh_inputs(case):
    """New arrays for each call, as in the recording: a block may write into its inputs (`a += b`)."""
    return [runtime.nd.array(np.array(i["data"], dtype=i["dtype"]).reshape(i["shape"])) for i in case["inputs"]]


def outputs(value):
    if isinstance(value, (list, tuple)):
        return [o for v in value for o in outputs(v)]
    return [value.asnumpy()]


def assert_matches(actual, recorded):
    recorded = recorded if isinstance(recorded, list) else [recorded]
    assert len(actual) == len(recorded)
    for got, want in zip(actual, recorded):
        expected = np.array(want["data"], dtype=want["dtype"]).reshape(want["shape"])
        assert got.shape == expected.shape
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_block_matches_mxnet(case):
    net = build(case)
    assert_matches(outputs(net(*fresh_inputs(case))), case["imperative"])
    net.hybridize()
    recorded = case["hybridized"]
    if "error" in recorded:
        with pytest.raises(Exception) as raised:
            net(*fresh_inputs(case))
        assert type(raised.value).__name__ == recorded["error"]
        if recorded["error"] == "MXNetError":
            # MXNet's backend message carries a timestamp and a source path; compare what it says
            assert "Incompatible attr in node" in str(raised.value)
            assert recorded["message"].split("Incompatible attr in node")[1].split(": ", 1)[1] in str(raised.value)
        else:
            assert str(raised.value).splitlines()[0] == recorded["message"]
    else:
        assert_matches(outputs(net(*fresh_inputs(case))), recorded)
        assert_matches(outputs(net(*fresh_inputs(case))), recorded)  # the cached graph, without Python


def test_hybridized_print_runs_once_at_trace_time():
    source = next(c for c in CASES if c["id"] == "seed_hybridnet")["source"].replace(
        "        x = F.relu(self.hidden(x))", "        print('trace', x)\n        x = F.relu(self.hidden(x))")
    with runtime.as_mxnet():
        import mxnet as mx
        namespace = {}
        exec(source, namespace)
        net = namespace["HybridNet"]()
        net.initialize()
        x = mx.nd.ones((1, 4))
        net.hybridize()
        first, second = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(first):
            net(x)
        with contextlib.redirect_stdout(second):
            net(x)
    assert first.getvalue().startswith("trace <Symbol data>")
    assert second.getvalue() == ""
