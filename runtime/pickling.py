"""Pickles that MXNet 1.9.1 and this runtime both read: optimizer states (`Trainer.save_states`).

MXNet pickles an NDArray as `NDArray(None)` followed by the state `{'handle': <one array in the
.params encoding>}`, and names its classes by their `mxnet.*` modules. The runtime's classes are
written under those names and read back from them, so a states file crosses in either direction.
"""
from __future__ import annotations

import io
import pickle

from runtime.ndarray import NDArray
from runtime.serialization import _encode, _Reader

_NDARRAY_NAME = ("mxnet.ndarray.ndarray", "NDArray")
_MODULES = {"runtime.optimizer": "mxnet.optimizer.optimizer", "runtime.lr_scheduler": "mxnet.lr_scheduler"}
_RUNTIME_MODULES = {"mxnet.optimizer.optimizer": "runtime.optimizer", "mxnet.optimizer": "runtime.optimizer",
                    "mxnet.lr_scheduler": "runtime.lr_scheduler"}


def _mxnet_name(obj):
    if obj is NDArray:
        return _NDARRAY_NAME
    module = _MODULES.get(getattr(obj, "__module__", None))
    return (module, obj.__qualname__) if module else None


class _Pickler(pickle._Pickler):
    def reducer_override(self, obj):
        if type(obj) is NDArray:
            return NDArray, (None,), {"handle": bytearray(_encode(obj._data))}
        return NotImplemented

    def save_global(self, obj, name=None):
        target = _mxnet_name(obj)
        if target is None:
            return super().save_global(obj, name)
        module, qualname = target
        self.save(module)
        self.save(qualname)
        self.write(pickle.STACK_GLOBAL)
        self.memoize(obj)


class _Unpickler(pickle._Unpickler):
    dispatch = dict(pickle._Unpickler.dispatch)

    def find_class(self, module, name):
        if (module, name) == _NDARRAY_NAME:
            return NDArray
        if module in _RUNTIME_MODULES:
            module = _RUNTIME_MODULES[module]
        return super().find_class(module, name)

    def load_build(self):
        state, inst = self.stack[-1], self.stack[-2]
        if type(inst) is NDArray and isinstance(state, dict) and "handle" in state:
            self.stack.pop()
            inst._data = _Reader(bytes(state["handle"]), "pickled NDArray").array()
            return
        pickle._Unpickler.load_build(self)

    dispatch[pickle.BUILD[0]] = load_build


def dumps(obj) -> bytes:
    buffer = io.BytesIO()
    _Pickler(buffer, protocol=4).dump(obj)
    return buffer.getvalue()


def loads(data: bytes):
    return _Unpickler(io.BytesIO(data)).load()
