"""Record, with real MXNet 1.9.1, `nd.image.to_tensor`, `nd.image.normalize` and the flips
(`flip_left_right`, `flip_top_bottom`): outputs on seeded uint8 and float images and batches,
gradients, symbolic shape inference, and the messages of the shapes and attributes they reject
(with those of `gluon.data.vision.transforms.Resize`, MXNet's image.resize operator).

    python tools/record_image_ops.py tests/data/image_ops_cases.json

(a venv with mxnet==1.9.1)
"""
import json
import sys

import mxnet as mx
import numpy as np


def encode(array):
    array = array.asnumpy()
    return {"dtype": str(array.dtype), "shape": list(array.shape), "data": [float(repr(v)) if array.dtype.kind == "f"
                                                                           else int(v) for v in array.ravel()]}


def source(seed, shape, dtype):
    rng = np.random.RandomState(seed)
    return rng.randint(0, 256, shape).astype(dtype) if dtype == "uint8" else rng.uniform(0, 255, shape).astype(dtype)


def message(error):
    return [line for line in str(error).splitlines() if line.startswith("MXNetError")][-1].split("Check failed: ")[-1]


def main(path):
    cases = {"to_tensor": [], "normalize": [], "errors": []}
    for seed, (shape, dtype) in enumerate([((4, 5, 3), "uint8"), ((2, 4, 5, 3), "uint8"), ((3, 2, 1), "float32")]):
        x = mx.nd.array(source(seed, shape, dtype), dtype=dtype)
        cases["to_tensor"].append({"seed": seed, "shape": shape, "dtype": dtype, "out": encode(mx.nd.image.to_tensor(x)),
                                   "symbolic": list(mx.sym.image.to_tensor(mx.sym.var("x")).infer_shape(x=shape)[1][0])})
    for seed, (shape, kwargs) in enumerate([((3, 4, 5), {"mean": (0.485, 0.456, 0.406), "std": (0.229, 0.224, 0.225)}),
                                            ((2, 3, 2, 2), {"mean": 1.5, "std": (2, 4, 8)}),
                                            ((1, 3, 3), {"mean": 0.5, "std": 0.25})], start=10):
        x = mx.nd.array(source(seed, shape, "float32") / 255)
        x.attach_grad()
        weights = mx.nd.array(np.random.RandomState(seed + 50).uniform(-1, 1, shape).astype("float32"))
        with mx.autograd.record():
            y = mx.nd.image.normalize(x, **kwargs)
            loss = (y * weights).sum()
        loss.backward()
        cases["normalize"].append({"seed": seed, "shape": shape, "kwargs": kwargs, "out": encode(y),
                                   "grad": encode(x.grad)})
    cases["flip"] = []
    # an even width and height: MXNet 1.9.1's flips leave the middle column (row) of an odd one unwritten
    for seed, op in enumerate(("flip_left_right", "flip_top_bottom"), start=20):
        x = mx.nd.array(source(seed, (4, 6, 3), "float32"))
        x.attach_grad()
        weights = mx.nd.array(np.random.RandomState(seed + 50).uniform(-1, 1, (4, 6, 3)).astype("float32"))
        with mx.autograd.record():
            y = getattr(mx.nd.image, op)(x)
            loss = (y * weights).sum()
        loss.backward()
        cases["flip"].append({"op": op, "seed": seed, "out": encode(y), "grad": encode(x.grad)})
    from mxnet.gluon.data.vision import transforms
    cases["resize_errors"] = []
    for size, keep in ((-150, True), ((100, 100, 100), True), ((-25, 25), False), ((25, -5), False)):
        try:
            transforms.Resize(size, keep_ratio=keep)(mx.nd.ones((30, 20, 3), dtype="uint8")).asnumpy()
            cases["resize_errors"].append({"size": size, "keep_ratio": keep, "message": None})
        except mx.base.MXNetError as error:
            cases["resize_errors"].append({"size": size, "keep_ratio": keep, "message": message(error)})
    for op, shape, kwargs in (("flip_left_right", (2, 2, 4, 3), {}), ("flip_top_bottom", (3, 4, 2), {}),
                              ("to_tensor", (2, 2), {}), ("normalize", (2, 2, 3), {"mean": (1, 2, 3)}),
                              ("normalize", (1, 2, 2), {"mean": (1, 2, 3)}),
                              ("normalize", (3, 2, 2), {"mean": 0, "std": (1, 2)})):
        try:
            getattr(mx.nd.image, op)(mx.nd.ones(shape), **kwargs).asnumpy()
            cases["errors"].append({"op": op, "shape": shape, "kwargs": kwargs, "message": None})
        except mx.base.MXNetError as error:
            cases["errors"].append({"op": op, "shape": shape, "kwargs": kwargs, "message": message(error)})
    with open(path, "w") as handle:
        json.dump(cases, handle)
        handle.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
