"""Record MXNet 1.9.1's gluon.loss values, eager and hybridized, for the runtime's tests.

Run with an interpreter that has `mxnet==1.9.1` (the tests never need it):
    PYTHON tools/record_loss_cases.py fixtures/training/losses.json
Each case: a loss class with constructor arguments, named inputs (arrays or None, passed by position
in the order given), the eager output and the hybridized output (or the error MXNet raised).
"""
import json
import sys

import mxnet as mx
import numpy as np
from mxnet.gluon import loss as gloss

rng = np.random.RandomState(7)


def u(*shape, low=-1.0, high=1.0):
    return rng.uniform(low, high, shape).astype("float32")


def ints(high, *shape):
    return rng.randint(0, high, shape).astype("float32")


def signs(*shape):
    return np.where(rng.rand(*shape) > 0.5, 1.0, -1.0).astype("float32")


CASES = [
    ("L2Loss", {}, {"pred": u(4, 3), "label": u(4, 3)}),
    ("L2Loss", {"weight": 3.0}, {"pred": u(4, 1), "label": u(4), "sample_weight": u(4, 1, low=0)}),
    ("L1Loss", {}, {"pred": u(3, 2, 2), "label": u(3, 2, 2)}),
    ("L1Loss", {"weight": 0.5, "batch_axis": 1}, {"pred": u(2, 3), "label": u(2, 3)}),
    ("SigmoidBinaryCrossEntropyLoss", {}, {"pred": u(4, 3, low=-3, high=3), "label": ints(2, 4, 3)}),
    ("SigmoidBinaryCrossEntropyLoss", {"from_sigmoid": True},
     {"pred": u(4, 3, low=0.01, high=0.99), "label": ints(2, 4, 3), "sample_weight": u(4, 1, low=0)}),
    ("SigmoidBinaryCrossEntropyLoss", {}, {"pred": u(4, 3, low=-3, high=3), "label": ints(2, 4, 3),
                                           "sample_weight": None, "pos_weight": u(1, 3, low=0.5, high=2)}),
    ("SigmoidBinaryCrossEntropyLoss", {"from_sigmoid": True}, {"pred": u(4, 3, low=0.01, high=0.99),
                                                               "label": ints(2, 4, 3), "sample_weight": None,
                                                               "pos_weight": u(1, 3, low=0.5, high=2)}),
    ("SoftmaxCrossEntropyLoss", {}, {"pred": u(5, 4, low=-2, high=2), "label": ints(4, 5)}),
    ("SoftmaxCrossEntropyLoss", {"sparse_label": False},
     {"pred": u(5, 4, low=-2, high=2), "label": np.eye(4, dtype="float32")[ints(4, 5).astype(int)]}),
    ("SoftmaxCrossEntropyLoss", {"from_logits": True, "weight": 2.0},
     {"pred": np.log(u(3, 4, low=0.05, high=1)), "label": ints(4, 3)}),
    ("SoftmaxCrossEntropyLoss", {"axis": 1}, {"pred": u(2, 4, 3, low=-2, high=2), "label": ints(4, 2, 3)}),
    ("SoftmaxCrossEntropyLoss", {}, {"pred": u(2, 3, 5), "label": ints(5, 2, 3), "sample_weight": u(2, 3, 1, low=0)}),
    ("KLDivLoss", {}, {"pred": np.log(u(3, 4, low=0.05, high=1)), "label": u(3, 4, low=0.05, high=1)}),
    ("KLDivLoss", {"from_logits": False, "axis": 1}, {"pred": u(3, 4), "label": u(3, 4, low=0.05, high=1)}),
    ("CTCLoss", {}, {"pred": u(2, 6, 4, low=-2, high=2), "label": np.array([[0, 1, 2], [2, 2, -1]], "float32")}),
    ("CTCLoss", {"layout": "TNC", "label_layout": "TN"},
     {"pred": u(6, 2, 5, low=-2, high=2), "label": np.array([[0, 3], [1, 3], [-1, 1]], "float32")}),
    ("CTCLoss", {}, {"pred": u(2, 6, 4, low=-2, high=2), "label": np.array([[0, 1, 2], [2, 1, 0]], "float32"),
                     "pred_lengths": np.array([6, 4], "float32"), "label_lengths": np.array([3, 2], "float32")}),
    ("HuberLoss", {}, {"pred": u(4, 3, low=-3, high=3), "label": u(4, 3, low=-3, high=3)}),
    ("HuberLoss", {"rho": 0.5}, {"pred": u(4, 3, low=-3, high=3), "label": u(4, 3, low=-3, high=3),
                                 "sample_weight": u(4, 1, low=0)}),
    ("HingeLoss", {}, {"pred": u(4, 3, low=-2, high=2), "label": signs(4, 3)}),
    ("HingeLoss", {"margin": 0.5}, {"pred": u(4, 3, low=-2, high=2), "label": signs(4, 3)}),
    ("SquaredHingeLoss", {}, {"pred": u(4, 3, low=-2, high=2), "label": signs(4, 3)}),
    ("LogisticLoss", {}, {"pred": u(4, 3, low=-3, high=3), "label": signs(4, 3)}),
    ("LogisticLoss", {"label_format": "binary"}, {"pred": u(4, 3, low=-3, high=3), "label": ints(2, 4, 3)}),
    ("TripletLoss", {}, {"pred": u(4, 3), "positive": u(4, 3), "negative": u(4, 3)}),
    ("TripletLoss", {"margin": 0.1}, {"pred": u(4, 3), "positive": u(4, 3), "negative": u(4, 3)}),
    ("PoissonNLLLoss", {}, {"pred": u(4, 3), "target": ints(5, 4, 3)}),
    ("PoissonNLLLoss", {"from_logits": False, "compute_full": True},
     {"pred": u(4, 3, low=0.1, high=3), "target": ints(5, 4, 3) + 1}),
    ("CosineEmbeddingLoss", {}, {"input1": u(4, 5), "input2": u(4, 5), "label": signs(4)}),
    ("CosineEmbeddingLoss", {"margin": 0.2}, {"input1": u(4, 5), "input2": u(4, 5), "label": signs(4)}),
    ("SDMLLoss", {}, {"x1": u(4, 3), "x2": u(4, 3)}),
]


def run(block, inputs):
    try:
        return block(*[None if v is None else mx.nd.array(v) for v in inputs.values()]).asnumpy().tolist()
    except Exception as exc:  # recorded: the runtime must fail too
        return {"error": type(exc).__name__}


def main():
    cases = []
    for name, kwargs, inputs in CASES:
        eager = run(getattr(gloss, name)(**kwargs), inputs)
        block = getattr(gloss, name)(**kwargs)
        block.hybridize()
        hybrid = run(block, inputs)
        cases.append({"loss": name, "kwargs": kwargs, "inputs": {k: None if v is None else v.tolist() for k, v in inputs.items()},
                      "eager": eager, "hybridized": hybrid})
    with open(sys.argv[1], "w") as handle:
        json.dump(cases, handle)


if __name__ == "__main__":
    main()
