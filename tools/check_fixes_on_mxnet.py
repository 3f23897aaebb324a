"""Check hyblint's fixes on real MXNet: each fixed block hybridizes and returns the original's
eager result.

    python3 tools/check_fixes_on_mxnet.py PATH/TO/MXNET/PYTHON

PATH/TO/MXNET/PYTHON is a Python interpreter that can `import mxnet` (1.x, e.g. a virtual
environment with `mxnet==1.9.1` and `numpy<1.24`). MXNet is never a dependency of hyblint: this
script runs hyblint here and MXNet in a child process of that interpreter.

Checked:
- every fix snapshot under fixtures/fix/: the `NAME.fixed.py` text is what `--fix` makes of
  `NAME.py` today; then on MXNet the original runs eagerly and the fixed block runs hybridized
  (twice: the tracing call and a cached-graph call) on the same random inputs;
- the broken golden blocks (fixtures/golden/blocks.jsonl): fixed with `--fix --unsafe-fixes`,
  hybridized on MXNet on the recorded inputs, compared with the recorded eager output.
Prints one line per case and a summary; exits 1 when any case fails.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hyblint.fixer import fix_source  # noqa: E402
from hyblint.settings import Settings  # noqa: E402

CHILD = r'''
import json, sys, types, warnings
warnings.filterwarnings("ignore")
import numpy as np
import mxnet as mx

def load(source, build):
    module = types.ModuleType("case")
    exec(compile(source, "<case>", "exec"), module.__dict__)
    net = eval(build, module.__dict__)
    net.initialize()
    return net

def as_list(out):
    if isinstance(out, (list, tuple)):
        return [o for item in out for o in as_list(item)]
    return [out]

def run(source, build, inputs, hybridize):
    net = load(source, build)
    args = [mx.nd.array(np.array(a["data"], dtype=a["dtype"]).reshape(a["shape"]), dtype=a["dtype"])
            for a in inputs]
    if hybridize:
        net.hybridize()
        as_list(net(*[a.copy() for a in args]))   # trace and build the graph
    out = as_list(net(*args))
    return [(o.shape, o.asnumpy()) if hasattr(o, "asnumpy") else ((), np.asarray(o)) for o in out]

results = []
for job in json.load(sys.stdin):
    try:
        if "expected" in job:
            want = [(tuple(e["shape"]), np.array(e["data"], dtype=e["dtype"]).reshape(e["shape"]))
                    for e in job["expected"]]
        else:
            want = run(job["before"], job["build"], job["inputs"], hybridize=False)
        got = run(job["after"], job["build"], job["inputs"], hybridize=True)
        original = "-"
        if "before" in job:  # how the unfixed block fares hybridized: the reason for the fix
            try:
                hyb = run(job["before"], job["build"], job["inputs"], hybridize=True)
                same = len(hyb) == len(want) and all(
                    tuple(hs) == tuple(ws) and np.allclose(h, w, rtol=1e-5, atol=1e-6)
                    for (hs, h), (ws, w) in zip(hyb, want))
                original = "same" if same else "differs"
            except Exception as exc:
                original = "raises " + type(exc).__name__
        if len(want) != len(got):
            results.append([job["name"], "MISMATCH", "%d outputs, expected %d" % (len(got), len(want)), original])
            continue
        problems = []
        for i, ((ws, w), (gs, g)) in enumerate(zip(want, got)):
            if tuple(ws) != tuple(gs):
                problems.append("output %d: shape %s, expected %s" % (i, gs, ws))
            elif job["equivalent"] and not np.allclose(g, w, rtol=1e-5, atol=1e-6):
                problems.append("output %d: values differ (max %.3g)" % (i, np.max(np.abs(g - w))))
        results.append([job["name"], "MISMATCH" if problems else "OK", "; ".join(problems), original])
    except Exception as exc:
        results.append([job["name"], "ERROR", "%s: %s" % (type(exc).__name__, str(exc).splitlines()[0][:300]),
                        "-"])
print(json.dumps(results))
'''


def _random_inputs(specs, seed):
    import numpy as np
    rng = np.random.default_rng(seed)
    arrays = []
    for spec in specs:
        if isinstance(spec, dict):
            a = rng.integers(spec["low"], spec["high"], size=spec["shape"]).astype(np.float32)
        else:
            a = rng.standard_normal(spec).astype(np.float32)
        arrays.append({"shape": list(a.shape), "dtype": "float32", "data": a.ravel().tolist()})
    return arrays


def fixture_jobs(folder: Path, seeds):
    jobs, stale = [], []
    for before in sorted(folder.glob("*.py")):
        if before.name.endswith(".fixed.py"):
            continue
        text = before.read_text()
        lines = text.splitlines()
        inputs = json.loads(lines[0].split(":", 1)[1])
        options = json.loads(lines[1].split(":", 1)[1])
        after = before.with_name(before.stem + ".fixed.py").read_text()
        select = options.get("select")
        settings = Settings(extend_select=tuple(select)) if select else Settings()
        if fix_source(text, before.name, settings, unsafe=options.get("unsafe", False)).source != after:
            stale.append(before.stem)
        for seed in seeds:
            jobs.append({"name": "%s (seed %d)" % (before.stem, seed), "before": text, "after": after,
                         "build": "Net()", "inputs": _random_inputs(inputs, seed),
                         "equivalent": options.get("equivalent", True)})
    return jobs, stale


def golden_jobs(path: Path):
    blocks = {b["id"]: b for b in map(json.loads, path.read_text().splitlines())}
    jobs = []
    for block_id, block in blocks.items():
        if block_id.endswith("_fixed") or "error" not in block["hybridized"] or block["params"]:
            continue
        result = fix_source(block["source"], block_id + ".py", unsafe=True)
        if not result.applied:
            continue
        jobs.append({"name": "golden " + block_id, "after": result.source, "build": block["build"],
                     "inputs": block["inputs"], "expected": [block["imperative"]], "equivalent": True})
    return jobs


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mxnet_python", help="a Python interpreter that can import mxnet")
    parser.add_argument("--seeds", type=int, default=3, help="random inputs per fixture (default 3)")
    args = parser.parse_args(argv)
    jobs, stale = fixture_jobs(ROOT / "fixtures" / "fix", range(args.seeds))
    jobs += golden_jobs(ROOT / "fixtures" / "golden" / "blocks.jsonl")
    child = subprocess.run([args.mxnet_python, "-c", CHILD], input=json.dumps(jobs), capture_output=True,
                           text=True)
    if child.returncode != 0:
        print("the MXNet interpreter failed:\n" + child.stderr[-2000:], file=sys.stderr)
        return 2
    results = json.loads(child.stdout.strip().splitlines()[-1])
    failed = 0
    print("%-8s %-34s %s" % ("fixed", "case", "original, hybridized"))
    for name, status, detail, original in results:
        print("%-8s %-34s %s%s" % (status, name, original, ("  " + detail) if detail else ""))
        failed += status != "OK"
    for name in stale:
        print("STALE    %s  the .fixed.py snapshot is not what --fix makes today" % name)
    print("\n%d cases on MXNet: %d OK, %d failed; %d stale snapshots"
          % (len(results), len(results) - failed, failed, len(stale)))
    return 1 if failed or stale else 0


if __name__ == "__main__":
    sys.exit(main())
