"""Record, with real MXNet 1.9.1, `nd.contrib.adamw_update`, `mp_adamw_update`, `multi_adamw_update` and
`multi_mp_adamw_update`: the weight, mean, var (and float32 master weight) after one step, with and
without clipping, with a rescale given as a number and as an NDArray, and a non-finite rescale (the
step is skipped); and `nd.multi_sum_sq`, the sums of squares that gradient clipping by the global
norm reads (and its rejection of mixed dtypes).

    python tools/record_adamw_cases.py tests/data/adamw_cases.json

(a venv with mxnet==1.9.1)
"""
import json
import sys

import mxnet as mx
import numpy as np


def arrays(seed, dtype, shape=(3, 4)):
    rng = np.random.RandomState(seed)
    return {"weight": rng.uniform(-1, 1, shape).astype(dtype), "grad": rng.uniform(-2, 2, shape).astype(dtype),
            "mean": rng.uniform(-0.1, 0.1, shape).astype("float32"), "var": rng.uniform(0, 0.1, shape).astype("float32")}


def listed(values):
    return {k: v.asnumpy().tolist() if hasattr(v, "asnumpy") else v.tolist() for k, v in values.items()}


def main(path):
    cases = []
    for fn, dtype in (("adamw_update", "float32"), ("mp_adamw_update", "float16")):
        for seed, kwargs in ((0, {"lr": 0.5, "eta": 0.1, "wd": 0.01, "rescale_grad": 0.5}),
                             (1, {"lr": 1.0, "eta": 0.2, "clip_gradient": 0.3, "rescale_grad": 2.0, "beta1": 0.8}),
                             (2, {"lr": 1.0, "eta": 0.2, "rescale_grad": float("inf")}),
                             (3, {"lr": 1.0, "eta": 0.05, "rescale_grad": "nd", "epsilon": 1e-6})):
            a = arrays(seed, dtype)
            nds = {k: mx.nd.array(v, dtype=v.dtype) for k, v in a.items()}
            call = dict(kwargs)
            if call["rescale_grad"] == "nd":
                call["rescale_grad"] = mx.nd.array([0.25])
            args = [nds["weight"], nds["grad"], nds["mean"], nds["var"]]
            if fn == "mp_adamw_update":
                nds["weight32"] = mx.nd.array(a["weight"].astype("float32"))
                args.append(nds["weight32"])
            getattr(mx.nd.contrib, fn)(*args, out=nds["weight"], **call)
            cases.append({"fn": fn, "dtype": dtype, "seed": seed,
                          "kwargs": {k: (str(v) if isinstance(v, float) and not np.isfinite(v) else v)
                                     for k, v in kwargs.items()}, "after": listed(nds)})
    for fn, dtype in (("multi_adamw_update", "float32"), ("multi_mp_adamw_update", "float16")):
        sets = [arrays(10 + i, dtype, shape) for i, shape in enumerate([(3, 4), (5,)])]
        nds = [{k: mx.nd.array(v, dtype=v.dtype) for k, v in s.items()} for s in sets]
        lists = [[n[k] for n in nds] for k in ("weight", "grad", "mean", "var")]
        if fn == "multi_mp_adamw_update":
            for n, s in zip(nds, sets):
                n["weight32"] = mx.nd.array(s["weight"].astype("float32"))
            lists.append([n["weight32"] for n in nds])
        getattr(mx.nd.contrib, fn)(*lists, rescale_grad=0.5, lrs=[1.0, 0.5], wds=[0.01, 0.0], etas=[0.1, 0.2],
                                   out=lists[0], clip_gradient=0.8)
        cases.append({"fn": fn, "dtype": dtype, "seeds": [10, 11], "after": [listed(n) for n in nds]})
    rng = np.random.RandomState(20)
    tensors = [rng.uniform(-2, 2, shape).astype("float32") for shape in ((3, 4), (5,), (1, 1, 2))]
    sums = mx.nd.multi_sum_sq(*[mx.nd.array(a) for a in tensors], num_arrays=3)
    halves = [rng.uniform(-2, 2, (4,)).astype("float16") for _ in range(2)]
    half_sums = mx.nd.multi_sum_sq(*[mx.nd.array(a, dtype="float16") for a in halves], num_arrays=2)
    try:
        mx.nd.multi_sum_sq(mx.nd.ones((2,)), mx.nd.ones((2,), dtype="float16"), num_arrays=2).asnumpy()
        error = None
    except mx.base.MXNetError as exc:
        error = [line for line in str(exc).splitlines() if line.startswith("MXNetError")][-1].split(" : ", 1)[-1]
    cases.append({"fn": "multi_sum_sq", "arrays": [a.tolist() for a in tensors], "sums": sums.asnumpy().tolist(),
                  "halves": [a.tolist() for a in halves], "half_sums": half_sums.asnumpy().tolist(),
                  "half_dtype": str(half_sums.dtype.__name__), "mixed_error": error})
    with open(path, "w") as handle:
        json.dump(cases, handle)
        handle.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
