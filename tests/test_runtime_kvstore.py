"""The local key-value store, Parameters on several contexts and gluon.Trainer's use of a store,
against MXNet 1.9.1: each case of tests/kvstore_cases.py runs on the runtime and must return what it
returned on MXNet (fixtures/training/kvstore.json, written by tools/record_kvstore_cases.py), or raise
the same exception type with the same message. MXNet's backend messages start with the place in its
C++ source that raised them; the runtime's message is their last line, after "MXNetError: "."""
import json
import warnings
from pathlib import Path

import numpy as np
import pytest

import runtime
from kvstore_cases import CASES, outcome

RECORDED = json.loads((Path(__file__).parent.parent / "fixtures" / "training" / "kvstore.json").read_text())


def _close(got, expected):
    """Equal, with floats compared at float32 precision."""
    if isinstance(expected, float) and isinstance(got, (int, float)):
        return np.isclose(got, expected, rtol=1e-5, atol=1e-6)
    if isinstance(expected, list) and isinstance(got, list):
        return len(got) == len(expected) and all(_close(g, e) for g, e in zip(got, expected))
    if isinstance(expected, dict) and isinstance(got, dict):
        return set(map(str, got)) == set(expected) and all(_close(got[k], expected[str(k)]) for k in got)
    return got == expected


def _backend_message(message: str) -> str:
    return message.rsplit("MXNetError: ", 1)[-1]


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_matches_mxnet(name):
    expected = RECORDED[name]
    with runtime.as_mxnet() as mx, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = outcome(CASES[name], mx)
    if "error" in expected:
        assert "error" in got, "MXNet raised %s: %s; the runtime returned %r" % (
            expected["error"], expected["message"], got.get("value"))
        assert got["error"] == expected["error"], got
        assert got["message"] == _backend_message(expected["message"]), got
    else:
        assert "value" in got, got
        assert _close(json.loads(json.dumps(got["value"])), expected["value"]), (got["value"], expected["value"])


def test_every_recorded_case_is_run():
    assert sorted(RECORDED) == sorted(CASES)
