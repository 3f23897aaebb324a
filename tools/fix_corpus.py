"""Fix every Python file under a directory in memory and check the fixer's guarantees on it.

    python3 tools/fix_corpus.py DIR [--unsafe-fixes] [--examples N]

Nothing is written. For each file with at least one applied fix: the fixed text must parse,
and fixing it again must change nothing. Prints the number of applied fixes per rule, the
dropped fixes with their reasons, every file that breaks a guarantee, and N sample rewrites
(before -> after lines) for reading by hand.
"""
from __future__ import annotations

import argparse
import ast
import collections
import difflib
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hyblint.files import InputError, read_source  # noqa: E402
from hyblint.fixer import fix_source  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory")
    parser.add_argument("--unsafe-fixes", action="store_true")
    parser.add_argument("--examples", type=int, default=10, help="sample rewrites to print")
    args = parser.parse_args(argv)

    applied = collections.Counter()
    dropped = collections.Counter()
    broken, unstable, samples = [], [], []
    files = fixed_files = 0
    started = time.perf_counter()
    for path in sorted(Path(args.directory).rglob("*.py")):
        try:
            source = read_source(path).text
        except InputError:
            continue
        files += 1
        result = fix_source(source, str(path), unsafe=args.unsafe_fixes)
        for diagnostic, reason in result.dropped:
            dropped[(diagnostic.code, reason)] += 1
        if not result.applied:
            continue
        fixed_files += 1
        applied.update(d.code for d in result.applied)
        try:
            ast.parse(result.source)
        except SyntaxError as exc:
            broken.append((path, exc))
            continue
        again = fix_source(result.source, str(path), unsafe=args.unsafe_fixes)
        if again.source != result.source:
            unstable.append(path)
        diff = [line for line in difflib.unified_diff(source.splitlines(), result.source.splitlines(),
                                                      lineterm="", n=0)
                if line[:1] in "+-" and not line.startswith(("+++", "---"))]
        samples.append((path, diff))
    elapsed = time.perf_counter() - started

    print("%d files, %d with fixes applied (%s), %.1f s" % (
        files, fixed_files, "safe and unsafe" if args.unsafe_fixes else "safe only", elapsed))
    print("applied fixes per rule:")
    for code, count in sorted(applied.items()):
        print("  %s %5d" % (code, count))
    print("  total  %d" % sum(applied.values()))
    print("dropped fixes: %d" % sum(dropped.values()))
    for (code, reason), count in sorted(dropped.items()):
        print("  %s %5d  %s" % (code, count, reason))
    print("fixed files that do not parse: %d" % len(broken))
    for path, exc in broken:
        print("  %s: %s" % (path, exc))
    print("fixed files that a second fix changes: %d" % len(unstable))
    for path in unstable:
        print("  %s" % path)
    random.Random(0).shuffle(samples)
    for path, diff in samples[:args.examples]:
        print("\n== %s" % path)
        for line in diff[:8]:
            print("  " + line.strip()[:200])
    return 1 if broken or unstable else 0


if __name__ == "__main__":
    sys.exit(main())
