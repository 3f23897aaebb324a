"""Functions of MXNet's Python front end that are compositions of operators rather than operators:
`contrib.isnan`, `hypot`, `histogram`, `moveaxis`... Each is written once against `call(op_name)`,
which gives the namespace's function for an operator, so that `nd` and `sym` get the same logic."""
from __future__ import annotations

import numbers
from typing import Callable, Dict

_INF = float("inf")


def _is_scalar(value) -> bool:
    return isinstance(value, (int, float)) or type(value).__module__ == "numpy" and getattr(value, "ndim", 1) == 0


def shared(call: Callable[[str], Callable], eager: bool) -> Dict[str, Dict[str, Callable]]:
    """{sub-namespace ("" for the top): {name: function}} for both namespaces."""

    def isnan(data):
        return call("_not_equal")(data, data)

    def isinf(data):
        return call("_equal_scalar")(call("abs")(data), scalar=_INF)

    def isfinite(data):
        return call("_mul")(call("_equal")(data, data), call("_not_equal_scalar")(call("abs")(data), scalar=_INF))

    def hypot(x1, x2):  # MXNet 1.9.1 has it in `sym` only
        if _is_scalar(x1) and _is_scalar(x2):
            return (x1 ** 2 + x2 ** 2) ** 0.5
        if _is_scalar(x2):
            return call("_hypot_scalar")(x1, scalar=float(x2))
        if _is_scalar(x1):
            return call("_hypot_scalar")(x2, scalar=float(x1))
        return call("_hypot")(x1, x2)

    def histogram(a, bins=10, range=None):
        if isinstance(bins, int):
            if range is None:
                raise ValueError("null range is not supported in symbol mode" if not eager else
                                 "histogram with a bin count needs range=(low, high)")
            return call("_histogram")(a, bin_cnt=bins, range=range)
        return call("_histogram")(a, bins)

    def rand_zipfian(true_classes, num_sampled, range_max, ctx=None):
        """`num_sampled` classes drawn from the log-uniform distribution over [0, range_max)
        (int64), and the expected counts of the true and of the sampled classes (float64): MXNet
        1.9.1's sampler, which takes the classes in decreasing frequency."""
        import math
        log_range = math.log(range_max + 1)
        options = {"ctx": str(ctx)} if eager and ctx is not None else {}
        rand = call("_random_uniform")(low=0.0, high=log_range, shape=(num_sampled,), dtype="float64", **options)
        drawn = call("_minus_scalar")(call("exp")(rand), scalar=1.0)
        sampled = call("_mod_scalar")(call("Cast")(drawn, dtype="int64"), scalar=range_max)
        if eager and ctx is not None:
            true_classes = true_classes.as_in_context(ctx)

        def expected_count(classes):
            classes = call("Cast")(classes, dtype="float64")
            ratio = call("_div")(call("_plus_scalar")(classes, scalar=2.0), call("_plus_scalar")(classes, scalar=1.0))
            return call("_mul_scalar")(call("_div_scalar")(call("log")(ratio), scalar=log_range), scalar=num_sampled)
        return sampled, expected_count(true_classes), expected_count(sampled)

    top = {"histogram": histogram} if eager else {"histogram": histogram, "hypot": hypot}
    return {"contrib": {"isnan": isnan, "isinf": isinf, "isfinite": isfinite, "rand_zipfian": rand_zipfian}, "": top}


