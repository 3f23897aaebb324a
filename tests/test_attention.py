"""contrib.interleaved_matmul_* against MXNet 1.9.1 (tests/data/attention_cases.json from
tools/record_attention_cases.py): outputs and gradients, eagerly and through a bound Symbol."""
import json
from pathlib import Path

import numpy as np
import pytest

from runtime import autograd, nd, sym

CASES = json.loads((Path(__file__).parent / "data" / "attention_cases.json").read_text())


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
