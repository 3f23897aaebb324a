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


def test_a_global_pooling_of_more_dimensions_than_the_data_has_fails_when_computed():
    # MXNet 1.9.1 (recorded): nn.GlobalAvgPool2D on (2, 5, 8) float32 infers (2, 5, 1), then its
    # computation fails with "Check failed: kernel[1] > 0 (0 vs. 0) : Filter dimensions cannot be
    # zero."; GlobalMaxPool3D on (2, 5, 8, 8) with kernel[2]; GlobalAvgPool1D on (2, 5, 8) computes
    from runtime import sym
    from runtime.base import MXNetError
    assert sym.Pooling(sym.var("x"), global_pool=True, kernel=(1, 1), pool_type="avg").infer_shape(x=(2, 5, 8))[1] \
        == [(2, 5, 1)]
    for layer, shape, index in ((nn.GlobalAvgPool2D(), (2, 5, 8), 1), (nn.GlobalMaxPool3D(), (2, 5, 8, 8), 2)):
        with pytest.raises(MXNetError, match=r"kernel\[%d\] > 0 \(0 vs. 0\) : Filter dimensions cannot be zero" % index):
            layer(nd.ones(shape)).asnumpy()
    assert nn.GlobalAvgPool1D()(nd.ones((2, 5, 8))).shape == (2, 5, 1)
