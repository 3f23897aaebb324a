"""Operators and helpers called as user code calls them, against MXNet 1.9.1's recorded results
(tests/data/front_end_cases.jsonl, written by tools/record_front_end.py)."""
import json
import sys
from pathlib import Path

import numpy as np
import pytest

import runtime

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from record_front_end import _gluon_rnn, _input_grad, _rnn_inputs, _sync_bn_training, _zoo_model  # noqa: E402  (the recorded cases' deterministic inputs)

CASES = [json.loads(line) for line in (Path(__file__).parent / "data" / "front_end_cases.jsonl").read_text().splitlines()]


def _encode(value):
    if hasattr(value, "asnumpy"):
        data = value.asnumpy()
        return {"shape": list(data.shape), "dtype": data.dtype.name, "data": data.reshape(-1).tolist()}
    if isinstance(value, (list, tuple)):
        return [_encode(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def _compare(got, want, where, scaled=False):
    """Arrays within rtol 1e-5, atol 1e-6; `scaled`: atol 1e-5 of the largest magnitude (whole networks,
    whose float32 sums run in another order than MXNet's)."""
    if isinstance(want, dict) and "shape" in want:
        assert isinstance(got, dict) and "shape" in got, where
        assert (got["shape"], got["dtype"]) == (want["shape"], want["dtype"]), where
        expected = np.array(want["data"], dtype=np.float64)
        atol = 1e-5 * np.abs(expected).max() if scaled and expected.size else 1e-6
        assert np.allclose(np.array(got["data"], dtype=np.float64), expected, rtol=1e-5, atol=atol,
                           equal_nan=True), where
    elif isinstance(want, list) and isinstance(got, (list, tuple)):
        assert len(got) == len(want), where
        for g, w in zip(got, want):
            _compare(g, w, where, scaled)
    else:
        assert got == want, where


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_front_end_case_matches_mxnet(case):
    with runtime.as_mxnet() as mx:
        want = case["result"]
        if isinstance(want, dict) and "error" in want:
            with pytest.raises(Exception) as raised:
                eval(case["code"], {"mx": mx, "np": np, "_rnn_inputs": _rnn_inputs, "_gluon_rnn": _gluon_rnn,
                                               "_sync_bn_training": _sync_bn_training, "_zoo_model": _zoo_model,
                 "_input_grad": _input_grad})
            assert type(raised.value).__name__ == want["error"] or (
                want["error"] == "MXNetError" and isinstance(raised.value, runtime.MXNetError))
            return
        _compare(_encode(eval(case["code"], {"mx": mx, "np": np, "_rnn_inputs": _rnn_inputs, "_gluon_rnn": _gluon_rnn,
                                               "_sync_bn_training": _sync_bn_training, "_zoo_model": _zoo_model,
                 "_input_grad": _input_grad})), want, case["code"],
                 scaled=case["id"].startswith("model_zoo/"))
