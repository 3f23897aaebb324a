"""nd.contrib's AdamW steps against MXNet 1.9.1 (tests/data/adamw_cases.json, tools/record_adamw_cases.py)."""
import json
from pathlib import Path

import numpy as np
import pytest

from runtime import nd

CASES = json.loads((Path(__file__).parent / "data" / "adamw_cases.json").read_text())


def arrays(seed, dtype, shape=(3, 4)):
    rng = np.random.RandomState(seed)
    return {"weight": rng.uniform(-1, 1, shape).astype(dtype), "grad": rng.uniform(-2, 2, shape).astype(dtype),
            "mean": rng.uniform(-0.1, 0.1, shape).astype("float32"), "var": rng.uniform(0, 0.1, shape).astype("float32")}


def check(nds, expected, dtype):
    for key, values in expected.items():
        tolerance = 2e-3 if nds[key].dtype == np.float16 else 1e-6
        np.testing.assert_allclose(nds[key].asnumpy(), np.array(values, nds[key].dtype), rtol=tolerance, atol=tolerance,
                                   err_msg=key)


SINGLE = [c for c in CASES if "seed" in c]
MULTI = [c for c in CASES if "seeds" in c]


@pytest.mark.parametrize("case", SINGLE, ids=["%s-%d" % (c["fn"], c["seed"]) for c in SINGLE])
def test_single(case):
    a = arrays(case["seed"], case["dtype"])
    nds = {k: nd.array(v, dtype=v.dtype) for k, v in a.items()}
    kwargs = dict(case["kwargs"])
    if kwargs["rescale_grad"] == "nd":
        kwargs["rescale_grad"] = nd.array([0.25])
    elif isinstance(kwargs["rescale_grad"], str):
        kwargs["rescale_grad"] = float(kwargs["rescale_grad"])
    args = [nds["weight"], nds["grad"], nds["mean"], nds["var"]]
    if case["fn"] == "mp_adamw_update":
        nds["weight32"] = nd.array(a["weight"].astype("float32"))
        args.append(nds["weight32"])
    getattr(nd.contrib, case["fn"])(*args, out=nds["weight"], **kwargs)
    check(nds, case["after"], case["dtype"])


@pytest.mark.parametrize("case", MULTI, ids=[c["fn"] for c in MULTI])
def test_multi(case):
    sets = [arrays(seed, case["dtype"], shape) for seed, shape in zip(case["seeds"], [(3, 4), (5,)])]
    nds = [{k: nd.array(v, dtype=v.dtype) for k, v in s.items()} for s in sets]
    lists = [[n[k] for n in nds] for k in ("weight", "grad", "mean", "var")]
    if case["fn"] == "multi_mp_adamw_update":
        for n, s in zip(nds, sets):
            n["weight32"] = nd.array(s["weight"].astype("float32"))
        lists.append([n["weight32"] for n in nds])
    getattr(nd.contrib, case["fn"])(*lists, rescale_grad=0.5, lrs=[1.0, 0.5], wds=[0.01, 0.0], etas=[0.1, 0.2],
                                    out=lists[0], clip_gradient=0.8)
    for got, expected in zip(nds, case["after"]):
        check(got, expected, case["dtype"])


SUM_SQ = next(c for c in CASES if c["fn"] == "multi_sum_sq")


def test_multi_sum_sq():
    from runtime import sym
    from runtime.base import MXNetError
    sums = nd.multi_sum_sq(*[nd.array(np.array(a, "float32")) for a in SUM_SQ["arrays"]], num_arrays=3)
    assert sums.dtype == np.float32
    np.testing.assert_allclose(sums.asnumpy(), SUM_SQ["sums"], rtol=1e-6)
    halves = nd.multi_sum_sq(*[nd.array(np.array(a), dtype="float16") for a in SUM_SQ["halves"]], num_arrays=2)
    assert np.dtype(halves.dtype).name == SUM_SQ["half_dtype"]
    np.testing.assert_allclose(halves.asnumpy(), SUM_SQ["half_sums"], rtol=1e-6)
    with pytest.raises(MXNetError, match=SUM_SQ["mixed_error"].replace("(", r"\(").replace(")", r"\)")):
        nd.multi_sum_sq(nd.ones((2,)), nd.ones((2,), dtype="float16"), num_arrays=2)
    symbol = sym.multi_sum_sq(sym.var("a"), sym.var("b"), num_arrays=2)
    assert symbol.infer_shape(a=(2, 3), b=(1, 1))[1] == [(2,)]
