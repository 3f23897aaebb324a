"""Elementwise operators: unary math, activations, binary (same shape / broadcast / scalar)."""
from __future__ import annotations

import numpy as np

from runtime.kernels import elementwise as k
from runtime.registry import Attr, bool_, choice, declare, dtype_, float_, int_, same_shape
from runtime.util import is_np_shape

_UNARY = {
    "relu": k.relu, "sigmoid": k.sigmoid, "tanh": np.tanh, "exp": np.exp, "abs": np.abs, "square": np.square,
    "negative": np.negative, "floor": np.floor, "ceil": np.ceil, "round": k.round_half_away, "rint": np.rint,
    "sign": np.sign, "softsign": k.softsign, "sin": np.sin, "cos": np.cos, "tan": np.tan, "arcsin": np.arcsin,
    "arccos": np.arccos, "arctan": np.arctan, "arcsinh": np.arcsinh, "arccosh": np.arccosh,
    "arctanh": np.arctanh, "sinh": np.sinh, "cosh": np.cosh, "erf": k.erf,
    "erfinv": k.erfinv, "reciprocal": k.reciprocal, "log1p": np.log1p, "expm1": np.expm1, "trunc": np.trunc,
    "fix": np.trunc, "log": np.log, "sqrt": np.sqrt, "rsqrt": k.rsqrt, "cbrt": np.cbrt, "log2": np.log2,
    "log10": np.log10, "gamma": k.gamma, "gammaln": k.gammaln, "zeros_like": k.zeros_like,
    "ones_like": k.ones_like, "logical_not": lambda x: (x == 0).astype(x.dtype),
}


# float32 transcendental functions as MXNet 1.9.1's CPU kernels give them, the C library's (correctly
# rounded for nearly every input): NumPy's float32 loops are vectorized approximations that differ
# in the last bit on 15-45% of inputs; computed in float64 and rounded once, 93-99.9% agree
# (tests/data/unary_rounding_cases.json, recorded from MXNet 1.9.1)
_ROUNDED_FROM_DOUBLE = ("exp", "expm1", "log", "log2", "log10", "sin", "cos", "tan", "tanh", "arctan", "cosh",
                        "cbrt")


def _rounded_from_double(ufunc):
    def kernel(x):
        if x.dtype == np.float32:
            return ufunc(x.astype(np.float64)).astype(np.float32)
        return ufunc(x)
    kernel.__name__ = ufunc.__name__
    return kernel


for _name in _ROUNDED_FROM_DOUBLE:
    _UNARY[_name] = _rounded_from_double(_UNARY[_name])


def _keep_dtype(function):
    def kernel(x):
        out = function(x)
        return out.astype(x.dtype, copy=False) if isinstance(out, np.ndarray) else np.asarray(out, x.dtype)
    kernel.__name__ = getattr(function, "__name__", "kernel")
    return kernel


_same_shape = same_shape


for _name, _fn in _UNARY.items():
    # NumPy's own ufuncs keep a float32 input float32: only the other functions need the cast
    declare(_name, kernel=_fn if isinstance(_fn, np.ufunc) or _fn is k.relu else _keep_dtype(_fn),
            infer=_same_shape)

declare("identity", kernel=k.identity, aliases=("_copy",), infer=_same_shape)
declare("stop_gradient", kernel=k.identity, aliases=("BlockGrad",), infer=_same_shape)
declare("Activation", attrs=[Attr("act_type", choice("relu", "sigmoid", "tanh", "softrelu", "softsign"),
                                  required=True)], kernel=k.activation, infer=_same_shape, unnamed_inputs=True)


def _leaky_shapes(in_shapes, attrs):
    if attrs["act_type"] == "prelu" and len(in_shapes) > 1:
        data, gamma = in_shapes[0], in_shapes[1]
        channels = data[1] if len(data) > 1 else 1
        if gamma is None:
            in_shapes[1] = (channels,)
        elif k.prelu_gamma_shape(tuple(gamma), tuple(data)) is None:
            raise ValueError("Cannot broadcast gamma to data. gamma: [%s], data: [%s]"
                             % (",".join(map(str, gamma)), ",".join(map(str, data))))
    return in_shapes, [in_shapes[0]]


