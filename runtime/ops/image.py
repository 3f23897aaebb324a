"""`nd.image` / `sym.image` operators: `to_tensor` and `normalize`, the two that GluonCV's
presets and Gluon's vision transforms call on every image, and the flips of an HWC image."""
from __future__ import annotations

import numpy as np

from runtime.kernels import image as k
from runtime.registry import Attr, declare, gradient_of


def _floats(value):
    if isinstance(value, str):
        value = value.strip("()[] ").split(",")
        value = [v for v in value if v.strip()]
    if isinstance(value, (int, float, np.integer, np.floating)):
        return (float(value),)
    return tuple(float(v) for v in value)


def _image_rank(in_shapes, attrs):
    shape = in_shapes[0]
    if len(shape) not in (3, 4):
        raise ValueError("Input image must have shape (height, width, channels), or (N, height, width, channels) "
                         "but got [%s]" % ",".join(map(str, shape)))


def _to_tensor_shapes(in_shapes, attrs):
    _image_rank(in_shapes, attrs)
    shape = in_shapes[0]
    out = (shape[2], shape[0], shape[1]) if len(shape) == 3 else (shape[0], shape[3], shape[1], shape[2])
    return in_shapes, [out]


def _normalize_shapes(in_shapes, attrs):
    shape = in_shapes[0]
    if len(shape) not in (3, 4):
        raise ValueError("Input tensor must have shape (channels, height, width), or (N, channels, height, width), "
                         "but got [%s]" % ",".join(map(str, shape)))
    channels = shape[-3]
    if channels not in (1, 3):
        raise ValueError("The %s dimension of input tensor must be the channel dimension with either 1 or 3 "
                         "elements, but got input with shape [%s]"
                         % ("first" if len(shape) == 3 else "second", ",".join(map(str, shape))))
    for name in ("mean", "std"):
        values = attrs[name]
        if len(values) not in (1, channels):
            raise ValueError("Invalid %s for input with shape [%s]. %s must have either 1 or %d elements, but got "
                             "[%s]" % (name, ",".join(map(str, shape)), name, channels,
                                       ",".join("%g" % v for v in values)))
    return in_shapes, [shape]


declare("_image_to_tensor", kernel=k.to_tensor, infer=_to_tensor_shapes, check=_image_rank,
        types=lambda in_dtypes, attrs, names: (in_dtypes, "float32"))
declare("_image_normalize", attrs=[Attr("mean", _floats, (0.0, 0.0, 0.0, 0.0)),
                                   Attr("std", _floats, (1.0, 1.0, 1.0, 1.0))],
        kernel=k.normalize, infer=_normalize_shapes, check=_normalize_shapes)


@gradient_of("_image_normalize")
def _normalize_gradient(inputs, outputs, out_grads, mean=(0.0,), std=(1.0,)):
    x = inputs[0]
    return [(out_grads[0] / k.channel_values(std, x.shape[-3], x.dtype)).astype(x.dtype)]


def _hwc_only(in_shapes, attrs):
    shape = in_shapes[0]
    if len(shape) != 3:
        raise ValueError("Input image must have shape (height, width, channels), but got [%s]"
                         % ",".join(map(str, shape)))
    if shape[2] not in (1, 3):
        raise ValueError("The last dimension of input image must be the channel dimension with either 1 or 3 "
                         "elements, but got input with shape [%s]" % ",".join(map(str, shape)))


declare("_image_flip_left_right", kernel=k.flip_left_right, check=_hwc_only)
declare("_image_flip_top_bottom", kernel=k.flip_top_bottom, check=_hwc_only)


@gradient_of("_image_flip_left_right", "_image_flip_top_bottom")
def _flip_gradient(inputs, outputs, out_grads):
    # MXNet 1.9.1's backward of the image flips passes the gradient through unflipped (recorded):
    # kept, so that training on the runtime moves the weights as it does on MXNet
    return [out_grads[0].copy()]
