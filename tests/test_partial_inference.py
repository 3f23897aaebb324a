"""Partial shape inference as MXNet 1.9.1 does it (tests/data/partial_inference_cases.json, from
tools/record_partial_inference.py): unknown sizes carried through slices, an elementwise pair that
completes each other's, a reshape's input completed from what its consumer needs, the deprecated
`target_shape`, creation operators whose shape (none, or ()) their consumers decide."""
import json
from pathlib import Path

import pytest

import runtime

CASES = json.loads((Path(__file__).parent / "data" / "partial_inference_cases.json").read_text())


def _shapes(shapes):
    return None if shapes is None else [list(s) for s in shapes]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["id"])
def test_partial_inference_as_recorded(case):
    with runtime.as_mxnet() as mx, mx.np_shape(case["np_shape"]):
        if "error" in case["result"]:
            with pytest.raises(Exception) as raised:
                eval(case["code"], {"mx": mx})
            assert type(raised.value).__name__ == case["result"]["error"]
            return
        symbol = eval(case["code"], {"mx": mx})
        infer = symbol.infer_shape_partial if case["mode"] == "partial" else symbol.infer_shape
        args, outs, _ = infer(**{k: tuple(v) for k, v in case["given"].items()})
    assert symbol.list_arguments() == case["result"]["arguments"]
    assert _shapes(args) == case["result"]["args"]
    assert _shapes(outs) == case["result"]["outs"]


def test_a_deprecated_target_shape_of_another_size_is_rejected():
    """MXNet 1.9.1 infers (4, 5) for (4, 3, 5) with target_shape=(0, 5) and keep_highest (the 0 is
    the kept size, nothing is inferred) and then crashes reading past the data; here it is an error."""
    with runtime.as_mxnet() as mx, pytest.raises(mx.base.MXNetError, match="Target shape size is different"):
        mx.nd.Reshape(mx.nd.ones((4, 3, 5)), target_shape=(0, 5), keep_highest=True)


def test_a_deferred_parameter_under_np_shape_learns_its_size():
    """Gluon declares a deferred parameter's unknown sizes as 0, np_shape() or not: under np_shape()
    such a (16, 0) is not a shape with a size 0 (MXNet's test_np_shape_parameters)."""
    with runtime.as_mxnet() as mx, mx.np_shape(True):
        net = mx.gluon.nn.Dense(16)
        net.initialize()
        assert net(mx.nd.zeros((2, 2016))).shape == (2, 16)
        assert net.weight.shape == (16, 2016)


def test_a_creation_operator_takes_its_unknown_sizes_from_its_consumers_when_it_runs():
    """MXNet's test_transpose_infer_shape_back: ones of shape (-1, -1) transposed and added to a
    (2, 3) is bound and run as a (3, 2) array of ones (the sum is 2 everywhere, as on MXNet 1.9.1)."""
    with runtime.as_mxnet() as mx:
        total = mx.sym.ones(shape=[2, 3]) + mx.sym.transpose(mx.sym.ones(shape=[-1, -1]))
        out = total.bind(mx.cpu(), args={}).forward()[0]
        assert out.shape == (2, 3) and (out.asnumpy() == 2).all()


def test_creations_of_partly_known_sizes_complete_each_other_when_they_run():
    """MXNet's test_transpose_infer_shape_mixed: ones (2, -1) plus ones (3, -1) transposed are
    bound and run as (2, 3), the second created as (3, 2)."""
    with runtime.as_mxnet() as mx:
        total = mx.sym.ones(shape=[2, -1]) + mx.sym.transpose(mx.sym.ones(shape=[3, -1]))
        out = total.bind(mx.cpu(), args={}).forward()[0]
        assert out.shape == (2, 3) and (out.asnumpy() == 2).all()
