"""One training step of a hybridized model: forward under autograd.record(), loss.backward(),
Trainer.step (SGD, momentum 0.9) for the seed MLP on (64, 512) and LeNet on (64, 1, 28, 28), on the
runtime and on real MXNet in another interpreter, interleaved processes, medians and ratios. Both
load their parameters from the same saved file. Then the peak memory of a LeNet step at batch 256.

usage: python benchmarks/train_step.py [--mxnet PYTHON] [--repeat N] [--rounds N]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile

from _harness import MODELS, run_script

# Runs inside either interpreter: `mx` is real MXNet or the runtime installed as mxnet.
STEP = r'''
import json, os, sys, time
import numpy as np
import mxnet as mx
from mxnet import autograd, gluon
from mxnet.gluon import nn

''' + MODELS + r'''
BUILDERS = {"mlp": mlp, "lenet": lenet}
CLASSES = {"mlp": 2, "lenet": 10}

def save(folder):
    mx.random.seed(0)
    for name, build in BUILDERS.items():
        net, shape = build()
        net.initialize(mx.init.Xavier())
        net(mx.nd.zeros(shape))
        net.save_parameters(os.path.join(folder, name + ".params"))
    return {}

def training_step(name, batch, folder):
    """A closure running one step, and the loss of the first step (the same in both interpreters
    when the parameters are)."""
    net, shape = BUILDERS[name]()
    net.load_parameters(os.path.join(folder, name + ".params"))
    net.hybridize()
    rng = np.random.RandomState(1)
    x = mx.nd.array(rng.uniform(-1, 1, size=(batch,) + shape[1:]).astype("float32"))
    y = mx.nd.array(rng.randint(0, CLASSES[name], size=batch).astype("float32"))
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.01, "momentum": 0.9})
    softmax_ce = gluon.loss.SoftmaxCrossEntropyLoss()

    def step():
        with autograd.record():
            loss = softmax_ce(net(x), y)
        loss.backward()
        trainer.step(batch)
        mx.nd.waitall()
        return loss
    return step

def timed(name, repeat, folder):
    step = training_step(name, 64, folder)
    first_loss = float(step().mean().asscalar())
    times = []
    for _ in range(repeat + 2):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return {"ms": sorted(times[2:])[repeat // 2] * 1e3, "first_loss": first_loss}

def status_kib(field):
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field):
                return int(line.split()[1])

def memory(folder, warm):
    """Peak RSS of the third LeNet step at batch 256 above the RSS before the first one (the model
    loaded, the batch made): what a step needs, gradients, optimizer state and pools included. When
    `warm`, a batch-1 step of another copy of the model runs first, so that loading code (the
    runtime's compiled kernels) is not counted. Also the peak of the allocations tracemalloc sees
    during one step (NumPy's buffers; not MXNet's, which it cannot see)."""
    if warm:
        training_step("lenet", 1, folder)()
    step = training_step("lenet", 256, folder)
    before = status_kib("VmRSS:")
    step()
    step()
    with open("/proc/self/clear_refs", "w") as refs:
        refs.write("5")  # resets VmHWM to the current RSS
    step()
    peak = status_kib("VmHWM:")
    import tracemalloc
    tracemalloc.start()
    step()
    traced = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return {"rss_peak_mib": (peak - before) / 1024, "traced_peak_mib": traced / 2 ** 20}

mode, folder = sys.argv[1], sys.argv[2]
if mode == "save":
    print(json.dumps(save(folder)))
elif mode == "time":
    repeat = int(sys.argv[3])
    print(json.dumps({name: timed(name, repeat, folder) for name in BUILDERS}))
else:
    print(json.dumps(memory(folder, mode == "memory-warm")))
'''


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mxnet", metavar="PYTHON", help="an interpreter with mxnet==1.9.1 installed")
    parser.add_argument("--repeat", type=int, default=30, help="steps per process (median taken)")
    parser.add_argument("--rounds", type=int, default=3, help="processes per figure, interleaved; medians shown")
    args = parser.parse_args()
    interpreters = [("runtime", sys.executable, True)]
    if args.mxnet:
        interpreters.append(("mxnet", args.mxnet, False))
    with tempfile.TemporaryDirectory() as folder:
        run_script(sys.executable, STEP, ["save", folder], runtime=True)
        times = {label: [] for label, _, _ in interpreters}
        peaks = {label: [] for label, _, _ in interpreters}
        for _ in range(args.rounds):
            for label, python, runtime in interpreters:
                times[label].append(run_script(python, STEP, ["time", folder, args.repeat], runtime))
                peaks[label].append({mode: run_script(python, STEP, [mode, folder], runtime)
                                     for mode in ("memory-cold", "memory-warm")})
    print("training step (forward, backward, SGD momentum) of a hybridized model at batch 64, ms per step, "
          "median of %d interleaved processes of %d steps; load average %.1f"
          % (args.rounds, args.repeat, os.getloadavg()[0]))
    for model in ("mlp", "lenet"):
        figures = {label: statistics.median(r[model]["ms"] for r in runs) for label, runs in times.items()}
        losses = "  ".join("%s first loss %.6f" % (label, runs[0][model]["first_loss"]) for label, runs in times.items())
        line = "%-6s runtime %8.2f" % (model, figures["runtime"])
        if "mxnet" in figures:
            line += "   mxnet %8.2f   runtime / mxnet %.2fx" % (figures["mxnet"], figures["runtime"] / figures["mxnet"])
        print(line + "   (" + losses + ")")
    print("peak memory of a LeNet step at batch 256, MiB, median of %d processes (RSS: VmHWM of the third step "
          "above VmRSS before the first; cold: from a fresh process, warm: after a batch-1 step loaded the code):"
          % args.rounds)
    for label, runs in peaks.items():
        figures = [statistics.median(r[mode][field] for r in runs)
                   for mode, field in (("memory-cold", "rss_peak_mib"), ("memory-warm", "rss_peak_mib"),
                                       ("memory-warm", "traced_peak_mib"))]
        print("%-8s RSS peak cold %7.1f   warm %7.1f   tracemalloc peak of one step %7.1f" % ((label,) + tuple(figures)))

if __name__ == "__main__":
    main()
