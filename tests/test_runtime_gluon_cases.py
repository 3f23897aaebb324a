"""Gluon behaviours recorded from MXNet 1.9.1 (tests/gluon_cases.py, tools/record_gluon_cases.py)."""
import json
from pathlib import Path

import pytest

import runtime
from gluon_cases import CASES

RECORDED = json.loads((Path(__file__).parent / "data" / "gluon_cases.json").read_text())


@pytest.mark.parametrize("name", sorted(CASES))
def test_as_mxnet_1_9_1(name):
    with runtime.as_mxnet():
        import mxnet as mx
        assert json.loads(json.dumps(CASES[name](mx))) == RECORDED[name]
