"""Time `hyblint check` against `hyblint check --fix` on generated code with many fixable findings.

usage: python benchmarks/fix_scale.py [--files 400] [--findings 200] [--methods 10000] [--rounds 3]
                                     [--only tree|big|method] [--python PYTHON]

Three inputs, each checked and fixed as whole processes on a fresh copy, medians shown: a tree of
FILES files with FINDINGS safe fixes each, one ~1.3 MB file of 10,000 small HybridBlocks (two
fixes each), and one method with 2,000 findings. Prints the wall time of each, the ratio
fix/check, the largest resident memory of any one process (hyblint or a worker of it) so far, and
whether the fixed code is clean on a second check.
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

HEADER = "from mxnet import nd\nfrom mxnet.gluon import nn\n\n"

# Each pair of lines is two safe fixes: HYB001 (indexing) and HYB006 (in-place add); every fourth
# block also calls nd.relu (HYB009) around an index.
BLOCK = '''

class Block{k}(nn.HybridBlock):
    def hybrid_forward(self, F, x, y):
{body}        return y
'''


def method_body(findings: int, start: int = 0) -> str:
    lines = []
    for i in range(start, start + findings // 2):
        if i % 4 == 3:
            lines.append("        a%d = nd.relu(x[%d])\n" % (i, i % 7))
        else:
            lines.append("        a%d = x[%d]\n" % (i, i % 7))
        lines.append("        y += a%d\n" % i)
    return "".join(lines)


def tree_file(findings: int, per_block: int = 50) -> str:
    blocks = [BLOCK.format(k=k, body=method_body(per_block)) for k in range(max(1, findings // per_block))]
    return HEADER + "".join(blocks)


def big_file(methods: int = 10_000) -> str:
    small = '''

class Small{k}(nn.HybridBlock):
    def hybrid_forward(self, F, x, y):
        z{k} = x[{i}]
        y += z{k}
        return y
'''
    return HEADER + "".join(small.format(k=k, i=k % 5) for k in range(methods))


def one_method(findings: int = 2_000) -> str:
    return HEADER + BLOCK.format(k=0, body=method_body(findings))


def run(python, args, cwd) -> tuple:
    """(seconds, peak resident MB of the slowest child, exit code) of one hyblint process."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    done = subprocess.run([python, "-m", "hyblint", "check", "--no-cache", "--format", "concise", *args],
                          cwd=cwd, env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if done.returncode not in (0, 1):
        sys.exit("hyblint %s failed (%d): %s" % (" ".join(args), done.returncode, done.stderr.decode()[-2000:]))
    return elapsed, max(peak, before) / 1024, done.returncode


def measure(name, python, make, rounds, scratch, select) -> None:
    original = Path(scratch) / (name + ".orig")
    make(original)
    checks, fixes, memory = [], [], 0.0
    clean = True
    for _ in range(rounds):
        work = Path(scratch) / name
        shutil.rmtree(work, ignore_errors=True)
        shutil.copytree(original, work)
        chosen = ["--select", select] if select else []
        checks.append(run(python, chosen + ["--exit-zero", "."], work)[0])
        seconds, peak, _ = run(python, chosen + ["--fix", "--exit-zero", "--quiet", "."], work)
        fixes.append(seconds)
        memory = max(memory, peak)
        clean = clean and run(python, ["--select", select or "HYB001,HYB006,HYB009", "."], work)[2] == 0
    check, fix = statistics.median(checks), statistics.median(fixes)
    print("%-34s check %7.2f s   --fix %7.2f s   fix/check %5.2fx   (peak RSS so far %d MB; fixed tree %s)"
          % (name, check, fix, fix / check, memory, "clean" if clean else "NOT CLEAN"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=400)
    parser.add_argument("--findings", type=int, default=200, help="fixable findings per file")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--python", default=sys.executable, help="an interpreter with hyblint installed")
    parser.add_argument("--methods", type=int, default=10_000, help="methods in the one large file")
    parser.add_argument("--only", choices=("tree", "big", "method"), default=None)
    parser.add_argument("--select", default=None, help="rules, for both the check and the fix "
                        "(HYB001,HYB006 leaves out HYB009, whose fix also prunes the imports it left unused)")
    args = parser.parse_args()

    def make_tree(folder: Path) -> None:
        text = tree_file(args.findings)
        for index in range(args.files):
            package = folder / ("pkg%d" % (index // 50))
            package.mkdir(parents=True, exist_ok=True)
            (package / ("m%d.py" % index)).write_text(text)

    def make_single(text):
        def make(folder: Path) -> None:
            folder.mkdir(parents=True)
            (folder / "big.py").write_text(text)
        return make

    cases = {
        "tree": ("%d files x %d findings" % (args.files, args.findings), make_tree),
        "big": ("one file, %d methods (%.1f MB)" % (args.methods, len(big_file(args.methods)) / 1e6),
                make_single(big_file(args.methods))),
        "method": ("one method, 2,000 findings", make_single(one_method())),
    }
    print("hyblint check vs check --fix, median of %d processes each, %d CPUs" % (args.rounds, os.cpu_count() or 1))
    with tempfile.TemporaryDirectory() as scratch:
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
        os.environ["PYTHONPYCACHEPREFIX"] = os.path.join(scratch, "pycache")
        for key, (name, make) in cases.items():
            if args.only in (None, key):
                measure(key + ": " + name, args.python, make, args.rounds, scratch, args.select)


if __name__ == "__main__":
    main()
