"""contrib.MultiBoxTarget against MXNet 1.9.1 (tools/record_detection_cases.py, tests/data/detection_cases.json):
padded labels (an image without any), negative mining on and off, other thresholds, variances and
ignore_label; float64 is rejected as MXNet rejects it."""
import json
import sys
from pathlib import Path

import numpy as np
import pytest

import runtime
from runtime.base import MXNetError

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from record_detection_cases import target_inputs  # noqa: E402

CASES = json.loads((Path(__file__).parent / "data" / "detection_cases.json").read_text())["multibox_target"]


@pytest.mark.parametrize("case", CASES, ids=lambda c: "%d-%s" % (c["seed"], c["dtype"]))
def test_as_mxnet_1_9_1(case):
    inputs = [runtime.nd.array(a, dtype=case["dtype"]) for a in target_inputs(case["seed"])]
    options = {k: tuple(v) if isinstance(v, list) else v for k, v in case["options"].items()}
    if "error" in case:
        with pytest.raises(MXNetError, match="Unsupported data type 1"):
            runtime.nd.contrib.MultiBoxTarget(*inputs, **options)
        return
    outputs = runtime.nd.contrib.MultiBoxTarget(*inputs, **options)
    for got, want in zip(outputs, case["outputs"]):
        np.testing.assert_allclose(got.asnumpy(), np.array(want), rtol=1e-5, atol=1e-6)


def test_symbolic_outputs_and_shapes():
    sym = runtime.sym
    out = sym.contrib.MultiBoxTarget(sym.var("a"), sym.var("l"), sym.var("c"))
    assert out.list_outputs() == ["multiboxtarget0_loc_target", "multiboxtarget0_loc_mask",
                                  "multiboxtarget0_cls_target"]
    _, shapes, _ = out.infer_shape(a=(1, 40, 4), l=(3, 4, 5), c=(3, 5, 40))
    assert [tuple(s) for s in shapes] == [(3, 160), (3, 160), (3, 40)]
    with pytest.raises(MXNetError, match="Number of anchors mismatch"):
        out.infer_shape(a=(1, 40, 4), l=(3, 4, 5), c=(3, 5, 41))
