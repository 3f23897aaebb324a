"""The runtime's C heap policy (runtime.heap): the arrays a step frees are reused by the next one
from the same pages instead of coming back from the system as fresh pages that fault."""
import os
import resource

import numpy as np

import runtime  # noqa: F401  (sets the policy on import)
from runtime import heap


def _glibc() -> bool:
    try:
        return os.confstr("CS_GNU_LIBC_VERSION").startswith("glibc")
    except (AttributeError, ValueError, OSError):
        return False


def test_policy_is_set_on_glibc_and_can_be_turned_off(monkeypatch):
    monkeypatch.delenv("HYBLINT_RUNTIME_KEEP_HEAP", raising=False)
    assert heap.keep_heap() is _glibc()
    monkeypatch.setenv("HYBLINT_RUNTIME_KEEP_HEAP", "0")
    assert heap.keep_heap() is False


def test_arrays_freed_at_the_top_of_the_heap_are_reused_without_page_faults(monkeypatch):
    monkeypatch.delenv("HYBLINT_RUNTIME_KEEP_HEAP", raising=False)
    if not heap.keep_heap():
        assert not _glibc()
        return
    # glibc's own policy: freeing a mapped 1 MiB block lets the heap keep up to 2 MiB at its top;
    # three 1 MiB arrays freed together exceed it and were given back, to fault again each round
    mapped = np.ones(1 << 18, np.float32)
    del mapped
    faults = []
    for _ in range(6):
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        arrays = [np.ones(1 << 18, np.float32) for _ in range(3)]
        del arrays
        faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
    assert sum(faults[2:]) < 100, faults  # 768 pages a round are written; none fault once reused
