"""`mxnet.attribute.AttrScope`: attributes given to every symbol created inside a `with` block."""
from __future__ import annotations

import threading
from collections import defaultdict
from typing import Dict, Optional


class AttrScope:
    _current = threading.local()
    # how many graphs of each name the control-flow operators made (foreach0, foreach1...)
    _subgraph_names: Dict[str, int] = defaultdict(int)

    def __init__(self, **kwargs):
        for value in kwargs.values():
            if not isinstance(value, str):
                raise ValueError("Attributes need to be string")
        self._attr: Dict[str, str] = kwargs
        self._old = None

    def get(self, attr: Optional[Dict[str, str]]) -> Dict[str, str]:
        """The scope's attributes updated with `attr` (the symbol's own win)."""
        if not self._attr:
            return dict(attr) if attr else {}
        merged = dict(self._attr)
        merged.update(attr or {})
        return merged

    def __enter__(self):
        self._old = current()
        merged = dict(self._old._attr)
        merged.update(self._attr)
        self._attr = merged
        AttrScope._current.value = self
        return self

    def __exit__(self, *exc):
        AttrScope._current.value = self._old


def current() -> AttrScope:
    scope = getattr(AttrScope._current, "value", None)
    if scope is None:
        scope = AttrScope._current.value = AttrScope()
    return scope
