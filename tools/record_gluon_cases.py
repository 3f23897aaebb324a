"""Record Gluon behaviours from MXNet 1.9.1 that MXNet's own test_gluon.py relies on.

Run with a Python that has MXNet 1.9.1:  python tools/record_gluon_cases.py tests/data/gluon_cases.json
Each case is a function of `mx` returning JSON values; tests/test_runtime_gluon_cases.py runs the
same function on the runtime and compares."""
import json
import sys

sys.path.insert(0, __file__.rsplit("/tools/", 1)[0] + "/tests")
from gluon_cases import CASES  # noqa: E402

import mxnet as mx  # noqa: E402


def main(path):
    recorded = {name: case(mx) for name, case in sorted(CASES.items())}
    with open(path, "w") as out:
        json.dump(recorded, out, indent=1, sort_keys=True)
        out.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
