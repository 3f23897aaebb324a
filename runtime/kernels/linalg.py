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
    return np.ascontiguousarray(_restore(out.astype(c.dtype, copy=False), axis))


def gemm2(a, b, transpose_a=False, transpose_b=False, alpha=1.0, axis=-2):
    """alpha * op(A) op(B)."""
    a, b = _matrices(a, axis), _matrices(b, axis)
    out = alpha * np.matmul(_t(a, transpose_a), _t(b, transpose_b))
    return np.ascontiguousarray(_restore(out.astype(a.dtype, copy=False), axis))


def _check_square(a, words):
    """MXNet checks these operators' matrices when it runs them, not when it infers shapes."""
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError("%s (%d vs. %d)" % (words, a.shape[-2] if a.ndim > 1 else 1, a.shape[-1]))


def _lapack_name(routine, dtype):
    """MXNet names the LAPACK routine that failed: s... for float32, d... for float64."""
    return ("d" if dtype == np.float64 else "s") + routine


def potrf(a, lower=True):
    """The Cholesky factor of a symmetric positive definite matrix (lower, or upper with lower=False).
    As LAPACK, only that triangle of A is read: the other one may hold anything."""
    _check_square(a, "No square matrix as input to potrf.")
    if a.size == 0:
        return a.copy()
    # the upper factor of A is the transposed lower factor of A^T, whose lower triangle is A's upper one
    full = a.astype(np.float64) if lower else np.swapaxes(a.astype(np.float64), -1, -2)
    try:
        factor = np.linalg.cholesky(full)
    except np.linalg.LinAlgError:
        raise ValueError("Check failed: ret == 0 : %s failed in lapack on cpu. This may happen when the input "
                         "matrix is either not symmetric or not positive definite." % _lapack_name("potrf", a.dtype))
    return (factor if lower else np.swapaxes(factor, -1, -2)).astype(a.dtype)


def potri(a, lower=True):
    """The inverse of A = L L^T from its Cholesky factor L (or A = U^T U from U with lower=False);
    only the factor's triangle is read."""
    _check_square(a, "No square matrix as input to potri.")
    factor = _triangular(a.astype(np.float64), lower)
    full = np.matmul(factor, np.swapaxes(factor, -1, -2)) if lower else np.matmul(np.swapaxes(factor, -1, -2), factor)
    try:
        return np.linalg.inv(full).astype(a.dtype)
    except np.linalg.LinAlgError:
        raise ValueError("Check failed: ret == 0 : %s failed in lapack on cpu. This may happen when the input "
                         "matrix is not a Cholesky factorization obtained by a prior call of the potrf-operator."
                         % _lapack_name("potri", a.dtype))


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
    _check_square(a, "sumlogdiag operator requires square matrices as input.")
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
    """The places of the triangle's elements in MXNet's order: the lower triangle row by row, the
    upper one column by column (the lower triangle of the transpose, row by row)."""
    if offset > 0:
        lower = False
    elif offset < 0:
        lower = True
    rows, cols = np.tril_indices(n, -abs(offset))
    return (rows, cols) if lower else (cols, rows)


def extracttrian(a, offset=0, lower=True):
    """The triangle's elements (lower with offset < 0, upper with offset > 0, `lower` says which at 0)."""
    rows, cols = _triangle_indices(a.shape[-1], offset, lower)
    return np.ascontiguousarray(a[..., rows, cols])


def maketrian(a, offset=0, lower=True):
    count = a.shape[-1]
    # the size n of the triangle with `count` elements: n' (n' + 1) / 2 = count, n = n' + |offset|
    inner = int(round((np.sqrt(8 * count + 1) - 1) / 2))
    n = inner + abs(offset)
    out = np.zeros(a.shape[:-1] + (n, n), dtype=a.dtype)
    rows, cols = _triangle_indices(n, offset, lower)
    out[..., rows, cols] = a
    return out


def inverse(a):
    try:
        return np.linalg.inv(a.astype(np.float64)).astype(a.dtype)
    except np.linalg.LinAlgError:
        raise ValueError("Check failed: ret == 0 : the input matrix is non-convertible")


def det(a):
    return _batch_shape(a, np.linalg.det(a.astype(np.float64)))


def slogdet(a):
    sign, logdet = np.linalg.slogdet(a.astype(np.float64))
    return _batch_shape(a, sign), _batch_shape(a, logdet)


def syevd(a):
    """(U, L): the rows of U are the eigenvectors of the symmetric A (only its lower triangle is read),
    L its eigenvalues ascending. Each row of U has its largest element (the first of equals, in
    absolute value) positive, as MXNet makes the signs deterministic."""
    values, vectors = np.linalg.eigh(a.astype(np.float64), UPLO="L")
    rows = np.swapaxes(vectors, -1, -2)
    largest = np.take_along_axis(rows, np.argmax(np.abs(rows), axis=-1)[..., None], axis=-1)
    rows = np.where(largest < 0, -rows, rows)
    return rows.astype(a.dtype), values.astype(a.dtype)


def gelqf(a):
    """(Q, L) with A = L Q, Q's rows orthonormal, L lower triangular (the QR of A^T, transposed)."""
    q, r = np.linalg.qr(np.swapaxes(a.astype(np.float64), -1, -2))
    # MXNet's L has a non-negative diagonal? LAPACK's gelqf does not fix signs: keep LAPACK's convention
    return np.swapaxes(q, -1, -2).astype(a.dtype), np.swapaxes(r, -1, -2).astype(a.dtype)
