"""`contrib.box_decode` and `contrib.bipartite_matching` (GluonCV's NormalizedBoxCenterDecoder and
BipartiteMatcher), and `amp_multicast` (the decoder's first call), against values and rejections recorded from MXNet 1.9.1 by
tools/record_box_matching.py, eagerly and through a Symbol."""
import json
from pathlib import Path

import numpy as np
import pytest

import runtime
from runtime.base import MXNetError

CASES = json.loads((Path(__file__).parent / "data" / "box_matching_cases.json").read_text())["cases"]


def decode(value):
    return np.array(value["data"], dtype=value["dtype"]).reshape(value["shape"])


def eager(case):
    op = getattr(runtime.nd.contrib, case["op"], None) or getattr(runtime.nd, case["op"])
    result = op(*[runtime.nd.array(decode(a), dtype=a["dtype"]) for a in case["inputs"]], **case["attrs"])
    return [r.asnumpy() for r in (result if isinstance(result, list) else [result])]


def symbolic(case):
    names = ["input%d" % i for i in range(len(case["inputs"]))]
    op = getattr(runtime.sym.contrib, case["op"], None) or getattr(runtime.sym, case["op"])
    out = op(*[runtime.sym.var(n) for n in names], **case["attrs"])
    values = {n: runtime.nd.array(decode(a), dtype=a["dtype"]) for n, a in zip(names, case["inputs"])}
    return [r.asnumpy() for r in out.eval(ctx=runtime.cpu(), **values)]


@pytest.mark.parametrize("run", [eager, symbolic])
@pytest.mark.parametrize("case", [c for c in CASES if "outputs" in c],
                         ids=lambda c: "%s-%s" % (c["op"], c["attrs"]))
def test_values_as_recorded(case, run):
    got = run(case)
    expected = [decode(o) for o in case["outputs"]]
    assert [g.shape for g in got] == [e.shape for e in expected]
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("case", [c for c in CASES if "error" in c], ids=lambda c: c["error"])
def test_rejections_as_recorded(case):
    with pytest.raises(MXNetError, match=case["error"].replace("(", r"\(").replace(")", r"\)")):
        eager(case)
