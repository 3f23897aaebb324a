"""Record Gluon blocks using contrib.foreach / while_loop / cond on MXNet 1.9.1, eagerly and
hybridized: outputs and gradients (the cases are in tests/control_flow_cases.py); and symbols
with control-flow nodes in MXNet's own JSON, with the outputs of a forward pass.

Run with a Python that has MXNet 1.9.1:
    python tools/record_control_flow.py tests/data/control_flow_cases.json
tests/test_control_flow.py runs the same cases on the runtime and compares."""
import json
import sys

sys.path.insert(0, __file__.rsplit("/tools/", 1)[0] + "/tests")
from control_flow_cases import CASES, graphs  # noqa: E402

import mxnet as mx  # noqa: E402


def main(path):
    recorded = {name: {mode: case(mx, mode == "hybridized") for mode in ("eager", "hybridized")}
                for name, case in sorted(CASES.items())}
    recorded["mxnet_json"] = graphs(mx)
    with open(path, "w") as out:
        json.dump(recorded, out, sort_keys=True)
        out.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
