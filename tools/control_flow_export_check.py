"""A hybridized block with contrib.foreach, while_loop and cond, exported by the runtime, loaded by
real MXNet 1.9.1 (`SymbolBlock.imports`) and run there: the outputs must equal the runtime's.

    python tools/control_flow_export_check.py --mxnet MXNET_PYTHON

The exported JSON holds the control-flow nodes' graphs under `subgraphs`, as MXNet writes them."""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

MXNET_SIDE = """
import sys, json, numpy as np, mxnet as mx
folder = sys.argv[1]
net = mx.gluon.SymbolBlock.imports(folder + "/net-symbol.json", ["data0", "data1"], folder + "/net-0000.params")
x, h = mx.nd.array(np.load(folder + "/x.npy")), mx.nd.array(np.load(folder + "/h.npy"))
print(json.dumps([o.asnumpy().astype(np.float64).tolist() for o in net(x, h)]))
"""


def build(mx):
    class Net(mx.gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.cell = mx.gluon.rnn.GRUCell(4, input_size=3)
                self.w = self.params.get("w", shape=(4,))

        def hybrid_forward(self, F, x, h, w):
            out, states = F.contrib.foreach(self.cell, x, [h])
            loop, (_, acc) = F.contrib.while_loop(
                lambda i, a: i < 2, lambda i, a: (F.broadcast_mul(a, w), [i + 1, F.broadcast_add(F.tanh(a), w)]),
                [F.zeros((1,)), states[0]], max_iterations=3)
            chosen = F.contrib.cond(acc.sum() > 0, lambda: acc * 2, lambda: acc - 1)
            return out, chosen, loop.slice_axis(axis=0, begin=0, end=2)

    net = Net(prefix="net_")
    net.initialize(mx.init.Uniform(0.5))
    net.hybridize()
    return net


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mxnet", required=True, help="a Python with MXNet 1.9.1")
    args = parser.parse_args()
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import runtime
    runtime.as_mxnet()
    import mxnet as mx
    rng = np.random.RandomState(0)
    x, h = rng.uniform(-1, 1, (5, 2, 3)).astype(np.float32), rng.uniform(-1, 1, (2, 4)).astype(np.float32)
    net = build(mx)
    ours = [o.asnumpy() for o in net(mx.nd.array(x), mx.nd.array(h))]
    with tempfile.TemporaryDirectory() as folder:
        net.export(folder + "/net")
        np.save(folder + "/x.npy", x)
        np.save(folder + "/h.npy", h)
        kinds = sorted({n["op"] for n in json.load(open(folder + "/net-symbol.json"))["nodes"] if "subgraphs" in n})
        answer = subprocess.run([args.mxnet, "-c", MXNET_SIDE, folder], capture_output=True, text=True)
    if answer.returncode != 0:
        print("MXNet failed to load or run the exported block:\n" + answer.stderr[-2000:])
        return 1
    theirs = json.loads(answer.stdout.splitlines()[-1])
    worst = max(float(np.abs(np.array(t) - o).max()) for t, o in zip(theirs, ours))
    same = len(theirs) == len(ours) and worst <= 1e-5
    print("exported %s: MXNet's outputs %s the runtime's (largest difference %.3g)"
          % (", ".join(kinds), "equal" if same else "DIFFER from", worst))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