def _leaky_kernel(data, gamma=None, **attrs):
    return k.leaky_relu(data, gamma, **attrs)


_LEAKY = declare("LeakyReLU", inputs=("data", "gamma"), attrs=[
    Attr("act_type", choice("leaky", "elu", "selu", "gelu", "prelu", "rrelu"), "leaky"),
    Attr("slope", float_, 0.25), Attr("lower_bound", float_, 0.125), Attr("upper_bound", float_, 0.334)],
    kernel=_leaky_kernel, infer=_leaky_shapes, input_inits={"gamma": '["Constant", {"value": 0.25}]'})
_LEAKY.input_names = lambda attrs: ["data", "gamma"] if attrs.get("act_type") == "prelu" else ["data"]

declare("clip", attrs=[Attr("a_min", float_, required=True), Attr("a_max", float_, required=True)],
        kernel=k.clip, infer=_same_shape)
declare("cast", attrs=[Attr("dtype", dtype_, required=True)], kernel=k.cast, aliases=("Cast",), infer=_same_shape)
declare("amp_cast", attrs=[Attr("dtype", dtype_, required=True)], kernel=k.amp_cast, infer=_same_shape,
        types=lambda d, a, n: (d, [a["dtype"] if d[0] in ("float16", "float32") else d[0]]))


def _multicast_shapes(in_shapes, attrs):
    if len(in_shapes) != attrs["num_outputs"]:
        raise ValueError("Operator amp_multicast expects %d inputs, but got %d instead."
                         % (attrs["num_outputs"], len(in_shapes)))
    return in_shapes, list(in_shapes)


def _multicast_types(in_dtypes, attrs, names):
    if any(d is None for d in in_dtypes):
        return in_dtypes, [None] * len(in_dtypes)
    dtype = k.amp_multicast_dtype(in_dtypes, attrs["cast_narrow"])
    return in_dtypes, [dtype if d in ("float16", "float32") else d for d in in_dtypes]


# GluonCV's box decoder casts its two inputs with this before contrib.box_decode
declare("amp_multicast", inputs=("*data",), attrs=[Attr("num_outputs", int_, required=True),
                                                   Attr("cast_narrow", bool_, False)],
        kernel=k.amp_multicast, infer=_multicast_shapes, types=_multicast_types,
        num_outputs=lambda a: a["num_outputs"], exact_dtypes=True)
declare("smooth_l1", attrs=[Attr("scalar", float_, 1.0)], kernel=k.smooth_l1, infer=_same_shape)


# ---- binary
def _broadcast_shapes(in_shapes, attrs):
    if in_shapes[0] == in_shapes[1]:
        return in_shapes, [in_shapes[0]]
    try:
        return in_shapes, [tuple(np.broadcast_shapes(in_shapes[0], in_shapes[1]))]
    except ValueError:
        raise ValueError("operands could not be broadcast together with shapes [%s] [%s]"
                         % tuple(",".join(map(str, s)) for s in in_shapes)) from None


def _equal_shapes(in_shapes, attrs):
    a, b = in_shapes
    if a is None or b is None:
        known = a if a is not None else b
        return [known, known], [known]
    if a != b:
        merged = _merged(a, b)
        if merged is None:
            raise ValueError("Incompatible attr at 1-th input: expected [%s], got [%s]"
                             % (",".join(map(str, a)), ",".join(map(str, b))))
        return [merged, merged], [merged]
    return in_shapes, [a]


def _merged(a, b):
    """Two partial shapes as one: an unknown size (0, or -1 under np_shape()) takes the other's;
    None where they disagree."""
    unknown = -1 if is_np_shape() else 0
    if len(a) != len(b):
        return None
    merged = []
    for x, y in zip(a, b):
        if x != y and unknown not in (x, y):
            return None
        merged.append(y if x == unknown else x)
    return tuple(merged)


_BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide, "mod": np.mod,
           "power": np.power, "maximum": np.maximum, "minimum": np.minimum, "hypot": np.hypot,
           "equal": np.equal, "not_equal": np.not_equal, "greater": np.greater,
           "greater_equal": np.greater_equal, "lesser": np.less, "lesser_equal": np.less_equal,
           "logical_and": lambda a, b: (a != 0) & (b != 0), "logical_or": lambda a, b: (a != 0) | (b != 0),
           "logical_xor": lambda a, b: (a != 0) ^ (b != 0)}
# MXNet's names for the operators behind Python's arithmetic on Symbols (no broadcasting)
_SYMBOL_ALIASES = {"add": ("_add", "_plus", "_Plus"), "sub": ("_sub", "_minus", "_Minus"),
                   "mul": ("_mul", "_Mul"), "div": ("_div", "_Div")}

for _name in ("add", "sub", "mul", "div"):
    declare("elemwise_" + _name, inputs=("lhs", "rhs"), kernel=k.same_shape(_BINARY[_name]),
            aliases=_SYMBOL_ALIASES[_name], infer=_equal_shapes, kernel_checks_shapes=True)
for _name in ("mod", "power", "maximum", "minimum", "equal", "not_equal", "greater", "greater_equal", "lesser",
              "lesser_equal", "hypot", "logical_and", "logical_or", "logical_xor"):
    aliases = ("_" + _name, "_" + "".join(p.capitalize() for p in _name.split("_")))
    declare(aliases[0], inputs=("lhs", "rhs"), kernel=k.same_shape(_BINARY[_name]), aliases=aliases[1:],
            infer=_equal_shapes, kernel_checks_shapes=True)
for _name, _fn in _BINARY.items():
    aliases = {"add": ("broadcast_plus",), "sub": ("broadcast_minus",)}.get(_name, ())
    declare("broadcast_" + _name, inputs=("lhs", "rhs"), kernel=k.broadcasting(_fn), aliases=aliases,
            infer=_broadcast_shapes, kernel_checks_shapes=True)

_SCALAR = {"plus": (np.add, False), "minus": (np.subtract, False), "rminus": (np.subtract, True),
           "mul": (np.multiply, False), "div": (np.true_divide, False), "rdiv": (np.true_divide, True),
           "mod": (np.mod, False), "rmod": (np.mod, True), "power": (np.power, False),
           "rpower": (np.power, True), "maximum": (np.maximum, False), "minimum": (np.minimum, False),
           "equal": (np.equal, False), "not_equal": (np.not_equal, False), "greater": (np.greater, False),
           "greater_equal": (np.greater_equal, False), "lesser": (np.less, False),
           "lesser_equal": (np.less_equal, False), "hypot": (np.hypot, False),
           "logical_and": (_BINARY["logical_and"], False), "logical_or": (_BINARY["logical_or"], False),
           "logical_xor": (_BINARY["logical_xor"], False)}
def _camel(name: str) -> str:
    """MXNet's symbol-level names: rminus -> RMinus, not_equal -> NotEqual."""
    if name.startswith("r") and name[1:] in ("minus", "div", "mod", "power"):
        return "R" + name[1:].capitalize()
    return "".join(p.capitalize() for p in name.split("_"))


for _name, (_fn, _reverse) in _SCALAR.items():
    camel = _camel(_name)
    declare("_%s_scalar" % _name, attrs=[Attr("scalar", float_, required=True), Attr("is_int", bool_, True)],
            kernel=(lambda apply: lambda data, scalar, is_int=True: apply(data, scalar))(k.with_scalar(_fn, _reverse)),
            aliases=("_%sScalar" % camel,), infer=_same_shape)

def _all_equal_shapes(in_shapes, attrs):
    known = next((s for s in in_shapes if s is not None), None)
    for i, shape in enumerate(in_shapes):
        if shape is None:
            in_shapes[i] = known
        elif known is not None and tuple(shape) != tuple(known):
            raise ValueError("Incompatible attr at %d-th input: expected [%s], got [%s]"
                             % (i, ",".join(map(str, known)), ",".join(map(str, shape))))
    return in_shapes, [known]


declare("add_n", inputs=("*data",), kernel=lambda *a, num_args=None: k.add_n(*a), aliases=("ElementWiseSum",),
        infer=_all_equal_shapes)
