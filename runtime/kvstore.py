"""`mxnet.kvstore`: key-value stores on one process.

`KVStore` is MXNet's local store ('local', 'device' and any other name that is not distributed): a
push sums the values given for a key (arrays from several contexts) and hands the sum to the
updater, if one is set, or stores it; a pull copies the stored value into every output. A call with
a list of keys reads every pushed value before it writes anything, as MXNet's engine orders them.
`KVStoreBase` is the interface that Python stores implement and register (`TestStore` is MXNet's own
example), and `create` makes a registered store by its class name, lower-cased.
"""
from __future__ import annotations

import pickle
import warnings
from typing import Dict, List, Tuple

import numpy as np

from runtime.base import MXNetError
from runtime.context import Context
from runtime.ndarray import NDArray

__all__ = ["create", "KVStoreBase", "KVStore", "TestStore"]

# where a local store keeps its values (MXNet's pinned host memory) and sums them for 'local'
_STORE_CONTEXT = Context("cpu_pinned", 0)
# MXNet's key types, as its "Mixed key types" check prints them
_STR_KEY, _INT_KEY = 0, 1


def _key_value_pairs(keys, values) -> Tuple[List[Tuple[object, NDArray]], bool]:
    """[(key, array)] for one key with one array or a list of them, or for a list of keys each with
    its own; and whether the keys are strings. MXNet's assertions on the arguments."""
    if isinstance(keys, (tuple, list)):
        assert len(keys) == len(values)
        pairs, str_keys = [], None
        for key, value in zip(keys, values):
            sub, is_str = _key_value_pairs(key, value)
            pairs += sub
            str_keys = is_str if str_keys is None else str_keys
            assert str_keys == is_str, "inconsistent types of keys detected."
        return pairs, bool(str_keys)
    assert isinstance(keys, (int, str)), "unexpected type for keys: " + str(type(keys))
    if isinstance(values, NDArray):
        return [(keys, values)], isinstance(keys, str)
    for value in values:
        assert isinstance(value, NDArray)
    return [(keys, value) for value in values], isinstance(keys, str)


def _grouped(pairs) -> Dict[object, List[NDArray]]:
    """The arrays of each key, keys in order of first appearance."""
    groups: Dict[object, List[NDArray]] = {}
    for key, value in pairs:
        groups.setdefault(key, []).append(value)
    return groups


def _check_same_shape(source: NDArray, target: NDArray) -> None:
    if source.shape != target.shape:
        raise MXNetError("Check failed: from.shape() == to.shape(): operands shape mismatch from.shape = [%s] "
                         "to.shape=[%s]" % (",".join(map(str, source.shape)), ",".join(map(str, target.shape))))


class KVStoreBase:
    """The interface of a key-value store for data-parallel training; `register` makes a subclass
    available to `create` under its class name, lower-cased."""

    OPTIMIZER = "optimizer"
    kv_registry: Dict[str, type] = {}

    def broadcast(self, key, value, out, priority=0):
        raise NotImplementedError()

    def pushpull(self, key, value, out=None, priority=0):
        raise NotImplementedError()

    def set_optimizer(self, optimizer):
        raise NotImplementedError()

    def is_capable(self, capability):
        raise NotImplementedError()

    def save_optimizer_states(self, fname, dump_optimizer=False):
        raise NotImplementedError()

    def load_optimizer_states(self, fname):
        raise NotImplementedError()

    @property
    def type(self):
        raise NotImplementedError()

    @property
    def rank(self):
        raise NotImplementedError()

    @property
    def num_workers(self):
        raise NotImplementedError()

    @staticmethod
    def register(klass):
        assert isinstance(klass, type)
        name = klass.__name__.lower()
        if name in KVStoreBase.kv_registry:
            old = KVStoreBase.kv_registry[name]
            warnings.warn("WARNING: New kvstore %s.%s is overriding existing kvstore %s.%s"
                          % (klass.__module__, klass.__name__, old.__module__, old.__name__))
        KVStoreBase.kv_registry[name] = klass
        return klass


