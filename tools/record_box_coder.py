"""Record, with real MXNet 1.9.1, contrib.box_decode and contrib.box_encode for
tests/test_runtime_box_coder.py: corner and center anchors, the stds, the clip of the log-sizes,
float64, a batch of GluonCV-sized boxes (to compare float32 results bit for bit), and the shapes
MXNet rejects, with its words; and amp_multicast, which GluonCV's box decoder calls first: the
dtypes it gives (by Symbol.infer_type: MXNet's eager call refuses float16 and float64 on this
build) and its float32 values.

usage: python tools/record_box_coder.py tests/data/box_coder_cases.json   (a venv with mxnet 1.9.1)
"""
import json
import sys

import numpy as np
import mxnet as mx


def enc(a):
    a = np.asarray(a)
    return {"shape": list(a.shape), "dtype": a.dtype.name, "data": a.ravel().tolist()}


def corners(rng, shape, scale):
    low = rng.uniform(0, scale, shape[:-1] + (2,))
    size = rng.uniform(1, scale / 2, shape[:-1] + (2,))
    return np.concatenate([low, low + size], -1)


def decode_cases(rng):
    n = 6
    anchors = corners(rng, (1, n, 4), 50.0)
    centers = np.concatenate([(anchors[..., :2] + anchors[..., 2:]) / 2, anchors[..., 2:] - anchors[..., :2]], -1)
    gluoncv_stds = {"std0": 0.1, "std1": 0.1, "std2": 0.2, "std3": 0.2}
    cases = [
        ({}, rng.uniform(-1, 1, (2, n, 4)), anchors, "float32"),
        (dict(gluoncv_stds, clip=4.135166556742356), rng.uniform(-30, 30, (2, n, 4)), anchors, "float32"),
        (dict(gluoncv_stds, format="corner"), rng.uniform(-2, 2, (1, n, 4)), anchors, "float32"),
        (dict(gluoncv_stds, format="center", clip=1.5), rng.uniform(-10, 10, (3, n, 4)), centers, "float32"),
        ({"std0": 0.5, "std2": 2.0}, rng.uniform(-1, 1, (2, n, 4)), anchors, "float64"),
        # anchors of more dimensions: MXNet reads the first N boxes
        ({}, rng.uniform(-1, 1, (1, n, 4)), anchors.reshape(1, 1, n, 4), "float32"),
        # many RPN-like boxes: the float32 arithmetic must agree bit for bit
        (dict(gluoncv_stds, clip=4.135166556742356), rng.normal(0, 3, (1, 3000, 4)),
         corners(rng, (1, 3000, 4), 600.0), "float32"),
    ]
    records = []
    for kwargs, data, anchor, dtype in cases:
        data, anchor = data.astype(dtype), anchor.astype(dtype)
        out = mx.nd.contrib.box_decode(mx.nd.array(data, dtype=dtype), mx.nd.array(anchor, dtype=dtype), **kwargs)
        records.append({"kwargs": kwargs, "data": enc(data), "anchors": enc(anchor), "output": enc(out.asnumpy())})
    return records


def encode_cases(rng):
    records = []
    for b, n, m, dtype in ((1, 5, 3, "float32"), (2, 40, 6, "float32"), (2, 7, 4, "float64")):
        samples = rng.choice([-1.0, 0.0, 1.0], (b, n)).astype(dtype)
        matches = rng.randint(0, m, (b, n)).astype(dtype)
        anchors = corners(rng, (b, n, 4), 100.0).astype(dtype)
        refs = corners(rng, (b, m, 4), 100.0).astype(dtype)
        means = np.array([0.0, 0.1, -0.2, 0.0], dtype)
        stds = np.array([0.1, 0.1, 0.2, 0.2], dtype)
        inputs = [samples, matches, anchors, refs, means, stds]
        targets, masks = mx.nd.contrib.box_encode(*[mx.nd.array(a, dtype=dtype) for a in inputs])
        records.append({"inputs": [enc(a) for a in inputs], "targets": enc(targets.asnumpy()),
                        "masks": enc(masks.asnumpy())})
    return records


