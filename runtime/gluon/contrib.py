"""`gluon.contrib`: the contributed layers (`nn`), recurrent cells (`rnn`) and samplers (`data`) that model
code commonly imports."""
from __future__ import annotations

import types

from runtime.gluon.block import HybridBlock
from runtime.gluon.data.sampler import Sampler
from runtime.gluon.nn import BatchNorm, Concurrent, Embedding, HybridConcurrent
from runtime.gluon.rnn import contrib_cells


class Identity(HybridBlock):
    def hybrid_forward(self, F, x):
        return x


class SyncBatchNorm(BatchNorm):
    """On one device, synchronized batch normalization is batch normalization."""

    def __init__(self, in_channels=0, num_devices=None, momentum=0.9, epsilon=1e-5, center=True, scale=True,
                 use_global_stats=False, beta_initializer="zeros", gamma_initializer="ones",
                 running_mean_initializer="zeros", running_variance_initializer="ones", **kwargs):
        super().__init__(1, momentum, epsilon, center, scale, use_global_stats, beta_initializer, gamma_initializer,
                         running_mean_initializer, running_variance_initializer, in_channels, **kwargs)


class SparseEmbedding(Embedding):
    """An embedding whose weight's gradient is row_sparse (MXNet's contrib SparseEmbedding)."""

    def __init__(self, input_dim, output_dim, dtype="float32", weight_initializer=None, **kwargs):
        super().__init__(input_dim, output_dim, dtype=dtype, weight_initializer=weight_initializer, sparse_grad=True,
                         **kwargs)


def _factors(factor, count: int):
    factors = (factor,) * count if isinstance(factor, int) else tuple(int(f) for f in factor)
    if len(factors) != count:
        raise ValueError("wrong length {}".format(len(factors)))
    return factors


class PixelShuffle1D(HybridBlock):
    """(N, f*C, W) -> (N, C, W*f): each group of f channels becomes f neighbouring positions."""

    def __init__(self, factor):
        super().__init__()
        self._factor = int(factor)

    def hybrid_forward(self, F, x):
        f = self._factor
        x = F.reshape(x, (0, -4, -1, f, 0))      # (N, C, f, W)
        x = F.transpose(x, (0, 1, 3, 2))          # (N, C, W, f)
        return F.reshape(x, (0, 0, -3))

    def __repr__(self):
        return "{}({})".format(self.__class__.__name__, self._factor)


class PixelShuffle2D(HybridBlock):
    """(N, f1*f2*C, H, W) -> (N, C, H*f1, W*f2)."""

    def __init__(self, factor):
        super().__init__()
        self._factors = _factors(factor, 2)

    def hybrid_forward(self, F, x):
        f1, f2 = self._factors
        x = F.reshape(x, (0, -4, -1, f1 * f2, 0, 0))     # (N, C, f1*f2, H, W)
        x = F.reshape(x, (0, 0, -4, f1, f2, 0, 0))       # (N, C, f1, f2, H, W)
        x = F.transpose(x, (0, 1, 4, 2, 5, 3))           # (N, C, H, f1, W, f2)
        return F.reshape(x, (0, 0, -3, -3))

    def __repr__(self):
        return "{}({})".format(self.__class__.__name__, self._factors)


class PixelShuffle3D(HybridBlock):
    """(N, f1*f2*f3*C, D, H, W) -> (N, C, D*f1, H*f2, W*f3)."""

    def __init__(self, factor):
        super().__init__()
        self._factors = _factors(factor, 3)

    def hybrid_forward(self, F, x):
        f1, f2, f3 = self._factors
        x = F.reshape(x, (0, -4, -1, f1 * f2 * f3, 0, 0, 0))    # (N, C, f1*f2*f3, D, H, W)
        x = F.swapaxes(x, 2, 3)                                   # (N, C, D, f1*f2*f3, H, W)
        x = F.reshape(x, (0, 0, 0, -4, f1, f2 * f3, 0, 0))      # (N, C, D, f1, f2*f3, H, W)
        x = F.reshape(x, (0, 0, -3, 0, 0, 0))                     # (N, C, D*f1, f2*f3, H, W)
        x = F.swapaxes(x, 3, 4)                                   # (N, C, D*f1, H, f2*f3, W)
        x = F.reshape(x, (0, 0, 0, 0, -4, f2, f3, 0))            # (N, C, D*f1, H, f2, f3, W)
        x = F.reshape(x, (0, 0, 0, -3, 0, 0))                     # (N, C, D*f1, H*f2, f3, W)
        x = F.swapaxes(x, 4, 5)                                   # (N, C, D*f1, H*f2, W, f3)
        return F.reshape(x, (0, 0, 0, 0, -3))

    def __repr__(self):
        return "{}({})".format(self.__class__.__name__, self._factors)


nn = types.ModuleType("mxnet.gluon.contrib.nn")
nn.__dict__.update(Identity=Identity, SyncBatchNorm=SyncBatchNorm, HybridConcurrent=HybridConcurrent,
                   Concurrent=Concurrent, SparseEmbedding=SparseEmbedding, PixelShuffle1D=PixelShuffle1D,
                   PixelShuffle2D=PixelShuffle2D, PixelShuffle3D=PixelShuffle3D)


class IntervalSampler(Sampler):
    """Indices 0, interval, 2*interval, ...; with `rollover` it then starts again from 1, 2, ... until
    every index below `length` has been visited once."""

    def __init__(self, length, interval, rollover=True):
        if interval >= length:
            raise AssertionError("Interval {} must be smaller than length {}".format(interval, length))
        self._length, self._interval, self._rollover = length, interval, rollover

    def __iter__(self):
        starts = range(self._interval) if self._rollover else range(1)
        return (index for start in starts for index in range(start, self._length, self._interval))

    def __len__(self):
        # MXNet 1.9.1 reports the dataset's length even when no rollover visits fewer indices
        return self._length


data = types.ModuleType("mxnet.gluon.contrib.data")
data.__dict__.update(IntervalSampler=IntervalSampler)

rnn = types.ModuleType("mxnet.gluon.contrib.rnn")
rnn.__dict__.update({name: getattr(contrib_cells, name) for name in (
    "LSTMPCell", "VariationalDropoutCell", "Conv1DRNNCell", "Conv2DRNNCell", "Conv3DRNNCell", "Conv1DLSTMCell",
    "Conv2DLSTMCell", "Conv3DLSTMCell", "Conv1DGRUCell", "Conv2DGRUCell", "Conv3DGRUCell", "dynamic_unroll")})
# MXNet's module of the cells and dynamic_unroll, which code reaches as contrib.rnn.rnn_cell
rnn.rnn_cell = types.ModuleType("mxnet.gluon.contrib.rnn.rnn_cell")
rnn.rnn_cell.__dict__.update({k: v for k, v in rnn.__dict__.items() if not k.startswith("__")})
