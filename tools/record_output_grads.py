"""Record, with real MXNet 1.9.1, the gradients of the loss-output operators (SoftmaxOutput's
options, the regression outputs, SVMOutput, MakeLoss/make_loss), which ignore or replace the head
gradient, in the format of fixtures/golden/grads.jsonl.

usage: python tools/record_output_grads.py fixtures/golden/grads_outputs.jsonl   (a venv with mxnet 1.9.1)
"""
import json
import sys

import numpy as np
import mxnet as mx
from mxnet import autograd, nd


def enc(a):
    a = np.asarray(a)
    return {"shape": list(a.shape), "dtype": str(a.dtype), "data": a.ravel().tolist()}


def cases():
    rng = np.random.RandomState(7)
    data = rng.uniform(-2, 2, (4, 5)).astype("float32")
    label = np.array([1, 0, 4, 2], dtype="float32")
    ignore = np.array([1, -1, 4, -1], dtype="float32")
    yield "SoftmaxOutput", {"grad_scale": 2.0}, [data, label]
    yield "SoftmaxOutput", {"normalization": "batch"}, [data, label]
    yield "SoftmaxOutput", {"normalization": "valid", "use_ignore": True}, [data, ignore]
    yield "SoftmaxOutput", {"use_ignore": True, "ignore_label": -1.0}, [data, ignore]
    yield "SoftmaxOutput", {"smooth_alpha": 0.1}, [data, label]
    multi = rng.uniform(-1, 1, (2, 3, 4)).astype("float32")
    yield "SoftmaxOutput", {"multi_output": True}, [multi, np.array([[0, 2, 1, 1], [2, 2, 0, 1]], "float32")]
    yield "SoftmaxOutput", {"preserve_shape": True}, [multi, np.array([[0, 2, 1], [2, 0, 3]], "float32")]
    target = rng.uniform(0, 1, (4, 5)).astype("float32")
    for op in ("LinearRegressionOutput", "LogisticRegressionOutput", "MAERegressionOutput"):
        yield op, {}, [data, target]
        yield op, {"grad_scale": 3.0}, [data, target]
    yield "LinearRegressionOutput", {}, [data[:, :1], target[:, 0]]
    yield "SVMOutput", {}, [data, label]
    yield "SVMOutput", {"use_linear": True}, [data, label]
    yield "SVMOutput", {"margin": 0.5, "regularization_coefficient": 2.0}, [data, label]
    yield "MakeLoss", {}, [data]
    yield "MakeLoss", {"grad_scale": 0.5, "normalization": "batch"}, [data]
    yield "MakeLoss", {"normalization": "valid", "valid_thresh": 0.5}, [data]
    yield "make_loss", {}, [data]


def main(out_path):
    with open(out_path, "w") as out:
        for number, (op, kwargs, arrays) in enumerate(cases()):
            xs = [nd.array(a, dtype=a.dtype) for a in arrays]
            xs[0].attach_grad()
            with autograd.record():
                y = getattr(nd, op)(*xs, **kwargs)
            head = np.random.RandomState(100 + number).uniform(-1, 1, y.shape).astype("float32")
            y.backward(nd.array(head))
            record = {"id": "%s/out%d" % (op, number), "op": op, "kwargs": kwargs,
                      "inputs": [enc(a) for a in arrays], "grad_inputs": [True] + [False] * (len(arrays) - 1),
                      "heads": [enc(head)], "outputs": [enc(y.asnumpy())],
                      "grads": [enc(xs[0].grad.asnumpy())] + [None] * (len(arrays) - 1)}
            out.write(json.dumps(record) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
