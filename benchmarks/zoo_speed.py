"""Image classifiers from GluonCV's model zoo, hybridized with static_alloc/static_shape: the runtime
against real MXNet 1.9.1 with the same parameters, in interleaved processes.

usage: python benchmarks/zoo_speed.py --gluoncv DIR [--mxnet PYTHON] [--models a,b] [--batches 1,8]
                                      [--repeat N] [--rounds R] [--load K] [--no-first-call] [--json OUT]
       python benchmarks/zoo_speed.py --merge OUT [OUT ...]

DIR holds GluonCV's sources (the directory with the `gluoncv` package; GLUONCV_SRC works too): both
interpreters build the models from the same files. The runtime's process initializes each model
once (random weights, random BatchNorm statistics) and saves the parameters; every process then
loads that file. Each figure is the median of `repeat` timed calls after warm-up, pooled over
`rounds` processes per side, the two sides alternating. Each process's own median is printed too:
on a shared host one process can run slow for its whole life (ResNet-18 at batch 1: 31 or 44 ms
per process, from one minute to the next) and move the pooled median. `--load K` keeps K busy
processes running beside both sides for the whole run. First calls are timed in new processes:
"warm" with the kernel caches filled by earlier runs, "cold" with empty ones (the runtime compiles
every kernel). `--json` writes the run's figures; `--merge` prints, for several such runs, each
ratio of each run and their median: on a host whose speed moves by tens of percent between
minutes, one run's worst ratio is often one slow process.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODELS = {  # name: (GluonCV module, factory)
    "resnet18_v1": ("resnet", "resnet18_v1"),
    "resnet50_v1": ("resnet", "resnet50_v1"),
    "mobilenet_v2_1_0": ("mobilenet", "mobilenet_v2_1_0"),
    "densenet121": ("densenet", "densenet121"),
    "squeezenet1_1": ("squeezenet", "squeezenet1_1"),
    "mobilenetv3_large": ("mobilenetv3", "mobilenet_v3_large"),
}

# Runs in either interpreter (the runtime's gets `import runtime; runtime.as_mxnet()` first).
WORKER = r'''
import json, sys, time
import numpy as np
import mxnet as mx

from _gluoncv_models import build, make_parameters

def main(task):
    t0 = time.perf_counter()
    net = build(task["gluoncv"], task["module"], task["factory"])
    if task.get("make"):
        make_parameters(net, task["params"])
        print(json.dumps({}))
        return
    net.load_parameters(task["params"])
    net.hybridize(static_alloc=True, static_shape=True)
    results = {}
    for batch in task["batches"]:
        x = mx.nd.array(np.random.RandomState(1).uniform(-1, 1, (batch, 3, 224, 224)).astype("float32"))
        t1 = time.perf_counter()
        out = net(x)
        out.wait_to_read()
        first = time.perf_counter() - t1
        if task["first_only"]:
            results[batch] = {"first": first, "before": t1 - t0}
            break
        for _ in range(task["warmup"]):
            net(x).wait_to_read()
        times = []
        for _ in range(task["repeat"]):
            t1 = time.perf_counter()
            net(x).wait_to_read()
            times.append(time.perf_counter() - t1)
        np.save(task["output"] % batch, out.asnumpy())
        results[batch] = {"times": times}
    import resource
    results["peak_rss"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # MB, whole process
    print(json.dumps(results))

main(json.loads(sys.argv[1]))
'''


def worker(python, task, runtime, env_extra=None, what="timed calls"):
    prelude = "import runtime; runtime.as_mxnet()\n" if runtime else ""
    path = os.pathsep.join([str(ROOT), str(ROOT / "benchmarks"), os.environ.get("PYTHONPATH", "")])
    env = dict(os.environ, PYTHONPATH=path, **(env_extra or {}))
    done = subprocess.run([python, "-c", prelude + WORKER, json.dumps(task)], capture_output=True, text=True,
                          env=env)
    if done.returncode != 0:
        sys.exit("%s failed in %s (%s, exit status %d):\n%s"
                 % (task["factory"], python, what, done.returncode, done.stderr[-3000:]))
    return json.loads(done.stdout.strip().splitlines()[-1])


def busy_processes(count):
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]


def relative_difference(a, b):
    import numpy as np
    return float(np.max(np.abs(a - b)) / max(1e-12, float(np.max(np.abs(b)))))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gluoncv", default=os.environ.get("GLUONCV_SRC"), help="directory holding gluoncv/")
    parser.add_argument("--mxnet", metavar="PYTHON", help="an interpreter with mxnet==1.9.1 installed")
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--batches", default="1,8")
    parser.add_argument("--repeat", type=int, default=15, help="timed calls per process and batch")
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=2, help="processes per side and model, interleaved")
    parser.add_argument("--load", type=int, default=0, help="busy processes running beside both sides")
    parser.add_argument("--no-first-call", action="store_true")
    parser.add_argument("--json", metavar="OUT", help="write the figures of this run")
    parser.add_argument("--merge", nargs="+", metavar="OUT", help="the median ratios of runs written by --json")
    args = parser.parse_args()
    if args.merge:
        return merge(args.merge)
    if not args.gluoncv or not (Path(args.gluoncv) / "gluoncv").is_dir():
        sys.exit("--gluoncv DIR (the directory holding GluonCV's `gluoncv` package) is required")
    batches = [int(b) for b in args.batches.split(",")]
    folder = Path(tempfile.mkdtemp(prefix="zoo_speed_"))
    load = busy_processes(args.load)
    try:
        print("zoo speed: %d cpus, load average %s, %d busy processes beside, median of %d calls x %d processes"
              % (os.cpu_count(), " ".join("%.2f" % v for v in os.getloadavg()), args.load, args.repeat, args.rounds))
        ratios = {}
        figures = []
        for model in args.models.split(","):
            module, factory = MODELS[model]
            base = {"gluoncv": args.gluoncv, "module": module, "factory": factory,
                    "params": str(folder / ("%s.params" % model)), "batches": batches, "repeat": args.repeat,
                    "warmup": args.warmup, "first_only": False}
            worker(sys.executable, dict(base, make=True), runtime=True)
            runs = {(side, b): [] for side in ("ours", "theirs") for b in batches}  # each process's times
            rss = {"ours": [], "theirs": []}
            for round_ in range(args.rounds):
                sides = [("ours", sys.executable, True)]
                if args.mxnet:
                    sides.append(("theirs", args.mxnet, False))
                if round_ % 2:
                    sides.reverse()
                for side, python, runtime in sides:
                    task = dict(base, output=str(folder / ("%s_%s_%%d.npy" % (model, side))))
                    result = worker(python, task, runtime)
                    rss[side].append(result["peak_rss"])
                    for b in batches:
                        runs[(side, b)].append(result[str(b)]["times"])
            for b in batches:
                pooled = {side: [t for times in runs[(side, b)] for t in times] for side in ("ours", "theirs")}
                mine = statistics.median(pooled["ours"]) * 1e3
                line = "%-18s batch %d  runtime %8.1f ms" % (model, b, mine)
                if args.mxnet:
                    import numpy as np
                    other = statistics.median(pooled["theirs"]) * 1e3
                    difference = relative_difference(np.load(folder / ("%s_ours_%d.npy" % (model, b))),
                                                     np.load(folder / ("%s_theirs_%d.npy" % (model, b))))
                    ratios[(model, b)] = mine / other
                    figures.append({"model": model, "batch": b, "runtime_ms": mine, "mxnet_ms": other,
                                    "ratio": mine / other})
                    line += "  mxnet %8.1f ms  ratio %.2fx  (outputs differ by %.1e of max)" % (
                        other, mine / other, difference)
                print(line, flush=True)
                each = {side: " ".join("%.1f" % (statistics.median(times) * 1e3) for times in runs[(side, b)])
                        for side in ("ours", "theirs")}
                print("%-28s per process: runtime %s%s" % (
                    "", each["ours"], "; mxnet " + each["theirs"] if args.mxnet else ""))
            print("%-18s peak process memory (RSS, up to batch %d): runtime %.0f MB%s" % (
                model, max(batches), statistics.median(rss["ours"]),
                ", mxnet %.0f MB" % statistics.median(rss["theirs"]) if rss["theirs"] else ""), flush=True)
        if ratios:
            geomean = math.exp(sum(math.log(r) for r in ratios.values()) / len(ratios))
            print("geometric mean of the ratios: %.2fx (%d figures); worst %.2fx" % (
                geomean, len(ratios), max(ratios.values())))
        if args.json:
            Path(args.json).write_text(json.dumps({"load": args.load, "rounds": args.rounds, "repeat": args.repeat,
                                                   "figures": figures}, indent=1))
        if not args.no_first_call:
            first_calls(args, folder)
    finally:
        for process in load:
            process.kill()
            process.wait()


def merge(paths):
    """Each ratio of each run written by --json, and their median; then the geometric mean and
    the worst of the medians."""
    runs = [json.loads(Path(path).read_text()) for path in paths]
    table = {}
    for run in runs:
        for figure in run["figures"]:
            table.setdefault((figure["model"], figure["batch"]), []).append(figure["ratio"])
    medians = {}
    for (model, batch), ratios in table.items():
        medians[(model, batch)] = statistics.median(ratios)
        print("%-18s batch %d  ratios %s  median %.2fx" % (model, batch, " ".join("%.2f" % r for r in ratios),
                                                          medians[(model, batch)]))
    geomean = math.exp(sum(math.log(r) for r in medians.values()) / len(medians))
    print("%d runs (load %s): geometric mean of the medians %.2fx, worst median %.2fx" % (
        len(runs), ",".join(str(run["load"]) for run in runs), geomean, max(medians.values())))


def first_calls(args, folder):
    """The first hybridized call at batch 1 in a new process, for each model made above."""
    for model in args.models.split(","):
        module, factory = MODELS[model]
        task = {"gluoncv": args.gluoncv, "module": module, "factory": factory,
                "params": str(folder / ("%s.params" % model)), "batches": [1], "repeat": 0, "warmup": 0,
                "first_only": True}
        with tempfile.TemporaryDirectory() as empty:
            cold = worker(sys.executable, task, True, {"NUMBA_CACHE_DIR": empty, "XDG_CACHE_HOME": empty},
                          "first call, empty kernel cache")["1"]
        warm = worker(sys.executable, task, True, what="first call, kernel cache filled")["1"]
        line = "%-18s first call: runtime cold %.3f s, warm %.3f s (build and load before it: %.2f s)" % (
            model, cold["first"], warm["first"], warm["before"])
        if args.mxnet:
            line += ", mxnet %.3f s" % worker(args.mxnet, task, False, what="first call")["1"]["first"]
        print(line, flush=True)


if __name__ == "__main__":
    started = time.perf_counter()
    main()
    print("(%.0f s)" % (time.perf_counter() - started))
