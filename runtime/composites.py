"""Functions of MXNet's Python front end that are compositions of operators rather than operators:
`contrib.isnan`, `hypot`, `histogram`, `moveaxis`... Each is written once against `call(op_name)`,
which gives the namespace's function for an operator, so that `nd` and `sym` get the same logic."""
from __future__ import annotations

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

    top = {"histogram": histogram} if eager else {"histogram": histogram, "hypot": hypot}
    return {"contrib": {"isnan": isnan, "isinf": isinf, "isfinite": isfinite}, "": top}


def eager_only(call: Callable[[str], Callable]) -> Dict[str, Callable]:
    """The NDArray helpers: those that need the input's rank (which a Symbol does not know), and
    the conversions from NumPy arrays and bytes."""

    def moveaxis(tensor, source, destination):
        ndim = tensor.ndim
        sources = [s % ndim for s in (source if isinstance(source, (list, tuple)) else [source])]
        destinations = [d % ndim for d in (destination if isinstance(destination, (list, tuple)) else [destination])]
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
        return NDArray(ndarray if zero_copy else np.array(ndarray))

    def load_frombuffer(buf):
        """nd.load of the bytes of a file that nd.save wrote."""
        import os
        import tempfile
        from runtime.ndarray import load
        if not isinstance(buf, (bytes, bytearray)):
            raise TypeError("buf required to be a string or bytes")
        handle, path = tempfile.mkstemp(suffix=".params")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(buf)
            return load(path)
        finally:
            os.remove(path)

    def onehot_encode(indices, out):
        return call("_onehot_encode")(indices, out, out=out)

    return {"moveaxis": moveaxis, "onehot_encode": onehot_encode, "from_numpy": from_numpy,
            "load_frombuffer": load_frombuffer}
