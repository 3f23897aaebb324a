"""gluon.loss against values recorded from MXNet 1.9.1, eager and hybridized
(fixtures/training/losses.json, written by tools/record_loss_cases.py)."""
import json
from pathlib import Path

import numpy as np
import pytest

from runtime import nd
from runtime.gluon import loss as gloss

CASES = json.loads((Path(__file__).parent.parent / "fixtures" / "training" / "losses.json").read_text())


def _run(block, inputs):
    args = [None if v is None else nd.array(np.array(v, dtype=np.float32)) for v in inputs.values()]
    return block(*args).asnumpy()


def _check(block, inputs, expected):
    if isinstance(expected, dict):
        with pytest.raises(Exception) as caught:
            _run(block, inputs)
        assert type(caught.value).__name__ == expected["error"]
    else:
        np.testing.assert_allclose(_run(block, inputs), np.array(expected, dtype=np.float32), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("case", CASES, ids=lambda c: "%s-%s" % (c["loss"], sorted(c["kwargs"])))
def test_eager_matches_mxnet(case):
    _check(getattr(gloss, case["loss"])(**case["kwargs"]), case["inputs"], case["eager"])


@pytest.mark.parametrize("case", CASES, ids=lambda c: "%s-%s" % (c["loss"], sorted(c["kwargs"])))
def test_hybridized_matches_mxnet(case):
    block = getattr(gloss, case["loss"])(**case["kwargs"])
    block.hybridize()
    _check(block, case["inputs"], case["hybridized"])


def test_every_loss_of_mxnet_is_here():
    assert set(gloss.__all__) >= {c["loss"] for c in CASES}
    assert gloss.SoftmaxCELoss is gloss.SoftmaxCrossEntropyLoss and gloss.SigmoidBCELoss is \
        gloss.SigmoidBinaryCrossEntropyLoss


def test_constructor_rejections():
    with pytest.raises(ValueError, match="label_format can only be signed or binary"):
        gloss.LogisticLoss(label_format="hinge")
    with pytest.raises(AssertionError, match="Only 'NTC' and 'TNC'"):
        gloss.CTCLoss(layout="CTN")


def test_repr_names_batch_axis_and_weight():
    assert repr(gloss.L2Loss()) == "L2Loss(batch_axis=0, w=1.0)"


def test_ctc_operator_names_and_blank_conventions():
    data = nd.array(np.random.RandomState(0).randn(5, 2, 4))
    first = nd.ctc_loss(data, nd.array([[1, 2, 0], [3, 3, 1]]))
    last = nd.contrib.CTCLoss(data, nd.array([[0, 1, -1], [2, 2, 0]]), blank_label="last")
    assert first.shape == (2,) and last.shape == (2,)
    # the same alignment problem with the classes rotated so that the blank moves from 0 to C-1
    rotated = nd.array(np.roll(data.asnumpy(), -1, axis=2))
    np.testing.assert_allclose(nd.CTCLoss(rotated, nd.array([[0, 1, -1], [2, 2, 0]]), blank_label="last").asnumpy(),
                               nd.CTCLoss(data, nd.array([[1, 2, 0], [3, 3, 1]])).asnumpy(), rtol=1e-5)


def test_ctc_label_lengths_without_data_lengths():
    # MXNet 1.9.1's own case: uniform scores, the blank last, label lengths given and sequence lengths not
    loss = gloss.CTCLoss()
    value = loss(nd.ones((2, 20, 4)), nd.array([[2, 1, 2, 2], [3, 2, 2, 2]]), None, nd.array([2, 3]))
    np.testing.assert_allclose(value.asnumpy(), [18.82820702, 16.50581741], rtol=1e-5)
    value = loss(nd.ones((2, 25, 4)), nd.array([[2, 1, 3, 3], [3, 2, 2, 3]]), nd.array([20, 20]), nd.array([2, 3]))
    np.testing.assert_allclose(value.asnumpy(), [18.82820702, 16.50581741], rtol=1e-5)
