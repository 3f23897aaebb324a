"""The training scripts of fixtures/training/scripts, run on the runtime from the parameters MXNet
1.9.1 started from: per-step losses, final weights and metrics agree with MXNet's (recorded by
tools/record_training_scripts.py) at rtol 1e-4."""
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

import runtime

SCRIPTS = Path(__file__).resolve().parents[1] / "fixtures" / "training" / "scripts"


def _close(got, want, path="result"):
    if isinstance(want, dict):
        assert sorted(got) == sorted(want), path
        for key in want:
            _close(got[key], want[key], "%s[%r]" % (path, key))
        return
    try:
        expected = np.array(want, dtype=np.float64)
    except ValueError:  # arrays of different shapes side by side: compare each
        assert len(got) == len(want), path
        for i, (g, w) in enumerate(zip(got, want)):
            _close(g, w, "%s[%d]" % (path, i))
        return
    np.testing.assert_allclose(np.array(got, dtype=np.float64), expected, rtol=1e-4, atol=1e-5, err_msg=path)


@pytest.mark.parametrize("name", ["mlp_sgd", "cnn_adam", "lm_clip", "autograd_add", "lstm_lm"])
def test_script_matches_mxnet(name):
    params = SCRIPTS / ("%s.params" % name)
    assert params.exists()  # the script loads it: a missing file would make it write fresh values
    with runtime.as_mxnet():
        spec = importlib.util.spec_from_file_location("training_script_" + name, SCRIPTS / ("%s.py" % name))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        result = module.main(str(params))
    _close(json.loads(json.dumps(result)), json.loads((SCRIPTS / ("%s.json" % name)).read_text()))