@KVStoreBase.register
class TestStore(KVStoreBase):
    """MXNet's example of a store written in Python: sums on the first value's context, keeps
    nothing, and has no optimizer."""

    def broadcast(self, key, value, out, priority=0):
        for target in (out if isinstance(out, list) else [out]):
            target[:] = value

    def pushpull(self, key, value, out=None, priority=0):
        if isinstance(value, NDArray):
            total, targets = value, ([] if out is None else out)
        else:
            ctx = value[0].context
            total = value[0].as_in_context(ctx).copy()
            for v in value[1:]:
                total = total + v.as_in_context(ctx)
            targets = value if out is None else out
        for target in (targets if isinstance(targets, list) else [targets]):
            target[:] = total

    @staticmethod
    def is_capable(capability):
        if capability.lower() == KVStoreBase.OPTIMIZER:
            return False
        raise ValueError("Unknown capability: {}".format(capability))

    @property
    def type(self):
        return "teststore"

    @property
    def rank(self):
        return 0

    @property
    def num_workers(self):
        return 1

    def set_optimizer(self, optimizer):
        raise NotImplementedError()

    def save_optimizer_states(self, fname, dump_optimizer=False):
        raise NotImplementedError()

    def load_optimizer_states(self, fname):
        raise NotImplementedError()


class _TwoBitCompression:
    """MXNet's '2bit' gradient compression: each pushed array adds to its own residual, sends
    +threshold, -threshold or 0 where the residual reaches a threshold, and keeps the rest."""

    def __init__(self, threshold: float):
        self.threshold = threshold
        self._residuals: Dict[tuple, np.ndarray] = {}

    def __call__(self, key, position: int, value: NDArray) -> NDArray:
        residual = self._residuals.setdefault((key, position), np.zeros(value.shape, dtype=np.float32))
        residual += value._data
        t = np.float32(self.threshold)
        sent = np.where(residual >= t, t, np.where(residual <= -t, -t, np.float32(0))).astype(value._data.dtype)
        residual -= sent
        return NDArray(sent, value.context)


def _compression_from(params: dict):
    if "type" not in params:
        raise MXNetError("Required parameter type of string is not presented")
    kind = str(params["type"])
    if kind != "2bit":
        raise MXNetError("Unknown type for gradient compression %s" % kind)
    return _TwoBitCompression(float(params.get("threshold", 0.5)))