def eager_only(call: Callable[[str], Callable]) -> Dict[str, Callable]:
    """The NDArray helpers: those that need the input's rank (which a Symbol does not know), and
    the conversions from NumPy arrays and bytes."""

    def axes_of(given, ndim):
        """An int or any sequence of them (a range too) as distinct axes in [0, ndim); None when
        one is out of range. MXNet 1.9.1 raises ValueError("repeated axis") for one named twice."""
        axes = [given] if isinstance(given, numbers.Integral) else list(given)
        if any(not -ndim <= axis < ndim for axis in axes):
            return None
        axes = [int(axis) % ndim for axis in axes]
        if len(set(axes)) != len(axes):
            raise ValueError("repeated axis")
        return axes

    def moveaxis(tensor, source, destination):
        ndim = tensor.ndim
        # MXNet 1.9.1's messages, word for word (the missing space and the two-part one included)
        sources = axes_of(source, ndim)
        if sources is None:
            raise ValueError("Source should verify 0 <= source < tensor.ndimGot %d" % source)
        destinations = axes_of(destination, ndim)
        if destinations is None:
            raise ValueError("Destination should verify 0 <= destination < tensor.ndim (%d)." % ndim,
                             "Got %d" % destination)
        if len(sources) != len(destinations):
            raise ValueError("`source` and `destination` arguments must have the same number of elements")
        axes = [a for a in range(ndim) if a not in sources]
        for d, s in sorted(zip(destinations, sources)):
            axes.insert(d, s)
        return call("transpose")(tensor, axes=tuple(axes))

    def from_numpy(ndarray, zero_copy=True):
        """An NDArray over the NumPy array's memory (zero_copy) or over a copy of it."""
        import numpy as np
        from runtime.ndarray import NDArray
        if not ndarray.flags["C_CONTIGUOUS"]:
            raise ValueError("Only c-contiguous arrays are supported for zero-copy")
        if not zero_copy:
            return NDArray(np.array(ndarray))
        # the NDArray owns the memory from now on: writes go through it, and the NumPy array given
        # becomes read-only, as MXNet 1.9.1 leaves it (a view made first stays writable)
        if ndarray.flags.writeable:
            shared = ndarray.view()
            ndarray.flags.writeable = False
        else:  # given again, already read-only: MXNet still writes to that memory
            shared = _writable_alias(ndarray)
        return NDArray(shared)

    def load_frombuffer(buf):
        """nd.load of the bytes of a file that nd.save wrote."""
        from runtime.ndarray import NDArray
        from runtime.serialization import arrays_from_bytes
        if not isinstance(buf, (bytes, bytearray)):
            raise TypeError("buf required to be a string or bytes")
        loaded = arrays_from_bytes(buf)
        if isinstance(loaded, dict):
            return {k: NDArray(v) for k, v in loaded.items()}
        return [NDArray(v) for v in loaded]

    def reset_arrays(*data, num_arrays):
        """Zeros each array in place (Trainer.zero_grad's many gradients at once); returns no outputs."""
        from runtime.base import MXNetError
        if num_arrays != len(data):
            raise MXNetError("reset_arrays: num_arrays=%d but %d arrays given" % (num_arrays, len(data)))
        for array in data:
            array[:] = 0
        return []

    def onehot_encode(indices, out):
        return call("_onehot_encode")(indices, out, out=out)

    return {"moveaxis": moveaxis, "onehot_encode": onehot_encode, "from_numpy": from_numpy,
            "load_frombuffer": load_frombuffer, "reset_arrays": reset_arrays}


