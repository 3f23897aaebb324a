"""Densities of MXNet's `random_pdf_*` operators and their derivatives.

Each `log_*` takes the samples and the distribution parameters already broadcast against them
(float64) and returns the log-density and its derivative with respect to each input, samples
first (None: the samples of a discrete distribution, whose gradient MXNet sets to zero)."""
from __future__ import annotations

import numpy as np
from scipy import special


def log_uniform(x, low, high):
    width = high - low
    inside = (x >= low) & (x <= high)
    with np.errstate(divide="ignore"):
        log_p = np.where(inside, -np.log(width), -np.inf)
    return log_p, [np.zeros_like(x), np.where(inside, 1.0 / width, 0.0), np.where(inside, -1.0 / width, 0.0)]


def log_normal(x, mu, sigma):
    z = (x - mu) / sigma
    log_p = -0.5 * z * z - np.log(sigma) - 0.5 * np.log(2 * np.pi)
    return log_p, [-z / sigma, z / sigma, (z * z - 1.0) / sigma]


def log_gamma(x, alpha, beta):
    """beta is the rate: density beta^alpha x^(alpha-1) e^(-beta x) / Gamma(alpha)."""
    log_x = np.log(x)
    log_p = alpha * np.log(beta) + (alpha - 1) * log_x - beta * x - special.gammaln(alpha)
    return log_p, [(alpha - 1) / x - beta, np.log(beta) + log_x - special.digamma(alpha), alpha / beta - x]


def log_exponential(x, lam):
    return np.log(lam) - lam * x, [-lam + 0 * x, 1.0 / lam - x]


def log_poisson(x, lam):
    log_p = x * np.log(lam) - lam - special.gammaln(x + 1)
    return log_p, [None, x / lam - 1.0]


def log_negative_binomial(x, k, p):
    """Failures x before the k-th success of probability p."""
    log_p = special.gammaln(x + k) - special.gammaln(x + 1) - special.gammaln(k) + k * np.log(p) + x * np.log1p(-p)
    return log_p, [None, special.digamma(x + k) - special.digamma(k) + np.log(p), k / p - x / (1 - p)]


def log_generalized_negative_binomial(x, mu, alpha):
    """The negative binomial of mean mu and dispersion alpha: k = 1/alpha, p = 1/(1 + mu alpha)."""
    k, p = 1.0 / alpha, 1.0 / (1.0 + mu * alpha)
    log_p, (_, d_k, d_p) = log_negative_binomial(x, k, p)
    dp_dmu = -alpha * p * p
    dp_dalpha = -mu * p * p
    return log_p, [None, d_p * dp_dmu, d_k * (-k * k) + d_p * dp_dalpha]


def log_dirichlet(x, alpha):
    """x and alpha: vectors along the last axis; the density's axis is summed away."""
    total = alpha.sum(axis=-1)
    log_x = np.log(x)
    log_p = special.gammaln(total) - special.gammaln(alpha).sum(axis=-1) + ((alpha - 1) * log_x).sum(axis=-1)
    return log_p, [(alpha - 1) / x, special.digamma(total)[..., None] - special.digamma(alpha) + log_x]


def broadcast_params(x, params, vector: bool):
    """The parameters (shaped as x's leading axes; and its last one too for vector samples)
    reshaped to broadcast against x."""
    out = []
    for p in params:
        p = np.asarray(p, np.float64)
        if vector:
            out.append(p.reshape(p.shape[:-1] + (1,) * (x.ndim - p.ndim) + p.shape[-1:]))
        else:
            out.append(p.reshape(p.shape + (1,) * (x.ndim - p.ndim)))
    return out


def pdf(log_density, vector: bool):
    """The kernel of one random_pdf operator: the density (or its log, is_log) at each sample."""
    def kernel(sample, *params, is_log=False):
        x = np.asarray(sample, np.float64)
        log_p, _ = log_density(x, *broadcast_params(x, params, vector))
        return (log_p if is_log else np.exp(log_p)).astype(sample.dtype)
    return kernel
