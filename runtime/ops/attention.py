"""contrib.interleaved_matmul_selfatt_qk / _valatt and _encdec_qk / _valatt (MXNet 1.9.1's fused
multi-head attention products) and their gradients; the layouts are described in the kernels."""
from __future__ import annotations

from runtime.kernels import attention as k
from runtime.registry import Attr, declare, gradient_of, int_

_HEADS = [Attr("heads", int_, required=True)]


def _check_width(shape, heads, parts, what):
    if len(shape) != 3:
        raise ValueError("%s must be 3-D (seq, batch, width), got %s" % (what, tuple(shape)))
    if shape[2] % (heads * parts):
        raise ValueError("the last dimension of %s (%d) must divide into %d heads of %d parts"
                         % (what, shape[2], heads, parts))


def _selfatt_qk_shapes(in_shapes, attrs):
    seq, batch, _ = in_shapes[0]
    _check_width(in_shapes[0], attrs["heads"], 3, "queries_keys_values")
    return in_shapes, [(batch * attrs["heads"], seq, seq)]


def _selfatt_valatt_shapes(in_shapes, attrs):
    seq, batch, width = in_shapes[0]
    _check_width(in_shapes[0], attrs["heads"], 3, "queries_keys_values")
    in_shapes[1] = (batch * attrs["heads"], seq, seq)
    return in_shapes, [(seq, batch, width // 3)]


def _encdec_qk_shapes(in_shapes, attrs):
    q_seq, batch, _ = in_shapes[0]
    _check_width(in_shapes[0], attrs["heads"], 1, "queries")
    _check_width(in_shapes[1], attrs["heads"], 2, "keys_values")
    return in_shapes, [(batch * attrs["heads"], q_seq, in_shapes[1][0])]


def _encdec_valatt_shapes(in_shapes, attrs):
    kv_seq, batch, width = in_shapes[0]
    _check_width(in_shapes[0], attrs["heads"], 2, "keys_values")
    if in_shapes[1] is None:
        return in_shapes, [None]
    q_seq = in_shapes[1][1]
    return in_shapes, [(q_seq, batch, width // 2)]


declare("_contrib_interleaved_matmul_selfatt_qk", inputs=("queries_keys_values",), attrs=_HEADS,
        kernel=k.selfatt_qk, infer=_selfatt_qk_shapes)
declare("_contrib_interleaved_matmul_selfatt_valatt", inputs=("queries_keys_values", "attention"), attrs=_HEADS,
        kernel=k.selfatt_valatt, infer=_selfatt_valatt_shapes)
declare("_contrib_interleaved_matmul_encdec_qk", inputs=("queries", "keys_values"), attrs=_HEADS,
        kernel=k.encdec_qk, infer=_encdec_qk_shapes)
declare("_contrib_interleaved_matmul_encdec_valatt", inputs=("keys_values", "attention"), attrs=_HEADS,
        kernel=k.encdec_valatt, infer=_encdec_valatt_shapes)


@gradient_of("_contrib_interleaved_matmul_selfatt_qk")
def _selfatt_qk(inputs, outputs, out_grads, heads):
    return [k.selfatt_qk_grad(inputs[0], out_grads[0], heads)]


@gradient_of("_contrib_interleaved_matmul_selfatt_valatt")
def _selfatt_valatt(inputs, outputs, out_grads, heads):
    return list(k.selfatt_valatt_grad(inputs[0], inputs[1], out_grads[0], heads))


@gradient_of("_contrib_interleaved_matmul_encdec_qk")
def _encdec_qk(inputs, outputs, out_grads, heads):
    return list(k.encdec_qk_grad(inputs[0], inputs[1], out_grads[0], heads))


@gradient_of("_contrib_interleaved_matmul_encdec_valatt")
def _encdec_valatt(inputs, outputs, out_grads, heads):
    return list(k.encdec_valatt_grad(inputs[0], inputs[1], out_grads[0], heads))
