"""`mxnet.io`: data iterators over arrays in memory (`NDArrayIter`) and the batch types they yield."""
from __future__ import annotations

from collections import OrderedDict, namedtuple

import numpy as np

from runtime.ndarray import NDArray, array


class DataDesc(namedtuple("DataDesc", ["name", "shape"])):
    """A named shape, with its dtype and layout ('NCHW': the batch axis is where 'N' is)."""

    def __new__(cls, name, shape, dtype=np.float32, layout="NCHW"):
        desc = super().__new__(cls, name, shape)
        desc.dtype = dtype
        desc.layout = layout
        return desc

    def __repr__(self) -> str:
        return "DataDesc[%s,%s,%s,%s]" % (self.name, self.shape, self.dtype, self.layout)

    @staticmethod
    def get_batch_axis(layout):
        return 0 if layout is None else layout.find("N")

    @staticmethod
    def get_list(shapes, types):
        if types is not None:
            type_of = dict(types)
            return [DataDesc(name, shape, type_of[name]) for name, shape in shapes]
        return [DataDesc(name, shape) for name, shape in shapes]


class DataBatch:
    def __init__(self, data, label=None, pad=None, index=None, bucket_key=None, provide_data=None,
                 provide_label=None):
        if data is not None and not isinstance(data, (list, tuple)):
            raise AssertionError("Data must be list of NDArrays")
        if label is not None and not isinstance(label, (list, tuple)):
            raise AssertionError("Label must be list of NDArrays")
        self.data, self.label, self.pad, self.index = data, label, pad, index
        self.bucket_key, self.provide_data, self.provide_label = bucket_key, provide_data, provide_label

    def __str__(self) -> str:
        data = [d.shape for d in self.data]
        label = [l.shape for l in self.label] if self.label else None
        return "{}: data shapes: {} label shapes: {}".format(type(self).__name__, data, label)


class DataIter:
    """The iterator protocol of MXNet's data iterators: next() gives a DataBatch until StopIteration."""

    def __init__(self, batch_size: int = 0):
        self.batch_size = batch_size

    def __iter__(self):
        return self

    def reset(self) -> None:
        pass

    def next(self) -> DataBatch:
        if self.iter_next():
            return DataBatch(data=self.getdata(), label=self.getlabel(), pad=self.getpad(), index=self.getindex())
        raise StopIteration

    def __next__(self) -> DataBatch:
        return self.next()

    def iter_next(self) -> bool:
        return False

    def getdata(self):
        return None

    def getlabel(self):
        return None

    def getindex(self):
        return None

    def getpad(self):
        return 0


def _named_arrays(data, default_name: str):
    """[(name, numpy array)] from an array, a list of arrays (named _0_data, ...) or a dict (sorted by name)."""
    if data is None:
        return []
    if isinstance(data, (np.ndarray, NDArray)) or np.isscalar(data):
        data = [data]
    if isinstance(data, (list, tuple)):
        if len(data) == 1:
            data = OrderedDict([(default_name, data[0])])
        else:
            data = OrderedDict([("_%d_%s" % (i, default_name), d) for i, d in enumerate(data)])
    if not isinstance(data, dict):
        raise TypeError("Input must be NDArray, numpy.ndarray, a list of them or dict with them as values")
    return [(name, value.asnumpy() if isinstance(value, NDArray) else np.asarray(value))
            for name, value in sorted(data.items())]


class NDArrayIter(DataIter):
    """Batches over arrays in memory. last_batch_handle: 'pad' (fill the last batch from the start,
    `pad` says how many), 'discard' (drop it), 'roll_over' (carry its examples into the next epoch)."""

    def __init__(self, data, label=None, batch_size=1, shuffle=False, last_batch_handle="pad",
                 data_name="data", label_name="softmax_label"):
        super().__init__(batch_size)
        if last_batch_handle not in ("pad", "discard", "roll_over"):
            raise ValueError("last_batch_handle must be 'pad', 'discard' or 'roll_over'")
        self.data = _named_arrays(data, data_name)
        self.label = _named_arrays(label, label_name)
        # the first data array's examples are the iterator's; like MXNet 1.9.1, the others are
        # indexed alike without a check of their lengths
        self.num_data = self.data[0][1].shape[0]
        if last_batch_handle == "discard" and self.num_data < batch_size:
            raise ValueError("batch_size needs to be smaller than data size.")
        self.shuffle = shuffle
        self.last_batch_handle = last_batch_handle
        self._carry = np.zeros(0, dtype=np.int64)
        self.reset()

    @property
    def provide_data(self):
        return [DataDesc(name, (self.batch_size,) + v.shape[1:], v.dtype) for name, v in self.data]

    @property
    def provide_label(self):
        return [DataDesc(name, (self.batch_size,) + v.shape[1:], v.dtype) for name, v in self.label]

    def hard_reset(self) -> None:
        self._carry = np.zeros(0, dtype=np.int64)
        self.reset()

    def reset(self) -> None:
        if self.last_batch_handle == "roll_over" and hasattr(self, "_order"):
            start = self.cursor + self.batch_size
            self._carry = self._order[start:] if start < len(self._order) else np.zeros(0, dtype=np.int64)
        order = np.arange(self.num_data)
        if self.shuffle:
            np.random.shuffle(order)
        self._order = np.concatenate([self._carry, order]).astype(np.int64)
        self.cursor = -self.batch_size
        self._batch = None

    def iter_next(self) -> bool:
        self.cursor += self.batch_size
        if self.last_batch_handle == "pad":
            return self.cursor < len(self._order)
        return self.cursor + self.batch_size <= len(self._order)

    def next(self) -> DataBatch:
        if not self.iter_next():
            raise StopIteration
        return DataBatch(data=self.getdata(), label=self.getlabel(), pad=self.getpad(), index=None)

    def _indices(self):
        chosen = self._order[self.cursor:self.cursor + self.batch_size]
        if len(chosen) < self.batch_size:  # 'pad': wrap around to the epoch's start
            chosen = np.concatenate([chosen, self._order[:self.batch_size - len(chosen)]])
        return chosen

    def _take(self, arrays):
        indices = self._indices()
        return [array(values[indices], dtype=values.dtype) for _, values in arrays]

    def getdata(self):
        return self._take(self.data)

    def getlabel(self):
        return self._take(self.label)

    def getpad(self) -> int:
        if self.last_batch_handle == "pad" and self.cursor + self.batch_size > len(self._order):
            return self.cursor + self.batch_size - len(self._order)
        return 0
