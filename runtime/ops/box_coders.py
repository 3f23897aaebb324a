"""contrib.box_decode and contrib.box_encode (kernels in runtime/kernels/box_coders.py), with MXNet
1.9.1's shape checks in its words. GluonCV's box coders take these operators, in their NDArray and
Symbol forms alike, when `contrib` has them, and a composition of other operators otherwise."""
from __future__ import annotations

from runtime.kernels import box_coders as k
from runtime.ops.grad_math import zero_gradient
from runtime.registry import Attr, choice, declare, float_, gradient_of, uniform_types


def _require(condition: bool, words: str) -> None:
    if not condition:
        raise ValueError(words)


def _decode_shapes(in_shapes, attrs):
    data, anchors = in_shapes
    if data is not None:
        _require(len(data) == 3, "data shape must have dim == 3, %d provided" % len(data))
        _require(data[-1] == 4, "last dimension of data must be 4, %d provided" % data[-1])
    if anchors is not None:
        _require(len(anchors) >= 3, "anchors shape must have dim == 3, %d provided" % len(anchors))
        _require(anchors[-1] == 4, "last dimension of anchors must be 4, %d provided" % anchors[-1])
    return in_shapes, [None if data is None else tuple(data)]


def _encode_shapes(in_shapes, attrs):
    samples, matches, anchors, refs = in_shapes[:4]
    # MXNet's words, its slips included: the anchors' rank is called the matches', and the refs'
    # message gives the anchors' rank
    if samples is not None:
        _require(len(samples) == 2, "samples shape must have dim == 2, %d provided" % len(samples))
    if matches is not None:
        _require(len(matches) >= 2, "matches shape must have dim == 2, %d provided" % len(matches))
    if anchors is not None:
        _require(len(anchors) >= 3, "matches shape must have dim == 3, %d provided" % len(anchors))
        _require(anchors[-1] == 4, "last dimension of anchors must be 4, %d provided" % anchors[-1])
    if refs is not None:
        _require(len(refs) >= 3, "refs shape must have dim == 3, %d provided"
                 % (len(anchors) if anchors is not None else -1))
        _require(refs[-1] == 4, "last dimension of anchors must be 4, %d provided" % refs[-1])
    out = None if anchors is None else tuple(anchors)
    return list(in_shapes[:4]) + [(4,), (4,)], [out, out]


declare("_contrib_box_decode", inputs=("data", "anchors"),
        attrs=[Attr("std0", float_, 1.0), Attr("std1", float_, 1.0), Attr("std2", float_, 1.0),
               Attr("std3", float_, 1.0), Attr("clip", float_, -1.0),
               Attr("format", choice("corner", "center"), "center")],
        kernel=k.box_decode, infer=_decode_shapes, types=uniform_types(), aliases=("contrib.box_decode",))
declare("_contrib_box_encode", inputs=("samples", "matches", "anchors", "refs", "means", "stds"),
        kernel=k.box_encode, infer=_encode_shapes, types=uniform_types(), num_outputs=2,
        aliases=("contrib.box_encode",))
# MXNet registers zero gradients for both
gradient_of("_contrib_box_decode", "_contrib_box_encode")(zero_gradient)
