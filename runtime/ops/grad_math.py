"""Gradients (vector-Jacobian products) of the elementwise operators of runtime/ops/math.py.

Each gradient is `gradient(inputs, outputs, out_grads, **attrs)` over NumPy arrays and returns one
array (or None) per input; see `runtime.registry.OpDef.gradient`.
"""
from __future__ import annotations

import math

import numpy as np
from scipy import special

from runtime.kernels.elementwise import prelu_gamma_shape, relu_grad
from runtime.registry import REGISTRY, gradient_of


def reduce_to(grad: np.ndarray, shape) -> np.ndarray:
    """A gradient of a broadcast result summed back onto the shape of the operand."""
    shape = tuple(shape)
    if grad.shape == shape:
        return grad
    extra = grad.ndim - len(shape)
    if extra:
        grad = grad.sum(axis=tuple(range(extra)))
    axes = tuple(i for i, (g, s) in enumerate(zip(grad.shape, shape)) if s == 1 and g != 1)
    if axes:
        grad = grad.sum(axis=axes, keepdims=True)
    return grad.reshape(shape)


def _digamma(x):
    """psi(x), +inf at 0 and the negative integers as in MXNet 1.9.1 (SciPy gives -inf or nan there)."""
    return np.where((x <= 0) & (x == np.floor(x)), np.inf, special.digamma(x))


def zero_gradient(inputs, outputs, out_grads, **attrs):
    """Operators whose outputs are piecewise constant in their inputs: MXNet gives zeros."""
    return [np.zeros_like(x) for x in inputs]


# MXNet's zero-gradient nodes never read the output's gradient, so backward never copies a head
# gradient given for such an output (nor checks its shape)
zero_gradient.reads_out_grads = False


def _unary(derivative):
    """The gradient of y = f(x) from f'(x, y): out_grad * f'(x, y)."""
    def gradient(inputs, outputs, out_grads, **attrs):
        x, y, g = inputs[0], outputs[0], out_grads[0]
        return [(g * derivative(x, y)).astype(x.dtype, copy=False)]
    return gradient


_LN2, _LN10 = math.log(2.0), math.log(10.0)
_UNARY_DERIVATIVES = {
    # MXNet 1.9.1's relu passes a NaN input's NaN back (Activation's relu below gives 0 there)
    "relu": lambda x, y: np.where(np.isnan(x), x, x > 0),
    "sigmoid": lambda x, y: y * (1 - y),
    "tanh": lambda x, y: 1 - y * y,
    "exp": lambda x, y: y,
    "abs": lambda x, y: np.sign(x),
    "square": lambda x, y: 2 * x,
    "negative": lambda x, y: -1,
    "softsign": lambda x, y: 1 / np.square(1 + np.abs(x)),
    "sin": lambda x, y: np.cos(x),
    "cos": lambda x, y: -np.sin(x),
    "tan": lambda x, y: 1 + y * y,
    "arcsin": lambda x, y: 1 / np.sqrt(1 - x * x),
    "arccos": lambda x, y: -1 / np.sqrt(1 - x * x),
    "arctan": lambda x, y: 1 / (1 + x * x),
    "arcsinh": lambda x, y: 1 / np.sqrt(x * x + 1),
    "arccosh": lambda x, y: 1 / np.sqrt(x * x - 1),
    "arctanh": lambda x, y: 1 / (1 - x * x),
    "sinh": lambda x, y: np.cosh(x),
    "cosh": lambda x, y: np.sinh(x),
    "erf": lambda x, y: 2 / math.sqrt(math.pi) * np.exp(-x * x),
    "erfinv": lambda x, y: math.sqrt(math.pi) / 2 * np.exp(y * y),
    "reciprocal": lambda x, y: -1 / (x * x),
    "log1p": lambda x, y: 1 / (1 + x),
    "expm1": lambda x, y: y + 1,
    "log": lambda x, y: 1 / x,
    "log2": lambda x, y: 1 / (x * _LN2),
    "log10": lambda x, y: 1 / (x * _LN10),
    "sqrt": lambda x, y: 0.5 / y,
    "rsqrt": lambda x, y: -0.5 * y / x,
    "cbrt": lambda x, y: 1 / (3 * y * y),
    "gamma": lambda x, y: y * _digamma(x),
    "gammaln": lambda x, y: _digamma(x),
    "identity": lambda x, y: 1,
}
for _name, _derivative in _UNARY_DERIVATIVES.items():
    gradient_of(_name)(_unary(_derivative))
