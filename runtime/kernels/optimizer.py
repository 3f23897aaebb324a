"""The fused optimizer updates (`sgd_update`, `adam_update`...): MXNet 1.9.1's arithmetic, step by step.

Each kernel returns the new weight and updates its state arrays (momentum, moving averages, the
float32 master weight of the mp_ variants) in place, as MXNet's operators mutate those inputs; the
weight itself changes only where the caller writes the result into it (`out=weight`). Attributes
are cast to the weight's dtype first, as MXNet's kernels take them, so float32 runs in float32.
A negative clip bound means no clipping.
"""
from __future__ import annotations

import numba
import numpy as np


def _clip(values, bound):
    return np.clip(values, -bound, bound) if bound >= 0 else values


def _typed(dtype, *values):
    return [dtype.type(v) for v in values]


def sgd_update(weight, grad, lr, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0, lazy_update=True):
    lr, wd, rescale, one = _typed(weight.dtype, lr, wd, rescale_grad, 1)
    if clip_gradient >= 0:
        return (one - lr * wd) * weight - lr * _clip(rescale * grad, clip_gradient)
    return (one - lr * wd) * weight - (lr * rescale) * grad


def _momentum_step(mom, weight, grad, lr, momentum, wd, rescale, clip_gradient, decay=None):
    """mom = momentum * mom - decay * wd * weight - decay * clip(rescale * grad), in place; `decay`
    is lr for SGD, 1 - momentum for Signum."""
    decay = lr if decay is None else decay
    mom *= momentum
    mom -= decay * wd * weight
    mom -= decay * _clip(rescale * grad, clip_gradient)


def sgd_mom_update(weight, grad, mom, lr, momentum=0.0, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0,
                   lazy_update=True):
    lr, momentum, wd, rescale = _typed(weight.dtype, lr, momentum, wd, rescale_grad)
    _momentum_step(mom, weight, grad, lr, momentum, wd, rescale, clip_gradient)
    return weight + mom


@numba.njit(cache=True, nogil=True)
def _sgd_momentum(weight, grad, mom, lr, momentum, decay, rescale, clip_gradient):
    for i in range(weight.shape[0]):
        g = rescale * grad[i]
        if clip_gradient >= 0:
            g = -clip_gradient if g < -clip_gradient else (clip_gradient if g > clip_gradient else g)
        m = momentum * mom[i] - decay * weight[i] - lr * g
        mom[i] = m
        weight[i] = weight[i] + m


def sgd_momentum_in_place(weight, grad, mom, lr, momentum, wd, rescale_grad, clip_gradient) -> bool:
    """Gluon's SGD step with momentum on NumPy arrays, in place and in one pass: mom = momentum *
    mom - (lr * wd) * weight - lr * clip(rescale * grad); weight += mom, in the weight's dtype
    with each scalar rounded to it as numpy's steps did (the same roundings, one element at a
    time). False, changing nothing, unless all three are contiguous arrays of one float type."""
    dtype = weight.dtype
    if dtype.char not in "fd" or grad.dtype != dtype or mom.dtype != dtype or grad.shape != weight.shape \
            or mom.shape != weight.shape or not (weight.flags.c_contiguous and grad.flags.c_contiguous
                                                and mom.flags.c_contiguous):
        return False
    kind = dtype.type
    _sgd_momentum(weight.reshape(-1), grad.reshape(-1), mom.reshape(-1), kind(lr), kind(momentum), kind(lr * wd),
                  kind(rescale_grad), kind(-1.0 if clip_gradient is None else clip_gradient))
    return True


def mp_sgd_update(weight, grad, weight32, lr, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0, lazy_update=True):
    """float16 weight, float32 master copy: the step runs on the master, which the result rounds."""
    weight32[...] = sgd_update(weight32, grad.astype(np.float32), lr, wd, rescale_grad, clip_gradient)
    return weight32.astype(weight.dtype)


def mp_sgd_mom_update(weight, grad, mom, weight32, lr, momentum=0.0, wd=0.0, rescale_grad=1.0,
                      clip_gradient=-1.0, lazy_update=True):
    weight32[...] = sgd_mom_update(weight32, grad.astype(np.float32), mom, lr, momentum, wd, rescale_grad,
                                   clip_gradient)
    return weight32.astype(weight.dtype)


def nag_mom_update(weight, grad, mom, lr, momentum=0.0, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0):
    lr, momentum, wd, rescale, one = _typed(weight.dtype, lr, momentum, wd, rescale_grad, 1)
    step = lr * (_clip(rescale * grad, clip_gradient) + wd * weight)
    mom *= momentum
    result = weight - mom + (momentum + one) * (mom - step)
    mom -= step
    return result


