"""The operators over image positions (GridGenerator, BilinearSampler, SpatialTransformer,
ROIPooling, contrib.ROIAlign, contrib.RROIAlign, contrib.PSROIPooling, Correlation) against real MXNet 1.9.1 (tools/record_spatial_cases.py): outputs and gradients, with
grid points inside and beyond the input and regions rounded, clipped, empty or of an absent image
(fixtures/golden/grads_spatial.jsonl), and bad shapes, attributes and dtypes rejected in MXNet's
words through `nd` and `sym` (tests/data/spatial_rejections.jsonl)."""
import json
from pathlib import Path

import numpy as np
import pytest

from runtime import nd
from test_linalg import check_recorded, check_rejected

ROOT = Path(__file__).resolve().parents[1]
GRADS = [json.loads(line) for line in (ROOT / "fixtures" / "golden" / "grads_spatial.jsonl").read_text().splitlines()]
REJECTIONS = [json.loads(line) for line in
              (ROOT / "tests" / "data" / "spatial_rejections.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("case", GRADS, ids=[c["id"] for c in GRADS])
def test_outputs_and_gradients_match_mxnet(case):
    check_recorded(case)


@pytest.mark.parametrize("case", REJECTIONS, ids=[c["id"] for c in REJECTIONS])
@pytest.mark.parametrize("mode", ["nd", "sym"])
def test_bad_input_is_rejected_as_mxnet_does(case, mode):
    check_rejected(case, mode)


def test_identity_transform_reproduces_the_input():
    data = np.random.RandomState(0).uniform(-1, 1, (2, 3, 4, 5)).astype("float32")
    theta = nd.array([[1, 0, 0, 0, 1, 0]] * 2)
    out = nd.SpatialTransformer(nd.array(data), theta, target_shape=(4, 5), transform_type="affine",
                                sampler_type="bilinear")
    np.testing.assert_allclose(out.asnumpy(), data, rtol=1e-5, atol=1e-6)
