"""`nd.contrib.adamw_update` and its mixed-precision and multi-tensor forms: AdamW steps in place
(MXNet 1.9.1's contrib optimizers, which GluonNLP's BERTAdam calls).

Each updates `mean` and `var` in place and writes the new weight to `out`; the gradient is first
scaled by `rescale_grad` (a number or a one-element NDArray) and clipped to +-clip_gradient when
that is >= 0. A rescale that is zero or not finite skips the whole step, as MXNet's does (mixed
precision's loss scaling relies on it). The step:
    mean = beta1 mean + (1 - beta1) g;  var = beta2 var + (1 - beta2) g^2
    w    = w - eta (lr mean / (sqrt(var) + epsilon) + wd w)
in float32 from `weight32` for the mixed-precision forms (which also update `weight32`), in the
weight's dtype otherwise. The single-tensor, single-precision form also leaves the scaled and clipped
gradient in `grad` (MXNet's computes it there; recorded).
"""
from __future__ import annotations

import math

import numpy as np


def _scale(rescale_grad) -> float:
    return float(rescale_grad.asnumpy().ravel()[0]) if hasattr(rescale_grad, "asnumpy") else float(rescale_grad)


def _step(weight, grad, mean, var, weight32, out, scale, lr, eta, beta1, beta2, epsilon, wd, clip_gradient,
          grad_in_place=False):
    dtype = np.float32 if weight32 is not None else weight.dtype
    w = (weight32 if weight32 is not None else weight).asnumpy().astype(dtype)
    g = grad.asnumpy().astype(dtype) * dtype(scale)
    if clip_gradient >= 0:
        g = np.clip(g, -clip_gradient, clip_gradient)
    if grad_in_place:
        grad[:] = g.astype(grad.dtype)
    m = dtype(beta1) * mean.asnumpy() + dtype(1.0 - beta1) * g
    v = dtype(beta2) * var.asnumpy() + dtype(1.0 - beta2) * g * g
    mean[:] = m.astype(mean.dtype)
    var[:] = v.astype(var.dtype)
    w = w - dtype(eta) * (dtype(lr) * m / (np.sqrt(v) + dtype(epsilon)) + dtype(wd) * w)
    if weight32 is not None:
        weight32[:] = w
    target = out if out is not None else weight
    target[:] = w.astype(target.dtype)
    return target


def _skipped(scale: float) -> bool:
    return scale == 0 or not math.isfinite(scale)


def adamw_update(weight, grad, mean, var, rescale_grad, lr, eta, beta1=0.9, beta2=0.999, epsilon=1e-8, wd=0,
                 clip_gradient=-1, out=None, name=None, **kwargs):
    """One AdamW step of `weight` (see the module's docstring); the updated weight (`out`)."""
    scale = _scale(rescale_grad)
    if _skipped(scale):
        return out if out is not None else weight
    return _step(weight, grad, mean, var, None, out, scale, lr, eta, beta1, beta2, epsilon, wd, clip_gradient,
                 grad_in_place=True)


def mp_adamw_update(weight, grad, mean, var, weight32, rescale_grad, lr, eta, beta1=0.9, beta2=0.999,
                    epsilon=1e-8, wd=0, clip_gradient=-1, out=None, name=None, **kwargs):
    """adamw_update on the float32 master copy `weight32` of a (float16) weight."""
    scale = _scale(rescale_grad)
    if _skipped(scale):
        return out if out is not None else weight
    return _step(weight, grad, mean, var, weight32, out, scale, lr, eta, beta1, beta2, epsilon, wd, clip_gradient)


def _multi(weights, grads, mean, var, weights32, rescale_grad, lrs, wds, etas, out, size, beta1=0.9,
           beta2=0.999, epsilon=1e-8, clip_gradient=-1):
    size = size or len(weights)
    outs = list(out) if out is not None else list(weights[:size])
    scale = _scale(rescale_grad)
    if _skipped(scale):
        return outs
    for i in range(size):
        _step(weights[i], grads[i], mean[i], var[i], weights32[i] if weights32 is not None else None, outs[i],
              scale, lrs[i], etas[i], beta1, beta2, epsilon, wds[i], clip_gradient)
    return outs


def multi_adamw_update(weights, grads, mean, var, rescale_grad, lrs, wds, etas, out=None, name=None, size=0,
                       **kwargs):
    """adamw_update over lists of tensors, with per-tensor lrs, wds and etas."""
    return _multi(weights, grads, mean, var, None, rescale_grad, lrs, wds, etas, out, size, **kwargs)


def multi_mp_adamw_update(weights, grads, mean, var, weights32, rescale_grad, lrs, wds, etas, out=None,
                          name=None, size=0, **kwargs):
    """mp_adamw_update over lists of tensors."""
    return _multi(weights, grads, mean, var, weights32, rescale_grad, lrs, wds, etas, out, size, **kwargs)


FUNCTIONS = {f.__name__: f for f in (adamw_update, mp_adamw_update, multi_adamw_update, multi_mp_adamw_update)}
