"""contrib.box_nms on float16 boxes against MXNet 1.9.1 (tools/record_detection_cases.py,
tests/data/detection_cases.json): by class and forced, topk, score and background filters, center
and corner formats; the kept rows must be MXNet's, bit for bit."""
import json
import sys
from pathlib import Path

import numpy as np
import pytest

import runtime

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from record_detection_cases import nms_inputs  # noqa: E402

CASES = json.loads((Path(__file__).parent / "data" / "detection_cases.json").read_text())["box_nms_float16"]


@pytest.mark.parametrize("case", CASES, ids=lambda c: str(c["seed"]))
def test_as_mxnet_1_9_1(case):
    out = runtime.nd.contrib.box_nms(runtime.nd.array(nms_inputs(case["seed"]), dtype="float16"), **case["options"])
    assert out.dtype == np.float16
    np.testing.assert_array_equal(out.asnumpy().astype(np.float64), np.array(case["output"]))


def test_background_class_minus_one_is_dropped_by_default():
    """MXNet drops boxes of the background class whenever id_index is given, its default -1 too."""
    boxes = runtime.nd.array([[0, 0.5, 0.1, 0.1, 0.2, 0.2], [-1, 0.6, 0.5, 0.5, 0.7, 0.8]])
    out = runtime.nd.contrib.box_nms(boxes, id_index=0, force_suppress=True).asnumpy()
    np.testing.assert_allclose(out, [[0, 0.5, 0.1, 0.1, 0.2, 0.2], [-1] * 6], rtol=1e-7)
