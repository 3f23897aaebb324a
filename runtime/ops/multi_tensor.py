"""Operators over many tensors at once: `multi_sum_sq` (GluonNLP's clip_grad_global_norm)."""
from __future__ import annotations

from runtime.base import MXNetError
from runtime.kernels import multi_tensor as k
from runtime.registry import Attr, declare, int_


def _count(in_shapes, attrs):
    if attrs["num_arrays"] != len(in_shapes):
        raise ValueError("multi_sum_sq: num_arrays=%d but %d arrays given" % (attrs["num_arrays"], len(in_shapes)))
    return in_shapes, [(attrs["num_arrays"],)]


def _uniform_then_float32(in_dtypes, attrs, names):
    """All arrays of one dtype (MXNet's message names them array_i); the sums are float32."""
    dtype = next((d for d in in_dtypes if d is not None), None)
    for i, given in enumerate(in_dtypes):
        if given is not None and given != dtype:
            raise MXNetError("This layer requires uniform type. Expected '%s' v.s. given '%s' at 'array_%d'"
                             % (dtype, given, i))
    return [dtype] * len(in_dtypes), "float32"


declare("multi_sum_sq", inputs=("*data",), attrs=[Attr("num_arrays", int_, required=True)], kernel=k.multi_sum_sq,
        infer=_count, types=_uniform_then_float32)
