"""Every operator case recorded from real MXNet 1.9.1, through `runtime.nd` and `runtime.sym` + bind."""
import json
from pathlib import Path

import numpy as np
import pytest

import runtime
from runtime import nd, sym
from runtime.registry import REGISTRY

CASES = [json.loads(line) for line in
         (Path(__file__).resolve().parents[1] / "fixtures" / "golden" / "ops.jsonl").read_text().splitlines()]
# Transcendental ops: MXNet's float32 kernels (vectorized exp/log) differ from NumPy's in the last
# bits; log_softmax of a value near 0 shows it as ~3e-6 absolute (1e-4 relative).
LOOSER = {"gamma": 1e-4, "gammaln": 1e-4, "log_softmax": 1e-4}


def tuples(value):
    """JSON has no tuples: MXNet's attributes recorded as lists are tuples."""
    if isinstance(value, list):
        return tuple(tuples(v) for v in value)
    return value


def array(record):
    return np.array(record["data"], dtype=record["dtype"]).reshape(record["shape"])


def resolve(namespace, dotted):
    target = namespace
    for part in dotted.split("."):
        target = getattr(target, part)
    return target


def check(result, recorded, op):
    if isinstance(recorded, list):
        results = result if isinstance(result, (list, tuple)) else [result]
        assert len(results) == len(recorded)
        for got, want in zip(results, recorded):
            check(got, want, op)
        return
    got = result.asnumpy()
    want = array(recorded)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert np.dtype(got.dtype) == np.dtype(want.dtype), (got.dtype, want.dtype)
    rtol = LOOSER.get(op, 1e-5)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-6 if rtol == 1e-5 else 1e-4)


def nd_call(case):
    kwargs = {k: tuples(v) for k, v in case["kwargs"].items()}
    inputs = [nd.array(array(i), dtype=i["dtype"]) for i in case["inputs"]]
    return resolve(nd, case["op"])(*inputs, **kwargs)


def sym_call(case):
    kwargs = {k: tuples(v) for k, v in case["kwargs"].items()}
    names = ["in%d" % i for i in range(len(case["inputs"]))]
    out = resolve(sym, case["op"])(*[sym.var(n) for n in names], **kwargs)
    args = {n: nd.array(array(i), dtype=i["dtype"]) for n, i in zip(names, case["inputs"])}
    arg_names = out.list_arguments()
    aux_names = out.list_auxiliary_states()
    bound_args = {n: args[n] for n in arg_names}
    bound_aux = {n: args[n] for n in aux_names}
    outputs = out.bind(runtime.cpu(), bound_args, aux_states=bound_aux).forward(is_train=False)
    for output in outputs:  # a failed operator raises where its output is read, as in MXNet
        output.wait_to_read()
    return outputs if len(outputs) > 1 else outputs[0]


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
@pytest.mark.parametrize("mode", ["nd", "sym"])
def test_op_matches_mxnet(case, mode):
    recorded = case[mode]
    call = nd_call if mode == "nd" else sym_call
    if isinstance(recorded, dict) and "error" in recorded:
        with pytest.raises(Exception) as raised:  # noqa: B017 - the type is checked by name below
            call(case)
        assert type(raised.value).__name__ == recorded["error"]
        return
    check(call(case), recorded, case["op"])


def test_every_golden_op_is_declared():
    missing = sorted({c["op"] for c in CASES if not hasattr_dotted(nd, c["op"])})
    assert missing == []


def hasattr_dotted(namespace, dotted):
    try:
        resolve(namespace, dotted)
        return True
    except AttributeError:
        return False


def test_every_declared_op_is_in_both_namespaces():
    for name in REGISTRY:
        if "." in name:
            assert hasattr_dotted(nd, name) and hasattr_dotted(sym, name), name
        else:
            assert hasattr(nd, name) and hasattr(sym, name), name
