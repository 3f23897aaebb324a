"""MXNet 1.9.1's random_pdf_* operators (densities of samples under array-valued parameters, their
gradients), the generalized negative binomial and *_like samplers, randn with array parameters,
and seeds of any 32-bit int. Densities are checked against SciPy, gradients against central
differences, as MXNet's test_random.py does."""
import numpy as np
import pytest
from scipy import stats

from runtime import autograd, nd
from runtime import random as rt_random

RNG = np.random.RandomState(3)
P1 = np.array([[1.0, 2.5], [0.7, 1.5]])
P2 = np.array([[0.3, 0.6], [0.2, 0.5]])
CASES = {
    # name: (samples, params, scipy density, discrete)
    "normal": (RNG.randn(2, 2, 3), [P1, P2 + 1], lambda x, a, b: stats.norm.pdf(x, a, b), False),
    "uniform": (RNG.uniform(0.75, 1.45, (2, 2, 3)), [P1 * 0 + 0.7, P1 * 0 + 1.5],
                lambda x, lo, hi: stats.uniform.pdf(x, lo, hi - lo), False),
    "gamma": (RNG.uniform(0.2, 3, (2, 2, 3)), [P1 + 1, P2 + 1], lambda x, a, b: stats.gamma.pdf(x, a, 0, 1 / b), False),
    "exponential": (RNG.uniform(0.2, 3, (2, 2, 3)), [P1], lambda x, lam: stats.expon.pdf(x, 0, 1 / lam), False),
    "poisson": (RNG.randint(0, 5, (2, 2, 3)).astype(float), [P1], stats.poisson.pmf, True),
    "negative_binomial": (RNG.randint(0, 5, (2, 2, 3)).astype(float), [P1 + 1, P2 + 0.2], stats.nbinom.pmf, True),
    "generalized_negative_binomial": (RNG.randint(0, 5, (2, 2, 3)).astype(float), [P1, P2],
                                      lambda x, mu, a: stats.nbinom.pmf(x, 1 / a, 1 / (mu * a + 1)), True),
}


def _call(name, arrays, is_log):
    return getattr(nd, "random_pdf_" + name)(*arrays, is_log=is_log)


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("is_log", [False, True])
def test_density_and_gradient(name, is_log):
    x, params, density, discrete = CASES[name]
    expected = density(x, *[p[..., None] for p in params])
    arrays = [nd.array(a, dtype="float64") for a in [x] + params]
    got = _call(name, arrays, is_log).asnumpy()
    np.testing.assert_allclose(got, np.log(expected) if is_log else expected, rtol=1e-6, atol=1e-12)
    for a in arrays:
        a.attach_grad()
    with autograd.record():
        y = _call(name, arrays, is_log)
    y.backward()
    for index, a in enumerate(arrays):
        if index == 0 and discrete:
            assert not a.grad.asnumpy().any()  # MXNet: no gradient for discrete samples
            continue
        numeric = np.zeros(a.shape)
        values = [b.asnumpy() for b in arrays]
        for position in np.ndindex(a.shape):
            for sign in (1, -1):
                shifted = [v.copy() for v in values]
                shifted[index][position] += sign * 1e-6
                total = _call(name, [nd.array(v, dtype="float64") for v in shifted], is_log).asnumpy().sum()
                numeric[position] += sign * total / 2e-6
        np.testing.assert_allclose(a.grad.asnumpy(), numeric, rtol=1e-4, atol=1e-6)


def test_dirichlet_density_drops_the_vector_axis():
    alpha = np.array([[[1.5, 0.7], [2.0, 1.0]], [[0.6, 0.9], [1.2, 1.8]]])
    x = RNG.dirichlet([1.0, 1.0], size=(2, 2, 3))
    got = nd.random_pdf_dirichlet(nd.array(x, dtype="float64"), nd.array(alpha, dtype="float64"), is_log=True)
    expected = np.array([[[stats.dirichlet.logpdf(x[i, j, n], alpha[i, j]) for n in range(3)] for j in range(2)]
                         for i in range(2)])
    assert got.shape == (2, 2, 3)
    np.testing.assert_allclose(got.asnumpy(), expected, rtol=1e-6)


def test_generalized_negative_binomial_moments_and_like_samplers():
    rt_random.seed(7)
    draws = nd.random.generalized_negative_binomial(mu=2.0, alpha=0.3, shape=(200000,)).asnumpy()
    assert abs(draws.mean() - 2.0) < 0.05 and abs(draws.std() - np.sqrt(2.0 + 0.3 * 4)) < 0.05
    per = nd.random.generalized_negative_binomial(mu=nd.array(P1), alpha=nd.array(P2), shape=(4,))
    assert per.shape == (2, 2, 4)
    like = nd.random.normal_like(data=nd.ones((3, 4), dtype="float16"), loc=10.0, scale=0.5)
    assert like.shape == (3, 4) and like.dtype == np.float16
    assert nd.random.randn(5, 6, loc=nd.array(P1), scale=nd.array(P2)).shape == (2, 2, 5, 6)


def test_a_negative_seed_is_a_seed():
    rt_random.seed(-12345)
    first = nd.random.uniform(shape=(4,)).asnumpy()
    rt_random.seed(-12345)
    assert (nd.random.uniform(shape=(4,)).asnumpy() == first).all()
