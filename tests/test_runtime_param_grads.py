"""Parameter gradients as Gluon exposes them: allocated beside the data, zeroed, switched by grad_req."""
import numpy as np
import pytest

from runtime import gluon, nd


def _dense():
    net = gluon.nn.Dense(3, in_units=2)
    net.initialize()
    return net


def test_grad_allocated_with_data_and_zero():
    net = _dense()
    weight = net.weight
    assert weight.grad().shape == (3, 2)
    assert not weight.grad().asnumpy().any()
    assert len(weight.list_grad()) == 1 and weight.list_grad()[0] is weight.grad()


def test_grad_of_deferred_parameter_follows_first_forward():
    net = gluon.nn.Dense(4)
    net.initialize()
    net(nd.ones((2, 5)))
    assert net.weight.grad().shape == (4, 5)


def test_zero_grad_on_parameter_and_dict():
    net = _dense()
    net.weight.grad()[:] = 3
    net.bias.grad()[:] = 2
    net.weight.zero_grad()
    assert not net.weight.grad().asnumpy().any()
    assert net.bias.grad().asnumpy().all()
    net.collect_params().zero_grad()
    assert not net.bias.grad().asnumpy().any()


def test_grad_req_null_drops_the_gradient_and_write_brings_it_back():
    net = _dense()
    net.weight.grad_req = "null"
    with pytest.raises(RuntimeError, match="grad_req='null'"):
        net.weight.grad()
    net.weight.grad_req = "add"
    assert net.weight.grad().shape == (3, 2)
    assert net.weight.grad_req == "add"


def test_grad_req_rejects_unknown_values():
    with pytest.raises(AssertionError):
        _dense().weight.grad_req = "sometimes"


def test_setattr_sets_grad_req_on_every_parameter():
    net = _dense()
    net.collect_params().setattr("grad_req", "null")
    assert all(p.grad_req == "null" for p in net.collect_params().values())
    net.collect_params().setattr("grad_req", "write")
    assert net.bias.grad().shape == (3,)


def test_non_differentiable_parameter_stays_null():
    param = gluon.Parameter("w", shape=(2,), differentiable=False)
    param.initialize()
    param.grad_req = "write"
    assert param.grad_req == "null"


def test_uninitialized_parameter_grad_raises_mxnet_error():
    param = gluon.Parameter("w", shape=(2,))
    with pytest.raises(Exception, match="has not been initialized"):
        param.grad()


def test_gradient_is_attached_to_the_data_array():
    net = _dense()
    assert net.weight.data().grad is net.weight.grad()


def test_cast_keeps_a_gradient_of_the_new_dtype():
    net = _dense()
    net.cast("float64")
    assert net.weight.grad().dtype == np.float64
