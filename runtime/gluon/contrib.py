"""`gluon.contrib.nn`: the contributed layers that model code commonly imports."""
from __future__ import annotations

import types

from runtime.gluon.block import HybridBlock
from runtime.gluon.nn import BatchNorm, Concurrent, HybridConcurrent


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


nn = types.ModuleType("mxnet.gluon.contrib.nn")
nn.__dict__.update(Identity=Identity, SyncBatchNorm=SyncBatchNorm, HybridConcurrent=HybridConcurrent,
                   Concurrent=Concurrent)
