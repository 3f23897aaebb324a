"""Eager per-operator cost of the runtime against NumPy doing the same arithmetic, in one run.

usage: python benchmarks/ops.py [--repeat N]
Prints microseconds per call and the runtime's overhead above NumPy.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from runtime import nd  # noqa: E402
from runtime.kernels.nn import convolution  # noqa: E402


def per_call(function, repeat: int) -> float:
    function()
    best = float("inf")
    for _ in range(5):  # the best of five runs: the least disturbed by the rest of the machine
        start = time.perf_counter()
        for _ in range(repeat):
            function()
        best = min(best, (time.perf_counter() - start) / repeat * 1e6)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=2000)
    args = parser.parse_args()
    rng = np.random.default_rng(0)

    small = rng.standard_normal((16,)).astype(np.float32)
    small_nd = nd.array(small)
    x = rng.standard_normal((64, 512)).astype(np.float32)
    w = rng.standard_normal((256, 512)).astype(np.float32)
    b = rng.standard_normal((256,)).astype(np.float32)
    x_nd, w_nd, b_nd = nd.array(x), nd.array(w), nd.array(b)
    image = rng.standard_normal((8, 16, 32, 32)).astype(np.float32)
    kernel = rng.standard_normal((16, 16, 3, 3)).astype(np.float32)
    image_nd, kernel_nd = nd.array(image), nd.array(kernel)

    cases = [
        ("relu on (16,)", lambda: nd.relu(small_nd), lambda: np.maximum(small, 0), args.repeat),
        ("x + 1 on (16,)", lambda: small_nd + 1, lambda: small + np.float32(1), args.repeat),
        ("FullyConnected (64,512)x(512,256)", lambda: nd.FullyConnected(x_nd, w_nd, b_nd, num_hidden=256),
         lambda: x @ w.T + b, max(args.repeat // 10, 10)),
        ("Convolution 3x3 on (8,16,32,32)",
         lambda: nd.Convolution(image_nd, kernel_nd, kernel=(3, 3), pad=(1, 1), num_filter=16, no_bias=True),
         lambda: convolution(image, kernel, kernel=(3, 3), pad=(1, 1), num_filter=16, no_bias=True),
         max(args.repeat // 100, 5)),
    ]
    print("%-36s %12s %12s %12s" % ("operator", "runtime us", "numpy us", "overhead us"))
    for name, ours, reference, repeat in cases:
        a, r = per_call(ours, repeat), per_call(reference, repeat)
        print("%-36s %12.2f %12.2f %12.2f" % (name, a, r, a - r))
    print("(the convolution's reference is the same im2col + BLAS kernel called directly: the difference is the"
          " operator dispatch)")


if __name__ == "__main__":
    main()
