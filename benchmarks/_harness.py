"""Shared timing harness: one model, run eagerly and hybridized on the runtime, and optionally on
real MXNet in another interpreter (the same script text, executed there), all in one run."""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Runs inside either interpreter: `mx` is real MXNet or the runtime installed as mxnet.
TIMING = r'''
import json, sys, time
import numpy as np
import mxnet as mx
from mxnet.gluon import nn

def build():
{build}

def timed(net, x, repeat):
    net(x).wait_to_read()
    start = time.perf_counter()
    for _ in range(repeat):
        out = net(x)
    out.wait_to_read()
    return (time.perf_counter() - start) / repeat * 1e6

def main(batch, repeat, modes):
    mx.random.seed(0)
    np.random.seed(0)
    results = {{}}
    x = mx.nd.array(np.random.uniform(-1, 1, size=(batch,) + {shape}).astype("float32"))
    for mode in modes:
        net = build()
        net.initialize(mx.init.Xavier())
        net(x)
        if mode == "hybridized":
            net.hybridize()
        elif mode == "static_alloc":
            net.hybridize(static_alloc=True, static_shape=True)
        results[mode] = timed(net, x, repeat)
    print(json.dumps(results))

main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3].split(","))
'''


def script(build_body: str, input_shape) -> str:
    return TIMING.format(build="\n".join("    " + line for line in build_body.strip().splitlines()),
                         shape=tuple(input_shape))


# The two models the training benchmarks time, as source run inside either interpreter; each
# builder returns the network and the shape of its input at batch 64.
MODELS = r'''
def mlp():
    net = nn.HybridSequential()
    net.add(nn.Dense(256, activation="relu"), nn.Dense(128, activation="relu"), nn.Dense(2))
    return net, (64, 512)

def lenet():
    net = nn.HybridSequential()
    net.add(nn.Conv2D(6, kernel_size=5, activation="relu"), nn.MaxPool2D(pool_size=2, strides=2),
            nn.Conv2D(16, kernel_size=5, activation="relu"), nn.MaxPool2D(pool_size=2, strides=2),
            nn.Flatten(), nn.Dense(120, activation="relu"), nn.Dense(84, activation="relu"), nn.Dense(10))
    return net, (64, 1, 28, 28)
'''


def run_script(python, source, args, runtime):
    """Run `source` in `python` (with the runtime installed as mxnet when `runtime`), return the JSON
    object its last printed line holds."""
    prelude = "import runtime; runtime.as_mxnet()\n" if runtime else ""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run([python, "-c", prelude + source] + [str(a) for a in args],
                          capture_output=True, text=True, env=env)
    if done.returncode != 0:
        sys.exit("benchmark failed in %s:\n%s" % (python, done.stderr[-2000:]))
    return json.loads(done.stdout.strip().splitlines()[-1])


def run(python, source, batch, repeat, modes, runtime):
    return run_script(python, source, [batch, repeat, ",".join(modes)], runtime)


def first_call(source):
    """Seconds for the first hybridized call in a fresh process (kernel cache warm from earlier runs)."""
    code = ("import time; t0 = time.perf_counter()\nimport runtime; runtime.as_mxnet()\n"
            + source.split("def main(")[0] +
            "net = build(); net.initialize(); net.hybridize()\n"
            "x = mx.nd.ones((1,) + {shape})\nt1 = time.perf_counter(); net(x).wait_to_read()\n"
            "print(time.perf_counter() - t1, t1 - t0)\n")
    return code


def main(name: str, build_body: str, input_shape, batches=(1, 64)):
    parser = argparse.ArgumentParser(description="Time %s: runtime eager vs hybridized (vs real MXNet)." % name)
    parser.add_argument("--mxnet", metavar="PYTHON", help="an interpreter with mxnet==1.9.1 installed")
    parser.add_argument("--repeat", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3, help="processes per figure, interleaved; medians shown")
    args = parser.parse_args()
    source = script(build_body, input_shape)
    print("%s, %d forwards per figure, median of %d interleaved processes, microseconds per forward"
          % (name, args.repeat, args.rounds))
    for batch in batches:
        ours_runs, theirs_runs = [], []
        for _ in range(args.rounds):
            ours_runs.append(run(sys.executable, source, batch, args.repeat, ["eager", "hybridized"], runtime=True))
            if args.mxnet:
                theirs_runs.append(run(args.mxnet, source, batch, args.repeat,
                                       ["eager", "hybridized", "static_alloc"], False))
        ours = {m: statistics.median(r[m] for r in ours_runs) for m in ("eager", "hybridized")}
        line = "batch %3d  runtime eager %9.1f  runtime hybridized %9.1f  (eager/hybridized %.2fx)" % (
            batch, ours["eager"], ours["hybridized"], ours["eager"] / ours["hybridized"])
        print(line)
        if args.mxnet:
            theirs = {m: statistics.median(r[m] for r in theirs_runs) for m in ("eager", "hybridized", "static_alloc")}
            print("           mxnet eager %11.1f  mxnet hybridized %11.1f  mxnet static_alloc %9.1f" % (
                theirs["eager"], theirs["hybridized"], theirs["static_alloc"]))
            print("           runtime hybridized / mxnet static_alloc: %.2fx   / mxnet hybridized: %.2fx" % (
                ours["hybridized"] / theirs["static_alloc"], ours["hybridized"] / theirs["hybridized"]))
    code = first_call(source).replace("{shape}", repr(tuple(input_shape)))
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    if done.returncode == 0:
        call, startup = map(float, done.stdout.split())
        print("first hybridized call in a new process: %.3f s (import and build before it: %.3f s)" % (call, startup))
