"""contrib.interleaved_matmul_* and softmax with `length` against MXNet 1.9.1
(tests/data/attention_cases.json from tools/record_attention_cases.py): outputs and gradients,
eagerly and through a bound Symbol."""
import json
from pathlib import Path

import numpy as np
import pytest

from runtime import autograd, nd, sym
from runtime.base import MXNetError

RECORDED = json.loads((Path(__file__).parent / "data" / "attention_cases.json").read_text())
CASES = RECORDED["attention"]


def inputs(seed, shapes):
    rng = np.random.RandomState(seed)
    return [rng.uniform(-1, 1, shape).astype("float32") for shape in shapes]


@pytest.mark.parametrize("case", CASES, ids=["%s-%d" % (c["op"], c["seed"]) for c in CASES])
def test_eager(case):
    arrays = [nd.array(a) for a in inputs(case["seed"], case["shapes"])]
    for a in arrays:
        a.attach_grad()
    with autograd.record():
        result = getattr(nd.contrib, case["op"])(*arrays, heads=case["heads"])
        weights = nd.array(np.random.RandomState(100 + case["seed"]).uniform(-1, 1, result.shape).astype("float32"))
        loss = (result * weights).sum()
    loss.backward()
    assert list(result.shape) == case["out_shape"]
    np.testing.assert_allclose(result.asnumpy(), np.array(case["out"], "float32"), rtol=1e-5, atol=1e-6)
    for array, grad in zip(arrays, case["grads"]):
        np.testing.assert_allclose(array.grad.asnumpy(), np.array(grad, "float32"), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("case", CASES, ids=["%s-%d" % (c["op"], c["seed"]) for c in CASES])
def test_symbolic(case):
    values = inputs(case["seed"], case["shapes"])
    names = ["x%d" % i for i in range(len(values))]
    out = getattr(sym.contrib, case["op"])(*[sym.var(n) for n in names], heads=case["heads"])
    shapes = out.infer_shape(**{n: v.shape for n, v in zip(names, values)})[1]
    assert list(shapes[0]) == case["out_shape"]
    executor = out.bind(args={n: nd.array(v) for n, v in zip(names, values)})
    result = executor.forward()[0]
    np.testing.assert_allclose(result.asnumpy(), np.array(case["out"], "float32"), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("case", RECORDED["softmax_length"], ids=lambda c: "%s-axis%d" % (c["dtype"], c["axis"]))
def test_softmax_length(case):
    x = nd.array(case["x"])
    length = nd.array(case["length"], dtype=case["dtype"])
    x.attach_grad()
    with autograd.record():
        y = nd.softmax(x, length=length, axis=case["axis"], use_length=True, temperature=1.5)
        loss = (y * nd.array(case["weights"])).sum()
    loss.backward()
    np.testing.assert_allclose(y.asnumpy(), np.array(case["out"], "float32"), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(x.grad.asnumpy(), np.array(case["grad"], "float32"), rtol=1e-5, atol=1e-7)
    symbol = sym.softmax(sym.var("x"), length=sym.var("length"), axis=case["axis"], use_length=True,
                         temperature=1.5)
    assert symbol.list_arguments() == case["arguments"]
    assert [list(s) for s in symbol.infer_shape(x=np.array(case["x"]).shape)[0]] == case["inferred"]
    executor = symbol.bind(args={"x": x, "length": length})
    np.testing.assert_allclose(executor.forward()[0].asnumpy(), np.array(case["out"], "float32"), rtol=1e-5, atol=1e-7)


def test_softmax_float_length_rejected():
    expected = RECORDED["float_length_error"].split(": ", 1)[1]
    with pytest.raises(MXNetError, match=expected):
        nd.softmax(nd.ones((2, 3)), length=nd.ones((2,)), use_length=True)


@pytest.mark.parametrize("case", RECORDED["reshape_like"], ids=lambda c: str(c["kwargs"]))
def test_reshape_like_negative_ranges(case):
    assert list(nd.zeros(case["lhs"]).reshape_like(nd.zeros(case["rhs"]), **case["kwargs"]).shape) == case["shape"]
    symbol = sym.reshape_like(sym.var("a"), sym.var("b"), **case["kwargs"])
    assert list(symbol.infer_shape(a=tuple(case["lhs"]), b=tuple(case["rhs"]))[1][0]) == case["shape"]


def test_softmax_float_length_is_bound_and_fails_where_read():
    """MXNet 1.9.1's type inference leaves softmax's length as given (an undeclared one is bound as
    float32, as test_op_all_names_monitor binds it); its kernel rejects a float length when it runs,
    and a bound graph's error surfaces where the output is read."""
    symbol = sym.softmax(sym.var("data", shape=(2, 3)), sym.var("length", shape=(2,)), use_length=True)
    assert symbol.infer_type(data="float32", length="float32")[0] == [np.float32, np.float32]
    executor = symbol.simple_bind(None, grad_req="null")
    assert executor.arg_dict["length"].dtype == np.float32
    executor.forward()
    expected = RECORDED["float_length_error"].split(": ", 1)[1]
    with pytest.raises(MXNetError, match=expected):
        executor.outputs[0].asnumpy()
