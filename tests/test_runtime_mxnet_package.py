"""`mxnet` as a package: every module path that code imports resolves to the runtime, lazily, and
packages probing for an installed MXNet find version 1.9.1."""
import importlib
import importlib.metadata
import importlib.util
import subprocess
import sys

import numpy as np
import pytest

import runtime
from runtime import shim


def test_every_module_path_of_the_table_imports():
    with runtime.as_mxnet() as mx:
        for name in shim.MODULES:
            module = importlib.import_module(name)
            assert sys.modules[name] is module
        assert mx.nd is runtime.nd and mx.sym is runtime.sym and mx.ndarray is mx.nd
        assert mx.gluon.nn.Dense is importlib.import_module("mxnet.gluon.nn").Dense
        # MXNet registers the contrib operators under mxnet.contrib too
        assert mx.contrib.ndarray is mx.nd.contrib and mx.contrib.sym is mx.sym.contrib
        assert mx.contrib.ndarray.CTCLoss is mx.nd.contrib.CTCLoss


def test_names_that_code_imports_from_mxnet_modules():
    with runtime.as_mxnet() as mx:
        from mxnet.base import MXNetError, _as_list, integer_types, numeric_types, py_str, string_types
        from mxnet.ndarray.ndarray import _STORAGE_TYPE_STR_TO_ID, py_slice
        from mxnet.util import is_np_array, np_shape
        assert py_str(b"abc") == "abc" and isinstance("x", string_types) and isinstance(np.int64(1), integer_types)
        assert isinstance(2.5, numeric_types) and _as_list(1) == [1] and _as_list([1]) == [1]
        assert MXNetError is runtime.MXNetError and py_slice is slice and _STORAGE_TYPE_STR_TO_ID["default"] == 0
        assert not is_np_array()
        with np_shape():
            assert mx.is_np_shape()
        assert not mx.is_np_shape()
        assert mx.runtime.Features().is_enabled("LAPACK") and not mx.runtime.Features().is_enabled("CUDA")
        with pytest.raises(RuntimeError, match="Feature 'NOPE' is unknown"):
            mx.runtime.Features().is_enabled("nope")
        assert mx.engine.set_bulk_size(4) == 15 and mx.engine.set_bulk_size(15) == 4
        mx.profiler.set_config(profile_all=True, filename="unused.json")
        mx.profiler.set_state("run")
        mx.profiler.set_state("stop")


def test_distribution_and_spec_answer_for_mxnet():
    with runtime.as_mxnet():
        assert importlib.util.find_spec("mxnet") is not None
        assert importlib.metadata.version("mxnet") == "1.9.1"
        assert importlib.import_module("mxnet").__version__ == "1.9.1"


def test_the_context_manager_removes_the_package_and_its_finder():
    before = {n for n in sys.modules if n.startswith("mxnet")}
    with runtime.as_mxnet():
        import mxnet.test_utils  # noqa: F401
    assert {n for n in sys.modules if n.startswith("mxnet")} == before
    assert not any(isinstance(f, shim.MXNetFinder) for f in sys.meta_path)


def test_importing_the_runtime_loads_none_of_the_package_modules():
    code = ("import sys, runtime; print(sorted(m for m in ('runtime.test_utils', 'runtime.kvstore', 'runtime.io', "
            "'runtime.operator', 'runtime.profiler', 'runtime.shim') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_kvstore_sums_pushed_values_and_pulls_them_out():
    with runtime.as_mxnet() as mx:
        kv = mx.kv.create("local")
        kv.init(3, mx.nd.ones((2, 3)))
        kv.push(3, [mx.nd.ones((2, 3)) * 2, mx.nd.ones((2, 3)) * 4])
        out = mx.nd.zeros((2, 3))
        kv.pull(3, out=out)
        assert out.asnumpy().tolist() == [[6.0] * 3] * 2
        assert (kv.type, kv.rank, kv.num_workers) == ("local", 0, 1)


def test_ndarray_iter_pads_the_last_batch_from_the_start():
    with runtime.as_mxnet() as mx:
        data = np.arange(10, dtype=np.float32).reshape(5, 2)
        batches = list(mx.io.NDArrayIter(data, np.arange(5), batch_size=2))
        assert [b.pad for b in batches] == [0, 0, 1]
        assert batches[-1].data[0].asnumpy().tolist() == [[8, 9], [0, 1]]
        assert len(list(mx.io.NDArrayIter(data, batch_size=2, last_batch_handle="discard"))) == 2
        it = mx.io.NDArrayIter(data, batch_size=2)
        assert it.provide_data[0].name == "data" and it.provide_data[0].shape == (2, 2)


def test_star_import_of_test_utils_gives_what_mxnet_tests_use():
    """MXNet's test files take `mx`, `ss`, `json`, `logging`... from `from mxnet.test_utils import *`:
    its test_utils imports them at module level (checked on MXNet 1.9.1)."""
    names = {}
    with runtime.as_mxnet() as mxnet:
        exec("from mxnet.test_utils import *", names)
    assert names["mx"] is mxnet
    for name in ("np", "ss", "json", "logging", "struct", "OrderedDict", "contextmanager"):
        assert names.get(name) is not None, name
