"""NDArray and Symbol front-end cases against MXNet 1.9.1's recorded answers
(tests/data/ndarray_symbol_cases.jsonl, written by tools/record_ndarray_symbol_cases.py)."""
import json
import sys
from pathlib import Path

import numpy as np
import pytest

import runtime

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from record_ndarray_symbol_cases import SCOPE, encode  # noqa: E402  (the recorder's encoding and helpers)

CASES = [json.loads(line) for line in
         (Path(__file__).parent / "data" / "ndarray_symbol_cases.jsonl").read_text().splitlines()]


def _compare(got, want, where):
    if isinstance(want, dict) and "shape" in want:
        assert isinstance(got, dict) and "shape" in got, where
        assert (got["shape"], got["dtype"]) == (want["shape"], want["dtype"]), where
        assert np.allclose(np.array(got["data"], dtype=np.float64), np.array(want["data"], dtype=np.float64),
                           rtol=1e-5, atol=1e-6, equal_nan=True), where
    elif isinstance(want, list) and isinstance(got, (list, tuple)):
        assert len(got) == len(want), where
        for g, w in zip(got, want):
            _compare(g, w, where)
    else:
        assert got == want, where


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_case_matches_mxnet(case):
    want = case["result"]
    # automatic names (`_mul0`) count from 0, as in the recording, whatever other tests named before
    with runtime.as_mxnet() as mx, mx.name.NameManager():
        if isinstance(want, dict) and "error" in want:
            with pytest.raises(Exception) as raised:
                eval(case["code"], dict(SCOPE, mx=mx))
            assert type(raised.value).__name__ == want["error"] or (
                want["error"] == "MXNetError" and isinstance(raised.value, runtime.MXNetError))
            assert want["message"] in str(raised.value)
            return
        _compare(encode(eval(case["code"], dict(SCOPE, mx=mx))), want, case["code"])
