"""Record, with real MXNet 1.9.1, gluon pooling layers over 3-D volumes and channels-last layouts:
outputs and input gradients (under a fixed head gradient) for tests/test_runtime_pooling.py.

usage: python tools/record_pooling_cases.py tests/data/pooling_cases.json   (a venv with mxnet 1.9.1)
"""
import json
import sys

import numpy as np
import mxnet as mx
from mxnet import autograd
from mxnet.gluon import nn

# (layer class, keyword arguments, input shape)
CASES = [
    ("MaxPool3D", {}, (1, 2, 4, 5, 6)),
    ("MaxPool3D", {"pool_size": 3, "strides": 2, "padding": 1, "ceil_mode": True}, (2, 1, 5, 5, 4)),
    ("AvgPool3D", {"pool_size": (2, 3, 2), "strides": (1, 2, 2), "padding": (1, 1, 0)}, (1, 2, 4, 5, 5)),
    ("AvgPool3D", {"pool_size": 3, "strides": 2, "padding": 1, "count_include_pad": False, "ceil_mode": True},
     (1, 1, 5, 6, 5)),
    ("GlobalAvgPool3D", {}, (2, 3, 2, 3, 4)),
    ("GlobalMaxPool3D", {"layout": "NDHWC"}, (2, 2, 3, 4, 3)),
    ("MaxPool3D", {"pool_size": 2, "layout": "NDHWC"}, (1, 4, 4, 4, 2)),
    ("MaxPool2D", {"pool_size": 3, "strides": 2, "padding": 1, "layout": "NHWC"}, (2, 7, 6, 3)),
    ("AvgPool2D", {"pool_size": 2, "count_include_pad": False, "padding": 1, "layout": "NHWC"}, (1, 5, 5, 2)),
    ("MaxPool1D", {"pool_size": 3, "layout": "NWC"}, (2, 9, 3)),
    ("AvgPool1D", {"pool_size": 2, "strides": 1, "layout": "NWC", "ceil_mode": True}, (1, 6, 2)),
]


def enc(a):
    return {"shape": list(a.shape), "data": a.ravel().tolist()}


def main(out_path):
    rng = np.random.RandomState(11)
    records = []
    for name, kwargs, shape in CASES:
        layer = getattr(nn, name)(**kwargs)
        layer.initialize()
        x = mx.nd.array(rng.uniform(-1, 1, shape).astype("float32"))
        x.attach_grad()
        with autograd.record():
            y = layer(x)
        head = rng.uniform(-1, 1, y.shape).astype("float32")
        y.backward(mx.nd.array(head))
        records.append({"layer": name, "kwargs": kwargs, "input": enc(x.asnumpy()), "head": enc(head),
                        "output": enc(y.asnumpy()), "grad": enc(x.grad.asnumpy())})
    with open(out_path, "w") as out:
        json.dump(records, out)


if __name__ == "__main__":
    main(sys.argv[1])
