"""Gluon's pooling layers over 3-D volumes and in channels-last layouts, eager and hybridized,
forward and gradient, against values recorded from MXNet 1.9.1 (tools/record_pooling_cases.py)."""
import json
from pathlib import Path

import numpy as np
import pytest

from runtime import autograd, nd
from runtime.gluon import nn

CASES = json.loads((Path(__file__).parent / "data" / "pooling_cases.json").read_text())


def array(record):
    return np.array(record["data"], dtype=np.float32).reshape(record["shape"])


@pytest.mark.parametrize("hybridize", [False, True])
@pytest.mark.parametrize("case", CASES, ids=["%s-%d" % (c["layer"], i) for i, c in enumerate(CASES)])
def test_pooling_matches_mxnet(case, hybridize):
    kwargs = {k: tuple(v) if isinstance(v, list) else v for k, v in case["kwargs"].items()}
    layer = getattr(nn, case["layer"])(**kwargs)
    layer.initialize()
    if hybridize:
        layer.hybridize()
    x = nd.array(array(case["input"]))
    x.attach_grad()
    with autograd.record():
        y = layer(x)
    y.backward(nd.array(array(case["head"])))
    np.testing.assert_allclose(y.asnumpy(), array(case["output"]), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(x.grad.asnumpy(), array(case["grad"]), rtol=1e-5, atol=1e-6)
