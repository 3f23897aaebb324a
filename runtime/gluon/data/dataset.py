"""Datasets: indexable collections of samples, and their lazy transformations."""
from __future__ import annotations

import os

from runtime.ndarray import NDArray

__all__ = ["Dataset", "SimpleDataset", "ArrayDataset", "RecordFileDataset"]


class Dataset:
    """Subclasses give `__getitem__` and `__len__`."""

    def __getitem__(self, idx):
        raise NotImplementedError

    def __len__(self):
        raise NotImplementedError

    def filter(self, fn):
        from runtime.gluon.data.sampler import FilterSampler
        return _SampledDataset(self, FilterSampler(fn, self))

    def shard(self, num_shards, index):
        """The `index`-th of `num_shards` contiguous parts; the first `len % num_shards` are one longer."""
        assert index < num_shards, "Shard index of out bound: %d out of %d" % (index, num_shards)
        assert num_shards > 0, "Number of shards must be greater than 0"
        assert index >= 0, "Index must be non-negative"
        size, rest = divmod(len(self), num_shards)
        start = size * index + min(index, rest)
        from runtime.gluon.data.sampler import SequentialSampler
        return _SampledDataset(self, SequentialSampler(size + (index < rest), start))

    def take(self, count):
        from runtime.gluon.data.sampler import SequentialSampler
        if count is None or count > len(self):
            count = len(self)
        return _SampledDataset(self, SequentialSampler(count))

    def sample(self, sampler):
        from runtime.gluon.data.sampler import Sampler
        if not isinstance(sampler, Sampler):
            raise TypeError("Invalid sampler type: %s. Expected gluon.data.Sampler instead." % type(sampler))
        return _SampledDataset(self, sampler)

    def transform(self, fn, lazy=True):
        """Samples passed through `fn` (unpacked when a sample is a tuple), on access or now."""
        transformed = _LazyTransformDataset(self, fn)
        return transformed if lazy else SimpleDataset([s for s in transformed])

    def transform_first(self, fn, lazy=True):
        """`fn` applied to the first element of each sample (the data, leaving the label)."""
        return self.transform(_TransformFirstClosure(fn), lazy)


class SimpleDataset(Dataset):
    def __init__(self, data):
        self._data = data

    def __len__(self):
        return len(self._data)

    def __getitem__(self, idx):
        return self._data[idx]


class _LazyTransformDataset(Dataset):
    def __init__(self, data, fn):
        self._data, self._fn = data, fn

    def __len__(self):
        return len(self._data)

    def __getitem__(self, idx):
        item = self._data[idx]
        return self._fn(*item) if isinstance(item, tuple) else self._fn(item)


class _TransformFirstClosure:
    """A picklable `lambda x, *rest: (fn(x), *rest)`, so worker processes can receive it."""

    def __init__(self, fn):
        self._fn = fn

    def __call__(self, x, *args):
        return (self._fn(x),) + args if args else self._fn(x)


class _SampledDataset(Dataset):
    def __init__(self, dataset, sampler):
        self._dataset = dataset
        self._indices = list(iter(sampler))

    def __len__(self):
        return len(self._indices)

    def __getitem__(self, idx):
        return self._dataset[self._indices[idx]]


class ArrayDataset(Dataset):
    """Zips arrays of equal length: sample i is (a[i], b[i], ...), or a[i] for one array."""

    def __init__(self, *args):
        assert len(args) > 0, "Needs at least 1 arrays"
        self._length = len(args[0])
        self._data = []
        for i, data in enumerate(args):
            assert len(data) == self._length, \
                "All arrays must have the same length; array[0] has length %d while array[%d] has %d." % (
                    self._length, i + 1, len(data))
            if isinstance(data, NDArray) and data.ndim == 1:
                data = data.asnumpy()  # scalars per sample, as MXNet hands them out
            self._data.append(data)

    def __getitem__(self, idx):
        if len(self._data) == 1:
            return self._data[0][idx]
        return tuple(data[idx] for data in self._data)

    def __len__(self):
        return self._length


class RecordFileDataset(Dataset):
    """The records of a RecordIO file (`name.rec`, with its index `name.idx`) as raw bytes."""

    def __init__(self, filename):
        from runtime.recordio import MXIndexedRecordIO
        self.idx_file = os.path.splitext(filename)[0] + ".idx"
        self.filename = filename
        self._record = MXIndexedRecordIO(self.idx_file, self.filename, "r")

    def __getitem__(self, idx):
        return self._record.read_idx(self._record.keys[idx])

    def __len__(self):
        return len(self._record.keys)
