"""nd.image.to_tensor / normalize against MXNet 1.9.1 (tests/data/image_ops_cases.json, recorded by
tools/record_image_ops.py): values, normalize's gradient, shape inference and rejections."""
import json
import re
from pathlib import Path

import numpy as np
import pytest

from runtime import autograd, nd, sym
from runtime.base import MXNetError

CASES = json.loads((Path(__file__).parent / "data" / "image_ops_cases.json").read_text())


def decode(entry):
    return np.array(entry["data"], dtype=entry["dtype"]).reshape(entry["shape"])


def source(seed, shape, dtype):
    rng = np.random.RandomState(seed)
    return rng.randint(0, 256, shape).astype(dtype) if dtype == "uint8" else rng.uniform(0, 255, shape).astype(dtype)


@pytest.mark.parametrize("case", CASES["to_tensor"], ids=lambda c: "%s-%s" % (c["shape"], c["dtype"]))
def test_to_tensor(case):
    out = nd.image.to_tensor(nd.array(source(case["seed"], case["shape"], case["dtype"]), dtype=case["dtype"]))
    expected = decode(case["out"])
    assert out.dtype == expected.dtype
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-6, atol=1e-7)
    assert list(sym.image.to_tensor(sym.var("x")).infer_shape(x=tuple(case["shape"]))[1][0]) == case["symbolic"]


@pytest.mark.parametrize("case", CASES["normalize"], ids=lambda c: str(c["shape"]))
def test_normalize(case):
    shape = tuple(case["shape"])
    x = nd.array(source(case["seed"], shape, "float32") / 255)
    x.attach_grad()
    weights = nd.array(np.random.RandomState(case["seed"] + 50).uniform(-1, 1, shape).astype("float32"))
    with autograd.record():
        y = nd.image.normalize(x, **case["kwargs"])
        loss = (y * weights).sum()
    loss.backward()
    np.testing.assert_allclose(y.asnumpy(), decode(case["out"]), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(x.grad.asnumpy(), decode(case["grad"]), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("case", CASES["errors"], ids=lambda c: "%s-%s" % (c["op"], c["shape"]))
def test_rejections(case):
    words = case["message"].split(": ", 1)[1]
    with pytest.raises(MXNetError, match=re.escape(words)):
        getattr(nd.image, case["op"])(nd.ones(tuple(case["shape"])), **case["kwargs"])


@pytest.mark.parametrize("case", CASES["flip"], ids=lambda c: c["op"])
def test_flips(case):
    x = nd.array(source(case["seed"], (4, 6, 3), "float32"))
    x.attach_grad()
    weights = nd.array(np.random.RandomState(case["seed"] + 50).uniform(-1, 1, (4, 6, 3)).astype("float32"))
    with autograd.record():
        y = getattr(nd.image, case["op"])(x)
        loss = (y * weights).sum()
    loss.backward()
    np.testing.assert_array_equal(y.asnumpy(), decode(case["out"]))
    np.testing.assert_allclose(x.grad.asnumpy(), decode(case["grad"]), rtol=1e-6)


@pytest.mark.parametrize("case", CASES["resize_errors"], ids=lambda c: str(c["size"]))
def test_resize_transform_rejections(case):
    import runtime
    with runtime.as_mxnet() as mx:
        from mxnet.gluon.data.vision import transforms
        size = case["size"] if isinstance(case["size"], int) else tuple(case["size"])
        words = case["message"].split(": ", 1)[1]
        with pytest.raises(mx.base.MXNetError, match=re.escape(words)):
            transforms.Resize(size, keep_ratio=case["keep_ratio"])(nd.ones((30, 20, 3), dtype="uint8"))