def mp_nag_mom_update(weight, grad, mom, weight32, lr, momentum=0.0, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0):
    # the master weight is written before the momentum's last step, which therefore decays the new weight
    lr, momentum, wd, rescale, one = _typed(weight32.dtype, lr, momentum, wd, rescale_grad, 1)
    g = _clip(rescale * grad.astype(np.float32), clip_gradient)
    mom *= momentum
    weight32[...] = weight32 - mom + (momentum + one) * (mom - lr * (g + wd * weight32))
    mom -= lr * (g + wd * weight32)
    return weight32.astype(weight.dtype)


def signsgd_update(weight, grad, lr, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0):
    # only the gradient's sign counts: rescaling and clipping change nothing
    lr, wd, one = _typed(weight.dtype, lr, wd, 1)
    return (one - lr * wd) * weight - lr * np.sign(grad).astype(weight.dtype)


def signum_update(weight, grad, mom, lr, momentum=0.0, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0, wd_lh=0.0):
    lr, momentum, wd, rescale, wd_lh, one = _typed(weight.dtype, lr, momentum, wd, rescale_grad, wd_lh, 1)
    _momentum_step(mom, weight, grad, lr, momentum, wd, rescale, clip_gradient, decay=one - momentum)
    return (one - lr * wd_lh) * weight + lr * np.sign(mom).astype(weight.dtype)


def ftml_update(weight, grad, d, v, z, lr, t, beta1=0.6, beta2=0.999, epsilon=1e-8, wd=0.0, rescale_grad=1.0,
                clip_grad=-1.0):
    lr, beta1, beta2, epsilon, t, wd, rescale, one = _typed(weight.dtype, lr, beta1, beta2, epsilon, t, wd,
                                                            rescale_grad, 1)
    g = _clip(rescale * grad + wd * weight, clip_grad)
    v *= beta2
    v += (one - beta2) * np.square(g)
    d_t = (one - beta1 ** t) / lr * (np.sqrt(v / (one - beta2 ** t)) + epsilon)
    z *= beta1
    z += (one - beta1) * g - (d_t - beta1 * d) * weight
    d[...] = d_t
    return -z / d_t


def adam_update(weight, grad, mean, var, lr, beta1=0.9, beta2=0.999, epsilon=1e-8, wd=0.0, rescale_grad=1.0,
                clip_gradient=-1.0, lazy_update=True):
    lr, beta1, beta2, epsilon, wd, rescale, one = _typed(weight.dtype, lr, beta1, beta2, epsilon, wd,
                                                         rescale_grad, 1)
    g = _clip(grad * rescale + weight * wd, clip_gradient)
    mean *= beta1
    mean += (one - beta1) * g
    var *= beta2
    var += (one - beta2) * g * g
    return weight - lr * mean / (np.sqrt(var) + epsilon)


def rmsprop_update(weight, grad, n, lr, gamma1=0.95, epsilon=1e-8, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0,
                   clip_weights=-1.0):
    lr, gamma1, epsilon, wd, rescale, one = _typed(weight.dtype, lr, gamma1, epsilon, wd, rescale_grad, 1)
    g = _clip(rescale * grad + wd * weight, clip_gradient)
    n[...] = (one - gamma1) * (g * g) + gamma1 * n
    return _clip(weight - lr * (g / np.sqrt(n + epsilon)), clip_weights)


def rmspropalex_update(weight, grad, n, g, delta, lr, gamma1=0.95, gamma2=0.9, epsilon=1e-8, wd=0.0,
                       rescale_grad=1.0, clip_gradient=-1.0, clip_weights=-1.0):
    lr, gamma1, gamma2, epsilon, wd, rescale, one = _typed(weight.dtype, lr, gamma1, gamma2, epsilon, wd,
                                                           rescale_grad, 1)
    step = _clip(rescale * grad + wd * weight, clip_gradient)
    n[...] = (one - gamma1) * step * step + gamma1 * n
    g[...] = (one - gamma1) * step + gamma1 * g
    with np.errstate(invalid="ignore"):  # n - g * g may go negative: NaN, silently, as in MXNet
        delta[...] = gamma2 * delta - lr * step / np.sqrt(n - g * g + epsilon)
    return _clip(weight + delta, clip_weights)


def ftrl_update(weight, grad, z, n, lr, lamda1=0.01, beta=1.0, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0):
    lr, lamda1, beta, wd, rescale = _typed(weight.dtype, lr, lamda1, beta, wd, rescale_grad)
    g = _clip(grad * rescale, clip_gradient)
    z += g - (np.sqrt(n + np.square(g)) - np.sqrt(n)) * weight / lr
    n += np.square(g)
    return ((np.sign(z) * lamda1 - z) / ((beta + np.sqrt(n)) / lr + wd) * (np.abs(z) > lamda1)).astype(weight.dtype)
