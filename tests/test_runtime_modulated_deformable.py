"""contrib.ModulatedDeformableConvolution (deformable convolution v2) and gluon.contrib.cnn's layer
of that name, against values recorded from MXNet 1.9.1 (tools/record_modulated_deformable.py):
samples moved across and past the input's borders, scaled by their masks; GluonCV's CenterNet
*_dcnv2 models are built of the layer."""
import json
from pathlib import Path

import numpy as np
import pytest

import runtime
from runtime import nd

CASES = json.loads((Path(__file__).parent / "data" / "modulated_deformable_cases.json").read_text())


def array(record):
    return np.array(record["data"], dtype=np.float32).reshape(record["shape"])


def tuples(kwargs):
    return {k: tuple(v) if isinstance(v, list) else v for k, v in kwargs.items()}


@pytest.mark.parametrize("case", CASES["operator"], ids=[str(i) for i in range(len(CASES["operator"]))])
def test_operator_matches_mxnet(case):
    inputs = {k: nd.array(array(v)) for k, v in case["inputs"].items()}
    out = nd.contrib.ModulatedDeformableConvolution(**inputs, **tuples(case["kwargs"]))
    np.testing.assert_allclose(out.asnumpy(), array(case["output"]), rtol=1e-4, atol=1e-5)


def test_layer_matches_mxnet_hybridized():
    case = CASES["layer"]
    with runtime.as_mxnet() as mx:
        from mxnet.gluon.contrib.cnn import ModulatedDeformableConvolution
        net = ModulatedDeformableConvolution(4, kernel_size=3, padding=1, num_deformable_group=2, prefix="dcn_")
        net.initialize()
        x = mx.nd.array(array(case["input"]))
        net(x)
        assert sorted(net.collect_params()) == sorted(case["params"])
        for name, param in net.collect_params().items():
            param.set_data(mx.nd.array(array(case["params"][name])))
        net.hybridize()
        np.testing.assert_allclose(net(x).asnumpy(), array(case["output"]), rtol=1e-4, atol=1e-5)


def test_output_channels_must_divide_into_deformable_groups():
    data, weight = nd.ones((1, 2, 4, 4)), nd.ones((3, 2, 1, 1))
    with pytest.raises(Exception, match="output num_filter must divide deformable group size"):
        nd.contrib.ModulatedDeformableConvolution(data, nd.zeros((1, 4, 4, 4)), nd.ones((1, 2, 4, 4)), weight,
                                                  kernel=(1, 1), num_filter=3, num_deformable_group=2, no_bias=True)
