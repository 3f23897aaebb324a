"""Memos of the most recently used entries, up to a count.

A check remembers what it computed for a text or a node (a parse, a verdict, a listing) where the
same one is asked for again: by the second screening of a file, by the next keystroke in the
language server. Each memo keeps its newest `size` entries, so that a long session's memory stays
bounded."""
from __future__ import annotations

from collections import OrderedDict

_MISSING = object()


class Recent(OrderedDict):
    """A dictionary of at most `size` entries: `recall` finds one and makes it the newest, `keep`
    adds a new one (the newest) and drops the oldest past `size`. Plain reads (`in`, `[]`, `get`)
    leave the order as it is."""

    def __init__(self, size: int):
        super().__init__()
        self.size = size

    def recall(self, key, default=None):
        found = self.get(key, _MISSING)
        if found is _MISSING:
            return default
        self.move_to_end(key)
        return found

    def keep(self, key, value):
        self[key] = value  # (a key already there keeps its place: `recall` it first)
        if len(self) > self.size:
            self.popitem(last=False)
        return value
