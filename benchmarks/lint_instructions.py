"""Count the instructions of `hyblint check` on a corpus under valgrind, for two installs: a
measure of a change that a busy machine does not move.

usage: python benchmarks/lint_instructions.py CORPUS_DIR --python PYTHON [--baseline PYTHON]

PYTHON: the interpreter of a virtual environment where hyblint is installed (as the README says);
--baseline: another one (an earlier version), counted the same way. Each check runs once, cold
(`--no-cache`), under `valgrind --tool=callgrind --trace-children=yes`, with a fixed hash seed; the
instructions of every process (the main one and its checkers) are printed, with their sum and the
ratio of the sums. Wall times on a machine other programs load move by tens of percent from minute
to minute; these counts repeat within a few thousandths (which process did which file varies, not
what the run does). Instructions are not time: a regular expression's loop and a cache miss cost
otherwise; `lint_corpus.py` gives the times. A run takes about 80 times a check's CPU time.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from typing import List, Tuple

_COLLECTED = re.compile(r"==(\d+)== Collected : (\d+)")


def count(python: str, corpus: str) -> List[Tuple[int, int]]:
    """(process id, instructions) of each process of one cold check."""
    with tempfile.TemporaryDirectory() as scratch:
        # the check runs from bytecode, as an installed one does, written by a first run outside it
        env = dict(os.environ, PYTHONHASHSEED="0", PYTHONPYCACHEPREFIX=os.path.join(scratch, "pycache"))
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        check = [python, "-m", "hyblint", "check", "--no-cache", "--exit-zero", "--format", "concise", corpus]
        subprocess.run(check, cwd=scratch, env=env, stdout=subprocess.DEVNULL, check=True)
        done = subprocess.run(["valgrind", "--tool=callgrind", "--trace-children=yes",
                               "--callgrind-out-file=" + os.path.join(scratch, "callgrind.%p")] + check,
                              cwd=scratch, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if done.returncode != 0:
            sys.exit("valgrind failed (%d): %s" % (done.returncode, done.stderr[-500:]))
    return [(int(pid), int(total)) for pid, total in _COLLECTED.findall(done.stderr)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus")
    parser.add_argument("--python", required=True, help="the interpreter of the install to count")
    parser.add_argument("--baseline", help="the interpreter of another install, counted the same way")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed (Debian: apt-get install valgrind)")
    totals = {}
    for label, python in (("baseline", args.baseline), ("hyblint", args.python)):
        if python is None:
            continue
        processes = sorted(count(python, args.corpus))
        totals[label] = sum(total for _, total in processes)
        print("%-9s %s  total %.3f billion instructions (%s)" % (
            label, python, totals[label] / 1e9, ", ".join("%.3f" % (total / 1e9) for _, total in processes)))
    if len(totals) == 2:
        print("ratio hyblint / baseline: %.3f" % (totals["hyblint"] / totals["baseline"]))


if __name__ == "__main__":
    main()
