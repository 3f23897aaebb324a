"""Record, with real MXNet 1.9.1, the gradients of the fused recurrent operator RNN (each mode, layers,
directions, final states as outputs) with respect to its data, parameters and initial states, in the
format of fixtures/golden/grads.jsonl. MXNet's CPU kernel has no LSTM projection and no sequence
lengths, so those are checked against finite differences only (tests/test_autograd_numeric.py).

usage: python tools/record_rnn_grads.py fixtures/golden/grads_rnn.jsonl   (a venv with mxnet 1.9.1)
"""
import json
import sys

import numpy as np
from mxnet import autograd, nd

GATES = {"rnn_relu": 1, "rnn_tanh": 1, "lstm": 4, "gru": 3}


def enc(a):
    a = np.asarray(a)
    return {"shape": list(a.shape), "dtype": str(a.dtype), "data": a.ravel().tolist()}


def parameter_count(mode, features, hidden, layers, directions):
    gates = GATES[mode]
    total = 0
    for layer in range(layers):
        width = features if layer == 0 else directions * hidden
        total += directions * (gates * hidden * (width + hidden) + 2 * gates * hidden)
    return total


def cases():
    for mode, layers, bidirectional, state_outputs in [
            ("lstm", 1, False, False), ("gru", 2, False, False), ("rnn_tanh", 1, True, False),
            ("rnn_relu", 2, False, True), ("lstm", 2, True, True), ("gru", 1, True, True)]:
        yield mode, layers, bidirectional, state_outputs


def main(out_path):
    rng = np.random.RandomState(3)
    steps, batch, features, hidden = 4, 3, 5, 4
    with open(out_path, "w") as out:
        for number, (mode, layers, bidirectional, state_outputs) in enumerate(cases()):
            directions = 2 if bidirectional else 1
            arrays = [rng.uniform(-1, 1, (steps, batch, features)).astype("float32"),
                      rng.uniform(-0.5, 0.5, (parameter_count(mode, features, hidden, layers, directions),))
                      .astype("float32"),
                      rng.uniform(-1, 1, (layers * directions, batch, hidden)).astype("float32")]
            if mode == "lstm":
                arrays.append(rng.uniform(-1, 1, (layers * directions, batch, hidden)).astype("float32"))
            kwargs = {"state_size": hidden, "num_layers": layers, "mode": mode, "bidirectional": bidirectional,
                      "state_outputs": state_outputs}
            xs = [nd.array(a, dtype=a.dtype) for a in arrays]
            for x in xs:
                x.attach_grad()
            with autograd.record():
                y = nd.RNN(*xs, **kwargs)
            outs = list(y) if isinstance(y, (list, tuple)) else [y]
            heads = [rng.uniform(-1, 1, o.shape).astype("float32") for o in outs]
            autograd.backward(outs, [nd.array(h) for h in heads])
            record = {"id": "RNN/%s%d" % (mode, number), "op": "RNN", "kwargs": kwargs,
                      "inputs": [enc(a) for a in arrays], "grad_inputs": [True] * len(arrays),
                      "heads": [enc(h) for h in heads], "outputs": [enc(o.asnumpy()) for o in outs],
                      "grads": [enc(x.grad.asnumpy()) for x in xs]}
            out.write(json.dumps(record) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
