"""MXNet's image operators (`mx.nd.image`, `mx.sym.image`: registered as `_image_*`)."""
from __future__ import annotations

from runtime.kernels import image as k
from runtime.registry import Attr, _literal, declare, gradient_of, same_shape


def floats_(value):
    """A tuple of floats; a single number is a 1-tuple (MXNet's Tuple<float>)."""
    value = _literal(value)
    if isinstance(value, (list, tuple)):
        return tuple(float(v) for v in value)
    return (float(value),)


def _normalize_check(in_shapes, attrs):
    shape = tuple(in_shapes[0])
    if len(shape) not in (3, 4):
        raise ValueError("Input tensor must have shape (channels, height, width), or (N, channels, height, width), "
                         "but got [%s]" % ",".join(map(str, shape)))
    channels = shape[-3]
    if channels not in (1, 3):
        raise ValueError("The %s dimension of input tensor must be the channel dimension with either 1 or 3 "
                         "elements, but got input with shape [%s]"
                         % ("first" if len(shape) == 3 else "second", ",".join(map(str, shape))))
    for name in ("mean", "std"):
        if len(attrs[name]) not in (1, channels):
            raise ValueError("Invalid %s for input with shape [%s]. %s must have either 1 or %d elements, but got "
                             "[%s]" % (name, ",".join(map(str, shape)), name, channels,
                                       ",".join("%g" % v for v in attrs[name])))


declare("_image_normalize", attrs=[Attr("mean", floats_, (0.0, 0.0, 0.0, 0.0)), Attr("std", floats_, (1.0, 1.0, 1.0, 1.0))],
        kernel=k.normalize, check=_normalize_check, infer=same_shape)


@gradient_of("_image_normalize")
def _normalize(inputs, outputs, out_grads, mean=None, std=(1.0,)):
    return [k.normalize_grad(inputs[0], out_grads[0], std)]
