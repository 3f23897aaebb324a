"""The autograd tape: recording, modes, variables, backward and grad, MXNet's errors."""
import numpy as np
import pytest

from runtime import autograd, nd
from runtime.base import MXNetError


def test_modes_nest_and_restore():
    assert not autograd.is_recording() and not autograd.is_training()
    with autograd.record():
        assert autograd.is_recording() and autograd.is_training()
        with autograd.predict_mode():
            assert autograd.is_recording() and not autograd.is_training()
        with autograd.pause():
            assert not autograd.is_recording() and not autograd.is_training()
    with autograd.record(train_mode=False):
        assert not autograd.is_training()
        with autograd.train_mode():
            assert autograd.is_training()
    assert autograd.set_recording(True) is False
    assert autograd.set_recording(False) is True
    assert autograd.set_training(True) is False
    assert autograd.set_training(False) is True


def test_chain_and_fan_out():
    x = nd.array([[1.0, 2.0], [3.0, 4.0]])
    x.attach_grad()
    with autograd.record():
        y = x * x + 2 * x - 1
        z = nd.exp(y).sum()
    z.backward()
    xs = x.asnumpy()
    np.testing.assert_allclose(x.grad.asnumpy(), np.exp(xs * xs + 2 * xs - 1) * (2 * xs + 2), rtol=1e-5)


def test_head_gradient_and_add_request():
    x = nd.ones((2, 3))
    x.attach_grad(grad_req="add")
    for _ in range(2):
        with autograd.record():
            y = x * 3
        y.backward(nd.full((2, 3), 2.0))
    np.testing.assert_array_equal(x.grad.asnumpy(), np.full((2, 3), 12.0))


def test_non_scalar_head_without_gradient_takes_ones():
    x = nd.ones((2, 3))
    x.attach_grad()
    with autograd.record():
        y = x * 2
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), np.full((2, 3), 2.0))


def test_mark_variables_and_fresh_grad():
    x, y = nd.ones((2, 2)), nd.ones((2, 2))
    dx, dy = nd.zeros_like(x), nd.zeros_like(y)
    autograd.mark_variables([x, y], [dx, dy])
    assert x._fresh_grad is False
    with autograd.record():
        out = (x + 2).detach() + y
    out.backward()
    assert (dx.asnumpy() == 0).all() and (dy.asnumpy() == 1).all()
    assert y._fresh_grad is True and x._fresh_grad is False


def test_out_grads_for_several_heads():
    x = nd.ones((3, 5))
    dx = nd.zeros_like(x)
    autograd.mark_variables([x], [dx])
    with autograd.record():
        a, b, c = nd.split(x, axis=0, num_outputs=3, squeeze_axis=True)
        autograd.backward([a, b, c], [None, nd.array([1, 2, 3, 4, 5]), nd.array([5, 4, 3, 2, 1])])
    np.testing.assert_array_equal(dx.asnumpy(), [[1] * 5, [1, 2, 3, 4, 5], [5, 4, 3, 2, 1]])


def test_backward_twice_needs_retain_graph():
    x = nd.ones((2, 2))
    x.attach_grad(grad_req="add")
    with autograd.record():
        y = x + 1
    y.backward(retain_graph=True)
    y.backward()
    assert (x.grad.asnumpy() == 2).all()
    with pytest.raises(MXNetError, match="retain_graph=True"):
        y.backward()


def test_backward_of_unrecorded_array_fails():
    x = nd.ones((2,))
    x.attach_grad()
    with pytest.raises(MXNetError, match="not in a computational graph"):
        (x * 2).backward()
    w = nd.ones((2,))
    with autograd.record():
        z = w * 2  # no variable among the inputs: nothing is recorded
    with pytest.raises(MXNetError, match="not in a computational graph"):
        z.backward()


def test_non_differentiable_operator():
    x = nd.array([[1.0, 3.0, 2.0]])
    x.attach_grad()
    with autograd.record():
        y = nd.argmax_channel(x)
    with pytest.raises(MXNetError, match="Operator argmax_channel is non-differentiable because it didn't register "
                                         "FGradient attribute."):
        y.backward()


def test_head_gradients_count_must_match():
    x = nd.ones((2,))
    x.attach_grad()
    with autograd.record():
        y = x * 2
    with pytest.raises(AssertionError, match="heads and head_grads must be lists of the same length"):
        autograd.backward([y], [nd.ones((2,)), nd.ones((2,))])


def test_head_gradient_of_another_shape_is_rejected():
    x = nd.ones((2,))
    x.attach_grad()
    with autograd.record():
        y = x * 2
    with pytest.raises(MXNetError):
        y.backward(nd.ones((3,)))


def test_grad_returns_without_touching_buffers():
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        h = x * x
        z = (h * 3).sum()
    dx, dh = autograd.grad(z, [x, h], retain_graph=True)
    np.testing.assert_allclose(dx.asnumpy(), [6.0, 12.0])
    np.testing.assert_allclose(dh.asnumpy(), [3.0, 3.0])
    assert (x.grad.asnumpy() == 0).all()


def test_stop_gradient_and_block_grad():
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        y = nd.stop_gradient(x * 2) * x + nd.BlockGrad(x)
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), [2.0, 4.0])


