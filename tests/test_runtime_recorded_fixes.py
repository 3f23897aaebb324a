"""Behaviour recorded from MXNet 1.9.1 where the runtime gave silently different results."""
import numpy as np
import pytest

import runtime
from runtime import nd, sym


def test_integer_arange_casts_start_and_step_before_stepping():
    # MXNet 1.9.1: arange(1.3, 456.6, 1.3, dtype='int32') has 351 values, 1 .. 351
    for values in (nd.arange(1.3, 456.6, 1.3, dtype="int32"),
                   sym.arange(1.3, 456.6, 1.3, dtype="int32").eval()[0]):
        assert values.shape == (351,) and values.dtype == np.int32
        assert values.asnumpy()[:3].tolist() == [1, 2, 3] and values.asnumpy()[-4:].tolist() == [348, 349, 350, 351]
    assert nd.arange(-2.5, 3.7, 0.9, dtype="int64").asnumpy().tolist() == [-2] * 7
    assert nd.arange(0, 10, 3, repeat=2, dtype="int32").asnumpy().tolist() == [0, 0, 3, 3, 6, 6, 9, 9]
    assert np.allclose(nd.arange(0.5, 2.0, 0.5).asnumpy(), [0.5, 1.0, 1.5])


@pytest.mark.parametrize("fill, value", [(nd.ones, 1.0), (nd.zeros, 0.0)])
def test_creation_with_out_writes_into_it_and_returns_it(fill, value):
    out = nd.full((2, 3), 7.0)
    assert fill((2, 3), out=out) is out
    assert out.asnumpy().tolist() == [[value] * 3] * 2


def test_simple_bind_allocates_each_variable_in_its_dtype():
    x = sym.Variable("x", dtype="float16")
    executor = (x * 2).simple_bind(runtime.cpu(), x=(2,))
    assert executor.arg_dict["x"].dtype == np.float16
    executor = (x * 2).simple_bind(runtime.cpu(), x=(2,), type_dict={"x": "float64"})
    assert executor.arg_dict["x"].dtype == np.float64


def test_infer_type_follows_cast():
    cast = sym.Cast(sym.Variable("d"), dtype="int32")
    assert cast.infer_type(d="float32") == ([np.float32], [np.int32], [])
    mixed = sym.Cast(sym.Variable("d"), dtype="float16") + sym.Variable("e")
    assert mixed.infer_type(d="float32") == ([np.float32, np.float16], [np.float16], [])
    assert cast.infer_type() == (None, None, None)
