"""Optimizers and learning-rate schedules against updates recorded from MXNet 1.9.1
(fixtures/training/optimizers.json, written by tools/record_optimizer_cases.py)."""
import json
import pickle
from pathlib import Path

import numpy as np
import pytest

from runtime import lr_scheduler, optimizer
from runtime.ndarray import NDArray
from runtime.pickling import dumps, loads

RECORDED = json.loads((Path(__file__).parent.parent / "fixtures" / "training" / "optimizers.json").read_text())


def _nd(values):
    return NDArray(np.array(values, dtype=np.float32))


def _flat_states(state):
    if state is None:
        return [None]
    if isinstance(state, NDArray):
        return [state.asnumpy()]
    return [x for s in state for x in _flat_states(s)]


def _replay(case):
    kwargs = dict(case["kwargs"])
    if "lr_scheduler" in kwargs:
        cls, args = kwargs["lr_scheduler"]
        kwargs["lr_scheduler"] = getattr(lr_scheduler, cls)(**args)
    opt = optimizer.create(case["name"], param_idx2name={0: "fc_weight", 1: "fc_bias"}, **kwargs)
    updater = optimizer.get_updater(opt)
    weights = [_nd(w) for w in case["weights"]]
    return opt, updater, weights


@pytest.mark.parametrize("case", RECORDED["optimizers"], ids=lambda c: "%s-%s" % (c["name"], sorted(c["kwargs"])))
def test_updates_match_mxnet(case):
    opt, updater, weights = _replay(case)
    for step, expected in zip(case["grads"], case["after"]):
        for i, (w, g) in enumerate(zip(weights, step)):
            updater(i, _nd(g), w)
        for w, want in zip(weights, expected):
            np.testing.assert_allclose(w.asnumpy(), np.array(want, dtype=np.float32), rtol=1e-5, atol=1e-6)
    for i, want in enumerate(case["states"]):
        for got, expected in zip(_flat_states(updater.states[i]), want):
            if expected is None:
                assert got is None
            else:
                np.testing.assert_allclose(got, np.array(expected, dtype=np.float32), rtol=1e-5, atol=1e-6)
    assert opt.num_update == case["num_update"]


@pytest.mark.parametrize("case", RECORDED["schedules"], ids=lambda c: c["class"])
def test_schedules_match_mxnet(case):
    kwargs = dict(case["kwargs"])
    sched = getattr(lr_scheduler, case["class"])(**kwargs)
    np.testing.assert_allclose([sched(t) for t in range(len(case["lrs"]))], case["lrs"], rtol=1e-12)


def test_create_and_register():
    assert isinstance(optimizer.create("SGD", momentum=0.9), optimizer.SGD)
    with pytest.raises(ValueError, match="Cannot find optimizer nothing"):
        optimizer.create("nothing")

    @optimizer.register
    class HalfStep(optimizer.Optimizer):
        def update(self, index, weight, grad, state):
            weight._data -= 0.5 * grad._data

    opt = optimizer.Optimizer.create_optimizer("halfstep")
    w = _nd([1.0, 2.0])
    optimizer.get_updater(opt)(0, _nd([2.0, 2.0]), w)
    np.testing.assert_allclose(w.asnumpy(), [0.0, 1.0])


def test_learning_rate_and_scheduler_conflict():
    opt = optimizer.SGD(learning_rate=0.3)
    assert opt.learning_rate == 0.3
    opt.set_learning_rate(0.1)
    assert opt.learning_rate == 0.1
    scheduled = optimizer.SGD(lr_scheduler=lr_scheduler.FactorScheduler(step=1, factor=0.5, base_lr=0.2))
    with pytest.raises(UserWarning, match="LRScheduler of the optimizer has already been defined"):
        scheduled.set_learning_rate(0.1)


def test_wd_mult_zero_for_names_that_are_not_weights():
    opt = optimizer.SGD(wd=0.1, param_idx2name={0: "a_weight", 1: "a_bias", 2: "bn_gamma"})
    assert opt._get_wds([0, 1, 2]) == [0.1, 0.0, 0.1]


def test_scheduler_validation():
    with pytest.raises(ValueError, match="Base lr has to be higher than warmup_begin_lr"):
        lr_scheduler.FactorScheduler(step=2, base_lr=0.1, warmup_begin_lr=0.5)
    with pytest.raises(ValueError, match="increasing integer list"):
        lr_scheduler.MultiFactorScheduler(step=[3, 2])
    with pytest.raises(ValueError, match="Supports only linear and constant"):
        lr_scheduler.PolyScheduler(max_update=3, warmup_mode="cubic")


