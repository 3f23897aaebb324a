"""`mxnet.kvstore`: a key-value store on one process ('local', 'device'): pushing sums the values given
for a key (and applies the updater, if one is set); pulling copies the stored value out."""
from __future__ import annotations

import pickle
from typing import Dict

from runtime.base import MXNetError
from runtime.ndarray import NDArray


def _pairs(key, value):
    """[(key, [values])] for one key or a list of keys, each with one value or a list of them."""
    if isinstance(key, (list, tuple)):
        if len(key) != len(value):
            raise MXNetError("keys and values have different lengths: %d vs %d" % (len(key), len(value)))
        return [(k, v if isinstance(v, (list, tuple)) else [v]) for k, v in zip(key, value)]
    return [(key, list(value) if isinstance(value, (list, tuple)) else [value])]


class KVStore:
    def __init__(self, kind: str = "local"):
        self._type = kind
        self._store: Dict = {}
        self._updater = None
        self._optimizer = None

    @property
    def type(self) -> str:
        return self._type

    @property
    def rank(self) -> int:
        return 0

    @property
    def num_workers(self) -> int:
        return 1

    def init(self, key, value) -> None:
        for k, values in _pairs(key, value):
            if k in self._store:
                raise MXNetError("duplicate init of key %s" % (k,))
            self._store[k] = values[0].copy()

    def _stored(self, key) -> NDArray:
        if key not in self._store:
            raise MXNetError("key %s has not been inited" % (key,))
        return self._store[key]

    def push(self, key, value, priority: int = 0) -> None:
        for k, values in _pairs(key, value):
            stored = self._stored(k)
            merged = values[0].copy()
            for v in values[1:]:
                merged += v.as_in_context(merged.context)
            if self._updater is not None:
                self._updater(k, merged, stored)
            else:
                stored[:] = merged

    def pull(self, key, out=None, priority: int = 0, ignore_sparse: bool = True) -> None:
        if out is None:
            raise MXNetError("pull needs the arrays to copy into (out=)")
        for k, outs in _pairs(key, out):
            stored = self._stored(k)
            for o in outs:
                o[:] = stored

    def pushpull(self, key, value, out=None, priority: int = 0) -> None:
        self.push(key, value, priority)
        self.pull(key, value if out is None else out, priority)

    def broadcast(self, key, value, out, priority: int = 0) -> None:
        self.init(key, value)
        self.pull(key, out, priority)

    def row_sparse_pull(self, key, out=None, priority=0, row_ids=None):
        """Copy the rows `row_ids` of the stored value into each `out` (row_sparse): one row_ids
        for all outs, or one per out."""
        if out is None or row_ids is None:
            raise MXNetError("row_sparse_pull needs out= and row_ids=")
        from runtime import sparse
        for k, outs in _pairs(key, out):
            stored = self._stored(k)
            ids = row_ids if isinstance(row_ids, (list, tuple)) else [row_ids] * len(outs)
            for o, rows in zip(outs, ids):
                o[:] = sparse.retain(stored, rows.astype("int64"))

    def set_gradient_compression(self, compression_params) -> None:
        raise MXNetError("Gradient compression is not supported for this type of kvstore")

    def set_optimizer(self, optimizer) -> None:
        from runtime import optimizer as optimizers  # provided with the optimizers
        self._optimizer = optimizer
        self._set_updater(optimizers.get_updater(optimizer))

    def _set_updater(self, updater) -> None:
        self._updater = updater

    set_updater = _set_updater

    def save_optimizer_states(self, fname: str, dump_optimizer: bool = False) -> None:
        if self._updater is None or not hasattr(self._updater, "get_states"):
            raise MXNetError("Cannot save states for distributed training")
        with open(fname, "wb") as handle:
            handle.write(self._updater.get_states(dump_optimizer))

    def load_optimizer_states(self, fname: str) -> None:
        if self._updater is None or not hasattr(self._updater, "set_states"):
            raise MXNetError("Cannot load states for distributed training")
        with open(fname, "rb") as handle:
            self._updater.set_states(handle.read())

    def _barrier(self) -> None:
        pass

    def __getstate__(self):
        raise pickle.PicklingError("a KVStore cannot be pickled")


def create(name: str = "local") -> KVStore:
    if not isinstance(name, str):
        raise TypeError("name must be a string")
    if name not in ("local", "device", "local_allreduce_cpu", "local_allreduce_device", "nccl"):
        raise MXNetError("Unknown KVStore type %s: this runtime runs on one process" % name)
    return KVStore(name)
