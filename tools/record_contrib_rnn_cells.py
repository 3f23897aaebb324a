"""Record `gluon.contrib.rnn` cells' unrolled outputs and final states from MXNet 1.9.1.

Run with a Python that has MXNet 1.9.1 (its MKLDNN convolutions fail on sliced gates: set
MXNET_MKLDNN_ENABLED=0):  python tools/record_contrib_rnn_cells.py tests/data/contrib_rnn_cells.json
Each case fills the cell's parameters and inputs with seeded NumPy values, so the runtime can replay
it exactly (tests/test_runtime_contrib_rnn.py)."""
import json
import sys

import numpy as np

import mxnet as mx
from mxnet.gluon import contrib

CASES = {
    "lstmp": ("LSTMPCell", [6, 3], {}, (2, 4, 5)),
    "conv1d_rnn": ("Conv1DRNNCell", [[3, 7], 4, 3, 3], {}, (2, 3, 3, 7)),
    "conv1d_lstm": ("Conv1DLSTMCell", [[3, 7], 4, 3, 3], {"i2h_pad": (1,)}, (2, 3, 3, 7)),
    "conv2d_gru": ("Conv2DGRUCell", [[2, 5, 6], 3, (3, 3), (3, 3)], {"h2h_dilate": (2, 1)}, (2, 3, 2, 5, 6)),
    "conv3d_lstm": ("Conv3DLSTMCell", [[2, 4, 5, 4], 2, 3, 1], {}, (1, 2, 2, 4, 5, 4)),
}


def run(name, cls, args, kwargs, data_shape):
    rng = np.random.RandomState(sum(map(ord, name)))
    cell = getattr(contrib.rnn, cls)(*args, prefix=name + "_", **kwargs)
    cell.initialize()
    data = mx.nd.array(rng.uniform(-1, 1, data_shape))
    cell.unroll(data_shape[1], data, merge_outputs=True)  # finishes deferred shapes
    params = {}
    for key, param in sorted(cell.collect_params().items()):
        value = rng.uniform(-0.5, 0.5, param.shape)
        param.set_data(mx.nd.array(value))
        params[key[len(name) + 1:]] = value.tolist()
    outputs, states = cell.unroll(data_shape[1], data, merge_outputs=True)
    return {"cls": cls, "args": args, "kwargs": {k: list(v) for k, v in kwargs.items()},
            "data": data.asnumpy().tolist(), "params": params, "outputs": outputs.asnumpy().tolist(),
            "states": [s.asnumpy().tolist() for s in states]}


if __name__ == "__main__":
    with open(sys.argv[1], "w") as f:
        json.dump({name: run(name, *case) for name, case in CASES.items()}, f)
