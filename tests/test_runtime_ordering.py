"""topk, argsort and sort put equal values in MXNet 1.9.1's order (its CPU kernels' partial sort or
introsort, not the values' positions), eagerly and through a Symbol; recorded with
tools/record_ordering_cases.py. An untrained CenterNet ranks a heatmap of equal scores: its boxes
follow this order."""
import json
from pathlib import Path

import numpy as np
import pytest

from runtime import nd, sym

CASES = json.loads((Path(__file__).parent / "data" / "ordering_cases.json").read_text())


def array(record):
    return np.array(record["data"], dtype=np.float32).reshape(record["shape"])


@pytest.mark.parametrize("symbolic", [False, True])
@pytest.mark.parametrize("case", CASES, ids=["%s-%d" % (c["op"], i) for i, c in enumerate(CASES)])
def test_ties_in_mxnet_order(case, symbolic):
    x = array(case["input"])
    if symbolic:
        data = sym.Variable("data")
        executor = getattr(sym, case["op"])(data, **case["kwargs"]).bind(None, {"data": nd.array(x)})
        outs = executor.forward()
    else:
        out = getattr(nd, case["op"])(nd.array(x), **case["kwargs"])
        outs = out if isinstance(out, (list, tuple)) else [out]
    assert len(outs) == len(case["outputs"])
    for got, wanted in zip(outs, case["outputs"]):
        np.testing.assert_array_equal(got.asnumpy(), array(wanted))
