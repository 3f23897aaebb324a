"""Gradients of the `linalg.*` factorizations and triangular products (runtime/kernels/linalg.py),
batched over leading axes, computed in float64. Each follows MXNet 1.9.1's backward formula, which
is not always the plain derivative: potrf and the symmetric inputs get a symmetric gradient, and
a triangular operand only a gradient on the triangle the forward pass reads."""
from __future__ import annotations

import numpy as np

from runtime.kernels.linalg import _t, _triangular


def _f64(*arrays):
    return [np.asarray(a, dtype=np.float64) for a in arrays]


def _mt(a):
    return np.swapaxes(a, -1, -2)


def _solve_left(a, b):
    """X with A X = B."""
    return np.linalg.solve(a, b)


def _solve_right(a, b):
    """X with X A = B."""
    return _mt(np.linalg.solve(_mt(a), _mt(b)))


def _lower_to_upper(m):
    """The symmetric matrix with M's lower triangle and diagonal (MXNet's copyLTU)."""
    return np.tril(m) + _mt(np.tril(m, -1))


def potrf_grad(factor, d_factor, lower=True):
    """A = L L^T: dA = 0.5 L^-T copyLTU(L^T dL) L^-1 (symmetric); the upper factor U = L^T likewise."""
    factor, d_factor = _f64(factor, d_factor)
    if not lower:
        factor, d_factor = _mt(factor), _mt(d_factor)
    inner = _lower_to_upper(np.matmul(_mt(factor), d_factor))
    return 0.5 * _solve_right(factor, _solve_left(_mt(factor), inner))


def potri_grad(factor, inverse, d_inverse, lower=True):
    """A = (L L^T)^-1: dL = -tril(A (dA + dA^T) L^-T); with the upper factor U (A = (U^T U)^-1),
    dU = -triu(U^-T (dA + dA^T) A)."""
    factor, inverse, d_inverse = _f64(_triangular(factor, lower), inverse, d_inverse)
    both = d_inverse + _mt(d_inverse)
    if lower:
        return -np.tril(_solve_right(_mt(factor), np.matmul(inverse, both)))
    return -np.triu(_solve_left(_mt(factor), np.matmul(both, inverse)))


def trsm_grads(a, out, d_out, transpose=False, rightside=False, lower=True, alpha=1.0):
    """C = alpha op(A)^-1 B (or alpha B op(A)^-1): dB solves with op(A)^T, dA = -op(dB, C) / alpha on
    A's triangle."""
    a, out, d_out = _f64(_triangular(a, lower), out, d_out)
    op_t = _t(a, not transpose)
    d_b = alpha * (_solve_right(op_t, d_out) if rightside else _solve_left(op_t, d_out))
    if rightside == transpose:
        d_a = np.matmul(_t(d_b, transpose), _t(out, not transpose))
    else:
        d_a = np.matmul(_t(out, not transpose), _t(d_b, transpose))
    return _triangular(-d_a / alpha, lower), d_b


def trmm_grads(a, b, d_out, transpose=False, rightside=False, lower=True, alpha=1.0):
    """C = alpha op(A) B (or alpha B op(A)): dA on A's triangle, dB = alpha op(A)^T dC (or dC op(A)^T)."""
    a, b, d_out = _f64(_triangular(a, lower), b, d_out)
    if rightside == transpose:
        d_a = np.matmul(_t(d_out, transpose), _t(b, not transpose))
    else:
        d_a = np.matmul(_t(b, not transpose), _t(d_out, transpose))
    op_t = _t(a, not transpose)
    d_b = np.matmul(d_out, op_t) if rightside else np.matmul(op_t, d_out)
    return _triangular(alpha * d_a, lower), alpha * d_b


def syrk_grad(a, d_out, transpose=False, alpha=1.0):
    """B = alpha A A^T: dA = alpha (dB + dB^T) A; B = alpha A^T A: dA = alpha A (dB + dB^T)."""
    a, d_out = _f64(a, d_out)
    both = d_out + _mt(d_out)
    return alpha * (np.matmul(a, both) if transpose else np.matmul(both, a))


