"""Symbolic backward: Executor.backward, grad_arrays/grad_dict, bind(args_grad, grad_req), simple_bind."""
import ctypes

import numpy as np
import pytest

import runtime
from runtime import nd, sym
from runtime.base import MXNetError


def mlp_loss():
    x, w = sym.var("x"), sym.var("w")
    return sym.make_loss(sym.sum(sym.square(sym.FullyConnected(x, w, num_hidden=3, no_bias=True))))


def test_simple_bind_allocates_outputs_and_gradients():
    exe = mlp_loss().simple_bind(runtime.cpu(), x=(2, 4))
    assert [o.shape for o in exe.outputs] == [(1,)]
    assert sorted(exe.grad_dict) == ["w", "x"]
    assert [g.shape for g in exe.grad_arrays] == [(2, 4), (3, 4)]
    first = exe.outputs[0]
    x = np.arange(8, dtype=np.float32).reshape(2, 4) / 8
    w = np.full((3, 4), 0.1, np.float32)
    exe.arg_dict["x"][:] = x
    exe.arg_dict["w"][:] = w
    exe.forward(is_train=True)
    assert exe.outputs[0] is first  # the same array, refilled
    exe.backward()
    y = x @ w.T
    np.testing.assert_allclose(first.asnumpy(), [np.sum(y * y)], rtol=1e-6)
    np.testing.assert_allclose(exe.grad_dict["w"].asnumpy(), 2 * y.T @ x, rtol=1e-6)
    np.testing.assert_allclose(exe.grad_dict["x"].asnumpy(), 2 * y @ w, rtol=1e-6)


def test_bind_with_args_grad_and_requests():
    a, b = sym.var("a"), sym.var("b")
    out = a * b
    av, bv = nd.array([1.0, 2.0]), nd.array([3.0, 4.0])
    ga, gb = nd.zeros((2,)), nd.ones((2,))
    exe = out.bind(runtime.cpu(), {"a": av, "b": bv}, args_grad={"a": ga, "b": gb}, grad_req={"a": "write", "b": "add"})
    exe.forward(is_train=True)
    exe.backward(nd.array([1.0, 10.0]))
    np.testing.assert_allclose(ga.asnumpy(), [3.0, 40.0])
    np.testing.assert_allclose(gb.asnumpy(), [2.0, 21.0])  # 1 + head * a
    exe.backward([nd.array([1.0, 1.0])])
    np.testing.assert_allclose(ga.asnumpy(), [3.0, 4.0])
    np.testing.assert_allclose(gb.asnumpy(), [3.0, 23.0])


def test_grad_req_null_leaves_no_gradient():
    a, b = sym.var("a"), sym.var("b")
    exe = (a + b).simple_bind(runtime.cpu(), grad_req={"a": "write", "b": "null"}, a=(2,), b=(2,))
    assert exe.grad_arrays[1] is None and "b" not in exe.grad_dict
    exe.forward(is_train=True)
    exe.backward(nd.ones((2,)))
    np.testing.assert_allclose(exe.grad_dict["a"].asnumpy(), [1.0, 1.0])


def test_softmax_output_ignores_the_head_gradient():
    data, label = sym.var("data"), sym.var("label")
    out = sym.SoftmaxOutput(data, label)
    exe = out.simple_bind(runtime.cpu(), grad_req={"data": "write"}, data=(2, 3), label=(2,))
    values = np.array([[1.0, 2.0, 3.0], [0.5, 0.5, -1.0]], np.float32)
    exe.arg_dict["data"][:] = values
    exe.arg_dict["label"][:] = np.array([2, 0], np.float32)
    exe.forward(is_train=True)
    exe.backward()
    p = np.exp(values - values.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    p[[0, 1], [2, 0]] -= 1
    np.testing.assert_allclose(exe.grad_dict["data"].asnumpy(), p, rtol=1e-5, atol=1e-6)


def test_batchnorm_graph_gradient_matches_autograd():
    from runtime import autograd
    rng = np.random.RandomState(0)
    x = rng.normal(size=(4, 3, 2, 2)).astype(np.float32)
    gamma, beta = rng.uniform(0.5, 1.5, 3).astype(np.float32), rng.normal(size=3).astype(np.float32)
    args = [nd.array(x), nd.array(gamma), nd.array(beta)]
    for a in args:
        a.attach_grad()
    mean, var = nd.zeros((3,)), nd.ones((3,))
    with autograd.record():
        y = nd.BatchNorm(*args, mean, var, fix_gamma=False)
        loss = (y * y).sum()
    loss.backward()
    d, g, b = sym.var("d"), sym.var("g"), sym.var("b")
    net = sym.sum(sym.square(sym.BatchNorm(d, g, b, fix_gamma=False, name="bn")))
    exe = net.simple_bind(runtime.cpu(), d=x.shape)
    exe.arg_dict["d"][:] = x
    exe.arg_dict["g"][:] = gamma
    exe.arg_dict["b"][:] = beta
    exe.aux_dict["bn_moving_var"][:] = 1
    exe.forward(is_train=True)
    exe.backward()
    for name, array in zip("dgb", args):
        np.testing.assert_allclose(exe.grad_dict[name].asnumpy(), array.grad.asnumpy(), rtol=1e-4, atol=1e-5)


def test_backward_without_gradients_bound_writes_nothing_as_in_mxnet():
    # MXNet 1.9.1: bind without args_grad, forward, backward: no error, no gradient arrays
    exe = (sym.var("a") * 2).bind(runtime.cpu(), {"a": nd.ones((2,))})
    exe.forward()
    exe.backward()
    assert exe.grad_arrays == [None]


def test_symbol_gradient_is_not_implemented_as_in_mxnet():
    with pytest.raises(MXNetError, match="not implemented"):
        (sym.var("x") * 2).gradient(["x"])


def test_a_monitor_sees_each_operators_outputs_and_with_monitor_all_its_inputs():
    """The names MXNet 1.9.1's monitor gives (its test_op_output_names_monitor / all_names)."""
    import runtime
    with runtime.as_mxnet() as mx:
        data = mx.sym.Variable("data", shape=(2, 3, 4, 4))
        for symbol, outputs, everything in (
                (mx.sym.Convolution(data, kernel=(2, 2), num_filter=1, name="conv"), ["conv_output"],
                 ["data", "conv_data", "conv_weight", "conv_weight", "conv_bias", "conv_bias", "conv_output"]),
                (mx.sym.concat(data, data, dim=0, name="concat"), ["concat_output"],
                 ["data", "concat_arg0", "data", "concat_arg1", "concat_output"])):
            for monitor_all, expected in ((False, outputs), (True, everything)):
                seen = []
                executor = symbol.simple_bind(mx.cpu(), grad_req="null")
                # as MXNet's, the callback gets the name as bytes and the array as a handle
                executor.set_monitor_callback(lambda name, handle: seen.append((name.decode(), mx.nd.NDArray(
                    ctypes.cast(handle, mx.base.NDArrayHandle), writable=False).shape)), monitor_all)
                executor.forward()
                assert [name for name, _ in seen] == expected
        assert seen[-1][1] == (4, 3, 4, 4)
