"""im2col and col2im (MXNet 1.9.1's operators of those names): each the other's gradient."""
from __future__ import annotations

import numpy as np

from runtime.kernels import columns as k
from runtime.registry import Attr, declare, gradient_of, shape_


def _window_attrs():
    return [Attr("kernel", shape_, required=True), Attr("stride", shape_, ()), Attr("dilate", shape_, ()),
            Attr("pad", shape_, ())]


def _check_window(attrs, spatial_ndim):
    kernel = attrs["kernel"]
    if not 1 <= len(kernel) <= 3:
        raise ValueError("kernel must be 1, 2 or 3 dimensional, got %d" % len(kernel))
    if spatial_ndim != len(kernel):
        raise ValueError("the data must have %d spatial dimensions for a %d-D kernel"
                         % (len(kernel), len(kernel)))
    for name in ("stride", "dilate", "pad"):
        if attrs[name] and len(attrs[name]) != len(kernel):
            raise ValueError("%s must have as many dimensions as kernel" % name)


def _out_spatial(spatial, attrs):
    _, _, _, out = k._geometry(spatial, attrs["kernel"], attrs["stride"], attrs["dilate"], attrs["pad"])
    if any(o <= 0 for o in out):
        raise ValueError("kernel size exceed input")
    return out


def _im2col_shapes(in_shapes, attrs):
    data = in_shapes[0]
    _check_window(attrs, len(data) - 2)
    out = _out_spatial(data[2:], attrs)
    return in_shapes, [(data[0], data[1] * int(np.prod(attrs["kernel"])), int(np.prod(out)))]


def _col2im_shapes(in_shapes, attrs):
    data = in_shapes[0]
    size = attrs["output_size"]
    _check_window(attrs, len(size))
    taps = int(np.prod(attrs["kernel"]))
    if len(data) != 3 or data[1] % taps or data[2] != int(np.prod(_out_spatial(size, attrs))):
        raise ValueError("the data must be (batch, channels * %d, %d) for this output_size and window, got %s"
                         % (taps, int(np.prod(_out_spatial(size, attrs))), tuple(data)))
    return in_shapes, [(data[0], data[1] // taps) + tuple(size)]


declare("im2col", attrs=_window_attrs(), kernel=k.im2col, infer=_im2col_shapes)
declare("col2im", attrs=[Attr("output_size", shape_, required=True)] + _window_attrs(), kernel=k.col2im,
        infer=_col2im_shapes)


@gradient_of("im2col")
def _im2col_grad(inputs, outputs, out_grads, kernel, stride, dilate, pad):
    return [k.col2im(out_grads[0], inputs[0].shape[2:], kernel, stride, dilate, pad)]


@gradient_of("col2im")
def _col2im_grad(inputs, outputs, out_grads, output_size, kernel, stride, dilate, pad):
    return [k.im2col(out_grads[0], kernel, stride, dilate, pad)]