def sumlogdiag_grad(a, d_out):
    """dA = diag(dB / A_ii), zero off the diagonal."""
    a, d_out = _f64(a, d_out)
    n = a.shape[-1]
    diagonal = np.diagonal(a, axis1=-2, axis2=-1)
    grad = np.zeros(a.shape)
    grad[..., np.arange(n), np.arange(n)] = d_out.reshape(a.shape[:-2] + (1,)) / diagonal
    return grad


def gelqf_grad(q, l, d_q, d_l):
    """(Q, L) = gelqf(A): dA = L^-T (dQ + copyLTU(M) Q), M = L^T dL - dQ Q^T."""
    q, l, d_q, d_l = _f64(q, l, d_q, d_l)
    m = np.matmul(_mt(l), d_l) - np.matmul(d_q, _mt(q))
    return _solve_left(_mt(l), d_q + np.matmul(_lower_to_upper(m), q))


# MXNet's floor on eigenvalue gaps, per dtype: equal eigenvalues do not divide by zero
_GAP_FLOOR = {np.dtype(np.float32): 1e-30, np.dtype(np.float64): 1e-100}


def syevd_grad(u, values, d_u, d_values, dtype):
    """(U, L) = syevd(A), U's rows the eigenvectors: dA = U^T Y U with X = dU U^T,
    Y_ij = (X_ij - X_ji) / (2 (L_i - L_j)) off the diagonal (i > j, mirrored) and Y_ii = dL_i."""
    u, values, d_u, d_values = _f64(u, values, d_u, d_values)
    n = values.shape[-1]
    x = np.matmul(d_u, _mt(u))
    gap = values[..., :, None] - values[..., None, :]  # L_i - L_j, >= 0 below the diagonal
    below = np.tril(np.ones((n, n), dtype=bool), -1)
    gap = np.where(below, np.maximum(gap, _GAP_FLOOR[np.dtype(dtype)]), 1.0)
    y = np.where(below, (x - _mt(x)) / (2 * gap), 0.0)
    y = y + _mt(y)
    y[..., np.arange(n), np.arange(n)] = d_values
    return np.matmul(np.matmul(_mt(u), y), u)


def inverse_grad(inverse, d_inverse):
    """B = A^-1: dA = -B^T dB B^T."""
    inverse, d_inverse = _f64(inverse, d_inverse)
    return -np.matmul(_mt(inverse), np.matmul(d_inverse, _mt(inverse)))


def _inverse_transposed(a):
    """A^-T, zero for a singular matrix (its gradient is dropped anyway)."""
    a = np.asarray(a, dtype=np.float64)
    singular = np.linalg.det(a) == 0
    safe = np.where(singular[..., None, None], np.eye(a.shape[-1]), a)
    return _mt(np.linalg.inv(safe)), singular


def det_grad(a, det, d_det):
    """Jacobi's formula: dA = dDet det A^-T; no gradient for a singular A (det 0), as MXNet."""
    inverse_t, _ = _inverse_transposed(a)
    scale = (np.asarray(det, np.float64) * np.asarray(d_det, np.float64)).reshape(inverse_t.shape[:-2] + (1, 1))
    zero = (np.asarray(det) == 0).reshape(scale.shape)
    return np.where(zero, 0.0, scale * inverse_t)


def slogdet_grad(a, logabsdet, d_logabsdet):
    """dA = dLogAbsDet A^-T; no gradient through the sign, none for a singular A (log|det| -inf)."""
    inverse_t, _ = _inverse_transposed(a)
    scale = np.asarray(d_logabsdet, np.float64).reshape(inverse_t.shape[:-2] + (1, 1))
    zero = np.isneginf(np.asarray(logabsdet)).reshape(scale.shape)
    return np.where(zero, 0.0, scale * inverse_t)
