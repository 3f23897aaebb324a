"""NDArray and Symbol front-end cases against MXNet 1.9.1's recorded answers
(tests/data/ndarray_symbol_cases.jsonl, written by tools/record_ndarray_symbol_cases.py)."""
import json
import sys
from pathlib import Path

import pytest

import runtime

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from record_ndarray_symbol_cases import SCOPE, encode  # noqa: E402  (the recorder's encoding and helpers)

from recorded_cases import compare, raised_as_recorded  # noqa: E402  (shared by the recorded-case tests)

CASES = [json.loads(line) for line in
         (Path(__file__).parent / "data" / "ndarray_symbol_cases.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_case_matches_mxnet(case):
    want = case["result"]
    # automatic names (`_mul0`) count from 0, as in the recording, whatever other tests named before
    with runtime.as_mxnet() as mx, mx.name.NameManager():
        if isinstance(want, dict) and "error" in want:
            with pytest.raises(Exception) as raised:
                eval(case["code"], dict(SCOPE, mx=mx))
            assert raised_as_recorded(raised.value, want)
            assert want["message"] in str(raised.value)
            return
        compare(encode(eval(case["code"], dict(SCOPE, mx=mx))), want, case["code"])
