"""Record MXNet 1.9.1's `contrib.box_decode` and `contrib.bipartite_matching` (the box coder and
matcher of GluonCV's detectors) and `amp_multicast` (which the coder calls first) on seeded
inputs, and what each rejects, for
tests/test_box_matching.py. Run with MXNet's interpreter:

    MXNET_MKLDNN_ENABLED=0 MXNET_PYTHON tools/record_box_matching.py tests/data/box_matching_cases.json

(MXNet 1.9.1 built with MKLDNN cannot read back amp_multicast's float16 and float64 results: "unknown
type for MKLDNN"; the plain CPU kernels give them.)
"""
import json
import os
import sys

import mxnet as mx
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from recorded_values import encode  # noqa: E402


def cases():
    rng = np.random.RandomState(3)
    offsets = rng.uniform(-1, 1, (2, 6, 4)).astype("float32")
    centers = np.concatenate([rng.uniform(0, 1, (1, 6, 2)), rng.uniform(0.1, 0.5, (1, 6, 2))], -1).astype("float32")
    corners = np.concatenate([centers[..., :2], centers[..., :2] + centers[..., 2:]], -1)
    for attrs, anchors in (({}, centers), ({"format": "corner"}, corners),
                           ({"std0": 0.1, "std1": 0.1, "std2": 0.2, "std3": 0.2, "clip": 0.3}, centers),
                           ({"format": "corner", "clip": 0.1}, corners)):
        yield "box_decode", [offsets, anchors], attrs
    scores = rng.uniform(0, 1, (2, 5, 4)).astype("float32")
    ties = np.array([[0.5, 0.5, 0.2], [0.5, 0.9, 0.9], [0.1, 0.5, 0.3]], "float32")
    for data, attrs in ((scores, {"threshold": 0.1}), (scores, {"threshold": 0.6}),
                        (scores, {"threshold": 0.9, "is_ascend": True}), (scores, {"threshold": 0.05, "topk": 2}),
                        (scores[0], {"threshold": 0.2}), (ties, {"threshold": 0.0}),
                        (rng.uniform(0, 1, (2, 3, 4, 5)).astype("float32"), {"threshold": 0.3})):
        yield "bipartite_matching", [data], attrs
    half, single, double = (rng.uniform(-1, 1, (2, 3)).astype(t) for t in ("float16", "float32", "float64"))
    for data, attrs in (([half, single], {"num_outputs": 2}), ([half, single], {"num_outputs": 2, "cast_narrow": True}),
                        ([half, half, double], {"num_outputs": 3}), ([double, single], {"num_outputs": 2}),
                        ([single, double], {"num_outputs": 2, "cast_narrow": True})):
        yield "amp_multicast", data, attrs
    # what MXNet rejects
    yield "box_decode", [rng.uniform(-1, 1, (2, 5, 8)).astype("float32"), centers], {}
    yield "box_decode", [offsets[0], centers], {}
    yield "box_decode", [offsets, centers[..., :2]], {}
    yield "bipartite_matching", [scores[0, 0]], {"threshold": 0.1}


def main(out):
    recorded = []
    for op, inputs, attrs in cases():
        case = {"op": op, "inputs": [encode(mx.nd.array(a, dtype=a.dtype)) for a in inputs], "attrs": attrs}
        try:
            function = getattr(mx.nd.contrib, op, None) or getattr(mx.nd, op)
            result = function(*[mx.nd.array(a, dtype=a.dtype) for a in inputs], **attrs)
            case["outputs"] = encode(result if isinstance(result, list) else [result])
        except mx.MXNetError as exc:
            # the reason MXNet's check gives, after "Check failed: <condition> : "
            failed = next(line for line in str(exc).splitlines() if "Check failed" in line)
            case["error"] = failed.split(" : ", 1)[-1].strip()
        recorded.append(case)
    with open(out, "w") as f:
        json.dump({"mxnet": mx.__version__, "cases": recorded}, f)


if __name__ == "__main__":
    main(sys.argv[1])
