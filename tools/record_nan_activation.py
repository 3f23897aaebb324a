"""Record, with real MXNet 1.9.1, what ReLU does to NaN, for tests/test_runtime_nan_activation.py:
the Activation operator (act_type 'relu', as gluon.nn.Activation and the layers' activation=
'relu') gives 0 for NaN, the `relu` operator keeps NaN; in a block, eagerly and hybridized, where a
BatchNorm of a negative running variance (GluonCV's SSD feature expanders after MXNet's default
initialization) makes the NaN.

usage: python tools/record_nan_activation.py tests/data/nan_activation_cases.json   (a venv with mxnet 1.9.1)
"""
import json
import sys

import numpy as np


def build_net(nn):
    """conv -> BatchNorm (some channels' running variance negative) -> ReLU, then a Dense layer
    with a ReLU activation, and a branch through the `relu` operator; `nn`: gluon.nn of MXNet or
    of the runtime (the test builds the same block)."""

    class Net(nn.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.conv = nn.Conv2D(4, 3, padding=1, in_channels=2)
                self.bn = nn.BatchNorm(in_channels=4)
                self.act = nn.Activation("relu")
                self.conv2 = nn.Conv2D(3, 1, in_channels=4, activation="relu")
                self.dense = nn.Dense(5, activation="relu", in_units=4 * 3 * 3)

        def hybrid_forward(self, F, x):
            y = self.bn(self.conv(x))
            return self.act(y), self.conv2(y), self.dense(y), F.relu(y)

    return Net(prefix="net_")


def enc(a):
    return {"shape": list(a.shape), "data": [None if np.isnan(v) else float(v) for v in a.ravel()]}


def main(out_path):
    import mxnet as mx
    from mxnet.gluon import nn
    rng = np.random.RandomState(2)
    x = rng.uniform(-1, 1, (1, 2, 3, 3)).astype("float32")
    values = {"x": mx.nd.array(x), "plain": mx.nd.array([[np.nan, -1.0, 0.0, 2.5]])}
    ops = {"Activation": mx.nd.Activation(values["plain"], act_type="relu").asnumpy(),
           "relu": mx.nd.relu(values["plain"]).asnumpy()}
    net = build_net(nn)
    net.initialize(mx.init.Uniform(0.5))
    net.bn.running_var.set_data(mx.nd.array([0.5, -0.5, 1.0, -2.0]))
    params = {k: v.data().asnumpy() for k, v in net.collect_params().items()}
    eager = [o.asnumpy() for o in net(values["x"])]
    net.hybridize()
    hybridized = [o.asnumpy() for o in net(values["x"])]
    record = {"plain": enc(values["plain"].asnumpy()), "ops": {k: enc(v) for k, v in ops.items()},
              "input": enc(x), "params": {k: enc(v) for k, v in params.items()},
              "eager": [enc(o) for o in eager], "hybridized": [enc(o) for o in hybridized]}
    with open(out_path, "w") as f:
        json.dump(record, f)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
