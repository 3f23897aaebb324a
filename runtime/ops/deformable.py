"""contrib.DeformableConvolution (MXNet 1.9.1's deformable convolution v1, 2-D, NCHW) and its
gradient, and contrib.ModulatedDeformableConvolution (v2: each tap's sample also scaled by a mask
input; forward only); the sampling is described in runtime/kernels/deformable.py."""
from __future__ import annotations

from runtime.kernels import deformable as k
from runtime.registry import Attr, bool_, declare, gradient_of, int_, optional, shape_, str_, uniform_types


def _spatial(attrs, name, default):
    return tuple(attrs[name]) or (default, default)


def _shapes(in_shapes, attrs):
    data = in_shapes[0]
    kernel = tuple(attrs["kernel"])
    if len(data) != 4 or len(kernel) != 2:
        raise ValueError("DeformableConvolution takes 4-D data (batch, channel, y, x) and a 2-D kernel")
    n, c, height, width = data
    stride, dilate, pad = _spatial(attrs, "stride", 1), _spatial(attrs, "dilate", 1), _spatial(attrs, "pad", 0)
    if c % attrs["num_group"] or attrs["num_filter"] % attrs["num_group"]:
        raise ValueError("the channels and num_filter must divide into num_group groups")
    if c % attrs["num_deformable_group"]:
        raise ValueError("the channels must divide into num_deformable_group groups")
    out = tuple((size + 2 * p - (d * (kk - 1) + 1)) // s + 1
                for size, kk, s, d, p in zip((height, width), kernel, stride, dilate, pad))
    if any(o <= 0 for o in out):
        raise ValueError("kernel size exceed input")
    taps = attrs["num_deformable_group"] * kernel[0] * kernel[1]
    in_shapes[1] = (n, 2 * taps) + out
    rest = 2
    if "im2col_step" in attrs:  # the modulated form: a mask input of one value per tap
        if attrs["num_filter"] % attrs["num_deformable_group"]:
            raise ValueError("output num_filter must divide deformable group size")
        in_shapes[2] = (n, taps) + out
        rest = 3
    in_shapes[rest] = (attrs["num_filter"], c // attrs["num_group"]) + kernel
    if not attrs["no_bias"]:
        in_shapes[rest + 1] = (attrs["num_filter"],)
    return in_shapes, [(n, attrs["num_filter"]) + out]


_OP = declare("_contrib_DeformableConvolution", inputs=("data", "offset", "weight", "bias"),
              attrs=[Attr("kernel", shape_, required=True), Attr("stride", shape_, ()), Attr("dilate", shape_, ()),
                     Attr("pad", shape_, ()), Attr("num_filter", int_, required=True), Attr("num_group", int_, 1),
                     Attr("num_deformable_group", int_, 1), Attr("workspace", int_, 1024),
                     Attr("no_bias", bool_, False), Attr("layout", optional(str_), None)],
              kernel=k.deformable_convolution, infer=_shapes, types=uniform_types(wording="layer"))


@gradient_of("_contrib_DeformableConvolution")
def _deformable_convolution(inputs, outputs, out_grads, kernel, stride, dilate, pad, num_filter, num_group,
                            num_deformable_group, no_bias, **attrs):
    d_data, d_offset, d_weight, d_bias = k.deformable_convolution_grad(
        inputs[0], inputs[1], inputs[2], out_grads[0], kernel, stride, dilate, pad, num_group, num_deformable_group)
    grads = [d_data, d_offset, d_weight]
    if len(inputs) > 3:
        grads.append(d_bias.astype(inputs[3].dtype))
    return grads


declare("_contrib_ModulatedDeformableConvolution", inputs=("data", "offset", "mask", "weight", "bias"),
        attrs=[Attr("kernel", shape_, required=True), Attr("stride", shape_, ()), Attr("dilate", shape_, ()),
               Attr("pad", shape_, ()), Attr("num_filter", int_, required=True), Attr("num_group", int_, 1),
               Attr("num_deformable_group", int_, 1), Attr("workspace", int_, 1024), Attr("no_bias", bool_, False),
               Attr("im2col_step", int_, 64), Attr("layout", optional(str_), None)],
        kernel=k.modulated_deformable_convolution, infer=_shapes, types=uniform_types(wording="layer"))
