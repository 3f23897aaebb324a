"""`mxnet.numpy` and `mxnet.numpy_extension`: MXNet's NumPy-compatible array interface is not part of
this runtime, which implements MXNet 1.x's NDArray. The modules resolve, so that code which imports
them for an optional path loads; using any of their names raises AttributeError saying so."""
from __future__ import annotations


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(name)
    raise AttributeError("mxnet.numpy.%s: MXNet's NumPy-compatible interface (mx.np, mx.npx) is not provided by "
                         "this runtime; use mx.nd" % name)
