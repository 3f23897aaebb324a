"""Record MXNet 1.9.1's mx.metric values and gluon.utils splitting/clipping, for the runtime's tests.

Run with an interpreter that has `mxnet==1.9.1` (the tests never need it):
    PYTHON tools/record_metric_cases.py fixtures/training/metrics.json
Each metric case: `mx.metric.create(name, **kwargs)`, then updates (lists of labels and
predictions), with `reset_local()` where a step says so; recorded: get() and get_global() after each.
"""
import json
import sys

import mxnet as mx
import numpy as np

rng = np.random.RandomState(11)


def probs(n, c):
    x = rng.uniform(0.01, 1, (n, c)).astype("float32")
    return x / x.sum(axis=1, keepdims=True)


def classes(n, c):
    return rng.randint(0, c, n).astype("float32")


def batches(make, count=3):
    return [make() for _ in range(count)]


CASES = [
    ("acc", {}, batches(lambda: ([classes(6, 4)], [probs(6, 4)]))),
    ("accuracy", {"axis": 0}, batches(lambda: ([classes(4, 5)], [probs(5, 4)]))),
    ("acc", {}, batches(lambda: ([classes(5, 3), classes(4, 3)], [classes(5, 3), probs(4, 3)]))),
    ("top_k_accuracy", {"top_k": 2}, batches(lambda: ([classes(8, 5)], [probs(8, 5)]))),
    ("top_k_acc", {"top_k": 3}, batches(lambda: ([classes(8, 4)], [probs(8, 4)]))),
    ("f1", {}, batches(lambda: ([classes(10, 2)], [probs(10, 2)]))),
    ("f1", {"average": "micro"}, batches(lambda: ([classes(10, 2)], [probs(10, 2)]))),
    ("mcc", {}, batches(lambda: ([classes(12, 2)], [probs(12, 2)]))),
    ("mcc", {"average": "micro"}, batches(lambda: ([classes(12, 2)], [probs(12, 2)]))),
    ("mae", {}, batches(lambda: ([rng.randn(5).astype("float32")], [rng.randn(5).astype("float32")]))),
    ("mse", {}, batches(lambda: ([rng.randn(4, 2).astype("float32")], [rng.randn(4, 2).astype("float32")]))),
    ("rmse", {}, batches(lambda: ([rng.randn(6).astype("float32")], [rng.randn(6, 1).astype("float32")]))),
    ("ce", {}, batches(lambda: ([classes(6, 4)], [probs(6, 4)]))),
    ("nll_loss", {}, batches(lambda: ([classes(6, 4)], [probs(6, 4)]))),
    ("perplexity", {"ignore_label": None}, batches(lambda: ([classes(6, 5)], [probs(6, 5)]))),
    ("perplexity", {"ignore_label": 0}, batches(lambda: ([classes(8, 5)], [probs(8, 5)]))),
    ("pearsonr", {}, batches(lambda: ([rng.randn(7).astype("float32")], [rng.randn(7).astype("float32")]))),
    ("pearsonr", {"average": "micro"},
     batches(lambda: ([rng.randn(7).astype("float32")], [rng.randn(7).astype("float32")]))),
    ("pcc", {}, batches(lambda: ([classes(9, 3)], [probs(9, 3)]))),
    ("loss", {}, batches(lambda: ([], [rng.rand(4).astype("float32")]))),
    (["acc", "mse"], {}, batches(lambda: ([classes(6, 3)], [probs(6, 3)]))),
]


def as_nd(arrays):
    return [mx.nd.array(a) for a in arrays]


def record_metric(name, kwargs, updates):
    metric = mx.metric.create(name, **kwargs)
    steps = []
    for k, (labels, preds) in enumerate(updates):
        if k == 2:
            metric.reset_local()
        metric.update(as_nd(labels), as_nd(preds))
        steps.append({"get": metric.get(), "get_global": metric.get_global()})
    return {"metric": name, "kwargs": kwargs, "steps": steps, "str": str(metric),
            "updates": [[[a.tolist() for a in labels], [a.tolist() for a in preds]] for labels, preds in updates]}


def record_utils():
    data = mx.nd.arange(2 * 11 * 3).reshape((2, 11, 3))
    splits = {str(n): [s.shape for s in mx.gluon.utils.split_data(data, n, batch_axis=1, even_split=False)]
              for n in (1, 2, 3, 4, 5)}
    arrays = [mx.nd.array(rng.randn(3, 4)), mx.nd.array(rng.randn(5))]
    norm = mx.gluon.utils.clip_global_norm(arrays, 1.5)
    small = [mx.nd.array(rng.randn(2) * 0.01)]
    small_norm = mx.gluon.utils.clip_global_norm(small, 1.0, check_isfinite=False)
    return {"splits": splits, "norm": float(norm), "clipped": [a.asnumpy().tolist() for a in arrays],
            "small_norm": small_norm.asnumpy().tolist(), "small": small[0].asnumpy().tolist()}


def main():
    result = {"metrics": [record_metric(n, k, u) for n, k, u in CASES], "utils": record_utils()}
    with open(sys.argv[1], "w") as handle:
        json.dump(result, handle)


if __name__ == "__main__":
    main()
