"""What ReLU does to NaN, as MXNet 1.9.1 (recorded with tools/record_nan_activation.py): the
Activation operator gives 0 (gluon.nn.Activation('relu'), the layers' activation='relu'), the
`relu` operator keeps NaN; the same in a block eagerly and hybridized, where the convolution and
dense kernels apply the ReLU themselves. GluonCV's SSD feature expanders, after MXNet's default
initialization, hold negative running variances: their NaN must become 0 there."""
import json
import sys
from pathlib import Path

import numpy as np
import pytest

import runtime
from runtime import nd

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from record_nan_activation import build_net  # noqa: E402  (the block the recording built)

CASE = json.loads((Path(__file__).parent / "data" / "nan_activation_cases.json").read_text())


def array(record):
    return np.array([np.nan if v is None else v for v in record["data"]], dtype=np.float32).reshape(record["shape"])


def test_activation_gives_zero_for_nan_and_relu_keeps_it():
    x = nd.array(array(CASE["plain"]))
    np.testing.assert_array_equal(nd.Activation(x, act_type="relu").asnumpy(), array(CASE["ops"]["Activation"]))
    np.testing.assert_array_equal(nd.relu(x).asnumpy(), array(CASE["ops"]["relu"]))


@pytest.mark.parametrize("hybridize", [False, True])
def test_block_with_nan_matches_mxnet(hybridize):
    with runtime.as_mxnet() as mx:
        from mxnet.gluon import nn
        net = build_net(nn)
        net.initialize()
        for name, param in net.collect_params().items():
            param.set_data(mx.nd.array(array(CASE["params"][name])))
        if hybridize:
            net.hybridize()
        outs = net(mx.nd.array(array(CASE["input"])))
        wanted = CASE["hybridized" if hybridize else "eager"]
        for got, want in zip(outs, wanted):
            np.testing.assert_allclose(got.asnumpy(), array(want), rtol=1e-5, atol=1e-6)
