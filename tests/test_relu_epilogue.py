"""Layers with activation='relu' run node by node (a hybridized block under autograd.record(), an
executor bound for gradients) with the ReLU applied by the layer's kernel: the same outputs and
gradients as the operators one after another, and nothing fused where the layer's output is read
elsewhere or a monitor watches each operator."""
import numpy as np

from runtime import autograd, nd, sym
from runtime.gluon import nn


def _lenet_like(hybridize, source=None):
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Conv2D(4, kernel_size=3, activation="relu"), nn.MaxPool2D(pool_size=2), nn.Flatten(),
                nn.Dense(6, activation="relu"), nn.Dense(3))
    net.initialize()
    net(nd.zeros((3, 2, 8, 8)))
    if source is not None:
        for mine, theirs in zip(net.collect_params().values(), source.collect_params().values()):
            mine.set_data(theirs.data().copy())
    if hybridize:
        net.hybridize()
    return net


def _step(net, data):
    x = nd.array(data)
    x.attach_grad()
    with autograd.record():
        out = net(x)
        loss = (out * out).sum()
    loss.backward()
    grads = [p.grad().asnumpy() for p in net.collect_params().values()]
    return out.asnumpy(), x.grad.asnumpy(), grads


def test_hybridized_layers_with_relu_match_eager_operators():
    rng = np.random.RandomState(4)
    data = rng.normal(size=(3, 2, 8, 8)).astype(np.float32)
    data[0, 0, :3, :3] = 0.0  # outputs exactly 0 where the ReLU's gradient is 0
    eager = _lenet_like(False)
    hybrid = _lenet_like(True, eager)
    expected, got = _step(eager, data), _step(hybrid, data)
    np.testing.assert_allclose(got[0], expected[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[1], expected[1], rtol=1e-4, atol=1e-5)
    for mine, theirs in zip(got[2], expected[2]):
        np.testing.assert_allclose(mine, theirs, rtol=1e-4, atol=1e-5)
    executor = next(iter(hybrid._cached.values())).executor
    # both layers' ReLUs were applied by their kernels
    assert sum(isinstance(v, dict) for v in executor._relu_epilogues().values()) == 2


def _bound(symbol, shapes, rng):
    args = {name: nd.array(rng.normal(size=shape).astype(np.float32)) for name, shape in shapes.items()}
    grads = {name: nd.zeros(shape) for name, shape in shapes.items()}
    return symbol.bind(None, args, args_grad=grads), args, grads


def test_a_layer_output_read_twice_keeps_its_own_values():
    data = sym.var("data")
    conv = sym.Convolution(data, kernel=(3, 3), num_filter=2, no_bias=True, name="conv")
    out = sym.Activation(conv, act_type="relu") + conv  # the pre-activation is read too
    rng = np.random.RandomState(5)
    exe, args, grads = _bound(out, {"data": (2, 1, 5, 5), "conv_weight": (2, 1, 3, 3)}, rng)
    assert not exe._relu_epilogues()
    result = exe.forward(is_train=True)[0].asnumpy()
    exe.backward(nd.ones(result.shape))
    x, w = args["data"].asnumpy().astype(np.float64), args["conv_weight"].asnumpy().astype(np.float64)
    pre = np.zeros((2, 2, 3, 3))
    for i in range(3):
        for j in range(3):
            pre += np.einsum("nhw,f->nfhw", x[:, 0, i:i + 3, j:j + 3], w[:, 0, i, j])
    np.testing.assert_allclose(result, np.maximum(pre, 0) + pre, rtol=1e-5, atol=1e-5)
    # d/dpre = 1 + (pre > 0), spread back over the taps
    head = 1.0 + (pre > 0)
    expected = np.zeros((2, 1, 3, 3))
    for i in range(3):
        for j in range(3):
            expected[:, 0, i, j] = np.einsum("nfhw,nhw->f", head, x[:, 0, i:i + 3, j:j + 3])
    np.testing.assert_allclose(grads["conv_weight"].asnumpy(), expected, rtol=1e-4, atol=1e-4)


def test_a_monitor_sees_the_layer_output_before_its_relu():
    data = sym.var("data")
    fc = sym.FullyConnected(data, num_hidden=4, name="fc")
    out = sym.Activation(fc, act_type="relu", name="act")
    rng = np.random.RandomState(6)
    exe, _, _ = _bound(out, {"data": (5, 3), "fc_weight": (4, 3), "fc_bias": (4,)}, rng)
    assert len(exe._relu_epilogues()) == 2
    captured = {}
    exe.set_monitor_callback(lambda name, handle: None)
    # each operator's own output, as the monitor is given it
    exe._monitor_outputs = lambda node, results: captured.__setitem__(node.name, results[0].copy())
    exe.forward(is_train=True)
    assert (captured["fc"] < 0).any()  # the pre-activation, as MXNet's monitor reports it
    np.testing.assert_array_equal(captured["act"], np.maximum(captured["fc"], 0))


def test_relu_gradient_kernel_is_the_product_with_the_mask():
    from runtime.kernels.elementwise import relu_grad
    x = np.array([[-1.0, 0.0, -0.0, 2.0, np.nan, np.inf, -np.inf, 3.0]], np.float32)
    g = np.array([[np.nan, np.inf, -2.0, -3.0, 5.0, 1.0, np.nan, -0.0]], np.float32)
    with np.errstate(invalid="ignore"):
        expected = g * (x > 0)
        for a, b in ((x, g), (x.astype(np.float64), g.astype(np.float64)), (x[:, ::2], g[:, ::2]),
                     (x, g.astype(np.float64))):
            got = relu_grad(a, b)
            assert got.dtype == a.dtype and got.shape == a.shape
            want = (b * (a > 0)).astype(a.dtype)
            np.testing.assert_array_equal(got, want)
            np.testing.assert_array_equal(np.signbit(got), np.signbit(want))  # -0.0 where g < 0 is masked
    assert np.isnan(expected[0, 0]) and np.isnan(expected[0, 1])  # NaN and inf head gradients masked give NaN
