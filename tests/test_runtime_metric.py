"""mx.metric and gluon.utils' splitting and clipping against values recorded from MXNet 1.9.1
(fixtures/training/metrics.json, written by tools/record_metric_cases.py)."""
import json
import math
from pathlib import Path

import numpy as np
import pytest

from runtime import metric, nd
from runtime.gluon import utils

RECORDED = json.loads((Path(__file__).parent.parent / "fixtures" / "training" / "metrics.json").read_text())


def _close(got, want):
    if isinstance(want, list):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _close(g, w)
    elif isinstance(want, str):
        assert got == want
    elif want is None or (isinstance(want, float) and math.isnan(want)):
        assert got is None or math.isnan(got)
    else:
        assert got == pytest.approx(want, rel=1e-5, abs=1e-7)


@pytest.mark.parametrize("case", RECORDED["metrics"], ids=lambda c: "%s-%s" % (c["metric"], sorted(c["kwargs"])))
def test_metric_matches_mxnet(case):
    m = metric.create(case["metric"], **case["kwargs"])
    for k, ((labels, preds), expected) in enumerate(zip(case["updates"], case["steps"])):
        if k == 2:
            m.reset_local()
        m.update([nd.array(np.array(a, np.float32)) for a in labels], [nd.array(np.array(a, np.float32)) for a in preds])
        _close(list(m.get()), expected["get"])
        _close(list(m.get_global()), expected["get_global"])


def test_split_data_puts_the_remainder_first():
    data = nd.arange(2 * 11 * 3).reshape((2, 11, 3))
    for count, shapes in RECORDED["utils"]["splits"].items():
        parts = utils.split_data(data, int(count), batch_axis=1, even_split=False)
        assert [list(p.shape) for p in parts] == shapes
        np.testing.assert_array_equal(np.concatenate([p.asnumpy() for p in parts], axis=1), data.asnumpy())
    with pytest.raises(ValueError, match="cannot be evenly split into 4 slices"):
        utils.split_data(data, 4, batch_axis=1)


def test_split_and_load_takes_numpy_and_one_context():
    import runtime
    parts = utils.split_and_load(np.ones((5, 2)), [runtime.cpu(0), runtime.cpu(1)], even_split=False)
    assert [p.shape for p in parts] == [(3, 2), (2, 2)] and parts[1].context == runtime.cpu(1)
    assert utils.split_and_load(nd.ones((3,)), [runtime.cpu()])[0].shape == (3,)


def test_clip_global_norm_matches_mxnet():
    # the arrays before clipping are the clipped ones scaled back by norm / max_norm
    recorded = RECORDED["utils"]
    clipped = [np.array(c, np.float32) for c in recorded["clipped"]]
    original = [c * np.float32(recorded["norm"] / 1.5) for c in clipped]
    arrays = [nd.array(o) for o in original]
    norm = utils.clip_global_norm(arrays, 1.5)
    assert norm == pytest.approx(recorded["norm"], rel=1e-5)
    for got, want in zip(arrays, clipped):
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-6)
    small = [nd.array(np.array(recorded["small"], np.float32))]
    total = utils.clip_global_norm(small, 1.0, check_isfinite=False)
    assert isinstance(total, nd.NDArray) and total.shape == (1,)
    np.testing.assert_allclose(small[0].asnumpy(), recorded["small"])  # below the bound: unchanged


def test_clip_global_norm_warns_on_nan():
    with pytest.warns(UserWarning, match="nan or inf is detected"):
        utils.clip_global_norm([nd.array([np.nan, 1.0])], 1.0)


def test_create_forms_and_errors():
    assert isinstance(metric.create("acc"), metric.Accuracy)
    assert isinstance(metric.create("Accuracy"), metric.Accuracy)
    acc = metric.Accuracy()
    assert metric.create(acc) is acc
    assert isinstance(metric.create(["acc", "ce"]), metric.CompositeEvalMetric)
    assert metric.create('["top_k_accuracy", {"top_k": 3}]').top_k == 3
    assert metric.create(metric.Accuracy().get_config()).axis == 1
    with pytest.raises(AssertionError, match="is not registered"):
        metric.create("no-such-metric")
    custom = metric.create(lambda label, pred: float((label == pred.argmax(1)).mean()))
    assert custom.name == "custom(<lambda>)"
    custom.update([nd.array([1, 0])], [nd.array([[0, 1], [0, 1]])])
    assert custom.get() == ("custom(<lambda>)", 0.5)


def test_nan_before_any_update_and_string_form():
    m = metric.MSE()
    name, value = m.get()
    assert name == "mse" and math.isnan(value)
    m.update([nd.array([1.0, 2.0])], [nd.array([1.0, 4.0])])
    assert str(m) == "EvalMetric: {'mse': 2.0}"


def test_label_count_mismatch():
    with pytest.raises(ValueError, match="Shape of labels 2 does not match shape of predictions 1"):
        metric.Accuracy().update([nd.array([1]), nd.array([0])], [nd.array([[0.2, 0.8]])])


def test_register_a_new_metric():
    @metric.register
    class Always(metric.EvalMetric):
        def __init__(self):
            super().__init__("always")

        def update(self, labels, preds):
            self._add(1.0, 1)

    assert isinstance(metric.create("always"), Always)
