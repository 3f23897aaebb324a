"""Record model files written by real MXNet 1.9.1, for the runtime's file-format tests.

Run with an interpreter that has `mxnet==1.9.1` (never needed by the tests themselves):
    PYTHON tools/record_mxnet_files.py fixtures/mxnet_files
Writes: mlp-symbol.json and mlp-0000.params (HybridBlock.export), mlp.params (save_parameters),
arrays.nd (nd.save of a dict), and expected.json (the input and MXNet's output).
"""
import json
import sys
from pathlib import Path

import mxnet as mx
import numpy as np
from mxnet.gluon import nn

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
mx.random.seed(3)
net = nn.HybridSequential()
net.add(nn.Dense(8, activation="relu"), nn.BatchNorm(), nn.Dense(3))
net.initialize(mx.init.Xavier())
x = mx.nd.array(np.random.RandomState(5).uniform(-1, 1, size=(2, 4)).astype("float32"))
net(x)
net.hybridize()
y = net(x)
net.export(str(out / "mlp"))
net.save_parameters(str(out / "mlp.params"))
mx.nd.save(str(out / "arrays.nd"), {"ints": mx.nd.array([1, 2, 3], dtype="int32"),
                                    "matrix": mx.nd.array([[1.5, -2.0], [0.25, 4.0]])})
(out / "expected.json").write_text(json.dumps({"input": x.asnumpy().tolist(), "output": y.asnumpy().tolist()}))
print("recorded into", out)
