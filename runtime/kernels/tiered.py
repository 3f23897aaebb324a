"""Kernels that run before their machine code is ready.

With an empty cache, Numba compiles the image kernels for seconds (`preload` does it in a
background thread from the runtime's import on). A kernel declared `tiered` has a NumPy twin that
computes the same values, operation for operation (no fast-math kernel has one: its rounding is the
compiler's to choose): while the kernels are being compiled (an empty cache: loading them from
the cache takes milliseconds, which a call waits for), a call whose argument types have no machine
code yet runs the twin instead of waiting, and leaves those types for the loading thread to compile
next, so that a new process's first forward passes take NumPy's time, not the
compiler's. Once the loading is over, every call goes to the compiled kernel (compiling, as any
other, a signature met for the first time).
"""
from __future__ import annotations

import os
import threading
from typing import Callable, Optional

import numba

_loading = threading.Event()  # set while the kernels load in the background
_compiling = threading.Event()  # set once the loading missed the cache: it compiles
_local = threading.local()    # `loader`: True in the thread that loads them
_lock = threading.Lock()
_wanted: list = []            # (kernel, argument types) met by twins, for the loader to compile
_asked: set = set()


def loading_started() -> None:
    _loading.set()


def compiling_started() -> None:
    _compiling.set()


def loading() -> bool:
    """Whether the kernels are still being loaded (or compiled) in the background."""
    return _loading.is_set()


def compiling() -> bool:
    """Whether the loading missed the cache (and compiles)."""
    return _compiling.is_set()


def compile_wanted(stop: Optional[threading.Event] = None) -> None:
    """In the loading thread: compiles what the twins met, until nothing is left (or `stop` is
    set: the program exits), then ends the loading."""
    while True:
        with _lock:
            if not _wanted or (stop is not None and stop.is_set()):
                _wanted.clear()
                _loading.clear()
                _compiling.clear()
                return
            kernel, types = _wanted.pop(0)
        try:
            kernel.compiled.compile(types)
        except Exception:  # compiled again, and reported, where it is called
            pass


def _forked() -> None:
    """A child forked while the kernels loaded has no loading thread: its kernels are compiled
    where called (its twins would otherwise run for good)."""
    global _lock
    _lock = threading.Lock()  # (the loading thread may have held it at the fork)
    _loading.clear()
    _compiling.clear()
    _wanted.clear()
    _asked.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forked)


def _want(kernel: "Tiered", types: tuple) -> None:
    with _lock:
        if _loading.is_set() and (id(kernel), types) not in _asked:
            _asked.add((id(kernel), types))
            _wanted.append((kernel, types))


def load_in_this_thread() -> None:
    """The calling thread loads the kernels: its calls compile them, never run a twin."""
    _local.loader = True


class Tiered:
    """A compiled kernel (a Numba dispatcher) and its NumPy twin, called as the kernel is."""

    def __init__(self, compiled, twin: Callable):
        self.compiled = compiled
        self.twin = twin
        self.settled = False  # the loading was over at a call: the compiled kernel from then on
        self.__doc__ = compiled.__doc__
        self.__name__ = compiled.__name__

    def __call__(self, *args):
        if self.settled:
            return self.compiled(*args)
        if not _loading.is_set():
            self.settled = True
        elif _compiling.is_set() and not getattr(_local, "loader", False):
            types = tuple(numba.typeof(a) for a in args)
            if types not in self.compiled.overloads:
                _want(self, types)
                return self.twin(*args)
        return self.compiled(*args)


def tiered(twin: Callable):
    """Declares a Numba kernel's NumPy twin: `@tiered(twin)` above `@numba.njit(...)`."""
    def wrap(compiled) -> Tiered:
        return Tiered(compiled, twin)
    return wrap
