"""tools/mxnet_unittests.py: reading pytest's verbose lines and counting passes per side."""
import importlib.util
from pathlib import Path

TOOL = Path(__file__).resolve().parents[1] / "tools" / "mxnet_unittests.py"
spec = importlib.util.spec_from_file_location("mxnet_unittests", TOOL)
tool = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tool)


def test_verbose_lines_give_each_tests_outcome():
    lines = ["test_ndarray.py::test_ndarray_setitem PASSED                 [  1%]",
             "test_ndarray.py::test_ndarray_pickle FAILED                  [  2%]",
             "test_ndarray.py::test_sparse SKIPPED (needs sparse)          [  3%]",
             "collecting ... collected 3 items"]
    found = {m.group(1).split("::", 1)[1]: m.group(2) for m in map(tool.OUTCOME.match, lines) if m}
    assert found == {"test_ndarray_setitem": "PASSED", "test_ndarray_pickle": "FAILED", "test_sparse": "SKIPPED"}


def test_summary_counts_passes_on_each_side_and_on_both(capsys):
    counts = tool.summarize("test_x.py", {"a": "PASSED", "b": "PASSED", "c": "FAILED"},
                            {"a": "PASSED", "c": "PASSED", "d": "PASSED"})
    assert counts == {"runtime": 2, "mxnet": 3, "both": 1}
    assert "33.3% of MXNet's passes" in capsys.readouterr().out


def test_the_runtime_side_plugin_only_installs_the_runtime():
    assert tool.RUNTIME_PLUGIN.strip().splitlines() == ["import runtime", "runtime.as_mxnet()"]
