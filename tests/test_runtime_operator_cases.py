"""Operators replayed on the inputs recorded from MXNet 1.9.1 by tools/record_operator_cases.py:
outputs, input gradients under the recorded head gradient, or MXNet's error."""
import json
import pathlib

import numpy as np
import pytest

from runtime import autograd, nd
from runtime.base import MXNetError

CASES = json.loads((pathlib.Path(__file__).parent / "data" / "operator_cases.json").read_text())


def _array(encoded):
    return np.array(encoded["data"], dtype=encoded["dtype"]).reshape(encoded["shape"])


def _resolve(path):
    target = nd
    for part in path.split("."):
        target = getattr(target, part)
    return target


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_operator_matches_mxnet(case):
    inputs = [nd.array(_array(a), dtype=a["dtype"]) for a in case["inputs"]]
    for x in inputs:
        x.attach_grad()
    if "error" in case:
        with pytest.raises(MXNetError):
            _resolve(case["op"])(*inputs, **case["kwargs"]).wait_to_read()
        return
    with autograd.record():
        out = _resolve(case["op"])(*inputs, **case["kwargs"])
    outs = out if isinstance(out, (list, tuple)) else [out]
    assert len(outs) == len(case["outputs"])
    for got, want in zip(outs, case["outputs"]):
        want = _array(want)
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-6)
    if "grads" in case:
        autograd.backward(outs, [nd.array(_array(h)) for h in case["heads"]])
        for x, want in zip(inputs, case["grads"]):
            np.testing.assert_allclose(x.grad.asnumpy(), _array(want), rtol=1e-5, atol=1e-6)
