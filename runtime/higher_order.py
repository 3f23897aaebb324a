"""Gradients written with recorded NDArray operators, for `autograd.grad(..., create_graph=True)`:
the gradient computation is itself on the tape, so its result can be differentiated again.

Each entry maps an operator to `gradient(nd, inputs, out_grads, attrs)` over NDArrays, recomputing
from the inputs whatever depends on them (so that the second derivative sees that dependence).
Operators without an entry support first-order gradients only.
"""
from __future__ import annotations

import math
from typing import Callable, Dict


def _unary(derivative: Callable) -> Callable:
    def gradient(nd, inputs, out_grads, attrs):
        return [out_grads[0] * derivative(nd, inputs[0])]
    return gradient


def _sum_to(nd, grad, shape):
    """A broadcast result's gradient summed back onto an operand's shape."""
    if tuple(grad.shape) == tuple(shape):
        return grad
    extra = len(grad.shape) - len(shape)
    if extra:
        grad = nd.sum(grad, axis=tuple(range(extra)))
    axes = tuple(i for i, (g, s) in enumerate(zip(grad.shape, shape)) if s == 1 and g != 1)
    if axes:
        grad = nd.sum(grad, axis=axes, keepdims=True)
    return nd.reshape(grad, shape=tuple(shape))


def _binary(left: Callable, right: Callable) -> Callable:
    def gradient(nd, inputs, out_grads, attrs):
        a, b = inputs
        g = out_grads[0]
        return [_sum_to(nd, left(nd, a, b, g), a.shape), _sum_to(nd, right(nd, a, b, g), b.shape)]
    return gradient


def _scalar(derivative: Callable) -> Callable:
    def gradient(nd, inputs, out_grads, attrs):
        return [out_grads[0] * derivative(nd, inputs[0], attrs["scalar"])]
    return gradient


GRADIENTS: Dict[str, Callable] = {
    "exp": _unary(lambda nd, x: nd.exp(x)),
    "log": _unary(lambda nd, x: nd.reciprocal(x)),
    "log2": _unary(lambda nd, x: nd.reciprocal(x) / math.log(2.0)),
    "log10": _unary(lambda nd, x: nd.reciprocal(x) / math.log(10.0)),
    "sin": _unary(lambda nd, x: nd.cos(x)),
    "cos": _unary(lambda nd, x: -nd.sin(x)),
    "tanh": _unary(lambda nd, x: 1 - nd.square(nd.tanh(x))),
    "sigmoid": _unary(lambda nd, x: nd.sigmoid(x) * (1 - nd.sigmoid(x))),
    "square": _unary(lambda nd, x: 2 * x),
    "sqrt": _unary(lambda nd, x: 0.5 * nd.rsqrt(x)),
    "reciprocal": _unary(lambda nd, x: -nd.reciprocal(nd.square(x))),
    "negative": _unary(lambda nd, x: -nd.ones_like(x)),
    "identity": _unary(lambda nd, x: nd.ones_like(x)),
    "relu": _unary(lambda nd, x: x > 0),
    "abs": _unary(lambda nd, x: nd.sign(x)),
    "elemwise_add": _binary(lambda nd, a, b, g: g, lambda nd, a, b, g: g),
    "elemwise_sub": _binary(lambda nd, a, b, g: g, lambda nd, a, b, g: -g),
    "elemwise_mul": _binary(lambda nd, a, b, g: g * b, lambda nd, a, b, g: g * a),
    "elemwise_div": _binary(lambda nd, a, b, g: g / b, lambda nd, a, b, g: -g * a / (b * b)),
    "_plus_scalar": _scalar(lambda nd, x, s: nd.ones_like(x)),
    "_minus_scalar": _scalar(lambda nd, x, s: nd.ones_like(x)),
    "_rminus_scalar": _scalar(lambda nd, x, s: -nd.ones_like(x)),
    "_mul_scalar": _scalar(lambda nd, x, s: nd.ones_like(x) * s),
    "_div_scalar": _scalar(lambda nd, x, s: nd.ones_like(x) / s),
    "_rdiv_scalar": _scalar(lambda nd, x, s: -s * nd.reciprocal(nd.square(x))),
    "_power_scalar": _scalar(lambda nd, x, s: s * x ** (s - 1)),
}
for _name in ("add", "sub", "mul", "div"):
    GRADIENTS["broadcast_" + _name] = GRADIENTS["elemwise_" + _name]


def _sum(nd, inputs, out_grads, attrs):
    x = inputs[0]
    g = out_grads[0]
    axis = attrs.get("axis")
    if axis is None:
        return [nd.broadcast_to(nd.reshape(g, shape=(1,) * len(x.shape)), shape=x.shape)]
    axes = (axis,) if isinstance(axis, int) else axis
    if attrs.get("exclude"):
        axes = tuple(a for a in range(len(x.shape)) if a not in [b % len(x.shape) for b in axes])
    kept = tuple(1 if i in [a % len(x.shape) for a in axes] else d for i, d in enumerate(x.shape))
    return [nd.broadcast_to(nd.reshape(g, shape=kept), shape=x.shape)]


def _mean(nd, inputs, out_grads, attrs):
    x = inputs[0]
    (spread,) = _sum(nd, inputs, out_grads, attrs)
    return [spread * (out_grads[0].size / x.size)]


GRADIENTS["sum"] = _sum
GRADIENTS["mean"] = _mean
GRADIENTS["reshape"] = lambda nd, inputs, out_grads, attrs: [nd.reshape(out_grads[0], shape=inputs[0].shape)]
GRADIENTS["Activation"] = lambda nd, inputs, out_grads, attrs: GRADIENTS[attrs["act_type"]](nd, inputs, out_grads, {}) \
    if attrs["act_type"] in GRADIENTS else None
