"""A per-file step that no input can turn into the run's failure.

Deeply nested code (an expression of thousands of terms, all valid Python) exceeds the default
recursion limit in the analysis and in libcst. Such a step is run again on a thread with a large
stack and a raised, bounded recursion limit; what still fails becomes that file's HYB906
diagnostic, so the other files of the run are reported as usual.
"""
from __future__ import annotations

import sys
import threading
import traceback
from typing import Any, Callable, List

from hyblint.diagnostics import Diagnostic, Location, Severity

INTERNAL_ERROR = "HYB906"
# Frames allowed on the deep thread. Python frames live on the heap; what uses the C stack are
# calls through C (libcst's visitors, the compiler's symbol table), well inside DEEP_STACK_BYTES.
DEEP_RECURSION_LIMIT = 60_000
DEEP_STACK_BYTES = 512 * 1024 * 1024

_LOCK = threading.Lock()
_STATE = threading.local()


def internal_error(filename: str, reason: str) -> Diagnostic:
    return Diagnostic(INTERNAL_ERROR, reason, filename, Location(1, 1), Location(1, 1), Severity.ERROR)


def _describe(exc: BaseException) -> str:
    if isinstance(exc, RecursionError):
        return "too deeply nested to check (beyond %d frames of recursion)" % DEEP_RECURSION_LIMIT
    if isinstance(exc, MemoryError):
        return "too large to check (out of memory)"
    frames = traceback.extract_tb(exc.__traceback__)
    where = " at %s:%d" % (frames[-1].filename.rsplit("/", 1)[-1], frames[-1].lineno) if frames else ""
    detail = str(exc).splitlines()[0] if str(exc) else ""
    return "internal error: %s%s%s; please report it" % (type(exc).__name__, ": " + detail if detail else "",
                                                       where)


def _on_deep_stack(function: Callable, *args) -> Any:
    """`function(*args)` on a thread with a large stack and a raised recursion limit."""
    outcome: dict = {}

    def target() -> None:
        _STATE.deep = True
        try:
            outcome["value"] = function(*args)
        except BaseException as exc:  # handed to the caller's thread
            outcome["error"] = exc

    with _LOCK:  # the recursion limit is the interpreter's: one deep step at a time
        limit = sys.getrecursionlimit()
        size = threading.stack_size()
        try:
            threading.stack_size(DEEP_STACK_BYTES)
            thread = threading.Thread(target=target, name="hyblint-deep", daemon=True)
            sys.setrecursionlimit(max(limit, DEEP_RECURSION_LIMIT))
            thread.start()
        finally:
            threading.stack_size(size)
        try:
            thread.join()
        finally:
            sys.setrecursionlimit(limit)
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def guarded(function: Callable, filename: str, fallback: Callable[[List[Diagnostic]], Any], *args) -> Any:
    """`function(*args)`; if it fails, `fallback([the file's HYB906 diagnostic])`."""
    try:
        return function(*args)
    except (RecursionError, MemoryError) as exc:
        if getattr(_STATE, "deep", False):
            raise
        first = exc
    except Exception as exc:
        if getattr(_STATE, "deep", False):
            raise
        return fallback([internal_error(filename, _describe(exc))])
    del first
    try:
        return _on_deep_stack(function, *args)
    except Exception as exc:
        return fallback([internal_error(filename, _describe(exc))])
