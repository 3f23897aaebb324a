"""`gluon.data.vision`: image datasets read from local files, and image transforms."""
# ruff: noqa: F401  (the names this package re-exports)
from runtime.gluon.data.vision import transforms
from runtime.gluon.data.vision.datasets import CIFAR10, CIFAR100, MNIST, FashionMNIST
from runtime.gluon.data.vision.image_datasets import ImageFolderDataset, ImageRecordDataset
