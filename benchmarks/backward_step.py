"""Forward and backward under autograd.record() of a hybridized model (the seed MLP on (64, 512),
LeNet on (64, 1, 28, 28)): the runtime, and real MXNet in another interpreter, interleaved
processes, medians. The optimizer's step is not included.

usage: python benchmarks/backward_step.py [--mxnet PYTHON] [--repeat N] [--rounds N]
"""
from __future__ import annotations

import argparse
import statistics
import sys

from _harness import MODELS, run_script

# Runs inside either interpreter: `mx` is real MXNet or the runtime installed as mxnet.
STEP = r'''
import json, sys, time
import numpy as np
import mxnet as mx
from mxnet import autograd
from mxnet.gluon import nn

''' + MODELS + r'''
def timed(build, repeat):
    np.random.seed(0)
    net, shape = build()
    net.initialize(mx.init.Xavier())
    x = mx.nd.array(np.random.uniform(-1, 1, size=shape).astype("float32"))
    net(x)
    net.hybridize()
    for param in net.collect_params().values():
        param.data().attach_grad()
    times = []
    for _ in range(repeat + 3):
        start = time.perf_counter()
        with autograd.record():
            loss = (net(x) ** 2).sum()
        loss.backward()
        mx.nd.waitall()
        times.append(time.perf_counter() - start)
    return sorted(times[3:])[repeat // 2] * 1e3

repeat = int(sys.argv[1])
print(json.dumps({"mlp": timed(mlp, repeat), "lenet": timed(lenet, repeat)}))
'''


def run(python: str, repeat: int, runtime: bool) -> dict:
    return run_script(python, STEP, [repeat], runtime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mxnet", metavar="PYTHON", help="an interpreter with mxnet==1.9.1 installed")
    parser.add_argument("--repeat", type=int, default=30, help="steps per process (median taken)")
    parser.add_argument("--rounds", type=int, default=3, help="processes per figure, interleaved; medians shown")
    args = parser.parse_args()
    ours, theirs = [], []
    for _ in range(args.rounds):
        ours.append(run(sys.executable, args.repeat, runtime=True))
        if args.mxnet:
            theirs.append(run(args.mxnet, args.repeat, runtime=False))
    print("forward + backward of a hybridized model at batch 64, ms per step, median of %d interleaved processes"
          % args.rounds)
    for model in ("mlp", "lenet"):
        mine = statistics.median(r[model] for r in ours)
        line = "%-6s runtime %8.2f" % (model, mine)
        if theirs:
            reference = statistics.median(r[model] for r in theirs)
            line += "   mxnet %8.2f   runtime / mxnet %.2fx" % (reference, mine / reference)
        print(line)


if __name__ == "__main__":
    main()
