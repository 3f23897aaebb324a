"""Every gradient case recorded from real MXNet 1.9.1 (fixtures/golden/grads.jsonl): the operator
runs under autograd.record() with its float inputs attached, then autograd.backward with the
recorded head gradients; the input gradients (or MXNet's error) must match."""
import json
from pathlib import Path

import numpy as np
import pytest

from runtime import autograd, nd
from runtime import random as runtime_random
from runtime.base import MXNetError

GOLDEN = Path(__file__).resolve().parents[1] / "fixtures" / "golden"
# grads_outputs.jsonl: the loss-output operators' options (tools/record_output_grads.py); grads_rnn.jsonl:
# the fused recurrent operator (tools/record_rnn_grads.py)
CASES = [json.loads(line) for name in ("grads.jsonl", "grads_outputs.jsonl", "grads_rnn.jsonl")
         for line in (GOLDEN / name).read_text().splitlines()]


def tuples(value):
    if isinstance(value, list):
        return tuple(tuples(v) for v in value)
    return value


def array(record):
    return np.array(record["data"], dtype=record["dtype"]).reshape(record["shape"])


def resolve(dotted):
    target = nd
    for part in dotted.split("."):
        target = getattr(target, part)
    return target


def run_case(case):
    inputs = [nd.array(array(i), dtype=i["dtype"]) for i in case["inputs"]]
    for x, wanted in zip(inputs, case["grad_inputs"]):
        if wanted:
            x.attach_grad()
    kwargs = {k: tuples(v) for k, v in case["kwargs"].items()}
    with autograd.record():
        out = resolve(case["op"])(*inputs, **kwargs)
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    for got, want in zip(outs, case.get("outputs", [])):  # the loss outputs' forward, where recorded
        np.testing.assert_allclose(got.asnumpy(), array(want), rtol=1e-5, atol=1e-6)
    heads = [nd.array(array(h), dtype=h["dtype"]) for h in case.get("heads", [])] or None
    autograd.backward(outs, head_grads=heads)
    return [x.grad.asnumpy() if wanted else None for x, wanted in zip(inputs, case["grad_inputs"])]


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_gradient_matches_mxnet(case):
    expected = case["grads"]
    if isinstance(expected, dict):
        with pytest.raises(MXNetError) as info:
            run_case(case)
        assert expected["message"].split(": ", 1)[1] in str(info.value)
        return
    if case["op"] == "Dropout":
        # a fixed draw: with 10 elements at p=0.5, one in 512 draws keeps all or none
        runtime_random.seed(3)
        check_dropout(case, run_case(case)[0], array(expected[0]))
        return
    got = run_case(case)
    for index, (value, want) in enumerate(zip(got, expected)):
        if want is None:
            assert value is None
            continue
        want = array(want)
        assert value.shape == want.shape, (index, value.shape, want.shape)
        np.testing.assert_allclose(value, want, rtol=1e-4, atol=1e-5, err_msg="input %d" % index)


def check_dropout(case, got, want):
    """Dropout's mask is random: each gradient element is 0 (dropped) or head / (1 - p) (kept), in
    MXNet's recording and here, with about p of them dropped."""
    head = array(case["heads"][0])
    kept = head / (1 - case["kwargs"]["p"])
    for grad in (want, got):
        dropped = np.isclose(grad, 0, atol=1e-7)
        np.testing.assert_allclose(grad[~dropped], kept[~dropped], rtol=1e-6)
    assert 0 < np.isclose(got, 0, atol=1e-7).sum() < got.size
