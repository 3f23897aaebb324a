"""The convolution and max-pooling gradient kernels against plain NumPy definitions, over the
geometries each of their paths takes (stride 1 over wide rows, strided, padded, dilated, grouped,
1-d, several chunks of images), and their results independent of the scratch memory they reuse."""
import itertools

import numpy as np
import pytest

from runtime.kernels import grad_nn


def _reference_grads(x, w, g, stride, dilate, pad, groups):
    """(d data, d weight) of a convolution from its definition, one output position at a time."""
    spatial = x.ndim - 2
    padded = np.pad(x.astype(np.float64), [(0, 0), (0, 0)] + [(p, p) for p in pad])
    dx = np.zeros_like(padded)
    dw = np.zeros(w.shape, dtype=np.float64)
    f, cg = w.shape[:2]
    fg = f // groups
    for position in itertools.product(*(range(o) for o in g.shape[2:])):
        for tap in itertools.product(*(range(k) for k in w.shape[2:])):
            at = tuple(o * s + k * d for o, s, k, d in zip(position, stride, tap, dilate))
            for group in range(groups):
                channels = slice(group * cg, (group + 1) * cg)
                filters = slice(group * fg, (group + 1) * fg)
                inputs = padded[(slice(None), channels) + at]  # (N, cg)
                heads = g[(slice(None), filters) + position].astype(np.float64)  # (N, fg)
                dw[(filters, slice(None)) + tap] += heads.T @ inputs
                dx[(slice(None), channels) + at] += heads @ w[(filters, slice(None)) + tap].astype(np.float64)
    inside = (slice(None), slice(None)) + tuple(slice(p, p + n) for p, n in zip(pad, x.shape[2:]))
    assert spatial == len(stride)
    return dx[inside], dw


GEOMETRIES = [
    # (batch, channels, filters, size, kernel, stride, dilate, pad, groups)
    (3, 2, 3, (9, 8), (3, 3), (1, 1), (1, 1), (0, 0), 1),
    (2, 1, 6, (12, 12), (5, 5), (1, 1), (1, 1), (0, 0), 1),
    (2, 4, 4, (7, 9), (3, 2), (1, 1), (2, 1), (1, 2), 2),
    (2, 3, 2, (8, 7), (3, 3), (2, 2), (1, 1), (1, 1), 1),
    (2, 2, 2, (10,), (3,), (1,), (2,), (1,), 1),
    (2, 2, 4, (11,), (2,), (3,), (1,), (0,), 2),
    (70, 3, 2, (6, 6), (2, 2), (1, 1), (1, 1), (0, 0), 1),  # columns of several chunks of images
]


