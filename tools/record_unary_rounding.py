"""Record MXNet 1.9.1's float32 transcendental functions, bit for bit: the C library's results,
which NumPy's vectorized float32 loops match only in part.

    python tools/record_unary_rounding.py tests/data/unary_rounding_cases.json   (MXNet's venv)

For each operator, 600 float32 inputs over its domain; inputs and outputs are kept as the
unsigned integers of their bits, so that JSON keeps every last bit.
"""
import json
import sys

import numpy as np

# operator -> (low, high) of its inputs
DOMAINS = {
    "exp": (-20, 20), "expm1": (-5, 5), "log": (1e-3, 1e3), "log2": (1e-3, 1e3), "log10": (1e-3, 1e3),
    "sin": (-10, 10), "cos": (-10, 10), "tan": (-1.5, 1.5), "tanh": (-5, 5), "arctan": (-10, 10),
    "cosh": (-10, 10), "cbrt": (-100, 100),
}


def main(path):
    import mxnet as mx
    rng = np.random.RandomState(11)
    cases = []
    for name, (low, high) in DOMAINS.items():
        x = rng.uniform(low, high, 600).astype(np.float32)
        y = getattr(mx.nd, name)(mx.nd.array(x, dtype="float32")).asnumpy()
        cases.append({"op": name, "x": x.view(np.uint32).tolist(), "y": y.view(np.uint32).tolist()})
    with open(path, "w") as handle:
        json.dump(cases, handle)
        handle.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
