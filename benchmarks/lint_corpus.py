"""Time `hyblint check` against `ruff check` on the same corpus, as whole processes, interleaved.

usage: python benchmarks/lint_corpus.py CORPUS_DIR [--rounds N] [--python PYTHON]

CORPUS_DIR: real Gluon code, e.g. the GluonCV/GluonNLP/MXNet sources that the project's corpus
script unpacks. Prints the median wall time of each tool, their ratio, and hyblint's warm-cache time;
and the CPU time of each (user + system, worker processes included), which a loaded machine skews less.
By default this checkout runs on this interpreter; --python times the hyblint installed for another
(a virtual environment made as the README says), whose start-up is then what a user's is.
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
from typing import List, Optional

ROOT = Path(__file__).resolve().parents[1]


def timed(command, cwd, cpu: Optional[List[float]] = None) -> float:
    """The wall time of `command`; its CPU time (user + system, its child processes included) is
    appended to `cpu`: on a machine busy with other work, wall times follow the load, CPU less so."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        sys.exit("%s failed (%d): %s" % (command[0], done.returncode, done.stderr.decode()[-500:]))
    if cpu is not None:
        cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--python", default=None, help="an interpreter with hyblint installed")
    args = parser.parse_args()
    corpus = str(Path(args.corpus).resolve())
    files = sum(1 for _ in Path(corpus).rglob("*.py"))
    ruff = shutil.which("ruff")
    env_python = args.python or sys.executable
    hyblint = [env_python, "-m", "hyblint", "check", "--no-cache", "--exit-zero", "--format", "concise", corpus]
    peers = {"hyblint (cold, --no-cache)": hyblint}
    if ruff:
        peers["ruff --select ALL"] = [ruff, "check", "--select", "ALL", "--no-cache", "--exit-zero",
                                      "--output-format", "concise", corpus]
    else:
        print("ruff not found on PATH: only hyblint is timed")
    times = {name: [] for name in peers}
    cpu = {name: [] for name in peers}
    with tempfile.TemporaryDirectory() as scratch:  # the commands run from here: no config found
        if args.python is None:
            os.environ.setdefault("PYTHONPATH", str(ROOT))
        # An installed hyblint runs from bytecode (pip compiles it); so do the timed runs, whatever
        # PYTHONDONTWRITEBYTECODE says here. The warm-up run writes the bytecode, outside the tree.
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
        os.environ["PYTHONPYCACHEPREFIX"] = os.path.join(scratch, "pycache")
        for command in peers.values():
            timed(command, scratch)  # warm the OS file cache and the interpreters
        for _ in range(args.rounds):
            for name, command in peers.items():
                times[name].append(timed(command, scratch, cpu[name]))
        warm = [env_python, "-m", "hyblint", "check", "--exit-zero", "--format", "concise", corpus]
        timed(warm, scratch)
        warm_times = [timed(warm, scratch) for _ in range(args.rounds)]
        shutil.rmtree(Path(scratch) / ".hyblint_cache", ignore_errors=True)

    print("corpus: %s (%d Python files), %d rounds, %d CPUs" % (corpus, files, args.rounds, os.cpu_count()))
    medians = {name: statistics.median(values) for name, values in times.items()}
    for name, value in medians.items():
        print("  %-28s median %.3f s   (min %.3f, max %.3f)   CPU (user+sys) median %.3f s"
              % (name, value, min(times[name]), max(times[name]), statistics.median(cpu[name])))
    print("  %-28s median %.3f s" % ("hyblint (warm cache)", statistics.median(warm_times)))
    if len(medians) == 2:
        h, r = medians.values()
        # each round runs the two back to back: the median of their ratios cancels the machine's drift
        paired = statistics.median(a / b for a, b in zip(*times.values()))
        print("ratio hyblint / ruff: %.2f (median of the per-round ratios: %.2f)" % (h / r, paired))
        cpu_paired = statistics.median(a / b for a, b in zip(*cpu.values()))
        print("CPU ratio hyblint / ruff: %.2f (median of the per-round ratios)" % cpu_paired)


if __name__ == "__main__":
    main()
