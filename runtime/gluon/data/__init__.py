"""`gluon.data`: datasets, samplers and the DataLoader."""
# ruff: noqa: F401  (the names this package re-exports)
from runtime.gluon.data import vision
from runtime.gluon.data.dataloader import DataLoader, default_batchify_fn, default_mp_batchify_fn
from runtime.gluon.data.dataset import ArrayDataset, Dataset, RecordFileDataset, SimpleDataset
from runtime.gluon.data.sampler import BatchSampler, FilterSampler, RandomSampler, Sampler, SequentialSampler
