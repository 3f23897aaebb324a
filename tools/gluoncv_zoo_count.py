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
import json
import os
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import runtime  # noqa: E402
from zoo_source import build, import_gluoncv_zoo, input_shape  # noqa: E402  (tools/ is this script's folder)

def import_model_zoo(root: str):
    runtime.as_mxnet()
    return import_gluoncv_zoo(root, fill_mxnet=True)


class OverTime(Exception):
    pass


def _over_time(*_):
    raise OverTime("over 90 s")


def run_one(zoo, name, mx, np):
    stage = "build"
    signal.signal(signal.SIGALRM, _over_time)
    signal.alarm(90)
    try:
        net = build(zoo, name)
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
