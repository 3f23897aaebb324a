"""Elementwise kernels over NumPy arrays (MXNet's rounding and activation conventions)."""
from __future__ import annotations

import numba
import numpy as np
from scipy import special


def _same(x, y):
    return y.astype(x.dtype, copy=False)


def relu(x):
    return np.maximum(x, x.dtype.type(0))


@numba.njit(cache=True, nogil=True)
def _relu_grad(x, g, out):
    one, zero = g.dtype.type(1), g.dtype.type(0)
    for k in range(x.shape[0]):
        out[k] = g[k] * (one if x[k] > 0 else zero)


def relu_grad(x, g):
    """g * (x > 0) in x's dtype, as Activation's relu gradient: a product, so that a NaN or
    infinite head gradient where x <= 0 gives NaN as in MXNet. One pass for arrays of one float
    type (numpy makes the mask, then multiplies: twice the time at LeNet's shapes)."""
    if x.dtype == g.dtype and x.dtype.char in "fd" and x.shape == g.shape:
        out = np.empty(x.shape, x.dtype)
        _relu_grad(x.reshape(-1), g.reshape(-1), out.reshape(-1))
        return out
    return (g * (x > 0)).astype(x.dtype, copy=False)


def sigmoid(x):
    return _same(x, special.expit(x))


def softsign(x):
    return _same(x, x / (1 + np.abs(x)))


def softrelu(x):
    return _same(x, np.logaddexp(0, x))


def round_half_away(x):
    return _same(x, np.sign(x) * np.floor(np.abs(x) + 0.5))


def rsqrt(x):
    return _same(x, 1.0 / np.sqrt(x))


def erf(x):
    return _same(x, special.erf(x))


def erfinv(x):
    return _same(x, special.erfinv(x))


def gamma(x):
    return _same(x, special.gamma(x))


def gammaln(x):
    return _same(x, special.gammaln(x))


def reciprocal(x):
    return _same(x, 1.0 / x)


def identity(x):
    return x.copy()


def zeros_like(x):
    return np.zeros_like(x)


def ones_like(x):
    return np.ones_like(x)


def activation(x, act_type):
    if act_type == "relu":  # MXNet's Activation keeps what is above 0: NaN gives 0 (its `relu` keeps NaN)
        return np.where(x > 0, x, x.dtype.type(0))
    if act_type == "sigmoid":
        return sigmoid(x)
    if act_type == "tanh":
        return np.tanh(x)
    if act_type == "softrelu":
        return softrelu(x)
    if act_type == "softsign":
        return softsign(x)
    raise ValueError("unknown act_type %s" % act_type)


def prelu_gamma_shape(gamma_shape, data_shape):
    """The shape gamma broadcasts as against the data: MXNet matches gamma's axes, from its last,
    against the data's axes 1 and 0 only (equal sizes or 1); every other data axis gets 1.
    None where gamma cannot be placed that way."""
    result = [1] * len(data_shape)
    s = len(gamma_shape) - 1
    for i in range(len(data_shape) - 1, -1, -1):
        if s >= 0 and i <= 1 and gamma_shape[s] in (data_shape[i], 1):
            result[i] = gamma_shape[s]
            s -= 1
    return tuple(result) if s == -1 else None


def leaky_relu(x, gamma=None, act_type="leaky", slope=0.25, lower_bound=0.125, upper_bound=0.334):
    if act_type == "leaky":
        return _same(x, np.where(x > 0, x, x * slope))
    if act_type == "elu":
        return _same(x, np.where(x > 0, x, slope * np.expm1(np.minimum(x, 0))))
    if act_type == "selu":
        alpha, scale = 1.6732632423543772, 1.0507009873554805
        return _same(x, scale * np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0))))
    if act_type == "gelu":
        return _same(x, 0.5 * x * (1 + special.erf(x / np.sqrt(2))))
    if act_type == "prelu":
        if gamma is None:
            raise ValueError("prelu needs the gamma input")
        return _same(x, np.where(x > 0, x, x * gamma.reshape(prelu_gamma_shape(gamma.shape, x.shape))))
    if act_type == "rrelu":
        return _same(x, np.where(x > 0, x, x * (lower_bound + upper_bound) / 2))
    raise ValueError("unknown act_type %s" % act_type)


def clip(x, a_min, a_max):
    if a_min > a_max:  # MXNet tests the upper bound first: values above it take it, the rest at least a_min
        return _same(x, np.where(x > a_max, a_max, np.where(x < a_min, a_min, x)))
    return _same(x, np.clip(x, a_min, a_max))


def cast(x, dtype):
    return x.astype(dtype)


def amp_cast(x, dtype):
    """AMP's cast: float16 and float32 data take `dtype`, any other passes as it is."""
    return x.astype(dtype) if x.dtype in (np.float16, np.float32) else x.copy()


def amp_multicast_dtype(dtypes, cast_narrow=False):
    """The type AMP's multicast gives its float16/float32 inputs, as MXNet decides it: float32 if
    any input is float32, else the first input's type (with `cast_narrow`: float16 if any input is
    float16, else float32)."""
    names = [np.dtype(d).name for d in dtypes]
    if cast_narrow:
        return "float16" if "float16" in names else "float32"
    return "float32" if "float32" in names else names[0]


def amp_multicast(*data, num_outputs=None, cast_narrow=False, num_args=None):
    """AMP's multicast: the float16 and float32 inputs take one type, any other passes as it is."""
    target = amp_multicast_dtype([x.dtype for x in data], cast_narrow)
    return tuple(x.astype(target) if x.dtype in (np.float16, np.float32) else x.copy() for x in data)


def smooth_l1(x, scalar=1.0):
    sigma2 = scalar * scalar
    return _same(x, np.where(np.abs(x) < 1.0 / sigma2, 0.5 * sigma2 * x * x, np.abs(x) - 0.5 / sigma2))


def same_shape(op):
    """elemwise_*: operands must have equal shapes (no broadcasting)."""
    def kernel(a, b):
        if a.shape != b.shape:
            raise ValueError("Incompatible attr at 1-th input: expected %s, got %s"
                             % (_shape_text(a.shape), _shape_text(b.shape)))
        return op(a, b).astype(a.dtype, copy=False)
    return kernel


def _shape_text(shape) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


def broadcasting(op, bool_result=False):
    def kernel(a, b):
        try:
            np.broadcast_shapes(a.shape, b.shape)
        except ValueError:
            raise ValueError("operands could not be broadcast together with shapes %s %s"
                             % (_shape_text(a.shape), _shape_text(b.shape))) from None
        out = op(a, b)
        return out.astype(a.dtype, copy=False)
    return kernel


def with_scalar(op, reverse=False):
    def kernel(x, scalar):
        s = np.asarray(scalar, dtype=x.dtype)
        out = op(s, x) if reverse else op(x, s)
        return np.asarray(out).astype(x.dtype, copy=False)
    return kernel


def mod(a, b):
    return np.fmod(a, b) + np.where((np.fmod(a, b) != 0) & ((np.fmod(a, b) < 0) != (b < 0)), b, 0)


def add_n(*arrays):
    out = arrays[0].copy()
    for a in arrays[1:]:
        out = out + a
    return out
