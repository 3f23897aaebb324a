"""Record, with real MXNet 1.9.1, the order topk, argsort and sort give equal values (ties), for
tests/test_runtime_ordering.py: lanes of few distinct values, k small (MXNet's partial sort) and
large (its full sort), both directions, another axis and the flattened array.

usage: python tools/record_ordering_cases.py tests/data/ordering_cases.json   (a venv with mxnet 1.9.1)
"""
import json
import sys

import numpy as np
import mxnet as mx

# (operator, keyword arguments, input shape, distinct values in the input)
CASES = [
    ("topk", {"k": 3}, (2, 10), 2),
    ("topk", {"k": 2, "is_ascend": True}, (3, 40), 3),
    ("topk", {"k": 100, "ret_typ": "both"}, (1, 1280), 1),
    ("topk", {"k": 6, "ret_typ": "both", "is_ascend": True}, (2, 50), 2),
    ("topk", {"k": 7, "ret_typ": "mask"}, (2, 50), 2),
    ("topk", {"k": 5, "axis": 0}, (60, 3), 3),
    ("topk", {"k": 4, "axis": None}, (5, 8), 2),
    ("topk", {"k": 33, "ret_typ": "value"}, (2, 33), 3),
    ("argsort", {}, (2, 200), 2),
    ("argsort", {"is_ascend": False}, (3, 1000), 3),
    ("argsort", {"axis": 0}, (17, 4), 2),
    ("argsort", {"axis": None}, (6, 7), 3),
    ("sort", {"is_ascend": False}, (2, 30), 4),
]


def main(out_path):
    rng = np.random.RandomState(3)
    records = []
    for op, kwargs, shape, distinct in CASES:
        x = rng.randint(0, distinct, shape).astype("float32") - 0.5
        out = getattr(mx.nd, op)(mx.nd.array(x), **kwargs)
        outs = out if isinstance(out, (list, tuple)) else [out]
        records.append({"op": op, "kwargs": kwargs, "input": {"shape": list(shape), "data": x.ravel().tolist()},
                        "outputs": [{"shape": list(o.shape), "data": o.asnumpy().ravel().tolist()} for o in outs]})
    with open(out_path, "w") as f:
        json.dump(records, f)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
