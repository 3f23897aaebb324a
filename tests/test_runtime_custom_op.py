"""Operators written in Python (mxnet.operator.CustomOp / CustomOpProp) called through nd.Custom and
sym.Custom, as MXNet 1.9.1 runs them."""
import numpy as np
import pytest

import runtime
from runtime import autograd, nd, operator, sym
from runtime.base import MXNetError


class _Scale(operator.CustomOp):
    def __init__(self, factor):
        super().__init__()
        self.factor = factor

    def forward(self, is_train, req, in_data, out_data, aux):
        aux[0][:] = aux[0] + 1  # counts the forward passes: auxiliary states are written in place
        self.assign(out_data[0], req[0], in_data[0] * self.factor + in_data[1])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], out_grad[0] * self.factor)
        self.assign(in_grad[1], req[1], out_grad[0])


@operator.register("test_scale")
class _ScaleProp(operator.CustomOpProp):
    def __init__(self, factor="1"):
        super().__init__(need_top_grad=True)
        self.factor = float(factor)  # keyword arguments arrive as strings, as in MXNet

    def list_arguments(self):
        return ["data", "offset"]

    def list_auxiliary_states(self):
        return ["count"]

    def infer_shape(self, in_shape):
        return [in_shape[0], in_shape[0]], [in_shape[0]], [(1,)]

    def create_operator(self, ctx, shapes, dtypes):
        return _Scale(self.factor)


def test_eager_custom_runs_forward_and_backward():
    x, offset, count = nd.array([[1.0, 2.0]]), nd.array([[0.5, 0.5]]), nd.zeros((1,))
    x.attach_grad()
    offset.attach_grad()
    with autograd.record():
        y = nd.Custom(x, offset, count, op_type="test_scale", factor=3)
    y.backward(nd.array([[1.0, 10.0]]))
    assert y.asnumpy().tolist() == [[3.5, 6.5]]
    assert x.grad.asnumpy().tolist() == [[3.0, 30.0]] and offset.grad.asnumpy().tolist() == [[1.0, 10.0]]
    assert count.asnumpy().tolist() == [1.0]


def test_symbolic_custom_lists_its_arguments_and_runs_in_an_executor():
    y = sym.Custom(sym.Variable("x"), op_type="test_scale", factor=2, name="scale")
    assert y.list_arguments() == ["x", "scale_offset"] and y.list_auxiliary_states() == ["scale_count"]
    executor = y.simple_bind(runtime.cpu(), x=(2,))
    executor.arg_dict["x"][:] = nd.array([1.0, 2.0])
    executor.arg_dict["scale_offset"][:] = nd.array([0.0, 1.0])
    executor.forward(is_train=True)
    executor.backward(nd.ones((2,)))
    assert executor.outputs[0].asnumpy().tolist() == [2.0, 5.0]
    assert executor.grad_dict["x"].asnumpy().tolist() == [2.0, 2.0]


def test_an_exception_in_python_code_is_an_mxnet_error():
    class Failing(operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            assert False, "forward fails"

    @operator.register("test_failing")
    class FailingProp(operator.CustomOpProp):
        def create_operator(self, ctx, shapes, dtypes):
            return Failing()

    with pytest.raises(MXNetError):
        nd.Custom(nd.zeros((2,)), op_type="test_failing").wait_to_read()


def test_a_custom_op_without_inputs_takes_its_shape_from_its_arguments():
    class Ones(operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            self.assign(out_data[0], req[0], nd.ones(out_data[0].shape))

    @operator.register("test_ones")
    class OnesProp(operator.CustomOpProp):
        def __init__(self, rows, cols):
            super().__init__()
            self.shape = (int(rows), int(cols))

        def list_arguments(self):
            return []

        def infer_shape(self, in_shape):
            return [], [self.shape], []

        def infer_type(self, in_type):
            return [], [np.float32], []

        def create_operator(self, ctx, shapes, dtypes):
            return Ones()

    out = nd.Custom(rows=2, cols=3, op_type="test_ones")
    assert out.shape == (2, 3) and out.dtype == np.float32 and out.asnumpy().sum() == 6


class _NumpySquare(operator.NumpyOp):
    def forward(self, in_data, out_data):
        assert isinstance(in_data[0], np.ndarray)
        out_data[0][:] = in_data[0] ** 2

    def backward(self, out_grad, in_data, out_data, in_grad):
        in_grad[0][:] = 2 * in_data[0] * out_grad[0]


@pytest.mark.filterwarnings("ignore:.*deprecated")
def test_a_numpy_op_runs_in_a_graph_on_numpy_arrays():
    y = _NumpySquare().get_symbol(sym.Variable("x"), name="square")
    assert y.list_arguments() == ["x"] and y.list_outputs() == ["square_output"]
    x, dx = nd.array([1.0, -2.0, 3.0]), nd.zeros((3,))
    executor = y.bind(runtime.cpu(), args=[x], args_grad={"x": dx})
    executor.forward(is_train=True)
    executor.backward(nd.ones((3,)))
    assert executor.outputs[0].asnumpy().tolist() == [1.0, 4.0, 9.0]
    assert dx.asnumpy().tolist() == [2.0, -4.0, 6.0]
