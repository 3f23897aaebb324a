"""Run the training scripts of fixtures/training/scripts on MXNet 1.9.1 and record what they give.

Run with an interpreter that has `mxnet==1.9.1` (the tests never need it):
    PYTHON tools/record_training_scripts.py fixtures/training/scripts
Each script `NAME.py` has `main(params_file)`: with no file there it saves its freshly initialized
parameters to it (NAME.params), so that a run on the runtime starts from the same values; it returns
per-step losses, final weights and metrics, written to NAME.json.
"""
import importlib.util
import json
import os
import sys
from pathlib import Path

SCRIPTS = ["mlp_sgd", "cnn_adam", "lm_clip", "autograd_add", "lstm_lm"]


def main():
    folder = Path(sys.argv[1])
    for name in SCRIPTS:
        params = folder / ("%s.params" % name)
        if params.exists():
            os.remove(params)
        spec = importlib.util.spec_from_file_location(name, folder / ("%s.py" % name))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        result = module.main(str(params))
        (folder / ("%s.json" % name)).write_text(json.dumps(result))
        print(name, "losses" in result and result["losses"][:3])


if __name__ == "__main__":
    main()
