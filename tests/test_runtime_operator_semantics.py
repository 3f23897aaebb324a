"""Operator semantics that MXNet 1.9.1's own test_operator.py relies on, against MXNet's recorded
results (tests/data/operator_semantics.jsonl, written by tools/record_operator_semantics.py)."""
import json
import sys
from pathlib import Path

import pytest

import runtime

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from record_operator_semantics import encode, evaluate  # noqa: E402  (the recorded cases' helpers)

from recorded_cases import compare, raised_as_recorded  # noqa: E402  (shared by the recorded-case tests)

CASES = [json.loads(line) for line in (Path(__file__).parent / "data" / "operator_semantics.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_operator_case_matches_mxnet(case):
    with runtime.as_mxnet() as mx:
        want = case["result"]
        if isinstance(want, dict) and "error" in want:
            with pytest.raises(Exception) as raised:
                evaluate(mx, case["code"])
            assert raised_as_recorded(raised.value, want)
            return
        compare(encode(evaluate(mx, case["code"])), want, case["code"])


def test_same_pooling_values():
    """Pooling's "same" convention: MXNet's MKLDNN build gives only the shape (its values fail), so
    the values are checked by hand: windows of 2 at stride 2 over 5 places, the last one cut short."""
    from runtime import autograd, nd
    x = nd.array([[[3, 1, 4, 1, 5]]])
    x.attach_grad()
    with autograd.record():
        y = nd.Pooling(x, kernel=(2,), stride=(2,), pad=(0, 0, 0), pooling_convention="same")
    y.backward(nd.array([[[1, 2, 3]]]))
    assert y.asnumpy().tolist() == [[[3, 4, 5]]]
    assert x.grad.asnumpy().tolist() == [[[1, 0, 2, 0, 3]]]
