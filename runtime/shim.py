"""`runtime.as_mxnet()`: `import mxnet` and every public module path of MXNet 1.9.1's Python package
resolve to this runtime, through an import finder that builds nothing until it is asked for.

`MODULES` maps each MXNet module path to where its contents live here, one line a module:
    "runtime.x"             that runtime module itself;
    "runtime.x:a.b"         an attribute of a runtime module (a generated namespace such as `nd.contrib`).
A module path with entries below it is a package; loading a package (other than `mxnet` itself) loads
the entries below it, so `mx.gluon.nn` works after `from mxnet import gluon`, as in MXNet. The `mxnet`
package itself is built here and loads its children on first attribute access (`mx.test_utils`), so
`import mxnet` costs nothing beyond the runtime.

The finder also answers `importlib.metadata` (`version("mxnet") == "1.9.1"`), so packages that
probe for an installed MXNet before importing it (GluonCV, GluonNLP) find this one.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.metadata
import importlib.util
import sys
import types
from typing import Dict

VERSION = "1.9.1"

MODULES: Dict[str, str] = {
    "mxnet.base": "runtime.base",
    "mxnet.util": "runtime.util",
    "mxnet.context": "runtime.context",
    "mxnet.name": "runtime.name",
    "mxnet.attribute": "runtime.attribute",
    "mxnet.engine": "runtime.engine",
    "mxnet.profiler": "runtime.profiler",
    "mxnet.runtime": "runtime.features",
    "mxnet.autograd": "runtime.autograd",
    "mxnet.initializer": "runtime.initializer",
    "mxnet.random": "runtime:nd.random",
    "mxnet.kvstore": "runtime.kvstore",
    "mxnet.io": "runtime.io",
    "mxnet.operator": "runtime.operator",
    "mxnet.test_utils": "runtime.test_utils",
    "mxnet.numpy": "runtime.numpy_interface",
    "mxnet.numpy_extension": "runtime.numpy_interface",
    "mxnet.ndarray": "runtime:nd",
    "mxnet.ndarray.ndarray": "runtime.ndarray",
    "mxnet.ndarray.contrib": "runtime:nd.contrib",
    "mxnet.ndarray.linalg": "runtime:nd.linalg",
    "mxnet.ndarray.random": "runtime:nd.random",
    "mxnet.ndarray.image": "runtime:nd.image",
    "mxnet.ndarray.op": "runtime:nd.op",
    "mxnet.ndarray.sparse": "runtime.sparse",
    "mxnet.symbol": "runtime:sym",
    "mxnet.symbol.symbol": "runtime.symbol",
    "mxnet.symbol.contrib": "runtime:sym.contrib",
    "mxnet.symbol.linalg": "runtime:sym.linalg",
    "mxnet.symbol.random": "runtime:sym.random",
    "mxnet.symbol.image": "runtime:sym.image",
    "mxnet.symbol.op": "runtime:sym.op",
    "mxnet.symbol.sparse": "runtime:sym.sparse",
    "mxnet.executor": "runtime.executor",
    "mxnet.model": "runtime.model",
    "mxnet.module": "runtime.module",
    "mxnet.mod": "runtime.module",
    "mxnet.gluon": "runtime.gluon",
    "mxnet.gluon.nn": "runtime.gluon.nn",
    "mxnet.gluon.block": "runtime.gluon.block",
    "mxnet.gluon.parameter": "runtime.gluon.parameter",
    "mxnet.gluon.utils": "runtime.gluon.utils",
    "mxnet.registry": "runtime.class_registry",
    "mxnet.contrib": "runtime.contrib",
    "mxnet.contrib.amp": "runtime.contrib.amp",
    "mxnet.contrib.quantization": "runtime.contrib.quantization",
    # MXNet registers the contrib operators here too (mx.contrib.ndarray.CTCLoss)
    "mxnet.contrib.ndarray": "runtime:nd.contrib",
    "mxnet.contrib.nd": "runtime:nd.contrib",
    "mxnet.contrib.symbol": "runtime:sym.contrib",
    "mxnet.contrib.sym": "runtime:sym.contrib",
    "mxnet.contrib.amp.amp": "runtime.contrib.amp.amp",
    "mxnet.gluon.contrib": "runtime.gluon.contrib",
    "mxnet.gluon.contrib.nn": "runtime.gluon.contrib:nn",
    "mxnet.gluon.contrib.rnn": "runtime.gluon.contrib:rnn",
    "mxnet.gluon.contrib.rnn.rnn_cell": "runtime.gluon.contrib:rnn.rnn_cell",
    "mxnet.gluon.contrib.data": "runtime.gluon.contrib:data",
    "mxnet.gluon.contrib.cnn": "runtime.gluon.contrib_cnn",
    # the training API
    "mxnet.optimizer": "runtime.optimizer",
    "mxnet.optimizer.optimizer": "runtime.optimizer",
    "mxnet.lr_scheduler": "runtime.lr_scheduler",
    "mxnet.metric": "runtime.metric",
    "mxnet.recordio": "runtime.recordio",
    "mxnet.image": "runtime.image",
    "mxnet.image.image": "runtime.image.image",
    "mxnet.image.detection": "runtime.image.detection",
    "mxnet.gluon.trainer": "runtime.gluon.trainer",
    "mxnet.gluon.loss": "runtime.gluon.loss",
    "mxnet.gluon.data": "runtime.gluon.data",
    "mxnet.gluon.data.dataset": "runtime.gluon.data.dataset",
    "mxnet.gluon.data.dataloader": "runtime.gluon.data.dataloader",
    "mxnet.gluon.data.sampler": "runtime.gluon.data.sampler",
    "mxnet.gluon.data.vision": "runtime.gluon.data.vision",
    "mxnet.gluon.data.vision.transforms": "runtime.gluon.data.vision.transforms",
    "mxnet.gluon.data.vision.datasets": "runtime.gluon.data.vision.datasets",
    "mxnet.gluon.rnn": "runtime.gluon.rnn",
    "mxnet.gluon.rnn.rnn_cell": "runtime.gluon.rnn.rnn_cell",
    "mxnet.gluon.rnn.rnn_layer": "runtime.gluon.rnn.rnn_layer",
    "mxnet.gluon.model_zoo": "runtime.gluon.model_zoo",
    "mxnet.gluon.model_zoo.vision": "runtime.gluon.model_zoo.vision",
    "mxnet.gluon.model_zoo.vision.resnet": "runtime.gluon.model_zoo.vision.resnet",
    "mxnet.gluon.model_zoo.model_store": "runtime.gluon.model_zoo.model_store",
    # the legacy symbolic RNN API
    "mxnet.rnn": "runtime.rnn",
    "mxnet.rnn.rnn_cell": "runtime.rnn.rnn_cell",
    "mxnet.rnn.rnn": "runtime.rnn.checkpoint",
    "mxnet.rnn.io": "runtime.rnn.io",
}

# names of `mxnet` itself that are not its submodules: "mxnet.x" (a module, aliased) or "runtime.x:name"
ROOT_NAMES: Dict[str, str] = {
    "nd": "mxnet.ndarray", "sym": "mxnet.symbol", "init": "mxnet.initializer", "kv": "mxnet.kvstore",
    "rnd": "mxnet.random", "img": "mxnet.image", "np": "mxnet.numpy", "npx": "mxnet.numpy_extension",
    "Context": "runtime.context:Context", "cpu": "runtime.context:cpu", "gpu": "runtime.context:gpu",
    "cpu_pinned": "runtime.context:cpu_pinned", "current_context": "runtime.context:current_context",
    "num_gpus": "runtime.context:num_gpus", "MXNetError": "runtime.base:MXNetError",
    "AttrScope": "runtime.attribute:AttrScope",
    "np_shape": "runtime.util:np_shape", "is_np_shape": "runtime.util:is_np_shape",
    "set_np_shape": "runtime.util:set_np_shape", "use_np_shape": "runtime.util:use_np_shape",
    "np_array": "runtime.util:np_array", "is_np_array": "runtime.util:is_np_array",
    "use_np_array": "runtime.util:use_np_array", "use_np": "runtime.util:use_np",
}


def _resolve(target: str):
    """The object a table entry names: a module ("mxnet.x", "runtime.x") or "runtime.x:attr.path"."""
    module_name, _, attribute = target.partition(":")
    value = importlib.import_module(module_name)
    for part in filter(None, attribute.split(".")):
        value = getattr(value, part)
    return value


def _children(package: str):
    prefix = package + "."
    return [name for name in MODULES if name.startswith(prefix) and "." not in name[len(prefix):]]


def _is_package(name: str) -> bool:
    return name == "mxnet" or any(other.startswith(name + ".") for other in MODULES)


def _root_module() -> types.ModuleType:
    root = types.ModuleType("mxnet", "MXNet 1.9.1's Python API, provided by this runtime.")
    root.__version__ = VERSION

    def __getattr__(name: str):
        target = ROOT_NAMES.get(name) or ("mxnet." + name if "mxnet." + name in MODULES else None)
        if target is None:
            raise AttributeError("module 'mxnet' has no attribute '%s'" % name)
        value = _resolve(target)
        setattr(root, name, value)
        return value

    def __dir__():
        return sorted(set(vars(root)) | set(ROOT_NAMES) | {name.split(".")[1] for name in MODULES})

    root.__getattr__, root.__dir__ = __getattr__, __dir__
    return root


class _MXNetDistribution(importlib.metadata.Distribution):
    """What `importlib.metadata` reports for `mxnet` while this runtime stands in for it."""

    def read_text(self, filename):
        if filename == "METADATA":
            return "Metadata-Version: 2.1\nName: mxnet\nVersion: %s\nSummary: %s\n" % (
                VERSION, "MXNet 1.9.1's Python API on NumPy and Numba")
        return None

    def locate_file(self, path):
        return path


class MXNetFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds `mxnet` and the module paths of `MODULES`; loads each from the runtime."""

    def __init__(self):
        self._own_specs: Dict[str, object] = {}

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "mxnet" and fullname not in MODULES:
            return None
        return importlib.util.spec_from_loader(fullname, self, is_package=_is_package(fullname))

    def create_module(self, spec):
        module = _root_module() if spec.name == "mxnet" else _resolve(MODULES[spec.name])
        # the import system stamps the mxnet spec on the module; a runtime module keeps its own
        self._own_specs[spec.name] = getattr(module, "__spec__", None)
        return module

    def exec_module(self, module):
        name = module.__spec__.name
        own = self._own_specs.pop(name, None)
        if own is not None:
            module.__spec__ = own
        if name != "mxnet":
            for child in _children(name):
                importlib.import_module(child)
        if name == "mxnet.test_utils":
            # MXNet's test_utils imports mxnet as mx: its tests take `mx` from `import *` of it
            module.mx = sys.modules["mxnet"]

    def find_distributions(self, context=importlib.metadata.DistributionFinder.Context()):
        wanted = context.name
        if wanted is None or wanted.lower().replace("-", "_") == "mxnet":
            yield _MXNetDistribution()


