"""LRN: local response normalization across channels, with its hidden tmp_norm output (which
MXNet's monitors report) and its gradient."""
from __future__ import annotations

from runtime.kernels import lrn as k
from runtime.registry import Attr, declare, float_, gradient_of, int_


def _lrn_shapes(in_shapes, attrs):
    return in_shapes, [in_shapes[0], in_shapes[0]]


declare("LRN", attrs=[Attr("alpha", float_, 1e-4), Attr("beta", float_, 0.75), Attr("knorm", float_, 2.0),
                      Attr("nsize", int_, required=True)],
        kernel=k.lrn, infer=_lrn_shapes, num_outputs=2, visible_outputs=lambda attrs: 1,
        output_names=("output", "tmp_norm"))


@gradient_of("LRN")
def _lrn(inputs, outputs, out_grads, alpha, beta, knorm, nsize):
    return [k.lrn_grad(inputs[0], outputs[1], out_grads[0], alpha, beta, nsize)]
