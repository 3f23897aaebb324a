"""Record, with real MXNet 1.9.1, the CTC loss and its gradient w.r.t. the activations: the operator
(blank first and last, with and without sequence and label lengths, repeated labels) and
gluon.loss.CTCLoss (layout NTC), in the format of fixtures/golden/grads.jsonl; a gluon case has
"gluon": true and the loss's constructor arguments in "kwargs".

usage: python tools/record_ctc_grads.py fixtures/golden/grads_ctc.jsonl   (a venv with mxnet 1.9.1)
"""
import json
import sys

import numpy as np
import mxnet as mx
from mxnet import autograd, gluon, nd


def enc(a):
    a = np.asarray(a)
    return {"shape": list(a.shape), "dtype": str(a.dtype), "data": a.ravel().tolist()}


def cases():
    rng = np.random.RandomState(11)
    data = rng.uniform(-2, 2, (6, 3, 5)).astype("float32")  # (sequence, batch, alphabet)
    first = np.array([[1, 2, 0], [3, 3, 0], [4, 2, 1]], "float32")  # blank 0 pads; a repeated label
    last = np.array([[0, 1, -1], [3, 3, -1], [2, 0, 1]], "float32")  # blank 4, padding -1
    seq_lengths = np.array([6, 4, 5], "float32")
    label_lengths = np.array([2, 1, 3], "float32")
    yield "CTCLoss", {}, [data, first]
    yield "CTCLoss", {"blank_label": "last"}, [data, last]
    yield "CTCLoss", {"use_data_lengths": True}, [data, first, seq_lengths]
    yield "CTCLoss", {"use_data_lengths": True, "use_label_lengths": True, "blank_label": "last"}, \
        [data, last, seq_lengths, label_lengths]
    yield "ctc_loss", {"use_label_lengths": True}, [data, first, label_lengths]
    long_data = rng.uniform(-3, 3, (12, 2, 4)).astype("float32")
    yield "contrib.CTCLoss", {}, [long_data, np.array([[1, 1, 2, 3], [2, 3, 2, 0]], "float32")]


def gluon_cases():
    rng = np.random.RandomState(12)
    pred = rng.uniform(-2, 2, (3, 7, 5)).astype("float32")  # (batch, sequence, alphabet)
    label = np.array([[0, 1, -1], [3, 3, -1], [2, 0, 1]], "float32")
    yield {}, [pred, label]
    yield {}, [pred, label, np.array([7, 5, 6], "float32"), np.array([2, 2, 3], "float32")]
    yield {"weight": 0.5}, [pred, label]


def record_op(number, op, kwargs, arrays):
    xs = [nd.array(a, dtype=a.dtype) for a in arrays]
    xs[0].attach_grad()
    function = nd
    for part in op.split("."):
        function = getattr(function, part)
    with autograd.record():
        y = function(*xs, **kwargs)
    head = np.random.RandomState(200 + number).uniform(0.5, 1.5, y.shape).astype("float32")
    y.backward(nd.array(head))
    return {"id": "%s/ctc%d" % (op, number), "op": op, "kwargs": kwargs,
            "inputs": [enc(a) for a in arrays], "grad_inputs": [True] + [False] * (len(arrays) - 1),
            "heads": [enc(head)], "outputs": [enc(y.asnumpy())],
            "grads": [enc(xs[0].grad.asnumpy())] + [None] * (len(arrays) - 1)}


def record_gluon(number, kwargs, arrays):
    xs = [nd.array(a, dtype=a.dtype) for a in arrays]
    xs[0].attach_grad()
    loss = gluon.loss.CTCLoss(**kwargs)
    with autograd.record():
        y = loss(xs[0], xs[1], *xs[2:])
    y.backward()
    return {"id": "gluon.loss.CTCLoss/ctc%d" % number, "op": "gluon.loss.CTCLoss", "gluon": True,
            "kwargs": kwargs, "inputs": [enc(a) for a in arrays],
            "grad_inputs": [True] + [False] * (len(arrays) - 1), "heads": [None],
            "outputs": [enc(y.asnumpy())], "grads": [enc(xs[0].grad.asnumpy())] + [None] * (len(arrays) - 1)}


def main(out_path):
    assert mx.__version__ == "1.9.1", mx.__version__
    records = [record_op(n, *case) for n, case in enumerate(cases())]
    records += [record_gluon(n, *case) for n, case in enumerate(gluon_cases())]
    with open(out_path, "w") as out:
        for record in records:
            out.write(json.dumps(record) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