# rounding, sign and the constant fills are flat almost everywhere
gradient_of("floor", "ceil", "round", "rint", "sign", "trunc", "fix", "zeros_like", "ones_like",
            "logical_not")(zero_gradient)
gradient_of("stop_gradient")(zero_gradient)  # BlockGrad: the gradient stops here

_ACTIVATIONS = {
    "relu": lambda x, y: x > 0, "sigmoid": _UNARY_DERIVATIVES["sigmoid"],
    "tanh": _UNARY_DERIVATIVES["tanh"], "softsign": _UNARY_DERIVATIVES["softsign"],
    "softrelu": lambda x, y: -np.expm1(-y),  # d/dx log(1 + e^x) = sigmoid(x) = 1 - e^-y
}


@gradient_of("Activation")
def _activation(inputs, outputs, out_grads, act_type):
    if act_type == "relu":
        return [relu_grad(inputs[0], out_grads[0])]
    return _unary(_ACTIVATIONS[act_type])(inputs, outputs, out_grads)


_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772, 1.0507009873554805


@gradient_of("LeakyReLU")
def _leaky_relu(inputs, outputs, out_grads, act_type, slope, lower_bound, upper_bound):
    x, y, g = inputs[0], outputs[0], out_grads[0]
    positive = x > 0
    if act_type == "leaky":
        local = np.where(positive, 1, slope)
    elif act_type == "elu":
        local = np.where(positive, 1, y + slope)
    elif act_type == "selu":
        # MXNet's selu gradient is scale * (y + alpha) left of zero, y being the scaled output
        local = np.where(positive, _SELU_SCALE, _SELU_SCALE * (y + _SELU_ALPHA))
    elif act_type == "gelu":
        local = 0.5 * (1 + special.erf(x / math.sqrt(2))) + x * np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)
    elif act_type == "rrelu":
        # outside training, MXNet's rrelu is leaky with the middle of the slope range
        local = np.where(positive, 1, (lower_bound + upper_bound) / 2)
    else:  # prelu: gamma over the data's axes 0 and 1 (per channel, per sample and channel, or one value)
        gamma = inputs[1]
        gamma_b = gamma.reshape(prelu_gamma_shape(gamma.shape, x.shape))
        dx = g * np.where(positive, 1, gamma_b)
        dgamma = reduce_to(g * np.where(positive, 0, x), gamma_b.shape)
        return [dx.astype(x.dtype, copy=False), dgamma.reshape(gamma.shape).astype(gamma.dtype, copy=False)]
    return [(g * local).astype(x.dtype, copy=False)] + [None] * (len(inputs) - 1)


@gradient_of("clip")
def _clip(inputs, outputs, out_grads, a_min, a_max):
    x = inputs[0]
    return [(out_grads[0] * ((x >= a_min) & (x <= a_max))).astype(x.dtype, copy=False)]


@gradient_of("cast", "amp_cast")
def _cast(inputs, outputs, out_grads, dtype):
    return [out_grads[0].astype(inputs[0].dtype)]


@gradient_of("amp_multicast")
def _amp_multicast(inputs, outputs, out_grads, **attrs):
    return [g.astype(x.dtype) for x, g in zip(inputs, out_grads)]  # each gradient cast back, as MXNet's


@gradient_of("smooth_l1")
def _smooth_l1(inputs, outputs, out_grads, scalar):
    x = inputs[0]
    sigma2 = scalar * scalar
    local = np.where(np.abs(x) < 1 / sigma2, sigma2 * x, np.sign(x))
    return [(out_grads[0] * local).astype(x.dtype, copy=False)]


