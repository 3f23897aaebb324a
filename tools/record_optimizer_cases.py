"""Record MXNet 1.9.1's optimizer updates and learning-rate schedules, for the runtime's tests.

Run with an interpreter that has `mxnet==1.9.1` (the tests never need it):
    PYTHON tools/record_optimizer_cases.py fixtures/training/optimizers.json
Each case: an optimizer by name with its arguments, two weights (index 0 named `fc_weight`, index 1
`fc_bias`), three steps of gradients; recorded: the weights after each step and the states after
the last. Schedules: the rate at a run of update counts.
"""
import json
import sys

import mxnet as mx
import numpy as np

CASES = [
    ("sgd", {"learning_rate": 0.1}),
    ("sgd", {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.01}),
    ("sgd", {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.01, "rescale_grad": 0.5, "clip_gradient": 0.3}),
    ("sgd", {"learning_rate": 0.1, "wd": 0.05, "clip_gradient": 0.2, "lazy_update": False}),
    ("nag", {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.01}),
    ("nag", {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.02, "clip_gradient": 0.25, "rescale_grad": 2.0}),
    ("nag", {"learning_rate": 0.1, "wd": 0.02}),
    ("adam", {}),
    ("adam", {"learning_rate": 0.01, "wd": 0.1, "clip_gradient": 0.3, "rescale_grad": 0.5}),
    ("adagrad", {"learning_rate": 0.1, "wd": 0.01}),
    ("adagrad", {"learning_rate": 0.1, "clip_gradient": 0.2, "rescale_grad": 3.0, "eps": 1e-5}),
    ("adadelta", {"wd": 0.01}),
    ("adadelta", {"rho": 0.8, "epsilon": 1e-4, "clip_gradient": 0.3, "rescale_grad": 2.0}),
    ("rmsprop", {"learning_rate": 0.01, "wd": 0.01}),
    ("rmsprop", {"learning_rate": 0.01, "centered": True, "wd": 0.01, "clip_gradient": 0.3}),
    ("rmsprop", {"learning_rate": 0.01, "gamma1": 0.8, "clip_weights": 0.5, "rescale_grad": 2.0}),
    ("ftml", {"learning_rate": 0.05, "wd": 0.01}),
    ("ftml", {"learning_rate": 0.05, "clip_gradient": 0.25, "rescale_grad": 2.0}),
    ("signum", {"learning_rate": 0.05, "wd": 0.01}),
    ("signum", {"learning_rate": 0.05, "momentum": 0.0, "wd": 0.01}),
    ("signum", {"learning_rate": 0.05, "wd_lh": 0.1, "clip_gradient": 0.2}),
    ("lamb", {"learning_rate": 0.01, "wd": 0.01}),
    ("lamb", {"learning_rate": 0.01, "bias_correction": False, "lower_bound": 0.1, "upper_bound": 1.0,
              "clip_gradient": 0.3}),
    ("adamax", {"wd": 0.01}),
    ("nadam", {"wd": 0.01, "clip_gradient": 0.3}),
    ("ftrl", {"wd": 0.01}),
    ("dcasgd", {"learning_rate": 0.1, "wd": 0.01, "lamda": 0.5}),
    ("sgd", {"learning_rate": 0.1, "momentum": 0.5, "multi_precision": False,
             "lr_scheduler": ["FactorScheduler", {"step": 1, "factor": 0.5, "base_lr": 0.1}]}),
]

SCHEDULES = [
    ("FactorScheduler", {"step": 3, "factor": 0.5, "base_lr": 1.0}),
    ("FactorScheduler", {"step": 2, "factor": 0.1, "stop_factor_lr": 1e-3, "base_lr": 1.0, "warmup_steps": 3,
                         "warmup_begin_lr": 0.1}),
    ("MultiFactorScheduler", {"step": [2, 5, 7], "factor": 0.5, "base_lr": 1.0}),
    ("MultiFactorScheduler", {"step": [4], "factor": 0.3, "base_lr": 2.0, "warmup_steps": 2,
                              "warmup_mode": "constant", "warmup_begin_lr": 0.5}),
    ("PolyScheduler", {"max_update": 8, "base_lr": 1.0, "pwr": 2}),
    ("PolyScheduler", {"max_update": 8, "base_lr": 1.0, "pwr": 1, "final_lr": 0.1, "warmup_steps": 2}),
    ("CosineScheduler", {"max_update": 8, "base_lr": 1.0}),
    ("CosineScheduler", {"max_update": 9, "base_lr": 2.0, "final_lr": 0.5, "warmup_steps": 3,
                         "warmup_begin_lr": 0.2}),
]


def make_inputs(case_index):
    rng = np.random.RandomState(100 + case_index)
    weights = [rng.uniform(-1, 1, (3, 4)).astype("float32"), rng.uniform(-1, 1, (4,)).astype("float32")]
    grads = [[rng.uniform(-1, 1, w.shape).astype("float32") for w in weights] for _ in range(3)]
    return weights, grads


def flat_states(state):
    if state is None:
        return [None]
    if isinstance(state, mx.nd.NDArray):
        return [state.asnumpy().tolist()]
    return [x for s in state for x in flat_states(s)]


def record_case(index, name, kwargs):
    weights, grads = make_inputs(index)
    call = dict(kwargs)
    if "lr_scheduler" in call:
        cls, args = call["lr_scheduler"]
        call["lr_scheduler"] = getattr(mx.lr_scheduler, cls)(**args)
    opt = mx.optimizer.create(name, param_idx2name={0: "fc_weight", 1: "fc_bias"}, **call)
    updater = mx.optimizer.get_updater(opt)
    w_nd = [mx.nd.array(w) for w in weights]
    after = []
    for step in grads:
        for i, (w, g) in enumerate(zip(w_nd, step)):
            updater(i, mx.nd.array(g), w)
        after.append([w.asnumpy().tolist() for w in w_nd])
    return {"name": name, "kwargs": kwargs, "weights": [w.tolist() for w in weights],
            "grads": [[g.tolist() for g in step] for step in grads], "after": after,
            "states": [flat_states(updater.states[i]) for i in range(2)], "num_update": opt.num_update}


def record_schedule(cls, kwargs):
    sched = getattr(mx.lr_scheduler, cls)(**kwargs)
    return {"class": cls, "kwargs": kwargs, "lrs": [sched(t) for t in range(12)]}


def main():
    result = {"optimizers": [record_case(i, n, k) for i, (n, k) in enumerate(CASES)],
              "schedules": [record_schedule(c, k) for c, k in SCHEDULES]}
    with open(sys.argv[1], "w") as handle:
        json.dump(result, handle)


if __name__ == "__main__":
    main()
