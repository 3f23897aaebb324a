"""Execution-backed precision of hyblint's error-level diagnostics on code we did not write.

    python3 tools/audit_precision.py --mxnet /path/to/mxnet/bin/python --root DIR --cases CASES.json

CASES.json lists blocks of the code under DIR to build and run: `{"build": "pkg.module:callable",
"kwargs": {...}, "shape": [1, 3, 224, 224]}` (`"pkg.module:Class.method"` builds `Class(**kwargs)`
and runs the block its `method()` returns), or `"inputs": [[1, 20, 64], [1, 10]]` for a block called
with several inputs (each uniform in [0, 1), or `{"shape": [1], "fill": 7}` for a constant one,
`"dtype": "int32"` in it for another type than float32,
`null` for None, `{"list": [[2, 1], [2, 1]]}` for a list of tensors). Each case runs in a subprocess of the MXNet
interpreter: the block is built and initialized, called eagerly, then hybridized and called again
while the lines of DIR that run are recorded. Each diagnostic of hyblint on DIR (error severity)
in a file a case ran is judged:

- real: the hybridized call raised at the diagnostic's line, or the line ran and the hybridized
  result differs from the eager one;
- false: the line ran and the hybridized call agrees with the eager one;
- unresolved: the hybridized call failed before reaching the line, or the line never ran; rules
  whose effect needs several calls (trace-time state and randomness) are unresolved by one call.

precision = real / (real + false). hyblint itself never imports MXNet; only this audit runs it.

`--path DIR` (repeatable) lets the blocks import from a folder that is not audited; `--cases` may
be repeated for case files written for one root, whose diagnostics then count once. The roots the
case files in tools/audit_cases/ are written for, as folders of each project's repository:

- imgclsmob.json: osmr/imgclsmob `gluon/`
- gluoncv.json: dmlc/gluon-cv, the folder that holds `gluoncv/`
- gluoncv-stylegan.json: dmlc/gluon-cv `scripts/gan/stylegan/`
- gluonnlp.json: dmlc/gluon-nlp v0.10.x `src/`, its Cython tokenizer built in place
  (`cythonize -i src/gluonnlp/data/fast_bert_tokenizer.pyx`)
- gluonnlp-scripts.json: the same `scripts/`, with `--path` its `src/`
- gluonts.json, gluonts-representation.json, gluonts-deepstate.json: awslabs/gluon-ts `src/`, a
  version that has `gluonts/mx/block/sndense.py` and `gluonts/model/deepstate/`
- mxnet-example.json: apache/mxnet 1.9.1 `example/gluon/embedding_learning/`
- mxnet-gluon.json: apache/mxnet 1.9.1 `python/` (it runs on the installed libmxnet.so)

GluonCV's SoftmaxCrossEntropyOHEMLoss needs an operator of GluonCV's own MXNet build
(`contrib.SoftmaxOHEMOutput`): on a stock MXNet it is reported as not built.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

CONDITIONAL = re.compile(r"\bif\b.*\belse\b|\band\b|\bor\b")
# Rules whose effect one call cannot show: the frozen value is right on the first call.
SEVERAL_CALLS = {"HYB013", "HYB016", "HYB017"}

RUNNER = r'''
import importlib, importlib.util, json, os, sys, traceback
root, build, kwargs, inputs = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), json.loads(sys.argv[4])
paths = json.loads(sys.argv[5])
kwargs = {k: tuple(v) if isinstance(v, list) else v for k, v in kwargs.items()}  # JSON has no tuples
# A root that holds MXNet's own Python source shadows the installed package, and that source looks
# for libmxnet.so beside a build tree it does not have: point it at the installed library.
installed = importlib.util.find_spec("mxnet")
if installed is not None and installed.origin:
    library = os.path.join(os.path.dirname(installed.origin), "libmxnet.so")
    if os.path.exists(library):
        os.environ.setdefault("MXNET_LIBRARY_PATH", library)
sys.path[:0] = [root] + paths  # the audited tree first, then what it imports from beside it
import mxnet as mx, numpy as np
result = {"build": build}
def flat(out):
    if isinstance(out, (list, tuple)):
        return [a for o in out for a in flat(o)]
    return [out.asnumpy()] if hasattr(out, "asnumpy") else []
try:
    module, name = build.split(":")
    name, *methods = name.split(".")
    net = getattr(importlib.import_module(module), name)(**kwargs)
    for method in methods:  # `Estimator.create_training_network`: the block a method of the built object makes
        net = getattr(net, method)()
    net.initialize()
    mx.random.seed(0)
    def make(i):
        if i is None:
            return None
        if isinstance(i, dict) and "list" in i:
            return [make(j) for j in i["list"]]
        if isinstance(i, dict):
            return mx.nd.full(shape=tuple(i["shape"]), val=i["fill"], dtype=i.get("dtype", "float32"))
        return mx.nd.random.uniform(shape=tuple(i))
    x = [make(i) for i in inputs]
    eager = flat(net(*x))
except Exception as exc:
    result["error"] = "not built or eager failed: %s: %s" % (type(exc).__name__, str(exc).splitlines()[0][:200] if str(exc) else "")
    print(json.dumps(result)); sys.exit(0)
ran = set()
def tracer(frame, event, arg):
    name = frame.f_code.co_filename
    if not name.startswith(root):
        return None
    if event in ("line", "call"):
        ran.add((name, frame.f_lineno))
    return tracer
net.hybridize()
sys.settrace(tracer)
try:
    hybrid = flat(net(*x))
    sys.settrace(None)
    same = len(hybrid) == len(eager) and all(a.shape == b.shape and np.allclose(a, b, rtol=1e-3, atol=1e-4)
                                               for a, b in zip(eager, hybrid))
    result["agrees"] = bool(same)
except Exception as exc:
    sys.settrace(None)
    # MXNet's Symbol and NDArray code raises on behalf of the line that used them: where the root
    # is MXNet's own source, the place is the innermost frame outside that machinery (Gluon's
    # blocks stay in, they are what is audited there)
    framework = os.path.dirname(os.path.realpath(mx.__file__)) + os.sep
    def audited(name):
        name = os.path.realpath(name)
        return name.startswith(root) and (not name.startswith(framework)
                                          or name.startswith(framework + "gluon" + os.sep))
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if audited(f.filename)]
    result["raised"] = "%s: %s" % (type(exc).__name__, (str(exc).strip().splitlines() or [""])[0][:200])
    result["raised_at"] = [frames[-1].filename, frames[-1].lineno] if frames else None
result["ran"] = sorted(ran)
print(json.dumps(result))
'''


def run_case(python: str, root: str, case: dict, timeout: float, paths: list[str] = ()) -> dict:
    args = [python, "-c", RUNNER, root, case["build"], json.dumps(case.get("kwargs", {})),
            json.dumps(case["inputs"] if "inputs" in case else [case["shape"]]),
            json.dumps([os.path.realpath(p) for p in paths])]
    try:
        done = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"build": case["build"], "error": "timed out"}
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if not lines:
        return {"build": case["build"], "error": "crashed: %s" % (done.stderr.strip().splitlines() or [""])[-1]}
    return json.loads(lines[-1])


def judge(diagnostic: dict, run: dict, line: str) -> str:
    """The verdict on one diagnostic from one run; `line` is the diagnostic's source line."""
    return judge_why(diagnostic, run, line)[0]