class KVStore(KVStoreBase):
    """MXNet's local store: keys are all ints or all strings; an updater gets int keys as ints and
    string keys as bytes, as MXNet's C callback passes them."""

    def __init__(self, kind: str = "local"):
        self._type = kind
        self._store: Dict[object, NDArray] = {}
        self._key_type = None
        self._updater = None
        self._compression = None

    @property
    def type(self) -> str:
        return self._type

    @property
    def rank(self) -> int:
        return 0

    @property
    def num_workers(self) -> int:
        return 1

    def is_capable(self, capability) -> bool:
        if capability.lower() == KVStoreBase.OPTIMIZER:
            return True
        raise ValueError("Unknown capability: {}".format(capability))

    # ---- keys
    def _check_key_type(self, str_keys: bool) -> None:
        kind = _STR_KEY if str_keys else _INT_KEY
        if self._key_type is None:
            self._key_type = kind
        elif self._key_type != kind:
            raise MXNetError("Check failed: key_type_ == key_type (%d vs. %d) : Mixed key types are not allowed"
                             % (self._key_type, kind))

    def _stored(self, key) -> NDArray:
        if key in self._store:
            return self._store[key]
        if isinstance(key, str):
            raise MXNetError("Check failed: str_key_dict_.find(str_key) != str_key_dict_.end(): key %s doesn't "
                             "exist. Did you init?" % key)
        raise MXNetError("Check failed: !local.is_none(): key %s has not been inited" % key)

    # ---- init, push, pull
    def init(self, key, value) -> None:
        pairs, str_keys = _key_value_pairs(key, value)
        self._check_key_type(str_keys)
        for k, v in pairs:
            if k in self._store:
                if isinstance(k, str):
                    raise MXNetError("Check failed: str_key_dict_.find(str_key) == str_key_dict_.end(): duplicate "
                                     "init of key %s" % k)
                raise MXNetError("Check failed: local_.find(keys[i]) == local_.end(): duplicate init of key %s. "
                                 "Please double check if you called kv.init or kv.broadcast with this key multiple "
                                 "times" % k)
            self._store[k] = NDArray(v._data.copy(), _STORE_CONTEXT)

    def _merged(self, key, values: List[NDArray]) -> NDArray:
        """The sum of the arrays pushed for `key`, each compressed first if compression is set: one
        array as it is, several summed on the store's context ('local') or the first array's ('device')."""
        if key not in self._store and not isinstance(key, str):
            raise MXNetError("Check failed: !is_none(): ")  # MXNet's words for pushing to a key never inited
        stored = self._stored(key)
        for value in values:
            _check_same_shape(value, stored)
        if self._compression is not None:
            values = [self._compression(key, position, value) for position, value in enumerate(values)]
        if len(values) == 1:
            return values[0]
        total = values[0]._data.astype(stored._data.dtype)
        for value in values[1:]:
            total += value._data
        return NDArray(total, values[0].context if "device" in self._type else _STORE_CONTEXT)

    def push(self, key, value, priority: int = 0) -> None:
        pairs, str_keys = _key_value_pairs(key, value)
        self._check_key_type(str_keys)
        self._apply({k: self._merged(k, vs) for k, vs in _grouped(pairs).items()})

    def _apply(self, merged: Dict[object, NDArray]) -> None:
        for key, total in merged.items():
            stored = self._store[key]
            if self._updater is not None:
                self._updater(key.encode() if isinstance(key, str) else key, total, stored)
            else:
                stored._data[...] = total._data

    def pull(self, key, out=None, priority: int = 0, ignore_sparse: bool = True) -> None:
        assert out is not None
        pairs, str_keys = _key_value_pairs(key, out)
        self._check_key_type(str_keys)
        for k, target in pairs:
            stored = self._stored(k)
            _check_same_shape(stored, target)
            target._data[...] = stored._data

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
        pairs, _ = _key_value_pairs(key, out)
        for k, outs in _grouped(pairs).items():
            stored = self._stored(k)
            # the store holds every row (stored or not where it came from): each row asked for is given
            stored = stored.tostype("row_sparse") if stored.stype != "row_sparse" else stored.copy()
            stored._kept[:] = True
            ids = row_ids if isinstance(row_ids, (list, tuple)) else [row_ids] * len(outs)
            for o, rows in zip(outs, ids):
                o[:] = sparse.retain(stored, rows.astype("int64"))

    # ---- compression and optimizer
    def set_gradient_compression(self, compression_params) -> None:
        if "device" not in self._type and "dist" not in self._type:
            raise Exception("Gradient compression is not supported for this type of kvstore")
        self._compression = _compression_from(compression_params)

    def set_optimizer(self, optimizer) -> None:
        from runtime import optimizer as optimizers
        self._set_updater(optimizers.get_updater(optimizer))

    def _set_updater(self, updater) -> None:
        self._updater = updater

    def save_optimizer_states(self, fname: str, dump_optimizer: bool = False) -> None:
        assert self._updater is not None, "Cannot save states for distributed training"
        with open(fname, "wb") as handle:
            handle.write(self._updater.get_states(dump_optimizer))

    def load_optimizer_states(self, fname: str) -> None:
        assert self._updater is not None, "Cannot load states for distributed training"
        with open(fname, "rb") as handle:
            self._updater.set_states(handle.read())

    def _barrier(self) -> None:
        pass

    def __getstate__(self):
        raise pickle.PicklingError("a KVStore cannot be pickled")


def create(name: str = "local") -> KVStoreBase:
    """A registered Python store by name, else MXNet's local store, whose type is the name given."""
    if not isinstance(name, str):
        raise TypeError("name must be a string")
    name = name.lower()
    if name in KVStoreBase.kv_registry:
        return KVStoreBase.kv_registry[name]()
    if "dist" in name:
        raise MXNetError("KVStore type %s needs several processes: this runtime runs on one" % name)
    return KVStore(name)
