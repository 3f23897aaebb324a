"""The `linalg.*` operators against real MXNet 1.9.1 (tools/record_linalg_cases.py): outputs and
gradients in float32 and float64 (fixtures/golden/grads_linalg.jsonl), bad input rejected in
MXNet's words through `nd` and `sym` (tests/data/linalg_rejections.jsonl); and the gradients of
potrf and syevd, which read one triangle of a symmetric matrix, against finite differences on
symmetrized input."""
import json
import re
from pathlib import Path

import numpy as np
import pytest

from runtime import autograd, nd
from test_autograd_golden import array, run_case
from test_golden_ops import check, nd_call, sym_call

ROOT = Path(__file__).resolve().parents[1]
GRADS = [json.loads(line) for line in (ROOT / "fixtures" / "golden" / "grads_linalg.jsonl").read_text().splitlines()]
REJECTIONS = [json.loads(line) for line in (ROOT / "tests" / "data" / "linalg_rejections.jsonl").read_text().splitlines()]


def tolerance(dtype):
    # MXNet computes float32 factorizations in float32 (LAPACK's s-routines), the runtime in float64
    return (1e-4, 1e-5) if dtype == "float32" else (1e-9, 1e-10)


@pytest.mark.parametrize("case", GRADS, ids=[c["id"] for c in GRADS])
def test_outputs_and_gradients_match_mxnet(case):
    check_recorded(case)


def check_recorded(case):
    """A case of tools/record_linalg_cases.py's format: the outputs, then the inputs' gradients."""
    dtype = case["inputs"][0]["dtype"]
    rtol, atol = tolerance(dtype)
    inputs = [nd.array(array(i), dtype=i["dtype"]) for i in case["inputs"]]
    outs = nd_call(case)
    outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    for got, want in zip(outs, case["outputs"]):
        assert got.dtype == np.dtype(want["dtype"]) and got.shape == tuple(want["shape"])
        np.testing.assert_allclose(got.asnumpy(), array(want), rtol=rtol, atol=atol)
    for got, want in zip(run_case(dict(case, outputs=[])), case["grads"]):
        assert got.dtype == np.dtype(dtype)
        np.testing.assert_allclose(got, array(want), rtol=rtol * 10, atol=atol * 10)
    assert len(inputs) == len(case["grads"])


def without_node_names(message):
    return re.sub(r"in node \S* ?at", "in node at", message)


@pytest.mark.parametrize("case", REJECTIONS, ids=[c["id"] for c in REJECTIONS])
@pytest.mark.parametrize("mode", ["nd", "sym"])
def test_bad_input_is_rejected_as_mxnet_does(case, mode):
    check_rejected(case, mode)


def check_rejected(case, mode):
    """MXNet's exception type and words for a bad call, or its result where it accepts the call."""
    recorded = case[mode]
    call = nd_call if mode == "nd" else sym_call
    if isinstance(recorded, dict) and "error" in recorded:
        with pytest.raises(Exception) as raised:  # noqa: B017 - the type is checked by name below
            call(case)
        assert type(raised.value).__name__ == recorded["error"], str(raised.value)
        assert without_node_names(recorded["words"]) in without_node_names(str(raised.value))
        return
    check(call(case), recorded, case["op"])


def symmetrized_gradients(op, x, heads, **attrs):
    """The gradient w.r.t. X of sum(heads * op((X + X^T) / 2)): autograd's, and central differences'."""
    def forward(values):
        outs = getattr(nd.linalg, op)(nd.array(0.5 * (values + np.swapaxes(values, -1, -2)), dtype="float64"), **attrs)
        outs = outs if isinstance(outs, (list, tuple)) else [outs]
        return sum(float(np.sum(h * o.asnumpy())) for h, o in zip(heads, outs))

    variable = nd.array(x, dtype="float64")
    variable.attach_grad()
    with autograd.record():
        outs = getattr(nd.linalg, op)(0.5 * (variable + nd.swapaxes(variable, -1, -2)), **attrs)
    outs = outs if isinstance(outs, (list, tuple)) else [outs]
    autograd.backward(outs, [nd.array(h, dtype="float64") for h in heads])
    numeric = np.zeros(x.shape)
    for index in np.ndindex(*x.shape):
        plus, minus = x.copy(), x.copy()
        plus[index] += 1e-6
        minus[index] -= 1e-6
        numeric[index] = (forward(plus) - forward(minus)) / 2e-6
    return variable.grad.asnumpy(), numeric


@pytest.mark.parametrize("lower", [True, False])
def test_potrf_gradient_on_symmetric_input(lower):
    rng = np.random.RandomState(3)
    x = rng.uniform(-1, 1, (2, 3, 3))
    x = np.matmul(x, np.swapaxes(x, -1, -2)) + 3 * np.eye(3)
    heads = [rng.uniform(-1, 1, (2, 3, 3))]
    got, numeric = symmetrized_gradients("potrf", x, heads, lower=lower)
    np.testing.assert_allclose(got, numeric, rtol=1e-5, atol=1e-7)


def test_syevd_gradient_on_symmetric_input():
    rng = np.random.RandomState(4)
    x = rng.uniform(-1, 1, (2, 4, 4)) + np.diag([0.0, 1.5, 3.0, 5.0])  # eigenvalues well apart
    heads = [rng.uniform(-1, 1, (2, 4, 4)), rng.uniform(-1, 1, (2, 4))]
    got, numeric = symmetrized_gradients("syevd", x, heads)
    np.testing.assert_allclose(got, numeric, rtol=1e-5, atol=1e-7)


def test_symbolic_gradient_matches_eager():
    """The same gradient through sym + bind + backward as through autograd (both from the declaration)."""
    from runtime import sym
    rng = np.random.RandomState(5)
    a = rng.uniform(-1, 1, (2, 3, 3)) + 3 * np.eye(3)
    b = rng.uniform(-1, 1, (2, 3, 2))
    head = rng.uniform(-1, 1, (2, 3, 2))
    out = sym.linalg.trsm(sym.var("a"), sym.var("b"), alpha=2.0, transpose=True)
    grads = {"a": nd.zeros(a.shape, dtype="float64"), "b": nd.zeros(b.shape, dtype="float64")}
    executor = out.bind(None, {"a": nd.array(a, dtype="float64"), "b": nd.array(b, dtype="float64")}, args_grad=grads)
    executor.forward(is_train=True)
    executor.backward(nd.array(head, dtype="float64"))
    xa, xb = nd.array(a, dtype="float64"), nd.array(b, dtype="float64")
    xa.attach_grad()
    xb.attach_grad()
    with autograd.record():
        y = nd.linalg.trsm(xa, xb, alpha=2.0, transpose=True)
    y.backward(nd.array(head, dtype="float64"))
    np.testing.assert_allclose(grads["a"].asnumpy(), xa.grad.asnumpy(), rtol=1e-12)
    np.testing.assert_allclose(grads["b"].asnumpy(), xb.grad.asnumpy(), rtol=1e-12)
