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


def _generalized_negative_binomial(generator, mu, alpha, size):
    """Counts of mean mu and variance mu + alpha mu^2: Poisson draws whose rates are gamma draws of
    shape 1/alpha and scale alpha mu (alpha 0: Poisson of rate mu)."""
    mu, alpha = np.broadcast_to(mu, size), np.broadcast_to(alpha, size)
    mixed = alpha > 0
    safe = np.where(mixed, alpha, 1.0)
    rates = np.where(mixed, generator.gamma(1.0 / safe, safe * mu, size), mu)
    return generator.poisson(rates)


def random_generalized_negative_binomial(mu=1.0, alpha=1.0, shape=(), ctx="", dtype=None):
    return _generalized_negative_binomial(_random.generator(), mu, alpha, shape or (1,)).astype(_dtype(dtype))


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
sample_negative_binomial = _per_element(lambda g, k, p, size: g.negative_binomial(k, p, size))
sample_generalized_negative_binomial = _per_element(_generalized_negative_binomial)


def like(draw):
    """A `_random_*_like` kernel: `draw`'s samples in the shape and dtype of the data."""
    def kernel(data, **params):
        return draw(shape=data.shape, dtype=data.dtype, **params)
    return kernel


def sample_multinomial(data, shape=(), get_prob=False, dtype="int32"):
    """Category indices drawn from each row of probabilities (the last axis); with get_prob, also
    the log-probability of each draw."""
    probs = data.reshape(-1, data.shape[-1]).astype(np.float64)
    count = int(np.prod(shape)) if shape else 1
    cumulative = np.cumsum(probs, axis=1)
    draws = _random.generator().random((probs.shape[0], count))
    picks = np.minimum((draws[:, :, None] > cumulative[:, None, :]).sum(axis=2), probs.shape[1] - 1)
    out_shape = (data.shape[:-1] + tuple(shape)) or (1,)
    samples = picks.reshape(out_shape).astype(dtype)
    if not get_prob:
        return samples
    log_prob = np.log(np.take_along_axis(probs, picks, axis=1)).reshape(out_shape).astype(data.dtype)
    return samples, log_prob


def shuffle(data):
    out = data.copy()
    _random.generator().shuffle(out, axis=0)
    return out


def sample_unique_zipfian(range_max, shape=()):
    """Per row of `shape` (batch, n): n distinct classes drawn from the log-uniform distribution
    over [0, range_max), round(exp(u * log(range_max))) - 1 for uniform u, in the order first
    drawn, and (int64 both) how many draws each row took, as MXNet 1.9.1's sampler counts them."""
    batch, count = shape
    if count > range_max:
        raise ValueError("Number of samples cannot exceed the number of possible classes")
    log_range = np.log(range_max)
    generator = _random.generator()
    samples = np.empty((batch, count), np.int64)
    tries = np.empty(batch, np.int64)
    for row in range(batch):
        drawn = np.empty(0, np.int64)
        while True:
            more = np.floor(np.exp(generator.random(max(2 * count, 64)) * log_range) + 0.5).astype(np.int64) - 1
            drawn = np.concatenate([drawn, more])
            values, first = np.unique(drawn, return_index=True)
            if values.size >= count:
                break
        order = np.sort(first)[:count]
        samples[row] = drawn[order]
        tries[row] = order[-1] + 1
    return samples, tries
