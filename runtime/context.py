"""Devices. Everything computes on the CPU; a gpu() context is accepted and recorded."""
from __future__ import annotations

import threading

from runtime.base import classproperty


class Context:
    devtype2str = {1: "cpu", 2: "gpu", 3: "cpu_pinned", 5: "cpu_shared"}
    devstr2type = {v: k for k, v in devtype2str.items()}
    _default = threading.local()

    def __init__(self, device_type="cpu", device_id=0):
        if isinstance(device_type, Context):
            device_type, device_id = device_type.device_type, device_type.device_id
        self.device_typeid = self.devstr2type[device_type]
        self.device_id = device_id
        self._old = None

    @property
    def device_type(self) -> str:
        return self.devtype2str[self.device_typeid]

    def __eq__(self, other) -> bool:
        return isinstance(other, Context) and (self.device_typeid, self.device_id) == (other.device_typeid, other.device_id)

    def __hash__(self) -> int:
        return hash((self.device_typeid, self.device_id))

    def __repr__(self) -> str:
        return "%s(%d)" % (self.device_type, self.device_id)

    __str__ = __repr__

    @classproperty
    def default_ctx(cls) -> "Context":  # MXNet 1.x's class attribute: the current default context
        return current_context()

    def __enter__(self):
        self._old = getattr(Context._default, "value", None)
        Context._default.value = self
        return self

    def __exit__(self, *exc):
        Context._default.value = self._old


def cpu(device_id: int = 0) -> Context:
    return Context("cpu", device_id)


def gpu(device_id: int = 0) -> Context:
    return Context("gpu", device_id)


def cpu_pinned(device_id: int = 0) -> Context:
    return Context("cpu_pinned", device_id)


def current_context() -> Context:
    return getattr(Context._default, "value", None) or Context("cpu", 0)


def num_gpus() -> int:
    return 0