@pytest.mark.parametrize("batch,channels,filters,size,kernel,stride,dilate,pad,groups", GEOMETRIES)
def test_convolution_gradients_match_their_definition(batch, channels, filters, size, kernel, stride, dilate,
                                                      pad, groups):
    rng = np.random.default_rng(len(size) * 100 + batch)
    x = rng.standard_normal((batch, channels) + size).astype(np.float32)
    w = rng.standard_normal((filters, channels // groups) + kernel).astype(np.float32)
    out = tuple((n + 2 * p - d * (k - 1) - 1) // s + 1 for n, p, d, k, s in zip(size, pad, dilate, kernel, stride))
    g = rng.standard_normal((batch, filters) + out).astype(np.float32)
    expected_dx, expected_dw = _reference_grads(x, w, g, stride, dilate, pad, groups)
    dw = grad_nn.convolution_weight_grad(x, g, kernel, stride, dilate, pad, groups)
    dx = grad_nn.convolution_data_grad(g, w, x.shape, kernel, stride, dilate, pad, groups)
    np.testing.assert_allclose(dw, expected_dw, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(dx, expected_dx, rtol=1e-4, atol=1e-4)



NEEDED = [(True, True, True), (False, True, True), (True, False, False), (False, True, False), (False, False, True)]


@pytest.mark.parametrize("needed", NEEDED)
@pytest.mark.parametrize("batch,channels,filters,size,kernel,stride,dilate,pad,groups", GEOMETRIES)
def test_gradients_taken_together_match_their_definition(batch, channels, filters, size, kernel, stride, dilate,
                                                         pad, groups, needed):
    """convolution_grads: those asked for (stride 1 lays the output gradient out once for all
    three, the bias's sums taken as it is copied), None for the others."""
    rng = np.random.default_rng(len(size) * 100 + batch + 1)
    x = rng.standard_normal((batch, channels) + size).astype(np.float32)
    w = rng.standard_normal((filters, channels // groups) + kernel).astype(np.float32)
    out = tuple((n + 2 * p - d * (k - 1) - 1) // s + 1 for n, p, d, k, s in zip(size, pad, dilate, kernel, stride))
    g = rng.standard_normal((batch, filters) + out).astype(np.float32)
    expected = _reference_grads(x, w, g, stride, dilate, pad, groups) + \
        (g.astype(np.float64).sum(axis=(0,) + tuple(range(2, g.ndim))),)
    got = grad_nn.convolution_grads(x, w, g, kernel, stride, dilate, pad, groups, needed)
    assert len(got) == 3
    for value, reference, wanted in zip(got, expected, needed):
        if not wanted:
            assert value is None
            continue
        assert value.shape == reference.shape and value.dtype == np.float32
        np.testing.assert_allclose(value, reference, rtol=1e-4, atol=1e-4)

def test_gradients_do_not_share_the_scratch_memory_they_reuse():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((4, 2, 9, 9)).astype(np.float32)
    w = rng.standard_normal((3, 2, 3, 3)).astype(np.float32)
    geometry = ((3, 3), (1, 1), (1, 1), (0, 0))
    g1, g2 = (rng.standard_normal((4, 3, 7, 7)).astype(np.float32) for _ in range(2))
    first = grad_nn.convolution_weight_grad(x, g1, *geometry, 1)
    first_dx = grad_nn.convolution_data_grad(g1, w, x.shape, *geometry, 1)
    kept, kept_dx = first.copy(), first_dx.copy()
    grad_nn.convolution_weight_grad(x, g2, *geometry, 1)
    grad_nn.convolution_data_grad(g2, w, x.shape, *geometry, 1)
    np.testing.assert_array_equal(first, kept)
    np.testing.assert_array_equal(first_dx, kept_dx)


def _reference_max_pool_grad(x, g, kernel):
    """Each window's gradient to its first largest element; windows of NaN or -inf take none."""
    out = np.zeros_like(x)
    kh, kw = kernel
    for b, c, y, xx in itertools.product(*(range(n) for n in g.shape)):
        window = x[b, c, y * kh:(y + 1) * kh, xx * kw:(xx + 1) * kw]
        best, at = -np.inf, None
        for i, j in itertools.product(range(kh), range(kw)):
            if window[i, j] > best:
                best, at = window[i, j], (i, j)
        if at is not None:
            out[b, c, y * kh + at[0], xx * kw + at[1]] += g[b, c, y, xx]
    return out


@pytest.mark.parametrize("size,kernel", [((8, 8), (2, 2)), ((7, 9), (2, 3)), ((5, 5), (3, 1)), ((4, 6), (1, 1))])
def test_max_pooling_gradient_with_windows_that_tile(size, kernel):
    rng = np.random.default_rng(size[0] * 10 + kernel[1])
    x = rng.integers(-2, 3, (2, 3) + size).astype(np.float32)  # ties: the first largest takes it
    x[0, 0, 0, 0] = np.nan
    x[1, 2] = -np.inf
    out_shape = tuple((n - k) // k + 1 for n, k in zip(size, kernel))
    g = rng.standard_normal((2, 3) + out_shape).astype(np.float32)
    output = np.empty((2, 3) + out_shape, dtype=np.float32)
    found = grad_nn.pooling_grad(x, output, g, kernel, "max", False, "valid", kernel, (0, 0), None)
    np.testing.assert_array_equal(found, _reference_max_pool_grad(x, g, kernel))
