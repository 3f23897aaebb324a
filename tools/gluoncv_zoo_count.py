"""Count the GluonCV model-zoo models that build and run on the runtime, eagerly and hybridized.

    GLUONCV_SRC=DIR python tools/gluoncv_zoo_count.py [OUT.json] [NAME-PART ...]

DIR holds GluonCV's sources (the gluoncv wheel unpacked). Every name of `get_model_list()` is built
with pretrained=False (and pretrained_base=False where the factory takes it) and run on one random
input of its family's size, eagerly and then hybridized; a model gets 90 s. Prints one line per
model and the totals, and writes {name: [status, detail, seconds]} to OUT.json.

GluonCV's package imports data loaders, downloads and optional frameworks that no model runs:
modules that are not installed are replaced by stand-ins whose every attribute is another
stand-in, and names the runtime's `mxnet` lacks at import time are filled in the same way, so
that a model fails only when it really uses something missing (its line says what).
"""
import collections
import importlib.abc
import importlib.machinery
import json
import os
import re
import signal
import sys
import time
import types
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import runtime  # noqa: E402

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
    """Finds what no other finder does (outside the packages that must be real), and the parts of
    `mxnet` that the runtime does not have (`mxnet.gluon.data`, ...)."""

    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in REAL:
            return None
        if name.split(".")[0] == "mxnet":
            return None if name in sys.modules else importlib.machinery.ModuleSpec(name, self)
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


def import_model_zoo(root: str):
    runtime.as_mxnet()
    import mxnet as mx
    mx.base.string_types, mx.base.numeric_types = (str,), (float, int)
    sys.meta_path.append(StandInFinder())
    package = types.ModuleType("gluoncv")
    package.__path__ = [os.path.join(root, "gluoncv")]
    sys.modules["gluoncv"] = package
    filled = []
    for _ in range(200):  # each round fills one missing name and imports again
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
            for key in [k for k in sys.modules if k.startswith("gluoncv.")]:
                del sys.modules[key]
    raise SystemExit("gluoncv.model_zoo did not import after filling %d names" % len(filled))


def input_shape(name: str):
    sizes = [("cifar", (32, 32)), ("inception", (299, 299)), ("ssd_300", (300, 300)), ("ssd_512", (512, 512)),
             ("yolo3", (320, 320)), ("rcnn", (320, 320)), ("center_net", (512, 512)), ("pose", (256, 192))]
    return (1, 3) + next((size for part, size in sizes if part in name), (224, 224))


class OverTime(Exception):
    pass


def _over_time(*_):
    raise OverTime("over 90 s")


def run_one(zoo, name, mx, np):
    stage = "build"
    signal.signal(signal.SIGALRM, _over_time)
    signal.alarm(90)
    try:
        try:
            net = zoo.get_model(name, pretrained=False, pretrained_base=False)
        except TypeError:
            net = zoo.get_model(name, pretrained=False)
        stage = "eager"
        net.initialize()
        x = mx.nd.array(np.random.RandomState(0).uniform(-1, 1, input_shape(name)).astype("float32"))
        net(x)
        stage = "hybridized"
        net.hybridize()
        net(x)
        return "ok", ""
    except BaseException as exc:  # a model may raise anything while it is built
        lines = str(exc).strip().splitlines()
        return stage + "-failed", "%s: %s" % (type(exc).__name__, lines[-1][:200] if lines else "")
    finally:
        signal.alarm(0)


def main():
    root = os.environ.get("GLUONCV_SRC")
    if not root or not os.path.isdir(os.path.join(root, "gluoncv", "model_zoo")):
        raise SystemExit("set GLUONCV_SRC to a directory holding gluoncv/model_zoo")
    out = sys.argv[1] if len(sys.argv) > 1 and sys.argv[1].endswith(".json") else None
    parts = [a for a in sys.argv[1:] if a != out]
    zoo, filled = import_model_zoo(root)
    import mxnet as mx
    import numpy as np
    print("names filled in at import:", ", ".join(filled) or "none")
    results = {}
    for name in zoo.get_model_list():
        if parts and not any(p in name for p in parts):
            continue
        start = time.time()
        status, detail = run_one(zoo, name, mx, np)
        results[name] = [status, detail, round(time.time() - start, 1)]
        print(name, status, detail, flush=True)
    counts = collections.Counter(r[0] for r in results.values())
    print("%d models: %s" % (len(results), ", ".join("%d %s" % (n, s) for s, n in counts.most_common())))
    if out:
        Path(out).write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
