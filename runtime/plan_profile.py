"""Per-step times of a compiled forward plan: each step's kernel is timed while the plan runs
as it always does (the generated function looks its kernels up in its globals at each call)."""
from __future__ import annotations

import time
from typing import Dict, List, Sequence, Tuple

import numpy as np


def _timed(function, totals: List[float], index: int, sizes: List[int]):
    def run(*arrays, **attrs):
        start = time.perf_counter()
        try:
            result = function(*arrays, **attrs)
        finally:
            totals[index] += time.perf_counter() - start
        results = result if isinstance(result, (list, tuple)) else [result]
        # bytes of the step's outputs that are not views of its inputs
        sizes[index] = sum(r.nbytes for r in results if isinstance(r, np.ndarray)
                           and not any(isinstance(a, np.ndarray) and np.may_share_memory(r, a) for a in arrays))
        return result
    return run


def peak_bytes(steps, sizes: Sequence[int]) -> Tuple[int, int]:
    """(the most bytes of step outputs alive at once when each is released after its last
    reader, the bytes of all step outputs together)."""
    from runtime.graph import last_reads
    last = last_reads(steps, [])
    owner = {}
    for index, step in enumerate(steps):
        owner[step.output] = index
    live = peak = 0
    ends: Dict[int, int] = {}
    for index, step in enumerate(steps):
        live += sizes[index]
        peak = max(peak, live)
        ends.setdefault(last.get(step.output, index), 0)
        ends[last.get(step.output, index)] += sizes[index]
        live -= ends.pop(index, 0)
    return peak, sum(sizes)


def profile_plan(executor, names: Sequence[str], arrays: Sequence, repeat: int = 5) -> Tuple[List[Dict], int, int]:
    """For each step of the executor's predict plan on these inputs: its kernel's name, the node
    it writes, the bytes it allocates and the mean seconds per call over `repeat` forward passes;
    then the plan's peak and total bytes of step outputs (see peak_bytes)."""
    forward, steps = executor._plan(False, tuple(names))
    kernels = forward.__globals__
    totals = [0.0] * len(steps)
    sizes = [0] * len(steps)
    saved = {}
    for index in range(len(steps)):
        key = "k%d" % index
        saved[key] = kernels[key]
        kernels[key] = _timed(saved[key], totals, index, sizes)
    try:
        forward(*arrays)  # warm-up, not counted
        totals[:] = [0.0] * len(steps)
        for _ in range(repeat):
            forward(*arrays)
    finally:
        kernels.update(saved)
    rows = []
    for index, step in enumerate(steps):
        function = step.function
        rows.append({"index": index, "kernel": getattr(function, "__name__", type(function).__name__),
                     "node": step.node.name, "op": step.node.op.name, "seconds": totals[index] / repeat,
                     "bytes": sizes[index]})
    return rows, *peak_bytes(steps, sizes)


def summary(rows: List[Dict], top: int = 15) -> str:
    """Time per kernel kind, then the slowest steps."""
    total = sum(r["seconds"] for r in rows) or 1e-12
    kinds: Dict[str, List[float]] = {}
    for r in rows:
        kinds.setdefault(r["kernel"], []).append(r["seconds"])
    lines = ["%d steps, %.2f ms in kernels" % (len(rows), total * 1e3)]
    for kind, times in sorted(kinds.items(), key=lambda item: -sum(item[1])):
        lines.append("  %-28s %4d steps %8.2f ms %5.1f%%" % (kind, len(times), sum(times) * 1e3,
                                                             100 * sum(times) / total))
    lines.append("slowest steps:")
    for r in sorted(rows, key=lambda r: -r["seconds"])[:top]:
        lines.append("  %4d %-24s %-40s %7.2f ms" % (r["index"], r["kernel"], r["node"][:40], r["seconds"] * 1e3))
    return "\n".join(lines)


def arena_bytes(steps) -> int:
    """Bytes of the arena buffers that a static_alloc plan's fused steps write into."""
    buffers = [step.attrs["buffer"] for step in steps if hasattr(step.attrs.get("buffer"), "arena")]
    arenas = {id(buffer.arena): buffer.arena for buffer in buffers}  # (a Concat's operands have places instead)
    return sum(raw.nbytes for arena in arenas.values() for raw in arena if raw is not None)
