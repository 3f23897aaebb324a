"""Import GluonCV's model zoo from its sources without the optional packages it never runs.

GluonCV's package `__init__` imports data loaders, downloads and optional frameworks that building
and running a model does not need. Modules no other finder finds are replaced by stand-ins whose
every attribute is another stand-in, so that a model fails only when it really uses something
missing. Used with the runtime and with real MXNet alike: this file imports neither (the caller has
made `import mxnet` mean the one it wants).
"""
import importlib.abc
import importlib.machinery
import os
import re
import sys
import types

# Packages that must be the real ones: a model that needs them and finds a stand-in would fail late.
REAL = ("gluoncv", "numpy", "scipy", "runtime", "numba", "llvmlite")


class StandIn(types.ModuleType):
    """A module, class or function that no model calls: every attribute is another stand-in."""
    __path__ = []

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        value = StandIn(self.__name__ + "." + name)
        setattr(self, name, value)
        return value

    def __call__(self, *args, **kwargs):
        return StandIn(self.__name__ + "()")

    def __mro_entries__(self, bases):
        return (object,)


class StandInFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds what no other finder does, outside the packages named `real`; with `fill_mxnet`, also
    the parts of `mxnet` that are not there (the runtime's `mxnet` lacks a few at import time)."""

    def __init__(self, real, fill_mxnet: bool = False):
        self.real = tuple(real)
        self.fill_mxnet = fill_mxnet

    def find_spec(self, name, path, target=None):
        top = name.split(".")[0]
        if top == "mxnet" and self.fill_mxnet:
            return None if name in sys.modules else importlib.machinery.ModuleSpec(name, self)
        if top in self.real or top == "mxnet":
            return None
        for finder in sys.meta_path:
            if finder is not self and getattr(finder, "find_spec", None) is not None:
                try:
                    if finder.find_spec(name, path, target) is not None:
                        return None
                except (ImportError, ValueError):
                    continue
        return importlib.machinery.ModuleSpec(name, self)

    def create_module(self, spec):
        return StandIn(spec.name)

    def exec_module(self, module):
        pass


def import_gluoncv_zoo(root: str, fill_mxnet: bool):
    """`gluoncv.model_zoo` from the sources under `root`, and the names filled in with stand-ins."""
    import mxnet as mx
    if fill_mxnet:  # the runtime's mxnet.base lacks these two Python 2 leftovers
        mx.base.string_types, mx.base.numeric_types = (str,), (float, int)
    sys.meta_path.append(StandInFinder(REAL, fill_mxnet=fill_mxnet))
    package = types.ModuleType("gluoncv")
    package.__path__ = [os.path.join(root, "gluoncv")]
    sys.modules["gluoncv"] = package
    filled = []
    for _ in range(200 if fill_mxnet else 0):  # each round fills one missing name and imports again
        try:
            import gluoncv.model_zoo as zoo
            return zoo, filled
        except (ImportError, AttributeError) as exc:
            found = re.match(r"cannot import name '(\w+)' from '([\w.]+)'", str(exc)) or \
                re.match(r"module '([\w.]+)' has no attribute '(\w+)'", str(exc))
            if found is None:
                raise
            name, owner = found.groups() if str(exc).startswith("cannot") else found.groups()[::-1]
            # the runtime's namespaces are named runtime.sym / runtime.nd in messages
            shown = owner.replace("runtime.sym", "mxnet.symbol").replace("runtime.nd", "mxnet.ndarray")
            setattr(sys.modules.get(shown) or sys.modules[owner], name, StandIn(owner + "." + name))
            filled.append(owner + "." + name)
            for key in [k for k in list(sys.modules) if k.startswith("gluoncv.")]:  # threads may import meanwhile
                del sys.modules[key]
    if not fill_mxnet:
        import gluoncv.model_zoo as zoo
        return zoo, filled
    raise SystemExit("gluoncv.model_zoo did not import after filling %d names" % len(filled))


def input_shape(name: str):
    """The input a model of the zoo is run on, by its name."""
    sizes = [("cifar", (32, 32)), ("inception", (299, 299)), ("ssd_300", (300, 300)), ("ssd_512", (512, 512)),
             ("yolo3", (320, 320)), ("rcnn", (320, 320)), ("center_net", (512, 512)), ("pose", (256, 192))]
    return (1, 3) + next((size for part, size in sizes if part in name), (224, 224))


def build(zoo, name: str):
    """The model, untrained (and without a trained backbone where its factory takes one)."""
    try:
        return zoo.get_model(name, pretrained=False, pretrained_base=False)
    except (TypeError, Warning):  # a factory that takes no such argument (some raise a Warning)
        return zoo.get_model(name, pretrained=False)
