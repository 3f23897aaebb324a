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

from recorded_cases import compare, raised_as_recorded  # noqa: E402  (shared by the recorded-case tests)

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


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_front_end_case_matches_mxnet(case):
    with runtime.as_mxnet() as mx:
        want = case["result"]
        if isinstance(want, dict) and "error" in want:
            with pytest.raises(Exception) as raised:
                eval(case["code"], {"mx": mx, "np": np, "_rnn_inputs": _rnn_inputs, "_gluon_rnn": _gluon_rnn,
                                               "_sync_bn_training": _sync_bn_training, "_zoo_model": _zoo_model,
                 "_input_grad": _input_grad})
            assert raised_as_recorded(raised.value, want)
            return
        compare(_encode(eval(case["code"], {"mx": mx, "np": np, "_rnn_inputs": _rnn_inputs, "_gluon_rnn": _gluon_rnn,
                                               "_sync_bn_training": _sync_bn_training, "_zoo_model": _zoo_model,
                 "_input_grad": _input_grad})), want, case["code"],
                 scaled=case["id"].startswith("model_zoo/"))
