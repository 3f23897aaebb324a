"""`mxnet.util`: the switches of MXNet's NumPy-compatible semantics and environment helpers.

The runtime computes with MXNet 1.x semantics; the switches are recorded so that code which sets and
reads them (and the decorators that wrap classes and functions with them) behaves as in MXNet."""
from __future__ import annotations

import contextlib
import functools
import inspect
import os
import threading


class _Modes(threading.local):
    np_shape = False
    np_array = False


_modes = _Modes()


def is_np_shape() -> bool:
    return _modes.np_shape


def set_np_shape(active: bool) -> bool:
    previous = _modes.np_shape
    _modes.np_shape = bool(active)
    return previous


def is_np_array() -> bool:
    return _modes.np_array


def set_np_array(active: bool) -> bool:
    previous = _modes.np_array
    _modes.np_array = bool(active)
    return previous


def set_np(shape: bool = True, array: bool = True) -> None:
    if array and not shape:
        raise ValueError("NumPy Shape semantics is required in using NumPy array semantics.")
    set_np_shape(shape)
    set_np_array(array)


def reset_np() -> None:
    set_np(shape=False, array=False)


@contextlib.contextmanager
def _mode(setter, active):
    previous = setter(active)
    try:
        yield
    finally:
        setter(previous)


def np_shape(active: bool = True):
    """`with np_shape():` NumPy shape semantics (zero-size dimensions, scalars) inside the block."""
    return _mode(set_np_shape, active)


def np_array(active: bool = True):
    return _mode(set_np_array, active)


def _wrapped_in(mode_factory):
    """A decorator that runs a function, or every method of a class, inside a mode."""
    def decorator(target):
        if inspect.isclass(target):
            for name, member in list(vars(target).items()):
                if inspect.isfunction(member):
                    setattr(target, name, decorator(member))
            return target
        if not callable(target):
            return target

        @functools.wraps(target)
        def wrapped(*args, **kwargs):
            with mode_factory():
                return target(*args, **kwargs)
        return wrapped
    return decorator


use_np_shape = _wrapped_in(np_shape)
use_np_array = _wrapped_in(np_array)


def use_np(target):
    return use_np_shape(use_np_array(target))


def wrap_np_unary_func(func):
    return func


def wrap_np_binary_func(func):
    return func


def getenv(name: str):
    return os.environ.get(name)


def setenv(name: str, value) -> None:
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = str(value)


def get_gpu_count() -> int:
    return 0


def get_gpu_memory(gpu_dev_id: int):
    raise ValueError("no GPU: this runtime computes on the CPU")


def default_array(source_array, ctx=None, dtype=None):
    from runtime.ndarray import array
    return array(source_array, ctx=ctx, dtype=dtype)
