"""`mxnet.engine`: operator bulking. This runtime runs each operator when called (eager) or each
compiled graph as a whole, so the bulk size is recorded and has no effect on results."""
from __future__ import annotations

import contextlib

_bulk = {"size": 15}


def set_bulk_size(size: int) -> int:
    """Set the number of operators bulked together; returns the previous value."""
    previous = _bulk["size"]
    _bulk["size"] = int(size)
    return previous


@contextlib.contextmanager
def bulk(size: int):
    previous = set_bulk_size(size)
    try:
        yield
    finally:
        set_bulk_size(previous)
