"""MNIST, Fashion-MNIST and CIFAR-10/100 from files a user already has (this runtime never downloads).

Each sample is (image as an NDArray of HWC uint8, label as an int32 scalar), as in MXNet.
"""
from __future__ import annotations

import gzip
import os
import struct

import numpy as np

from runtime.gluon.data.dataset import Dataset
from runtime.ndarray import NDArray

__all__ = ["MNIST", "FashionMNIST", "CIFAR10", "CIFAR100"]


def _data_dir():
    return os.environ.get("MXNET_HOME", os.path.join(os.path.expanduser("~"), ".mxnet"))


class _LocalDataset(Dataset):
    """A dataset read from `root`; missing files are named in the error, with where to get them."""

    _source = ""

    def __init__(self, root, transform):
        self._transform = transform
        self._root = os.path.expanduser(root)
        self._data = None
        self._label = None
        self._get_data()

    def _require(self, names):
        missing = [n for n in names if not os.path.exists(os.path.join(self._root, n))]
        if missing:
            raise FileNotFoundError(
                "%s: missing %s in %s. This runtime does not download datasets: fetch them from %s and place them "
                "there (or pass root=)." % (type(self).__name__, ", ".join(missing), self._root, self._source))
        return [os.path.join(self._root, n) for n in names]

    def __getitem__(self, idx):
        if self._transform is not None:
            return self._transform(self._data[idx], self._label[idx])
        return self._data[idx], self._label[idx]

    def __len__(self):
        return len(self._label)

    def _get_data(self):
        raise NotImplementedError


def _open(path):
    return gzip.open(path, "rb") if path.endswith(".gz") else open(path, "rb")


class MNIST(_LocalDataset):
    _source = "http://yann.lecun.com/exdb/mnist/"
    _files = {True: ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"),
              False: ("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz")}

    def __init__(self, root=os.path.join(_data_dir(), "datasets", "mnist"), train=True, transform=None):
        self._train = train
        super().__init__(root, transform)

    def _find(self, name):
        # the files as published (.gz) or already unpacked
        plain = name[:-3]
        return plain if os.path.exists(os.path.join(self._root, plain)) else name

    def _get_data(self):
        images, labels = (self._find(n) for n in self._files[self._train])
        image_path, label_path = self._require([images, labels])
        with _open(label_path) as handle:
            struct.unpack(">II", handle.read(8))
            label = np.frombuffer(handle.read(), dtype=np.uint8).astype(np.int32)
        with _open(image_path) as handle:
            struct.unpack(">IIII", handle.read(16))
            data = np.frombuffer(handle.read(), dtype=np.uint8).reshape(len(label), 28, 28, 1)
        self._data = NDArray(data.copy())
        self._label = label


class FashionMNIST(MNIST):
    _source = "https://github.com/zalandoresearch/fashion-mnist"

    def __init__(self, root=os.path.join(_data_dir(), "datasets", "fashion-mnist"), train=True, transform=None):
        super().__init__(root, train, transform)


class CIFAR10(_LocalDataset):
    """The binary version: `data_batch_1.bin` ... `test_batch.bin` in root (or root/cifar-10-batches-bin)."""

    _source = "https://www.cs.toronto.edu/~kriz/cifar.html (the binary version)"
    _folder = "cifar-10-batches-bin"
    _train_files = ["data_batch_%d.bin" % i for i in range(1, 6)]
    _test_files = ["test_batch.bin"]
    _label_bytes = 1

    def __init__(self, root=os.path.join(_data_dir(), "datasets", "cifar10"), train=True, transform=None):
        self._train = train
        super().__init__(root, transform)

    def _label_column(self):
        return 0

    def _read_batch(self, filename):
        with open(filename, "rb") as handle:
            rows = np.frombuffer(handle.read(), dtype=np.uint8).reshape(-1, 3072 + self._label_bytes)
        images = rows[:, self._label_bytes:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)
        return images, rows[:, self._label_column()].astype(np.int32)

    def _get_data(self):
        names = self._train_files if self._train else self._test_files
        if not os.path.exists(os.path.join(self._root, names[0])) and \
                os.path.exists(os.path.join(self._root, self._folder, names[0])):
            self._root = os.path.join(self._root, self._folder)  # the archive unpacked in place
        parts = [self._read_batch(path) for path in self._require(names)]
        self._data = NDArray(np.ascontiguousarray(np.concatenate([p[0] for p in parts])))
        self._label = np.concatenate([p[1] for p in parts])


class CIFAR100(CIFAR10):
    """Each row holds the coarse label, then the fine label, then the image."""

    _source = "https://www.cs.toronto.edu/~kriz/cifar.html (the binary version)"
    _folder = "cifar-100-binary"
    _train_files = ["train.bin"]
    _test_files = ["test.bin"]
    _label_bytes = 2

    def __init__(self, root=os.path.join(_data_dir(), "datasets", "cifar100"), fine_label=False, train=True,
                 transform=None):
        self._fine_label = fine_label
        super().__init__(root, train, transform)

    def _label_column(self):
        return int(self._fine_label)
