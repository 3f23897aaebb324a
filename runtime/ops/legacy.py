"""MXNet's older operator names that tests and old code still call: the `_random_*` / `_sample_*`
samplers (also `uniform`, `random_uniform`, `sample_normal`...), and `_shuffle`."""
from __future__ import annotations

from runtime.kernels import sampling as k
from runtime.registry import Attr, bool_, declare, dtype_, float_, int_, optional, shape_, str_


def _sampler_shapes(in_shapes, attrs):
    return in_shapes, [tuple(attrs["shape"]) or (1,)]


def _per_element_shapes(in_shapes, attrs):
    return in_shapes, [tuple(in_shapes[0]) + tuple(attrs["shape"])]


def _sampler_types(in_dtypes, attrs, names):
    return in_dtypes, attrs.get("dtype") or "float32"


_CREATE = [Attr("shape", shape_, ()), Attr("ctx", str_, ""), Attr("dtype", optional(dtype_), None)]
_SAMPLERS = {
    "uniform": ([Attr("low", float_, 0.0), Attr("high", float_, 1.0)], k.random_uniform),
    "normal": ([Attr("loc", float_, 0.0), Attr("scale", float_, 1.0)], k.random_normal),
    "exponential": ([Attr("lam", float_, 1.0)], k.random_exponential),
    "gamma": ([Attr("alpha", float_, 1.0), Attr("beta", float_, 1.0)], k.random_gamma),
    "poisson": ([Attr("lam", float_, 1.0)], k.random_poisson),
    "negative_binomial": ([Attr("k", int_, 1), Attr("p", float_, 1.0)], k.random_negative_binomial),
    "generalized_negative_binomial": ([Attr("mu", float_, 1.0), Attr("alpha", float_, 1.0)],
                                      k.random_generalized_negative_binomial),
    "randint": ([Attr("low", int_, required=True), Attr("high", int_, required=True)], k.random_randint),
}
for _name, (_attrs, _kernel) in _SAMPLERS.items():
    declare("_random_" + _name, inputs=(), attrs=_attrs + _CREATE, kernel=_kernel, no_inputs=True,
            infer=_sampler_shapes, types=_sampler_types,
            aliases=("random_" + _name,) + ((_name,) if _name in ("uniform", "normal") else ()))

_PER_ELEMENT = {
    "uniform": (("low", "high"), k.sample_uniform),
    "normal": (("mu", "sigma"), k.sample_normal),
    "exponential": (("lam",), k.sample_exponential),
    "gamma": (("alpha", "beta"), k.sample_gamma),
    "poisson": (("lam",), k.sample_poisson),
}
for _name, (_inputs, _kernel) in _PER_ELEMENT.items():
    declare("_sample_" + _name, inputs=_inputs, attrs=[Attr("shape", shape_, ()), Attr("dtype", optional(dtype_), None)],
            kernel=_kernel, infer=_per_element_shapes, aliases=("sample_" + _name,))

declare("_sample_negative_binomial", inputs=("k", "p"), attrs=[Attr("shape", shape_, ()),
                                                                Attr("dtype", optional(dtype_), None)],
        kernel=k.sample_negative_binomial, infer=_per_element_shapes, aliases=("sample_negative_binomial",))
declare("_sample_generalized_negative_binomial", inputs=("mu", "alpha"),
        attrs=[Attr("shape", shape_, ()), Attr("dtype", optional(dtype_), None)],
        kernel=k.sample_generalized_negative_binomial, infer=_per_element_shapes,
        aliases=("sample_generalized_negative_binomial",))

# `_random_normal_like`...: samples in the data's shape and dtype (the data's values unread)
for _name, (_attrs, _kernel) in _SAMPLERS.items():
    if _name != "randint":
        declare("_random_%s_like" % _name, attrs=_attrs, kernel=k.like(_kernel))


def _multinomial_shapes(in_shapes, attrs):
    out = (tuple(in_shapes[0][:-1]) + tuple(attrs["shape"])) or (1,)  # one draw from one row: shape (1,)
    return in_shapes, [out, out] if attrs["get_prob"] else [out]


def _multinomial_types(in_dtypes, attrs, names):
    return in_dtypes, [attrs["dtype"], in_dtypes[0]] if attrs["get_prob"] else [attrs["dtype"]]


declare("_sample_multinomial", attrs=[Attr("shape", shape_, ()), Attr("get_prob", bool_, False),
                                      Attr("dtype", dtype_, "int32")],
        kernel=k.sample_multinomial, infer=_multinomial_shapes, types=_multinomial_types,
        num_outputs=lambda a: 2 if a["get_prob"] else 1, aliases=("sample_multinomial",))
declare("_shuffle", kernel=k.shuffle, aliases=("shuffle",))


def _unique_zipfian_shapes(in_shapes, attrs):
    shape = tuple(attrs["shape"])
    if len(shape) != 2:
        raise ValueError("Check failed: param.shape.ndim() == 2U (%d vs. 2) " % len(shape))
    return in_shapes, [shape, (shape[0],)]


declare("_sample_unique_zipfian", inputs=(), attrs=[Attr("range_max", int_, required=True), Attr("shape", shape_, ())],
        kernel=k.sample_unique_zipfian, no_inputs=True, infer=_unique_zipfian_shapes,
        types=lambda in_dtypes, attrs, names: (in_dtypes, ["int64", "int64"]), num_outputs=2)