class _Installed:
    """Undoes the installation when used as a context manager; a plain call leaves it in place."""

    def __init__(self, finder, saved):
        self._finder = finder
        self._saved = saved

    def __enter__(self):
        return importlib.import_module("mxnet")

    def __exit__(self, *exc):
        if self._finder is None:
            return  # an installation already in place stays
        if self._finder in sys.meta_path:
            sys.meta_path.remove(self._finder)
        # a snapshot: the runtime's background threads may import while this runs
        for name in [n for n in list(sys.modules) if n == "mxnet" or n.startswith("mxnet.")]:
            sys.modules.pop(name, None)
        sys.modules.update(self._saved)


def _mxnet_modules() -> Dict[str, types.ModuleType]:
    return {n: m for n, m in list(sys.modules.items()) if n == "mxnet" or n.startswith("mxnet.")}


def install() -> _Installed:
    from runtime.kvstore import KVStore, TestStore
    from runtime.ndarray import NDArray
    from runtime.symbol import Symbol

    # MXNet's error messages and pickles name these classes by their MXNet paths
    Symbol.__module__ = "mxnet.symbol.symbol"
    NDArray.__module__ = "mxnet.ndarray.ndarray"
    KVStore.__module__ = "mxnet.kvstore.kvstore"
    TestStore.__module__ = "mxnet.kvstore.base"
    if any(isinstance(f, MXNetFinder) for f in sys.meta_path):
        importlib.import_module("mxnet")
        return _Installed(None, {})
    saved = _mxnet_modules()  # a real MXNet imported before: set aside, restored on exit
    for name in saved:
        del sys.modules[name]
    finder = MXNetFinder()
    sys.meta_path.insert(0, finder)
    importlib.import_module("mxnet")
    return _Installed(finder, saved)
