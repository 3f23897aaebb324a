"""A hybridized block under autograd.record(): one tape node whose backward is the graph's."""
import numpy as np

from runtime import autograd, nd
from runtime.gluon import nn


def build(hybridize, source=None):
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Conv2D(4, kernel_size=3, padding=1), nn.BatchNorm(), nn.Activation("relu"),
                nn.MaxPool2D(pool_size=2), nn.Flatten(), nn.Dense(8, activation="tanh"), nn.Dense(3))
    net.initialize()
    net(nd.zeros((2, 2, 6, 6)))
    if source is not None:  # the same parameters as the other network
        for mine, theirs in zip(net.collect_params().values(), source.collect_params().values()):
            mine.set_data(theirs.data().copy())
    if hybridize:
        net.hybridize()
    for param in net.collect_params().values():
        param.data().attach_grad()
    return net


def gradients(net, x):
    x.attach_grad()
    with autograd.record():
        loss = (net(x) ** 2).sum()
    loss.backward()
    params = net.collect_params()
    grads = {name.split("_", 1)[1]: p.data().grad.asnumpy() for name, p in params.items()
             if p.data().grad is not None}
    stats = {name.split("_", 1)[1]: p.data().asnumpy() for name, p in params.items() if "running" in name}
    return loss.asnumpy(), x.grad.asnumpy(), grads, stats


def test_hybridized_gradients_match_eager():
    data = np.random.RandomState(1).normal(size=(2, 2, 6, 6)).astype(np.float32)
    first = build(False)
    second = build(True, first)
    eager = gradients(first, nd.array(data))
    hybrid = gradients(second, nd.array(data))
    np.testing.assert_allclose(hybrid[0], eager[0], rtol=1e-5)
    np.testing.assert_allclose(hybrid[1], eager[1], rtol=1e-4, atol=1e-6)
    assert sorted(hybrid[2]) == sorted(eager[2])
    for name in eager[2]:
        np.testing.assert_allclose(hybrid[2][name], eager[2][name], rtol=1e-4, atol=1e-5, err_msg=name)
    # running statistics moved once, the same way, in training mode
    for name in eager[3]:
        np.testing.assert_allclose(hybrid[3][name], eager[3][name], rtol=1e-5, atol=1e-7, err_msg=name)
    assert not np.allclose(hybrid[3]["batchnorm0_running_mean"], 0)


def test_hybridized_dropout_gradient_is_its_mask():
    net = nn.HybridSequential()
    net.add(nn.Dropout(0.5))
    net.initialize()
    net.hybridize()
    x = nd.ones((8, 8))
    x.attach_grad()
    with autograd.record():
        y = net(x)
    y.backward()
    assert set(np.unique(y.asnumpy())) == {0.0, 2.0}
    np.testing.assert_array_equal(x.grad.asnumpy(), y.asnumpy())
    with autograd.record(train_mode=False):
        y = net(x)
    y.backward()
    np.testing.assert_array_equal(y.asnumpy(), x.asnumpy())
    np.testing.assert_array_equal(x.grad.asnumpy(), np.ones((8, 8)))


def test_hybridized_block_outside_record_is_not_on_the_tape():
    net = build(True)
    out = net(nd.ones((2, 2, 6, 6)))
    assert out._entry is None


def test_a_hybridized_block_differentiates_only_towards_what_needs_gradients(monkeypatch):
    """The input of a training step needs no gradient: its convolution's data gradient (the
    costliest part of a first layer's backward) is not computed."""
    import runtime.executor
    from runtime import autograd as ag, nd
    from runtime.gluon import nn
    asked = []
    differentiate = runtime.executor.graph_gradients

    def spy(order, heads, values, out_grads, is_train, wanted=None, schedules=None):
        asked.append(set(wanted))
        return differentiate(order, heads, values, out_grads, is_train, wanted, schedules)
    monkeypatch.setattr(runtime.executor, "graph_gradients", spy)
    net = nn.HybridSequential()
    net.add(nn.Conv2D(2, 3), nn.Dense(1))
    net.initialize()
    net.hybridize()
    x = nd.ones((1, 1, 5, 5))
    with ag.record():
        y = net(x)
    y.backward()
    assert asked and "data" not in asked[0] and net[0].weight.name in asked[0]


def test_backward_work_kept_per_set_of_wanted_variables():
    """What a block's graph works out once for its backward depends on which inputs want
    gradients: calls with and without the input's gradient, in turn, each get theirs."""
    data = np.random.RandomState(3).normal(size=(2, 2, 6, 6)).astype(np.float32)
    eager = build(False)
    hybrid = build(True, eager)
    _, expected_dx, expected, _ = gradients(eager, nd.array(data))
    for _ in range(2):
        _, dx, grads, _ = gradients(hybrid, nd.array(data))
        np.testing.assert_allclose(dx, expected_dx, rtol=1e-4, atol=1e-5)
        x = nd.array(data)  # no gradient wanted for the input this time
        with autograd.record():
            loss = (hybrid(x) ** 2).sum()
        loss.backward()
        assert x.grad is None
        for name, param in hybrid.collect_params().items():
            np.testing.assert_allclose(param.data().grad.asnumpy(), expected[name.split("_", 1)[1]],
                                       rtol=1e-4, atol=1e-5)
