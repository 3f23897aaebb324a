"""Automatic names for symbols: `fullyconnected0`, and Gluon's prefixes (`dense0_fwd`)."""
from __future__ import annotations

import threading
from typing import Dict, Optional

_local = threading.local()


class NameManager:
    """Counts names per hint; `with NameManager():` starts a fresh count."""

    def __init__(self):
        self._counter: Dict[str, int] = {}
        self._old = None

    def get(self, name: Optional[str], hint: str) -> str:
        if name:
            return name
        hint = hint.lower()
        count = self._counter.get(hint, 0)
        self._counter[hint] = count + 1
        return "%s%d" % (hint, count)

    def __enter__(self):
        self._old = current()
        _local.manager = self
        return self

    def __exit__(self, *exc):
        _local.manager = self._old


class Prefix(NameManager):
    """Every name made inside gets the prefix: Gluon blocks name their operators this way."""

    def __init__(self, prefix: str):
        super().__init__()
        self._prefix = prefix

    def get(self, name: Optional[str], hint: str) -> str:
        return self._prefix + super().get(name, hint)


def current() -> NameManager:
    manager = getattr(_local, "manager", None)
    if manager is None:
        manager = _local.manager = NameManager()
    return manager