def test_states_pickle_names_mxnet_classes_and_round_trips():
    opt, updater, weights = _replay(RECORDED["optimizers"][1])
    updater(0, _nd(np.ones((3, 4))), weights[0])
    blob = updater.get_states(dump_optimizer=True)
    assert b"mxnet.optimizer.optimizer" in blob and b"mxnet.ndarray.ndarray" in blob
    fresh = optimizer.get_updater(optimizer.SGD())
    fresh.set_states(blob)
    assert isinstance(fresh.optimizer, optimizer.SGD) and fresh.optimizer.momentum == 0.9
    np.testing.assert_allclose(fresh.states[0].asnumpy(), updater.states[0].asnumpy())
    assert fresh.states_synced == {0: False}


def test_pickled_optimizer_drops_param_dict():
    opt = optimizer.SGD(param_dict={0: object()})
    assert loads(dumps(opt)).param_dict == {}
    assert "param_dict" not in opt.__getstate__()
    assert pickle.loads(pickle.dumps(opt)).param_dict == {}


@pytest.mark.parametrize("name", ["sgd", "nag", "adam"])
def test_multi_precision_updates_a_float32_master(name):
    opt = optimizer.create(name, learning_rate=0.1, momentum=0.9, multi_precision=True) if name != "adam" else \
        optimizer.create(name, learning_rate=0.1, multi_precision=True)
    weight = NDArray(np.array([0.5, -1.25, 2.0], dtype=np.float16))
    grad = NDArray(np.array([0.1, 0.2, -0.3], dtype=np.float16))
    state = opt.create_state_multi_precision(0, weight)
    master = state[1] if name in ("sgd", "nag") else state[0]
    assert master.dtype == np.float32
    reference = optimizer.create(name, learning_rate=0.1, **({"momentum": 0.9} if name != "adam" else {}))
    w32 = NDArray(weight.asnumpy().astype(np.float32))
    ref_state = reference.create_state(0, w32)
    for _ in range(3):
        opt.update_multi_precision(0, weight, grad, state)
        reference.update(0, w32, NDArray(grad.asnumpy().astype(np.float32)), ref_state)
    np.testing.assert_allclose(master.asnumpy(), w32.asnumpy(), rtol=1e-6)
    np.testing.assert_array_equal(weight.asnumpy(), w32.asnumpy().astype(np.float16))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("clip", [None, 0.5])
def test_fused_sgd_momentum_step_rounds_as_numpys_steps(dtype, clip):
    """SGD with momentum on dense arrays runs one fused pass: bit for bit the numpy steps it
    replaces (each scalar in the weight's type), NaN gradients included; other arrays (mixed
    types, strided) are left to those steps."""
    from runtime.kernels.optimizer import sgd_momentum_in_place
    rng = np.random.RandomState(0)
    weight = rng.normal(size=(7, 5)).astype(dtype)
    grad = (rng.normal(size=(7, 5)) * 3).astype(dtype)
    grad[0, 0] = np.nan
    mom = rng.normal(size=(7, 5)).astype(dtype)
    lr, momentum, wd, rescale = 0.01, 0.9, 1e-3, 1 / 64
    w_np, m_np = weight.copy(), mom.copy()
    g = grad * rescale
    if clip is not None:
        g = np.clip(g, -clip, clip)
    step = lr * g.astype(dtype, copy=False)
    m_np *= momentum
    m_np -= lr * wd * w_np
    m_np -= step
    w_np += m_np
    assert sgd_momentum_in_place(weight, grad, mom, lr, momentum, wd, rescale, clip)
    np.testing.assert_array_equal(weight, w_np)
    np.testing.assert_array_equal(mom, m_np)
    assert not sgd_momentum_in_place(weight, grad.astype(np.float16), mom, lr, momentum, wd, rescale, clip)
    assert not sgd_momentum_in_place(weight[:, ::2], grad[:, ::2], mom[:, ::2], lr, momentum, wd, rescale, clip)
    np.testing.assert_array_equal(weight, w_np)  # unchanged by the refused calls


def test_sgd_with_momentum_through_the_optimizer_matches_its_definition():
    opt = optimizer.create("sgd", learning_rate=0.1, momentum=0.9, wd=0.01, rescale_grad=0.5, clip_gradient=0.3)
    rng = np.random.RandomState(1)
    weight = NDArray(rng.normal(size=(4, 3)).astype(np.float32))
    expected_w = weight.asnumpy().astype(np.float64)
    expected_m = np.zeros_like(expected_w)
    state = opt.create_state(0, weight)
    for _ in range(3):
        grad = rng.normal(size=(4, 3)).astype(np.float32)
        opt.update(0, weight, NDArray(grad), state)
        expected_m = 0.9 * expected_m - 0.1 * 0.01 * expected_w - 0.1 * np.clip(0.5 * grad, -0.3, 0.3)
        expected_w = expected_w + expected_m
    np.testing.assert_allclose(weight.asnumpy(), expected_w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(state.asnumpy(), expected_m, rtol=1e-5, atol=1e-6)
