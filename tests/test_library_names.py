"""The MXNet names GluonCV 0.10.5 and GluonNLP 0.10.0 use resolve on the runtime after `as_mxnet()`.

tests/data/library_mxnet_names.json lists them, read from the packages' sources by
tools/mxnet_names.py (which also imports the packages themselves where they are installed). Every
name used when a module is imported must resolve (that is what `import gluoncv` and
`import gluonnlp` need); of those used inside functions, all but the ones listed below must.
"""
import json
import sys
from pathlib import Path

import pytest

import runtime

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from mxnet_names import resolve  # noqa: E402  (how the tool resolves a name on the runtime)

NAMES = json.loads((Path(__file__).parent / "data" / "library_mxnet_names.json").read_text())

# used only inside functions, and not on the runtime yet
MISSING_AT_CALL = {
    "mxnet.contrib.amp.init_trainer", "mxnet.contrib.amp.scale_loss",
    "mxnet.gluon.data.vision.transforms.RandomColorJitter", "mxnet.gluon.data.vision.transforms.RandomLighting",
    "mxnet.io.ImageRecordIter", "mxnet.io.MXDataIter",
    "mxnet.numpy.stack", "mxnet.viz.plot_network",
}


@pytest.fixture(scope="module")
def mx():
    with runtime.as_mxnet() as module:
        yield module


def failures(names):
    failed = {}
    for name in names:
        try:
            resolve(name)
        except Exception as error:  # noqa: BLE001 (listed below, whatever it is)
            failed[name] = "%s: %s" % (type(error).__name__, error)
    return failed


def test_names_used_at_import_resolve(mx):
    at_import = [name for name, entry in NAMES.items() if entry["when"] == "import"]
    assert len(at_import) > 100
    assert failures(at_import) == {}


def test_names_used_in_functions_resolve(mx):
    in_functions = [name for name, entry in NAMES.items() if entry["when"] == "call"]
    failed = failures(in_functions)
    assert sorted(set(failed) - MISSING_AT_CALL) == []
    # a name that resolves now leaves the list
    assert sorted(MISSING_AT_CALL - set(failed)) == []
