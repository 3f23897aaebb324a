"""Kernels of the `linalg.*` operators: batched over leading axes, the matrix in the last two
(`axis` moves the row axis of gemm's operands there first)."""
from __future__ import annotations

import numpy as np


def _matrices(a, axis=-2):
    return a if axis in (-2, a.ndim - 2) else np.moveaxis(a, axis, -2)


def _restore(out, axis):
    return out if axis in (-2, out.ndim - 2) else np.moveaxis(out, -2, axis)


def _t(a, flag):
    return np.swapaxes(a, -1, -2) if flag else a


def gemm(a, b, c, transpose_a=False, transpose_b=False, alpha=1.0, beta=1.0, axis=-2):
    """alpha * op(A) op(B) + beta * C."""
    a, b, c = _matrices(a, axis), _matrices(b, axis), _matrices(c, axis)
    out = alpha * np.matmul(_t(a, transpose_a), _t(b, transpose_b)) + beta * c
    return _restore(out.astype(c.dtype, copy=False), axis)


def potrf(a, lower=True):
    """The Cholesky factor of a symmetric positive definite matrix (lower, or upper with lower=False)."""
    factor = np.linalg.cholesky(a.astype(np.float64))
    return (factor if lower else np.swapaxes(factor, -1, -2)).astype(a.dtype)


def potri(a, lower=True):
    """The inverse of A = L L^T from its Cholesky factor L (or U with lower=False)."""
    factor = a.astype(np.float64)
    full = np.matmul(factor, np.swapaxes(factor, -1, -2)) if lower else np.matmul(np.swapaxes(factor, -1, -2), factor)
    return np.linalg.inv(full).astype(a.dtype)


def _triangular(a, lower):
    return np.tril(a) if lower else np.triu(a)


def trmm(a, b, transpose=False, rightside=False, lower=True, alpha=1.0):
    """alpha * op(A) B, or alpha * B op(A) with rightside, A triangular."""
    op = _t(_triangular(a, lower), transpose)
    out = alpha * (np.matmul(b, op) if rightside else np.matmul(op, b))
    return out.astype(b.dtype, copy=False)


def trsm(a, b, transpose=False, rightside=False, lower=True, alpha=1.0):
    """X with op(A) X = alpha B, or X op(A) = alpha B with rightside, A triangular."""
    op = _t(_triangular(a, lower), transpose).astype(np.float64)
    rhs = alpha * b.astype(np.float64)
    if rightside:  # X op(A) = B  <=>  op(A)^T X^T = B^T
        out = np.swapaxes(np.linalg.solve(np.swapaxes(op, -1, -2), np.swapaxes(rhs, -1, -2)), -1, -2)
    else:
        out = np.linalg.solve(op, rhs)
    return out.astype(b.dtype)


def syrk(a, transpose=False, alpha=1.0):
    """alpha * A A^T (or alpha * A^T A with transpose)."""
    at = np.swapaxes(a, -1, -2)
    return (alpha * (np.matmul(at, a) if transpose else np.matmul(a, at))).astype(a.dtype, copy=False)


def _batch_shape(a, out):
    """One value per matrix: a single matrix gives shape (1,), as in MXNet."""
    return np.asarray(out, dtype=a.dtype).reshape(a.shape[:-2] or (1,))


def sumlogdiag(a):
    return _batch_shape(a, np.sum(np.log(np.diagonal(a, axis1=-2, axis2=-1)), axis=-1))


def extractdiag(a, offset=0):
    return np.ascontiguousarray(np.diagonal(a, offset=offset, axis1=-2, axis2=-1))


def makediag(a, offset=0):
    n = a.shape[-1] + abs(offset)
    out = np.zeros(a.shape[:-1] + (n, n), dtype=a.dtype)
    index = np.arange(a.shape[-1])
    rows, cols = (index, index + offset) if offset >= 0 else (index - offset, index)
    out[..., rows, cols] = a
    return out


def _triangle_indices(n, offset, lower):
    rows, cols = np.tril_indices(n, offset) if lower else np.triu_indices(n, offset)
    return rows, cols


def extracttrian(a, offset=0, lower=True):
    """The triangle's elements, row by row (lower with offset <= 0 picks below the diagonal)."""
    n = a.shape[-1]
    if offset > 0:
        lower = False
    elif offset < 0:
        lower = True
    rows, cols = _triangle_indices(n, offset, lower)
    return np.ascontiguousarray(a[..., rows, cols])


def maketrian(a, offset=0, lower=True):
    count = a.shape[-1]
    if offset > 0:
        lower = False
    elif offset < 0:
        lower = True
    # the size n of the triangle with `count` elements: n' (n' + 1) / 2 = count, n = n' + |offset|
    inner = int(round((np.sqrt(8 * count + 1) - 1) / 2))
    n = inner + abs(offset)
    out = np.zeros(a.shape[:-1] + (n, n), dtype=a.dtype)
    rows, cols = _triangle_indices(n, offset, lower)
    out[..., rows, cols] = a
    return out


def inverse(a):
    return np.linalg.inv(a.astype(np.float64)).astype(a.dtype)


def det(a):
    return _batch_shape(a, np.linalg.det(a.astype(np.float64)))


def slogdet(a):
    sign, logdet = np.linalg.slogdet(a.astype(np.float64))
    return _batch_shape(a, sign), _batch_shape(a, logdet)


def syevd(a):
    """(U, L): the rows of U are the eigenvectors of the symmetric A, L its eigenvalues ascending."""
    values, vectors = np.linalg.eigh(a.astype(np.float64))
    return np.swapaxes(vectors, -1, -2).astype(a.dtype), values.astype(a.dtype)


def gelqf(a):
    """(Q, L) with A = L Q, Q's rows orthonormal, L lower triangular (the QR of A^T, transposed)."""
    q, r = np.linalg.qr(np.swapaxes(a.astype(np.float64), -1, -2))
    # MXNet's L has a non-negative diagonal? LAPACK's gelqf does not fix signs: keep LAPACK's convention
    return np.swapaxes(q, -1, -2).astype(a.dtype), np.swapaxes(r, -1, -2).astype(a.dtype)
