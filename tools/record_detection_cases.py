"""Record contrib.MultiBoxTarget and float16 contrib.box_nms from MXNet 1.9.1 on seeded inputs.

    python tools/record_detection_cases.py tests/data/detection_cases.json   (MXNet's venv)

MultiBoxTarget: random anchors, padded labels (one image without any), class scores; with and
without negative mining, other thresholds, variances and ignore_label; its three outputs (float64
inputs: MXNet's rejection). box_nms: float16 boxes (ids, scores, corners or centers), by class or forced, with
topk and score thresholds; the kept rows. Checked by tests/test_multibox_target.py and
tests/test_box_nms_float16.py."""
import json
import sys

import numpy as np

TARGET_OPTIONS = [
    {},
    {"negative_mining_ratio": 3.0},
    {"negative_mining_ratio": 2.0, "negative_mining_thresh": 0.3, "overlap_threshold": 0.3},
    {"overlap_threshold": 0.0, "ignore_label": -2.0, "variances": (0.2, 0.2, 0.1, 0.1)},
    {"overlap_threshold": 0.7, "negative_mining_ratio": 1.0},
]

NMS_OPTIONS = [
    {"overlap_thresh": 0.5},
    {"overlap_thresh": 0.3, "id_index": 0},
    {"overlap_thresh": 0.7, "id_index": 0, "force_suppress": True, "topk": 12},
    {"overlap_thresh": 0.45, "valid_thresh": 0.2, "id_index": 0, "background_id": 1},
    {"overlap_thresh": 0.5, "in_format": "center", "out_format": "corner"},
    {"overlap_thresh": 0.6, "out_format": "center"},
]


def _boxes(rng, count):
    corner = rng.uniform(0, 0.8, (count, 2))
    size = rng.uniform(0.05, 0.4, (count, 2))
    return np.concatenate([corner, corner + size], axis=1)


def target_inputs(seed):
    rng = np.random.RandomState(seed)
    anchors = _boxes(rng, 40)[None]
    labels = -np.ones((3, 4, 5))
    for image, count in enumerate((3, 1, 0)):
        labels[image, :count, 0] = rng.randint(0, 4, count)
        labels[image, :count, 1:] = _boxes(rng, count)
    scores = rng.uniform(-2, 2, (3, 5, 40))
    return anchors, labels, scores


def nms_inputs(seed):
    rng = np.random.RandomState(seed)
    data = np.concatenate([rng.randint(0, 3, (2, 30, 1)), rng.uniform(0, 1, (2, 30, 1)),
                           _boxes(rng, 60).reshape(2, 30, 4)], axis=2)
    return data.astype(np.float16)


def main(path):
    import mxnet as mx
    cases = {"multibox_target": [], "box_nms_float16": []}
    for i, options in enumerate(TARGET_OPTIONS):
        for dtype in ("float32", "float64"):
            anchors, labels, scores = target_inputs(i)
            case = {"seed": i, "dtype": dtype,
                    "options": {k: list(v) if isinstance(v, tuple) else v for k, v in options.items()}}
            try:
                outputs = mx.nd.contrib.MultiBoxTarget(*[mx.nd.array(a, dtype=dtype)
                                                         for a in (anchors, labels, scores)], **options)
                case["outputs"] = [o.asnumpy().astype(np.float64).tolist() for o in outputs]
            except mx.base.MXNetError as exc:  # float32 only
                case["error"] = [line for line in str(exc).splitlines() if "Check failed" in line][-1]
            cases["multibox_target"].append(case)
    for i, options in enumerate(NMS_OPTIONS):
        data = nms_inputs(100 + i)
        out = mx.nd.contrib.box_nms(mx.nd.array(data, dtype="float16"), **options)
        cases["box_nms_float16"].append({"seed": 100 + i, "options": options,
                                         "output": out.asnumpy().astype(np.float64).tolist()})
    with open(path, "w") as handle:
        json.dump(cases, handle)
        handle.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