def test_grad_req_null_records_nothing():
    a = nd.ones((2,))
    a.attach_grad(grad_req="null")
    x = nd.ones((2,))
    x.attach_grad()
    with autograd.record():
        z = a * 2 + x
    z.backward()
    assert (x.grad.asnumpy() == 1).all()


def test_custom_function():
    class Divide(autograd.Function):
        def forward(self, x, y):
            self.save_for_backward(x, y)
            return x / y

        def backward(self, dz):
            x, y = self.saved_tensors
            return dz / y, -dz * x / (y * y)

    x, y = nd.array([1.0, 2.0]), nd.array([4.0, 8.0])
    x.attach_grad()
    y.attach_grad()
    with autograd.record():
        z = Divide()(x, y)
    z.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), [0.25, 0.125])
    np.testing.assert_allclose(y.grad.asnumpy(), [-1 / 16, -2 / 64])


def test_get_symbol_lists_the_variables():
    x, z = nd.ones((1,)), nd.ones((1,))
    x.attach_grad()
    z.attach_grad()
    with autograd.record():
        y = x * x + 2 * z - 1
    assert len(autograd.get_symbol(y).list_arguments()) == 2


def test_dropout_gradient_is_its_mask():
    x = nd.ones((10, 10))
    x.attach_grad()
    with autograd.record():
        y = nd.Dropout(x, p=0.5)
    y.backward()
    assert set(np.unique(y.asnumpy())) == {0.0, 2.0}
    np.testing.assert_array_equal(x.grad.asnumpy(), y.asnumpy())


# recorded with MXNet 1.9.1: x = arange(12).reshape(3, 4), y = x[key] * 2, y.backward()
INDEXED = [
    (slice(1, 3), [[0, 0, 0, 0], [2, 2, 2, 2], [2, 2, 2, 2]]),
    (1, [[0, 0, 0, 0], [2, 2, 2, 2], [0, 0, 0, 0]]),
    ((slice(None), 1), [[0, 2, 0, 0], [0, 2, 0, 0], [0, 2, 0, 0]]),
    ((1, 2), [[0, 0, 0, 0], [0, 0, 2, 0], [0, 0, 0, 0]]),
    ((slice(None), slice(1, 3)), [[0, 2, 2, 0], [0, 2, 2, 0], [0, 2, 2, 0]]),
    (nd.array([0, 2]), [[2, 2, 2, 2], [0, 0, 0, 0], [2, 2, 2, 2]]),
]


@pytest.mark.parametrize("key,expected", INDEXED)
def test_indexing_is_recorded(key, expected):
    x = nd.arange(12).reshape((3, 4))
    x.attach_grad()
    with autograd.record():
        y = x[key] * 2
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), expected)


def test_copy_astype_and_transpose_are_recorded():
    x = nd.arange(6).reshape((2, 3))
    x.attach_grad()
    with autograd.record():
        y = (x.copy() * 3).sum() + (x.astype("float64") * 1).astype("float32").sum() + (x.T * 2).sum()
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), np.full((2, 3), 6.0))


def test_in_place_assignment_in_a_recorded_graph_fails():
    x = nd.ones((2,))
    x.attach_grad()
    with autograd.record():
        y = x * 1
        with pytest.raises(MXNetError, match="Assigning to NDArrays that are already in a computational graph"):
            y += 2
        with pytest.raises(MXNetError, match="Assigning to NDArrays that are already in a computational graph"):
            y[0] = 5
    x += 1  # outside record(), a variable is updated in place as an optimizer does
    assert (x.asnumpy() == 2).all()


def test_grad_with_create_graph_differentiates_again():
    x = nd.array([0.5, 1.0])
    x.attach_grad()
    with autograd.record():
        z = nd.elemwise_add(nd.exp(x), x) + nd.sin(x) * x
    dx = autograd.grad(z, [x], create_graph=True)[0]
    xs = np.array([0.5, 1.0])
    np.testing.assert_allclose(dx.asnumpy(), np.exp(xs) + 1 + np.cos(xs) * xs + np.sin(xs), rtol=1e-6)
    dx.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), np.exp(xs) - np.sin(xs) * xs + 2 * np.cos(xs), rtol=1e-6)


def test_create_graph_through_an_operator_without_a_second_order_gradient_fails():
    x = nd.array([[0.5, 1.0]])
    x.attach_grad()
    with autograd.record():
        z = nd.softmax(x)
    with pytest.raises(MXNetError, match="create_graph=True"):
        autograd.grad(z, [x], create_graph=True)


def test_out_argument_keeps_the_result_on_the_tape():
    x = nd.array([1.0, -2.0, 3.0])
    x.attach_grad()
    target = nd.zeros((3,))
    with autograd.record():
        nd.relu(x, out=target)
        loss = (target * 2).sum()
    loss.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [2.0, 0.0, 2.0])


def test_an_index_computed_by_a_non_differentiable_operator_needs_no_gradient():
    # recorded with MXNet 1.9.1: pick's index takes no gradient, so argmax_channel is never differentiated
    x = nd.array([[1.0, 3.0, 2.0], [4.0, 0.0, 1.0]])
    x.attach_grad()
    with autograd.record():
        y = nd.pick(x, nd.argmax_channel(x), axis=1)
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [[0, 1, 0], [1, 0, 0]])
