"""Per-step profile of a GluonCV classifier's compiled plan on the runtime.

usage: python benchmarks/zoo_profile.py --gluoncv DIR [--models a,b] [--batch N] [--repeat N]
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402

import runtime  # noqa: E402

runtime.as_mxnet()
import mxnet as mx  # noqa: E402  (the runtime)
from _gluoncv_models import build, make_parameters  # noqa: E402
from zoo_speed import MODELS  # noqa: E402

from runtime.plan_profile import arena_bytes, profile_plan, summary  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gluoncv", default=os.environ.get("GLUONCV_SRC"))
    parser.add_argument("--models", default="resnet50_v1,densenet121")
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--top", type=int, default=12)
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="zoo_profile_")
    for model in args.models.split(","):
        module, factory = MODELS[model]
        net = build(args.gluoncv, module, factory)
        make_parameters(net, os.path.join(folder, model + ".params"))
        net.hybridize(static_alloc=True, static_shape=True)
        x = mx.nd.array(np.random.RandomState(1).uniform(-1, 1, (args.batch, 3, 224, 224)).astype("float32"))
        net(x).wait_to_read()
        graph = next(iter(net._cached.values()))
        start = time.perf_counter()
        for _ in range(args.repeat):
            net(x).wait_to_read()
        whole = (time.perf_counter() - start) / args.repeat
        rows, peak, total = profile_plan(graph.executor, graph.input_names, [x._data], args.repeat)
        arena = arena_bytes(graph.executor.plan_steps(False, graph.input_names))
        print("== %s batch %d: %.2f ms per forward; step outputs: peak %.1f MB alive at once, %.1f MB in all, "
              "arena of the fused steps %.1f MB" % (model, args.batch, whole * 1e3, peak / 2 ** 20, total / 2 ** 20,
                                                    arena / 2 ** 20))
        print(summary(rows, args.top))


if __name__ == "__main__":
    main()