def words(exc):
    """MXNet's reason, after its file, line and the failed condition."""
    line = [text for text in str(exc).splitlines() if "Check failed" in text][0]
    return line.split(" : ", 1)[-1]


def rejections():
    """(operator, input shapes, MXNet's words) for shapes MXNet's shape inference refuses."""
    cases = [("box_decode", {"data": (2, 4), "anchors": (1, 2, 4)}),
             ("box_decode", {"data": (1, 2, 3), "anchors": (1, 2, 4)}),
             ("box_decode", {"data": (1, 2, 4), "anchors": (2, 4)}),
             ("box_decode", {"data": (1, 2, 4), "anchors": (1, 2, 5)}),
             ("box_encode", {"samples": (1, 2, 1), "matches": (1, 2), "anchors": (1, 2, 4), "refs": (1, 3, 4),
                             "means": (4,), "stds": (4,)}),
             ("box_encode", {"samples": (1, 2), "matches": (1, 2), "anchors": (1, 2, 3), "refs": (1, 3, 4),
                             "means": (4,), "stds": (4,)}),
             ("box_encode", {"samples": (1, 2), "matches": (1, 2), "anchors": (1, 2, 4), "refs": (3, 4),
                             "means": (4,), "stds": (4,)})]
    records = []
    for op, shapes in cases:
        out = getattr(mx.sym.contrib, op)(*[mx.sym.var(name) for name in shapes])
        try:
            out.infer_shape(**shapes)
        except mx.base.MXNetError as exc:
            records.append({"op": op, "shapes": {k: list(v) for k, v in shapes.items()}, "words": words(exc)})
        else:
            raise AssertionError("MXNet accepts %s %s" % (op, shapes))
    return records


def multicast_cases():
    records = []
    for dtypes, narrow in [(("float32", "float16"), False), (("float32", "float16"), True),
                           (("float64", "float16"), False), (("float16", "float16", "float64"), False),
                           (("float64", "float32"), True), (("int32", "float16"), False),
                           (("float32", "float64"), True), (("float32", "float32"), True)]:
        count = len(dtypes)
        out = mx.sym.amp_multicast(*[mx.sym.var("v%d" % i) for i in range(count)], num_outputs=count,
                                   cast_narrow=narrow)
        given = {"v%d" % i: d for i, d in enumerate(dtypes)}
        record = {"dtypes": list(dtypes), "cast_narrow": narrow,
                  "out_dtypes": [np.dtype(t).name for t in out.infer_type(**given)[1]]}
        if set(dtypes) == {"float32"}:
            values = [np.arange(3, dtype="float32") + 0.3 * i for i in range(count)]
            results = mx.nd.amp_multicast(*[mx.nd.array(v) for v in values], num_outputs=count, cast_narrow=narrow)
            record["values"] = [enc(r.asnumpy()) for r in results]
        records.append(record)
    return records


def iou_cases(rng):
    records = []
    for lhs_shape, rhs_shape, fmt in (((2, 3, 4), (4, 2, 4), "corner"), ((5, 4), (2, 3, 4), "center"),
                                      ((2, 1, 3, 4), (3, 4), "corner")):
        lhs, rhs = corners(rng, lhs_shape, 10.0), corners(rng, rhs_shape, 10.0)
        out = mx.nd.contrib.box_iou(mx.nd.array(lhs), mx.nd.array(rhs), format=fmt)
        records.append({"format": fmt, "lhs": enc(lhs.astype("float32")), "rhs": enc(rhs.astype("float32")),
                        "output": enc(out.asnumpy())})
    return records


def main(out_path):
    rng = np.random.RandomState(7)
    with open(out_path, "w") as f:
        json.dump({"decode": decode_cases(rng), "encode": encode_cases(rng), "rejections": rejections(),
                   "multicast": multicast_cases(), "iou": iou_cases(rng)}, f)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
