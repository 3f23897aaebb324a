"""SPEC §1's table, reproduced with MXNet's exception types and messages, and the runtime's handling
of bad operator input (always an MXNetError naming the operator, never a crash)."""
import numpy as np
import pytest

import runtime
from runtime import MXNetError, NotImplementedForSymbol, nd, sym


@pytest.fixture
def x():
    return sym.var("x")


def test_indexing_a_symbol(x):
    with pytest.raises(TypeError, match="^Symbol only support integer index to fetch i-th output$"):
        x[0, 0]
    with pytest.raises(TypeError, match="^Symbol only support integer index to fetch i-th output$"):
        x[..., 0]


def test_integer_index_on_a_single_output_silently_returns_the_whole_symbol(x):
    y = sym.relu(x)
    assert y[0].list_outputs() == y.list_outputs()
    assert len(y) == 1 and [s.name for s in y] == [y.name]
    assert y[0:1].list_outputs() == y.list_outputs()  # a slice selects outputs, not rows
    out = y[0].eval(x=nd.array([[1, -2], [3, 4]]))[0]
    assert out.shape == (2, 2)


@pytest.mark.parametrize("attribute", ["shape", "dtype", "context", "size", "ndim"])
def test_attributes_a_symbol_does_not_have(x, attribute):
    with pytest.raises(AttributeError, match="^'Symbol' object has no attribute '%s'$" % attribute):
        getattr(x, attribute)


def test_item_assignment(x):
    with pytest.raises(TypeError, match="^'Symbol' object does not support item assignment$"):
        x[0] = 2


def test_inplace_operator(x):
    b = sym.var("b")
    with runtime.as_mxnet():
        with pytest.raises(NotImplementedForSymbol) as raised:
            x += b
    assert str(raised.value) == ('Function __iadd__ (namely operator "+=") with arguments '
                                 "(<class 'mxnet.symbol.symbol.Symbol'>, <class 'int'>) is not implemented for "
                                 "Symbol and only available in NDArray.")


@pytest.mark.parametrize("method", ["asnumpy", "asscalar"])
def test_conversions(x, method):
    with pytest.raises(NotImplementedForSymbol, match="^Function %s is not implemented for Symbol and only "
                                                      "available in NDArray.$" % method):
        getattr(x, method)()


def test_truth_value(x):
    with pytest.raises(NotImplementedForSymbol, match=r'^Function __bool__ \(namely operator "bool"\)'):
        bool(x.sum() > 0)


def test_eager_operator_given_a_symbol(x):
    with pytest.raises(AssertionError, match="^Argument data must have NDArray type, but got <Symbol x>$"):
        nd.relu(x)
    with pytest.raises(AssertionError, match="^Positional arguments must have NDArray type"):
        nd.concat(x, x, dim=1)


def test_symbol_arithmetic_does_not_broadcast(x):
    b = sym.var("b")
    assert (nd.ones((2, 3)) + nd.ones((1, 3))).shape == (2, 3)  # NDArray broadcasts
    with pytest.raises(MXNetError, match=r"Error in operator _plus\d+: Incompatible attr in node _plus\d+ at 1-th "
                                         r"input: expected \[2,3\], got \[1,3\]"):
        (x + b).bind(runtime.cpu(), {"x": nd.ones((2, 3)), "b": nd.ones((1, 3))})


def test_positional_reshape_on_a_symbol_is_silently_wrong(x):
    data = nd.arange(6)
    assert data.reshape(-1, 1).shape == (6, 1)  # NDArray takes the dimensions one by one
    assert x.reshape(-1, 1).eval(x=data)[0].shape == (6,)  # Symbol: shape=-1, reverse=1


def test_print_shows_a_symbol(x, capsys):
    print(sym.relu(x))
    assert capsys.readouterr().out.startswith("<Symbol relu")


# ---- bad operator input
def test_unknown_attribute_names_the_operator():
    with pytest.raises(MXNetError, match="Cannot find argument 'axes' in operator sum"):
        nd.sum(nd.ones((2, 2)), axes=1)


def test_wrong_shapes_name_the_operator():
    # MXNet 1.9.1's words: "Shape inconsistent, Provided = [3,4], inferred shape=(3,5)"
    with pytest.raises(MXNetError, match=r"Error in operator FullyConnected: Shape inconsistent, "
                                         r"Provided = \[3,4\], inferred shape=\(3,5\)"):
        nd.FullyConnected(nd.ones((2, 5)), nd.ones((3, 4)), nd.ones(3), num_hidden=3)


def test_bad_dtype_and_bad_values():
    with pytest.raises(TypeError, match="^data type 'floaty' not understood$"):  # as MXNet 1.9.1's front end
        nd.cast(nd.ones(2), dtype="floaty")
    with pytest.raises(MXNetError, match="Required parameter a_min of clip is not presented"):
        nd.clip(nd.ones(2), a_max=1)


def test_out_of_range_axis():
    with pytest.raises(MXNetError, match=r"Error in operator sum: Reduction axis 5 Exceeds input dimensions \[2,2\]"):
        nd.sum(nd.ones((2, 2)), axis=5)
    with pytest.raises(MXNetError, match="Error in operator expand_dims"):
        nd.expand_dims(nd.ones((2, 2)), axis=4)


def test_take_modes():
    data = nd.array([[1, 1], [2, 2], [3, 3]])
    index = nd.array([-1, 4])
    assert nd.take(data, index).asnumpy()[:, 0].tolist() == [1, 3]                 # clip: -1 is 0
    assert nd.take(data, index, mode="wrap").asnumpy()[:, 0].tolist() == [3, 2]    # wrap: Python's -1
    with pytest.raises(MXNetError, match="Error in operator take"):
        nd.take(data, index, mode="raise")


def test_legacy_ndarray_indexing_shapes():
    a = nd.array(np.arange(12).reshape(3, 4))
    assert a[1].shape == (4,) and a[1, 2].shape == (1,) and nd.arange(3)[0].shape == (1,)
    assert a[:, 1:3].shape == (3, 2) and a[:, None].shape == (3, 1, 4)
    a[0] = 7
    assert a.asnumpy()[0].tolist() == [7, 7, 7, 7]
