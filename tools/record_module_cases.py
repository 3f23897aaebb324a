"""Record what MXNet 1.9.1's Module does, for the runtime's tests of `mxnet.mod`.

Run with an interpreter that has `mxnet==1.9.1` (the tests never need it):
    PYTHON tools/record_module_cases.py fixtures/training
Writes module.json: a small network (FullyConnected, BatchNorm, a leaky ReLU, softmax output) trained by
Module.fit with given parameters and data (SGD with momentum and weight decay, then Adam from the
saved optimizer states), with its parameters, scores and predictions after each stage; and the
parameters `init_params` gives variables with initializers of their own.
"""
import json
import os
import sys
import tempfile
from pathlib import Path

import mxnet as mx
import numpy as np


def network():
    data = mx.sym.var("data")
    hidden = mx.sym.FullyConnected(data, num_hidden=6, name="fc1")
    hidden = mx.sym.BatchNorm(hidden, name="bn", fix_gamma=False)
    hidden = mx.sym.LeakyReLU(hidden, act_type="leaky", slope=0.1, name="leaky")
    out = mx.sym.FullyConnected(hidden, num_hidden=3, name="fc2")
    return mx.sym.SoftmaxOutput(out, name="softmax")


def listed(arrays):
    return {name: value.asnumpy().astype("float64").tolist() for name, value in sorted(arrays.items())}


def main(out: Path) -> None:
    rng = np.random.RandomState(7)
    x = rng.uniform(-1, 1, (10, 4)).astype("float32")
    y = rng.randint(0, 3, (10,)).astype("float32")
    shapes = {"fc1_weight": (6, 4), "fc1_bias": (6,), "bn_gamma": (6,), "bn_beta": (6,),
              "fc2_weight": (3, 6), "fc2_bias": (3,)}
    start = {name: rng.uniform(-0.5, 0.5, shape).astype("float32") for name, shape in shapes.items()}
    start_aux = {"bn_moving_mean": np.zeros(6, "float32"), "bn_moving_var": np.ones(6, "float32")}
    case = {"x": x.tolist(), "y": y.tolist(), "arg_params": {k: v.tolist() for k, v in start.items()},
            "aux_params": {k: v.tolist() for k, v in start_aux.items()}, "batch_size": 4}

    module = mx.mod.Module(network(), data_names=("data",), label_names=("softmax_label",))
    train = mx.io.NDArrayIter(x, y, batch_size=4, shuffle=False, last_batch_handle="pad")
    module.fit(train, num_epoch=3, optimizer="sgd",
               optimizer_params={"learning_rate": 0.1, "momentum": 0.9, "wd": 0.01},
               arg_params={k: mx.nd.array(v) for k, v in start.items()},
               aux_params={k: mx.nd.array(v) for k, v in start_aux.items()}, eval_metric="acc")
    arg_params, aux_params = module.get_params()
    case["after_sgd"] = {"arg_params": listed(arg_params), "aux_params": listed(aux_params),
                         "score": module.score(train, "ce"),
                         "predict": module.predict(train).asnumpy().astype("float64").tolist()}
    with tempfile.TemporaryDirectory() as scratch:
        prefix = os.path.join(scratch, "net")
        module.save_checkpoint(prefix, 3, save_optimizer_states=True)
        loaded = mx.mod.Module.load(prefix, 3, load_optimizer_states=True, data_names=("data",),
                                    label_names=("softmax_label",))
        loaded.bind(data_shapes=train.provide_data, label_shapes=train.provide_label)
        loaded.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.1, "momentum": 0.9, "wd": 0.01})
        train.reset()
        batch = next(iter(train))
        loaded.forward_backward(batch)
        loaded.update()
        case["after_resumed_step"] = {"arg_params": listed(loaded.get_params()[0])}

    initialized = mx.mod.Module(mx.sym.LeakyReLU(mx.sym.BatchNorm(mx.sym.var("data"), name="bn"),
                                                 gamma=mx.sym.var("slope", init=mx.init.Constant(0.5)),
                                                 act_type="prelu", name="act"), label_names=None)
    initialized.bind(data_shapes=[("data", (2, 3))], for_training=False)
    initialized.init_params(mx.init.Uniform(0.1))
    arg_params, aux_params = initialized.get_params()
    case["own_initializers"] = {"arg_params": listed(arg_params),
                                "aux_params": listed(aux_params), "attr_dict": initialized.symbol.attr_dict()}
    (out / "module.json").write_text(json.dumps(case) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