def _floating(x, derivative):
    """MXNet's derivatives of the modulo are 0 for integer operands (its mod_grad and mod_rgrad
    are defined for floating point types only)."""
    if x.dtype.kind not in "fc":
        return 0
    return derivative() if callable(derivative) else derivative


# ---- binary: d/da and d/db from (a, b, y)
_BINARY_DERIVATIVES = {
    "add": (lambda a, b, y: 1, lambda a, b, y: 1),
    "sub": (lambda a, b, y: 1, lambda a, b, y: -1),
    "mul": (lambda a, b, y: b, lambda a, b, y: a),
    "div": (lambda a, b, y: 1 / b, lambda a, b, y: -a / (b * b)),
    "mod": (lambda a, b, y: _floating(a, 1), lambda a, b, y: _floating(a, lambda: -np.floor(a / b))),
    "power": (lambda a, b, y: b * np.power(a, b - 1), lambda a, b, y: y * np.log(a)),
    "maximum": (lambda a, b, y: a >= b, lambda a, b, y: a < b),
    "minimum": (lambda a, b, y: a <= b, lambda a, b, y: a > b),
    "hypot": (lambda a, b, y: a / y, lambda a, b, y: b / y),
}
_FLAT_BINARY = ("equal", "not_equal", "greater", "greater_equal", "lesser", "lesser_equal", "logical_and",
                "logical_or", "logical_xor")


def _binary(derivatives):
    left, right = derivatives

    def gradient(inputs, outputs, out_grads, **attrs):
        a, b = inputs
        y, g = outputs[0], out_grads[0]
        with np.errstate(divide="ignore", invalid="ignore"):
            da = reduce_to(g * left(a, b, y), a.shape)
            db = reduce_to(g * right(a, b, y), b.shape)
        return [da.astype(a.dtype, copy=False), db.astype(b.dtype, copy=False)]
    return gradient


for _name, _derivatives in _BINARY_DERIVATIVES.items():
    _names = ["broadcast_" + _name]
    if _name in ("add", "sub", "mul", "div"):
        _names.append("elemwise_" + _name)
    elif "_" + _name in REGISTRY:
        _names.append("_" + _name)
    gradient_of(*_names)(_binary(_derivatives))
for _name in _FLAT_BINARY:
    gradient_of("broadcast_" + _name, "_" + _name)(zero_gradient)

# ---- with a scalar: d/dx from (x, s, y)
_SCALAR_DERIVATIVES = {
    "plus": lambda x, s, y: 1, "minus": lambda x, s, y: 1, "rminus": lambda x, s, y: -1,
    "mul": lambda x, s, y: s, "div": lambda x, s, y: 1 / s, "rdiv": lambda x, s, y: -y / x,
    "mod": lambda x, s, y: _floating(x, 1), "rmod": lambda x, s, y: _floating(x, lambda: -np.floor(s / x)),
    "power": lambda x, s, y: s * np.power(x, s - 1), "rpower": lambda x, s, y: y * math.log(s),
    "maximum": lambda x, s, y: x >= s, "minimum": lambda x, s, y: x <= s,
    "hypot": lambda x, s, y: x / y,
}


def _scalar(derivative):
    def gradient(inputs, outputs, out_grads, scalar, is_int=True):
        x = inputs[0]
        with np.errstate(divide="ignore", invalid="ignore"):
            return [(out_grads[0] * derivative(x, scalar, outputs[0])).astype(x.dtype, copy=False)]
    return gradient


for _name, _derivative in _SCALAR_DERIVATIVES.items():
    gradient_of("_%s_scalar" % _name)(_scalar(_derivative))
gradient_of(*("_%s_scalar" % n for n in ("equal", "not_equal", "greater", "greater_equal", "lesser",
                                         "lesser_equal", "logical_and", "logical_or", "logical_xor")))(zero_gradient)


@gradient_of("add_n")
def _add_n(inputs, outputs, out_grads, num_args=None):
    return [out_grads[0].astype(x.dtype, copy=False) for x in inputs]
