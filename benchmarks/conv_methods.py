"""The runtime's ways of computing a 3x3 stride-1 convolution, timed against each other on the same
inputs, interleaved: Winograd's F(2x2, 3x3) (`runtime/kernels/winograd.py`), shifted products and
columns (`runtime/kernels/conv.py`). Prints the median of each, and the order a model's calls try
them in before the runtime has measured them in the model (`kernels/measured.py`), whose choice
can differ from these isolated times: a method timed alone finds its data in the caches.

usage: python benchmarks/conv_methods.py [--threads 1|free] [--repeat N] [SHAPE ...]
SHAPE: images,channels,size,filters (default: ResNet's, DenseNet's and SqueezeNet's 3x3 layers).
--threads 1 runs every product on one BLAS thread (a machine whose other cores are busy);
`free` lets products use the CPUs other processes leave idle, as forward passes do.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from runtime import threads  # noqa: E402
from runtime.kernels import conv, measured, tiered, winograd  # noqa: E402

SHAPES = ["1,64,56,64", "1,128,28,128", "1,256,14,256", "1,512,7,512", "8,64,56,64",  # ResNet
          "1,128,56,32", "1,128,28,32", "1,128,14,32", "1,128,7,32",  # DenseNet
          "1,16,55,64", "1,32,27,128", "1,64,13,256"]  # SqueezeNet
METHODS = ("winograd", "shifted", "columns")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("shapes", nargs="*", default=SHAPES)
    parser.add_argument("--threads", choices=["1", "free"], default="free")
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    tiered.load_in_this_thread()  # compiled kernels from the first call, never their NumPy twins
    if args.threads == "1":
        threads._most = 1
    rng = np.random.RandomState(0)
    print("%-16s %10s %10s %10s  %s" % (("shape",) + METHODS + ("tried first, then",)))
    for shape in args.shapes:
        n, c, size, filters = (int(v) for v in shape.split(","))
        x = rng.uniform(-1, 1, (n, c, size, size)).astype(np.float32)
        weight = (rng.uniform(-1, 1, (filters, c, 3, 3)) / np.sqrt(9 * c)).astype(np.float32)
        scale, shift = np.empty(0, np.float32), np.zeros(filters, np.float32)
        none = conv.no_residual(np.float32)
        out = np.empty((n, filters, size, size), np.float32)
        geometry = (3, 3, 1, 1, 1, 1, 1, 1, size, size)
        runs = {
            "winograd": lambda: winograd.convolve(x, weight, 1, 1, scale, shift, none, conv.NONE, out),
            "shifted": lambda: conv.shifted_products(x, weight, 1, 1, scale, shift, none, conv.NONE, out),
            "columns": lambda: conv.by_columns(x, weight.reshape(filters, -1), geometry, 1, scale, shift, none,
                                               conv.NONE, out),
        }
        tried = []
        saved = measured.fastest
        measured.fastest = lambda key, methods, run: tried.extend(methods)
        try:
            conv.conv2d(x, weight.reshape(filters, -1), geometry, 1, scale, shift, none, conv.NONE)
        finally:
            measured.fastest = saved
        if not winograd.takes(c, filters):
            del runs["winograd"]
        for run in runs.values():
            run()  # warm-up: kernels loaded, filters kept, scratch grown
        times = {name: [] for name in runs}
        for _ in range(args.repeat):
            for name, run in runs.items():
                start = time.perf_counter()
                run()
                times[name].append(time.perf_counter() - start)
        cells = ["%10.3f" % (statistics.median(times[m]) * 1e3) if m in times else "%10s" % "-" for m in METHODS]
        print("%-16s %s  %s" % (shape, " ".join(cells), ", ".join(tried)))


if __name__ == "__main__":
    main()