def judge_why(diagnostic: dict, run: dict, line: str) -> tuple[str, str]:
    """The verdict and, for an unresolved one, what kept the run from deciding it."""
    place = (diagnostic["filename"], diagnostic["location"]["row"])
    if diagnostic["code"] in SEVERAL_CALLS:
        return "unresolved", "needs several calls"
    if run.get("raised_at") and tuple(run["raised_at"]) == place:
        return "real", ""
    ran = {tuple(p) for p in run.get("ran", ())}
    if place not in ran:
        return "unresolved", "never ran"
    if "raised" in run:
        # reached, but the call failed elsewhere: this line's effect is unknown
        where = run.get("raised_at")
        return "unresolved", "ran, then the call raised at %s:%s" % (os.path.basename(where[0]), where[1]) \
            if where else "ran, then the call raised outside the root"
    if run.get("agrees") and CONDITIONAL.search(line):
        # the line ran, but its conditional expression may have skipped the flagged part
        return "unresolved", "conditional line"
    return ("false", "") if run.get("agrees") else ("real", "")


def _line(diagnostic: dict) -> str:
    lines = Path(diagnostic["filename"]).read_text(encoding="utf-8", errors="replace").splitlines()
    row = diagnostic["location"]["row"]
    return lines[row - 1] if 0 < row <= len(lines) else ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mxnet", required=True, help="a Python interpreter with mxnet installed")
    parser.add_argument("--root", required=True, help="the source tree to lint and run")
    parser.add_argument("--cases", required=True, action="append",
                        help="JSON list of blocks to build and run; repeatable (case files of one root, "
                             "whose diagnostics then count once)")
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--path", action="append", default=[],
                        help="another folder to import from, not audited (a script's own library); repeatable")
    parser.add_argument("--unresolved", action="store_true",
                        help="also list each unresolved diagnostic with what kept it open, and those not sampled")
    args = parser.parse_args()
    root = os.path.realpath(args.root) + os.sep
    cases = [case for name in args.cases for case in json.loads(Path(name).read_text())]
    lint = subprocess.run([sys.executable, "-m", "hyblint", "check", "--no-cache", "--exit-zero", "--format", "json",
                           root], capture_output=True, text=True)
    diagnostics = [d for d in json.loads(lint.stdout) if d.get("severity") == "error"]
    for d in diagnostics:
        d["filename"] = os.path.realpath(d["filename"])
    verdicts, reasons = {}, {}
    for case in cases:
        run = run_case(args.mxnet, root, case, args.timeout, args.path)
        status = run.get("error") or (run.get("raised") and "raised " + run["raised"]) or \
            ("agrees" if run.get("agrees") else "differs")
        print("%-60s %s" % (case["build"], status[:140]))
        if "error" in run:
            continue
        ran_files = {p[0] for p in run.get("ran", ())}
        for index, d in enumerate(diagnostics):
            if d["filename"] in ran_files:
                verdict, why = judge_why(d, run, _line(d))
                # a diagnostic several cases reach counts once: its most informative verdict
                previous = verdicts.get(index)
                if previous is None or previous == "unresolved":
                    verdicts[index] = verdict
                    # of the cases that left it open, the one that came nearest (it ran the line)
                    if previous is None or not reasons[index].startswith("ran") or why.startswith("ran"):
                        reasons[index] = "%s (%s)" % (why, case["build"])
    table = defaultdict(Counter)
    for index, d in enumerate(diagnostics):
        verdict = verdicts.get(index, "not sampled")
        table[d["code"]][verdict] += 1
        if verdict in ("false", "real") or args.unresolved:
            print("  %s %s:%d %s" % (verdict.upper(), os.path.relpath(d["filename"], root), d["location"]["row"],
                                     d["code"]) + (": " + reasons[index] if verdict == "unresolved" else ""))
    print("\n%-8s %5s %5s %10s %11s" % ("code", "real", "false", "unresolved", "not sampled"))
    totals = Counter()
    for code in sorted(table):
        row = table[code]
        totals.update(row)
        print("%-8s %5d %5d %10d %11d" % (code, row["real"], row["false"], row["unresolved"], row["not sampled"]))
    judged = totals["real"] + totals["false"]
    print("%-8s %5d %5d %10d %11d" % ("all", totals["real"], totals["false"], totals["unresolved"],
                                      totals["not sampled"]))
    if judged:
        print("precision: %d / %d = %.1f%%" % (totals["real"], judged, 100.0 * totals["real"] / judged))
    return 0


if __name__ == "__main__":
    sys.exit(main())
