"""Record MXNet 1.9.1's local key-value store, Parameters on several contexts and gluon.Trainer's
choice of key-value store, for the runtime's tests (tests/test_runtime_kvstore.py).

Run with an interpreter that has `mxnet==1.9.1` (the tests never need it):
    PYTHON tools/record_kvstore_cases.py fixtures/training/kvstore.json
Each case is a small function of `mx`; its result (arrays as lists) or the exception it raised
({"error": type name, "message": first line}) is written under the case's name. The runtime's
tests run the same functions (tests/kvstore_cases.py) with the runtime as `mx`.
"""
import json
import sys
from pathlib import Path

import mxnet as mx

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from kvstore_cases import CASES, outcome  # noqa: E402


def main(out: str) -> None:
    recorded = {name: outcome(case, mx) for name, case in CASES.items()}
    Path(out).write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n")
    print("%d cases -> %s" % (len(recorded), out))


if __name__ == "__main__":
    main(sys.argv[1])
