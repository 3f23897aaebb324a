"""Run MXNet 1.9.1's own Python unit tests, unmodified, on the runtime and on real MXNet, and count.

    python tools/mxnet_unittests.py --source GIT_DIR [--mxnet PYTHON] [--json OUT] [--timeout S] FILE...

GIT_DIR is a clone of apache/mxnet (its git directory; tag 1.9.1 is read with `git archive`).
`tests/python/unittest` and `tests/python/common` are extracted to a temporary directory and each
FILE (e.g. test_ndarray.py) is run with pytest twice, in separate processes:
  - on the runtime: this project's Python with a plugin whose only work is `runtime.as_mxnet()`;
  - on real MXNet: the Python given by --mxnet (a virtual environment with mxnet==1.9.1, pytest,
    nose and scipy installed).
Each test has --timeout seconds (default 120) on either side. Prints, per file, the tests that pass
on the runtime, on real MXNet, on both, and the share of MXNet's passes that the runtime passes;
--json writes every test's outcome on each side. `--only runtime` skips the MXNet run and reads its
outcomes from an earlier --json file given with --previous.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

TAG = "1.9.1"
ROOT = Path(__file__).resolve().parents[1]
OUTCOME = re.compile(r"^(\S+\.py::\S+) (PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)")

# the only work of the runtime side's plugin: `import mxnet` resolves to the runtime
RUNTIME_PLUGIN = "import runtime\nruntime.as_mxnet()\n"

# both sides: a test that runs past its time fails (TimeoutError) instead of stalling the file
TIMEOUT_PLUGIN = '''
import os, signal
import pytest

LIMIT = int(os.environ.get("UNITTEST_TIMEOUT", "120"))


def _expire(signum, frame):
    raise TimeoutError("test ran past %d s" % LIMIT)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    signal.signal(signal.SIGALRM, _expire)
    signal.alarm(LIMIT)
    try:
        yield
    finally:
        signal.alarm(0)
'''


def extract(git_dir: str, into: Path) -> Path:
    """tests/python/{unittest,common} of the tag, under `into`; returns the unittest directory."""
    archive = subprocess.run(["git", "--git-dir", git_dir, "archive", TAG, "tests/python/unittest",
                              "tests/python/common"], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    (into / "mxnet_on_runtime.py").write_text(RUNTIME_PLUGIN)
    (into / "per_test_timeout.py").write_text(TIMEOUT_PLUGIN)
    return into / "tests" / "python" / "unittest"


def run_file(python: str, test_dir: Path, name: str, on_runtime: bool, timeout: int, select: str = None):
    """{test id: outcome} of one file, read from pytest's verbose lines as they come."""
    plugins_dir = test_dir.parents[2]
    path = [str(plugins_dir)] + ([str(ROOT)] if on_runtime else [])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(path + [os.environ.get("PYTHONPATH", "")]),
               UNITTEST_TIMEOUT=str(timeout), MXNET_TEST_COUNT="1")
    command = [python, "-m", "pytest", "-v", "-p", "no:cacheprovider", "-p", "per_test_timeout",
               "--rootdir", str(test_dir), "-o", "addopts=", name]
    if on_runtime:
        command[3:3] = ["-p", "mxnet_on_runtime"]
    if select:
        command += ["-k", select]
    outcomes = {}
    process = subprocess.Popen(command, cwd=str(test_dir), env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    log = []
    for line in process.stdout:
        log.append(line)
        match = OUTCOME.match(line)
        if match:
            outcomes[match.group(1).split("::", 1)[1]] = match.group(2)
    process.wait()
    if not outcomes:  # the file did not even collect: say why
        sys.stderr.write("".join(log[-30:]))
    return outcomes


def summarize(name: str, runtime_outcomes, mxnet_outcomes) -> dict:
    on_runtime = {t for t, o in runtime_outcomes.items() if o == "PASSED"}
    on_mxnet = {t for t, o in mxnet_outcomes.items() if o == "PASSED"}
    both = on_runtime & on_mxnet
    share = 100.0 * len(both) / len(on_mxnet) if on_mxnet else 0.0
    print("%-24s runtime %4d   mxnet %4d   both %4d   (%.1f%% of MXNet's passes)"
          % (name, len(on_runtime), len(on_mxnet), len(both), share), flush=True)
    return {"runtime": len(on_runtime), "mxnet": len(on_mxnet), "both": len(both)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--source", default=os.environ.get("MXNET_GIT_DIR"),
                        help="git directory of an apache/mxnet clone (or $MXNET_GIT_DIR)")
    parser.add_argument("--mxnet", help="Python of a virtual environment with real MXNet 1.9.1")
    parser.add_argument("--json", help="write every test's outcome on each side here")
    parser.add_argument("--previous", help="an earlier --json: MXNet's outcomes are read from it")
    parser.add_argument("--only", choices=("runtime", "mxnet"), help="run one side only")
    parser.add_argument("-k", dest="select", help="pytest -k expression")
    parser.add_argument("--timeout", type=int, default=120, help="seconds per test")
    args = parser.parse_args(argv)
    if not args.source:
        parser.error("--source (an apache/mxnet git directory) is required")
    previous = json.loads(Path(args.previous).read_text()) if args.previous else {}
    results, totals = {}, {"runtime": 0, "mxnet": 0, "both": 0}
    with tempfile.TemporaryDirectory(prefix="mxnet-unittests-") as tmp:
        test_dir = extract(args.source, Path(tmp))
        for name in args.files:
            runtime_outcomes = mxnet_outcomes = {}
            if args.only != "mxnet":
                runtime_outcomes = run_file(sys.executable, test_dir, name, True, args.timeout, args.select)
            if args.only != "runtime" and args.mxnet:
                mxnet_outcomes = run_file(args.mxnet, test_dir, name, False, args.timeout, args.select)
            else:
                mxnet_outcomes = previous.get(name, {}).get("mxnet_outcomes", {})
            counts = summarize(name, runtime_outcomes, mxnet_outcomes)
            for key in totals:
                totals[key] += counts[key]
            results[name] = {"runtime_outcomes": runtime_outcomes, "mxnet_outcomes": mxnet_outcomes, **counts}
    print("%-24s runtime %4d   mxnet %4d   both %4d   (%.1f%% of MXNet's passes)"
          % ("total", totals["runtime"], totals["mxnet"], totals["both"],
             100.0 * totals["both"] / max(totals["mxnet"], 1)))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
