"""Count the GluonCV model-zoo models that build and run on the runtime, eagerly and hybridized.

    [GLUONCV_SRC=DIR] python tools/gluoncv_zoo_count.py [--build-only] [OUT.json] [NAME-PART ...]

Every name of `get_model_list()` is built with pretrained=False (and pretrained_base=False where the
factory takes it) and, unless --build-only, run on one random input of its family's size, eagerly
and then hybridized; a model gets 90 s. Prints one line per model, the totals and the totals per
family (the module defining the model), and writes {name: [status, detail, seconds]} to OUT.json.

Without GLUONCV_SRC, the installed GluonCV package is imported as it is (`import gluoncv` works on
the runtime, with GluonCV's own dependencies installed). With it, DIR holds GluonCV's sources (the
wheel unpacked) and its package `__init__` is bypassed: modules that are not installed are replaced
by stand-ins whose every attribute is another stand-in, and names the runtime's `mxnet` lacks at
import time are filled in the same way, so that a model fails only when it really uses something
missing (its line says what); that is how this count was made before the package imported.
"""
import collections
import json
import os
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import runtime  # noqa: E402
from zoo_source import build, import_gluoncv_zoo, input_shapes  # noqa: E402  (tools/ is this script's folder)

def import_model_zoo(root: str):
    runtime.as_mxnet()
    return import_gluoncv_zoo(root, fill_mxnet=True)


class OverTime(Exception):
    pass


def _over_time(*_):
    raise OverTime("over 90 s")


def run_one(zoo, name, mx, np, build_only=False):
    stage = "build"
    signal.signal(signal.SIGALRM, _over_time)
    signal.alarm(90)
    try:
        net = build(zoo, name)
        if build_only:
            return "built", type(net).__module__
        stage = "eager"
        net.initialize()
        random = np.random.RandomState(0)
        x = [mx.nd.array(random.uniform(-1, 1, shape).astype("float32")) for shape in input_shapes(net, name)]
        net(*x)
        stage = "hybridized"
        net.hybridize()
        net(*x)
        return "ok", ""
    except BaseException as exc:  # a model may raise anything while it is built
        lines = str(exc).strip().splitlines()
        return stage + "-failed", "%s: %s" % (type(exc).__name__, lines[-1][:200] if lines else "")
    finally:
        signal.alarm(0)


def _family(zoo, name):
    """The zoo module that defines the model's factory (GluonCV's own grouping)."""
    factory = zoo.model_zoo._models.get(name.lower()) if hasattr(zoo, "model_zoo") else None
    module = getattr(factory, "__module__", "") or ""
    return module.replace("gluoncv.model_zoo.", "") or "?"


def main():
    root = os.environ.get("GLUONCV_SRC")
    arguments = sys.argv[1:]
    build_only = "--build-only" in arguments
    arguments = [a for a in arguments if a != "--build-only"]
    out = arguments[0] if arguments and arguments[0].endswith(".json") else None
    parts = [a for a in arguments if a != out]
    if root:
        if not os.path.isdir(os.path.join(root, "gluoncv", "model_zoo")):
            raise SystemExit("GLUONCV_SRC must be a directory holding gluoncv/model_zoo")
        zoo, filled = import_model_zoo(root)
        print("names filled in at import:", ", ".join(filled) or "none")
    else:
        runtime.as_mxnet()
        import gluoncv.model_zoo as zoo  # the installed package, unmodified
    import mxnet as mx
    import numpy as np
    results = {}
    for name in zoo.get_model_list():
        if parts and not any(p in name for p in parts):
            continue
        start = time.time()
        status, detail = run_one(zoo, name, mx, np, build_only)
        results[name] = [status, detail, round(time.time() - start, 1)]
        print(name, status, detail, flush=True)
    counts = collections.Counter(r[0] for r in results.values())
    print("%d models: %s" % (len(results), ", ".join("%d %s" % (n, s) for s, n in counts.most_common())))
    families = collections.defaultdict(collections.Counter)
    for name, (status, _, _) in results.items():
        families[_family(zoo, name)][status] += 1
    for family, tally in sorted(families.items()):
        print("  %-28s %s" % (family, ", ".join("%d %s" % (n, s) for s, n in sorted(tally.items()))))
    if out:
        Path(out).write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
