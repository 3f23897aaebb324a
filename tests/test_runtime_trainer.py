"""gluon.Trainer against steps recorded from MXNet 1.9.1 (fixtures/training/trainer.json and
sgd_momentum.states, written by tools/record_trainer_cases.py). Gradients are set by hand and marked
fresh, as backward marks them."""
import json
from pathlib import Path

import numpy as np
import pytest

from runtime import gluon, nd, optimizer
from runtime.gluon.trainer import Trainer

FIXTURES = Path(__file__).parent.parent / "fixtures" / "training"
RECORDED = json.loads((FIXTURES / "trainer.json").read_text())


def _net(start):
    net = gluon.nn.Dense(3, in_units=4, prefix="fc_")
    net.initialize()
    net.weight.set_data(nd.array(start[0]))
    net.bias.set_data(nd.array(start[1]))
    return net


def _set_grads(net, step, fresh=(True, True)):
    for param, grad, is_fresh in zip((net.weight, net.bias), step, fresh):
        param.grad()[:] = nd.array(grad)
        param.data()._fresh_grad = is_fresh


def _check(net, expected):
    np.testing.assert_allclose(net.weight.data().asnumpy(), np.array(expected[0], np.float32), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(net.bias.data().asnumpy(), np.array(expected[1], np.float32), rtol=1e-5, atol=1e-6)


def test_sgd_momentum_steps_match_mxnet():
    case = RECORDED["sgd"]
    net = _net(case["start"])
    trainer = Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.01})
    for step, expected in zip(case["grads"], case["after"]):
        _set_grads(net, step)
        trainer.step(2)
        _check(net, expected)
        assert not net.weight.data()._fresh_grad


def test_states_file_written_by_mxnet_resumes_training(tmp_path):
    case = RECORDED["sgd"]
    net = _net(case["after"][2])
    trainer = Trainer(net.collect_params(), "sgd", {"learning_rate": 0.5})
    trainer.load_states(str(FIXTURES / "sgd_momentum.states"))
    assert trainer.optimizer.momentum == 0.9 and trainer.learning_rate == 0.1
    assert trainer.optimizer.param_dict[0] is net.bias  # sorted by name: fc_bias, fc_weight
    _set_grads(net, case["grads"][3])
    trainer.step(2)
    _check(net, case["after"][3])


def test_states_round_trip_through_save_states(tmp_path):
    case = RECORDED["sgd"]
    net = _net(case["start"])
    trainer = Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.01})
    for step in case["grads"][:3]:
        _set_grads(net, step)
        trainer.step(2)
    path = tmp_path / "run.states"
    trainer.save_states(str(path))
    resumed = Trainer(net.collect_params(), "sgd")
    resumed.load_states(str(path))
    _set_grads(net, case["grads"][3])
    resumed.step(2)
    _check(net, case["after"][3])


def test_adam_multipliers_stale_skip_set_learning_rate_and_update_match_mxnet():
    case = RECORDED["adam"]
    net = _net(case["start"])
    net.weight.lr_mult = 0.5
    net.bias.wd_mult = 0.0
    trainer = Trainer(net.collect_params(), "adam", {"learning_rate": 0.01, "wd": 0.1, "clip_gradient": 0.4})
    for k, (step, fresh, lr, expected) in enumerate(zip(case["grads"], case["fresh"], case["lrs"], case["after"])):
        _set_grads(net, step, fresh)
        if k == 2:
            trainer.set_learning_rate(0.05)
        if k == 3:
            trainer.allreduce_grads()
            trainer.update(4)
        else:
            trainer.step(3, ignore_stale_grad=True)
        assert trainer.learning_rate == lr
        _check(net, expected)


def test_stale_gradient_raises_mxnet_warning_and_updates_nothing():
    case = RECORDED["stale"]
    net = _net(case["after"])
    trainer = Trainer(net.collect_params(), "sgd")
    net.weight.grad()[:] = 1
    net.weight.data()._fresh_grad = True
    with pytest.raises(UserWarning) as caught:
        trainer.step(1)
    assert str(caught.value) == case["message"]
    _check(net, case["after"])


def test_bad_params_argument():
    with pytest.raises(ValueError, match="First argument must be a list or dict of Parameters"):
        Trainer(3, "sgd")
    with pytest.raises(ValueError, match="got list of"):
        Trainer([1], "sgd")


def test_optimizer_instance_and_params_conflict():
    net = _net(RECORDED["sgd"]["start"])
    sgd = optimizer.SGD(learning_rate=0.2)
    trainer = Trainer(net.collect_params(), sgd)
    assert trainer.optimizer is sgd and trainer.learning_rate == 0.2
    with pytest.raises(AssertionError, match="optimizer_params must be None"):
        Trainer(net.collect_params(), sgd, {"learning_rate": 0.1})


def test_deferred_parameters_are_accepted_before_the_first_forward():
    net = gluon.nn.Dense(2)
    net.initialize()
    trainer = Trainer(net.collect_params(), "sgd", {"learning_rate": 1.0})
    net(nd.ones((1, 3)))
    for param in net.collect_params().values():
        param.grad()[:] = 1
        param.data()._fresh_grad = True
    before = net.bias.data().asnumpy()
    trainer.step(1)
    np.testing.assert_allclose(net.bias.data().asnumpy(), before - 1)


def test_null_grad_req_parameters_are_skipped():
    net = _net(RECORDED["sgd"]["start"])
    net.bias.grad_req = "null"
    trainer = Trainer(net.collect_params(), "sgd", {"learning_rate": 1.0})
    net.weight.grad()[:] = 1
    net.weight.data()._fresh_grad = True
    trainer.step(1)
    np.testing.assert_allclose(net.bias.data().asnumpy(), np.array(RECORDED["sgd"]["start"][1], np.float32))


def test_update_on_kvstore_fails_at_the_first_step_as_in_mxnet():
    net = _net(RECORDED["sgd"]["start"])
    trainer = Trainer(net.collect_params(), "sgd", update_on_kvstore=True)
    with pytest.raises(AttributeError, match="is_capable"):
        trainer.step(1, ignore_stale_grad=True)
    assert Trainer(net.collect_params(), "sgd", kvstore=None)._kvstore is None
