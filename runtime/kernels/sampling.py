"""Kernels of the legacy random operators (`_random_*` draw a shape of samples, `_sample_*` one
shape of samples per element of their parameter arrays), from the runtime's shared generator."""
from __future__ import annotations

import numpy as np

from runtime import random as _random


def _dtype(dtype):
    return np.float32 if dtype in (None, "None") else dtype


def random_uniform(low=0.0, high=1.0, shape=(), ctx="", dtype=None):
    return _random.generator().uniform(low, high, shape or (1,)).astype(_dtype(dtype))


def random_normal(loc=0.0, scale=1.0, shape=(), ctx="", dtype=None):
    return _random.generator().normal(loc, scale, shape or (1,)).astype(_dtype(dtype))


def random_exponential(lam=1.0, shape=(), ctx="", dtype=None):
    return _random.generator().exponential(1.0 / lam, shape or (1,)).astype(_dtype(dtype))


def random_gamma(alpha=1.0, beta=1.0, shape=(), ctx="", dtype=None):
    return _random.generator().gamma(alpha, beta, shape or (1,)).astype(_dtype(dtype))


def random_poisson(lam=1.0, shape=(), ctx="", dtype=None):
    return _random.generator().poisson(lam, shape or (1,)).astype(_dtype(dtype))


def random_negative_binomial(k=1, p=1.0, shape=(), ctx="", dtype=None):
    return _random.generator().negative_binomial(k, p, shape or (1,)).astype(_dtype(dtype))


def random_randint(low=0, high=1, shape=(), ctx="", dtype=None):
    return _random.generator().integers(low, high, shape or (1,)).astype(dtype if dtype not in (None, "None")
                                                                          else np.int32)


def _per_element(draw):
    def kernel(*params, shape=(), dtype=None):
        size = params[0].shape + tuple(shape)
        expanded = [p.reshape(p.shape + (1,) * len(shape)) for p in params]
        out = draw(_random.generator(), *expanded, size)
        return out.astype(params[0].dtype if dtype in (None, "None") else dtype)
    return kernel


sample_uniform = _per_element(lambda g, low, high, size: g.uniform(low, high, size))
sample_normal = _per_element(lambda g, mu, sigma, size: g.normal(mu, sigma, size))
sample_exponential = _per_element(lambda g, lam, size: g.exponential(1.0 / lam, size))
sample_gamma = _per_element(lambda g, alpha, beta, size: g.gamma(alpha, beta, size))
sample_poisson = _per_element(lambda g, lam, size: g.poisson(lam, size))


def shuffle(data):
    out = data.copy()
    _random.generator().shuffle(out, axis=0)
    return out
