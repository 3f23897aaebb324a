"""Run a Gluon block from source on the project's runtime, eagerly or hybridized.

`import mxnet` inside the block's source resolves to the runtime (`runtime.as_mxnet()`).
"""
from __future__ import annotations

import types

import numpy as np

import runtime


def _as_list(out):
    if isinstance(out, (list, tuple)):
        return [o for item in out for o in _as_list(item)]
    return [out]


def run(source: str, inputs, *, hybridized: bool, build_expr: str = "Net()"):
    """The block's outputs as NumPy arrays, in order (nested outputs flattened)."""
    with runtime.as_mxnet():
        import mxnet as mx
        module = types.ModuleType("fixture")
        exec(compile(source, "<fixture>", "exec"), module.__dict__)
        block = eval(build_expr, module.__dict__)
        block.initialize()
        args = [mx.nd.array(np.asarray(a), dtype=np.asarray(a).dtype) for a in inputs]
        if hybridized:
            block.hybridize()
            _as_list(block(*[a.copy() for a in args]))  # the tracing call
        return [o.asnumpy() if hasattr(o, "asnumpy") else np.asarray(o) for o in _as_list(block(*args))]