def random(call: Callable[[str], Callable], eager: bool) -> Dict[str, Callable]:
    """`random.*` of both namespaces: with number parameters a `_random_*` operator draws `shape`
    samples; with array parameters a `_sample_*` operator draws `shape` samples per element."""

    def _is_array(value) -> bool:
        return hasattr(value, "_outputs") or hasattr(value, "asnumpy")

    def _draw(scalar_op, array_op, params, shape, dtype, ctx, out, kwargs):
        options = dict(kwargs)
        if shape is not None:
            options["shape"] = shape
        if dtype is not None:
            options["dtype"] = dtype
        if out is not None:
            options["out"] = out
        if _is_array(params[0]):
            if not all(_is_array(p) for p in params[1:]):
                raise ValueError("Distribution parameters must all have the same type, but got both %s and %s."
                                 % (type(params[0]), type(next(p for p in params[1:] if not _is_array(p)))))
            return call(array_op)(*params, **options)
        if isinstance(params[0], (int, float)) or type(params[0]).__module__ == "numpy":
            if not all(isinstance(p, (int, float)) or type(p).__module__ == "numpy" for p in params[1:]):
                raise ValueError("Distribution parameters must all have the same type")
            names = _SCALAR_PARAMS[scalar_op]
            if eager and ctx is not None:
                options["ctx"] = str(ctx)
            return call(scalar_op)(**dict(zip(names, params)), **options)
        raise ValueError("Distribution parameters must be either NDArray or numbers, but got %s." % type(params[0]))

    def exponential(scale=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
        lam = call("reciprocal")(scale) if _is_array(scale) else 1.0 / scale
        return _draw("_random_exponential", "_sample_exponential", [lam], shape, dtype, ctx, out, kwargs)

    def gamma(alpha=1, beta=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
        return _draw("_random_gamma", "_sample_gamma", [alpha, beta], shape, dtype, ctx, out, kwargs)

    def poisson(lam=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
        return _draw("_random_poisson", "_sample_poisson", [lam], shape, dtype, ctx, out, kwargs)

    def negative_binomial(k=1, p=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
        return _draw("_random_negative_binomial", "_sample_negative_binomial", [k, p], shape, dtype, ctx, out, kwargs)

    def generalized_negative_binomial(mu=1, alpha=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
        return _draw("_random_generalized_negative_binomial", "_sample_generalized_negative_binomial", [mu, alpha],
                     shape, dtype, ctx, out, kwargs)

    def _like(name, defaults):
        def sample_like(data=None, *args, **kwargs):
            params = dict(zip(defaults, args))
            params.update(kwargs)
            return call("_random_%s_like" % name)(data, **params)
        sample_like.__name__ = name + "_like"
        return sample_like

    def multinomial(data, shape=None, get_prob=False, out=None, dtype="int32", **kwargs):
        options = dict(kwargs, get_prob=get_prob, dtype=dtype)
        if shape is not None:
            options["shape"] = shape
        if out is not None:
            options["out"] = out
        return call("_sample_multinomial")(data, **options)

    def shuffle(data, **kwargs):
        return call("_shuffle")(data, **kwargs)

    functions = {"exponential": exponential, "gamma": gamma, "poisson": poisson,
                 "negative_binomial": negative_binomial, "generalized_negative_binomial": generalized_negative_binomial,
                 "multinomial": multinomial, "shuffle": shuffle}
    for name, defaults in (("uniform", ("low", "high")), ("normal", ("loc", "scale")), ("gamma", ("alpha", "beta")),
                           ("exponential", ("lam",)), ("poisson", ("lam",)), ("negative_binomial", ("k", "p")),
                           ("generalized_negative_binomial", ("mu", "alpha"))):
        functions[name + "_like"] = _like(name, defaults)
    if not eager:  # the eager uniform / normal / randint are written in runtime.ndarray_namespace

        def uniform(low=0, high=1, shape=None, dtype=None, **kwargs):
            return _draw("_random_uniform", "_sample_uniform", [low, high], shape, dtype, None, None, kwargs)

        def normal(loc=0, scale=1, shape=None, dtype=None, **kwargs):
            return _draw("_random_normal", "_sample_normal", [loc, scale], shape, dtype, None, None, kwargs)

        def randint(low, high, shape=None, dtype=None, **kwargs):
            return _draw("_random_randint", None, [low, high], shape, dtype, None, None, kwargs)

        def randn(*shape, **kwargs):
            loc, scale = kwargs.pop("loc", 0), kwargs.pop("scale", 1)
            return _draw("_random_normal", "_sample_normal", [loc, scale], shape, kwargs.pop("dtype", None), None,
                         None, kwargs)

        functions.update(uniform=uniform, normal=normal, randint=randint, randn=randn)
    return functions


_SCALAR_PARAMS = {"_random_uniform": ("low", "high"), "_random_normal": ("loc", "scale"),
                  "_random_exponential": ("lam",), "_random_gamma": ("alpha", "beta"), "_random_poisson": ("lam",),
                  "_random_negative_binomial": ("k", "p"), "_random_randint": ("low", "high"),
                  "_random_generalized_negative_binomial": ("mu", "alpha")}


def _writable_alias(array):
    """A writable NumPy array over the memory of a read-only C-contiguous one (NumPy gives no
    writable view of it); the alias holds the array, so the memory lives as long as either."""
    import ctypes
    import numpy as np
    if array.nbytes == 0:
        return np.empty(array.shape, array.dtype)
    memory = (ctypes.c_char * array.nbytes).from_address(array.ctypes.data)
    memory.owner = array
    return np.frombuffer(memory, dtype=array.dtype).reshape(array.shape)
