"""How long a second `hyblint verify` of an unchanged tree takes against the first (which runs
every block): the cache keeps each module's answer by its text, the runtime's code and the options.

    python benchmarks/verify_cache.py [--modules N] [--repeat R]

Prints the median wall time of a cold run (empty cache) and of a warm run, and their ratio; cold
and warm runs alternate, each cold run on a fresh cache folder."""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

MODULE = textwrap.dedent("""\
    import numpy as np
    from mxnet import autograd
    from mxnet.gluon import nn


    class Mlp{n}(nn.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.body = nn.HybridSequential()
            self.body.add(nn.Dense(32, in_units=16, activation="relu"), nn.Dense(8))

        def hybrid_forward(self, F, x):
            if autograd.is_training():
                x = x * 0.5
            return self.body(x)


    class Scale{n}(nn.HybridBlock):
        def hybrid_forward(self, F, x):
            return F.reshape(x, shape=(len(x), -1)) * np.random.uniform()
    """)


def run(folder: Path, cache: Path) -> float:
    start = time.perf_counter()
    shapes = ["--shapes=Scale%d=2x3" % n for n in range(len(list(folder.iterdir())))]
    subprocess.run([sys.executable, "-m", "hyblint", "verify", str(folder), "--cache-dir", str(cache)] + shapes,
                   capture_output=True, check=False)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--modules", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "tree"
        folder.mkdir()
        for n in range(args.modules):
            (folder / ("m%d.py" % n)).write_text(MODULE.format(n=n))
        cold, warm = [], []
        for r in range(args.repeat):
            cache = Path(scratch) / ("cache%d" % r)
            cold.append(run(folder, cache))
            warm.append(run(folder, cache))
    first, second = statistics.median(cold), statistics.median(warm)
    print("modules: %d (%d blocks)" % (args.modules, 2 * args.modules))
    print("first run (empty cache): %.2f s (median of %d)" % (first, args.repeat))
    print("second run (unchanged):  %.2f s (median of %d)" % (second, args.repeat))
    print("second / first: %.1f%%" % (100 * second / first))


if __name__ == "__main__":
    main()
