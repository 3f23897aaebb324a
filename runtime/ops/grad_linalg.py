"""Gradients of the `linalg.*` operators of runtime/ops/linalg.py (formulas in
runtime/kernels/grad_linalg.py). The diagonal and triangle copies share the gradient of the
operators that only move elements (`selection`)."""
from __future__ import annotations

import numpy as np

from runtime.kernels import grad_linalg as k
from runtime.ops.grad_tensor import _batched_product_gradient, selection
from runtime.registry import gradient_of

for _name in ("extractdiag", "makediag", "extracttrian", "maketrian"):
    gradient_of("_linalg_" + _name)(selection("_linalg_" + _name))


def _as(dtype, *grads):
    return [np.ascontiguousarray(g).astype(dtype, copy=False) for g in grads]


def _product_grads(a, b, g, transpose_a, transpose_b, alpha, axis):
    """(dA, dB) of alpha op(A) op(B), the matrices' rows on `axis`."""
    moved = axis % a.ndim != a.ndim - 2
    if moved:  # the rows lie on another axis: move them next to the columns, and back
        a, b, g = (np.moveaxis(t, axis, -2) for t in (a, b, g))
    da, db = _batched_product_gradient(a, b, g, transpose_a, transpose_b, alpha)
    if moved:
        da, db = np.moveaxis(da, -2, axis), np.moveaxis(db, -2, axis)
    return _as(a.dtype, da, db)


@gradient_of("_linalg_gemm")
def _gemm(inputs, outputs, out_grads, transpose_a=False, transpose_b=False, alpha=1.0, beta=1.0, axis=-2):
    a, b, c = inputs
    g = out_grads[0]
    return _product_grads(a, b, g, transpose_a, transpose_b, alpha, axis) + _as(c.dtype, beta * g)


@gradient_of("_linalg_gemm2")
def _gemm2(inputs, outputs, out_grads, transpose_a=False, transpose_b=False, alpha=1.0, axis=-2):
    return _product_grads(inputs[0], inputs[1], out_grads[0], transpose_a, transpose_b, alpha, axis)


@gradient_of("_linalg_potrf")
def _potrf(inputs, outputs, out_grads, lower=True):
    return _as(inputs[0].dtype, k.potrf_grad(outputs[0], out_grads[0], lower))


@gradient_of("_linalg_potri")
def _potri(inputs, outputs, out_grads, lower=True):
    return _as(inputs[0].dtype, k.potri_grad(inputs[0], outputs[0], out_grads[0], lower))


@gradient_of("_linalg_trsm")
def _trsm(inputs, outputs, out_grads, **attrs):
    return _as(inputs[1].dtype, *k.trsm_grads(inputs[0], outputs[0], out_grads[0], **attrs))


@gradient_of("_linalg_trmm")
def _trmm(inputs, outputs, out_grads, **attrs):
    return _as(inputs[1].dtype, *k.trmm_grads(inputs[0], inputs[1], out_grads[0], **attrs))


@gradient_of("_linalg_syrk")
def _syrk(inputs, outputs, out_grads, transpose=False, alpha=1.0):
    return _as(inputs[0].dtype, k.syrk_grad(inputs[0], out_grads[0], transpose, alpha))


@gradient_of("_linalg_sumlogdiag")
def _sumlogdiag(inputs, outputs, out_grads):
    return _as(inputs[0].dtype, k.sumlogdiag_grad(inputs[0], out_grads[0]))


@gradient_of("_linalg_gelqf")
def _gelqf(inputs, outputs, out_grads):
    return _as(inputs[0].dtype, k.gelqf_grad(outputs[0], outputs[1], out_grads[0], out_grads[1]))


@gradient_of("_linalg_syevd")
def _syevd(inputs, outputs, out_grads):
    a = inputs[0]
    return _as(a.dtype, k.syevd_grad(outputs[0], outputs[1], out_grads[0], out_grads[1], a.dtype))


@gradient_of("_linalg_inverse")
def _inverse(inputs, outputs, out_grads):
    return _as(inputs[0].dtype, k.inverse_grad(outputs[0], out_grads[0]))


@gradient_of("_linalg_det")
def _det(inputs, outputs, out_grads):
    return _as(inputs[0].dtype, k.det_grad(inputs[0], outputs[0], out_grads[0]))


@gradient_of("_linalg_slogdet")
def _slogdet(inputs, outputs, out_grads):
    return _as(inputs[0].dtype, k.slogdet_grad(inputs[0], outputs[1], out_grads[1]))
