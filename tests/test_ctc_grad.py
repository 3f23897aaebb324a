"""The gradient of the CTC loss w.r.t. its activations: against values recorded from real MXNet
1.9.1 (tools/record_ctc_grads.py -> fixtures/golden/grads_ctc.jsonl) and against central finite
differences of the forward loss in float64."""
import json
from pathlib import Path

import numpy as np
import pytest

from runtime import autograd, gluon, nd
from runtime.kernels.ctc import ctc_loss, ctc_loss_grad

CASES = [json.loads(line) for line in
         (Path(__file__).resolve().parents[1] / "fixtures" / "golden" / "grads_ctc.jsonl").read_text().splitlines()]


def array(record):
    return np.array(record["data"], dtype=record["dtype"]).reshape(record["shape"])


def resolve(dotted):
    target = nd
    for part in dotted.split("."):
        target = getattr(target, part)
    return target


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_matches_mxnet(case):
    xs = [nd.array(array(i), dtype=i["dtype"]) for i in case["inputs"]]
    xs[0].attach_grad()
    with autograd.record():
        if case.get("gluon"):
            out = gluon.loss.CTCLoss(**case["kwargs"])(xs[0], xs[1], *xs[2:])
        else:
            out = resolve(case["op"])(*xs, **case["kwargs"])
    if case["heads"][0] is None:
        out.backward()
    else:
        out.backward(nd.array(array(case["heads"][0])))
    np.testing.assert_allclose(out.asnumpy(), array(case["outputs"][0]), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(xs[0].grad.asnumpy(), array(case["grads"][0]), rtol=1e-4, atol=1e-5)


def central_differences(data, args, kwargs, eps=1e-6):
    grad = np.zeros(data.shape + (data.shape[1],))
    for index in np.ndindex(*data.shape):
        up, down = data.copy(), data.copy()
        up[index] += eps
        down[index] -= eps
        grad[index] = (ctc_loss(up, *args, **kwargs) - ctc_loss(down, *args, **kwargs)) / (2 * eps)
    # d loss_b / d data[t, b, c]: only the sequence's own loss depends on its activations
    return np.stack([grad[:, b, :, b] for b in range(data.shape[1])], axis=1)


@pytest.mark.parametrize("kwargs, label, lengths", [
    ({}, [[1, 2, 0], [2, 2, 1]], []),
    ({"blank_label": "last"}, [[0, 1, -1], [2, 0, 2]], []),
    ({"use_data_lengths": True, "use_label_lengths": True}, [[3, 3, 1], [1, 0, 0]], [[5, 3], [2, 1]]),
])
def test_matches_finite_differences(kwargs, label, lengths):
    data = np.random.RandomState(3).uniform(-2, 2, (5, 2, 4))
    args = [np.array(label, np.float64)] + [np.array(x, np.float64) for x in lengths]
    np.testing.assert_allclose(ctc_loss_grad(data, *args, **kwargs), central_differences(data, args, kwargs),
                               rtol=1e-5, atol=1e-7)


def test_unalignable_label_gets_zero_gradient():
    data = np.zeros((2, 1, 3))  # two steps cannot emit the three labels 1, 1, 2
    grad = ctc_loss_grad(data, np.array([[1, 1, 2]], np.float64))
    assert np.isinf(ctc_loss(data, np.array([[1, 1, 2]], np.float64))[0])
    assert not grad.any()


def test_trains_through_gluon_ctc_loss():
    pred = nd.array(np.random.RandomState(4).uniform(-1, 1, (2, 6, 4)).astype("float32"))
    label = nd.array([[1, 2], [0, 0]])
    pred.attach_grad()
    loss_fn = gluon.loss.CTCLoss()
    with autograd.record():
        before = loss_fn(pred, label)
    before.backward()
    after = loss_fn(pred - 0.5 * pred.grad, label)
    assert (after.asnumpy() < before.asnumpy()).all()
