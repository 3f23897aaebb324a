"""`gluon.contrib.cnn`: DeformableConvolution and ModulatedDeformableConvolution, the layers of
MXNet 1.9.1 that learn, with a convolution of their own, the sampling offsets (and, v2, the mask)
of a deformable convolution (contrib operators)."""
from __future__ import annotations

from runtime.gluon.block import HybridBlock
from runtime.gluon.nn.basic_layers import Activation


def _pair(value):
    return (value,) * 2 if isinstance(value, int) else tuple(value)


class DeformableConvolution(HybridBlock):
    """2-D deformable convolution v1: `offset_weight` / `offset_bias` make the offsets (zeros at
    first, so it starts as a plain convolution), `deformable_conv_weight` / `_bias` convolve."""
    _OFFSETS_PER_TAP = 2  # (dy, dx)

    def __init__(self, channels, kernel_size=(1, 1), strides=(1, 1), padding=(0, 0), dilation=(1, 1), groups=1,
                 num_deformable_group=1, layout="NCHW", use_bias=True, in_channels=0, activation=None,
                 weight_initializer=None, bias_initializer="zeros", offset_weight_initializer="zeros",
                 offset_bias_initializer="zeros", offset_use_bias=True, op_name="DeformableConvolution", adj=None,
                 prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        if layout not in ("NCHW", "NHWC"):
            raise AssertionError("Only supports 'NCHW' and 'NHWC' layout for now")
        kernel_size = _pair(kernel_size)
        strides, padding, dilation = _pair(strides), _pair(padding), _pair(dilation)
        with self.name_scope():
            self._channels, self._in_channels = channels, in_channels
            offset_channels = self._OFFSETS_PER_TAP * kernel_size[0] * kernel_size[1] * num_deformable_group
            self.offset_split_index = 2 * kernel_size[0] * kernel_size[1] * num_deformable_group
            common = {"kernel": kernel_size, "stride": strides, "dilate": dilation, "pad": padding,
                      "num_group": groups, "layout": layout}
            self._kwargs_offset = dict(common, num_filter=offset_channels, no_bias=not offset_use_bias)
            self._kwargs_deformable_conv = dict(common, num_filter=channels, num_deformable_group=num_deformable_group,
                                                no_bias=not use_bias)
            if adj:
                self._kwargs_offset["adj"] = adj
                self._kwargs_deformable_conv["adj"] = adj
            in_per_group = in_channels // groups if in_channels else 0
            self.offset_weight = self.params.get("offset_weight", shape=(offset_channels, in_per_group) + kernel_size,
                                                 init=offset_weight_initializer, allow_deferred_init=True)
            self.offset_bias = self.params.get("offset_bias", shape=(offset_channels,), init=offset_bias_initializer,
                                               allow_deferred_init=True) if offset_use_bias else None
            self.deformable_conv_weight = self.params.get(
                "deformable_conv_weight", shape=(channels, in_per_group) + kernel_size, init=weight_initializer,
                allow_deferred_init=True)
            self.deformable_conv_bias = self.params.get(
                "deformable_conv_bias", shape=(channels,), init=bias_initializer,
                allow_deferred_init=True) if use_bias else None
            self.act = Activation(activation, prefix=activation + "_") if activation else None

    def hybrid_forward(self, F, x, offset_weight, deformable_conv_weight, offset_bias=None, deformable_conv_bias=None):
        if offset_bias is None:
            offset = F.Convolution(x, offset_weight, cudnn_off=True, **self._kwargs_offset)
        else:
            offset = F.Convolution(x, offset_weight, offset_bias, cudnn_off=True, **self._kwargs_offset)
        inputs = dict(data=x, offset=offset, weight=deformable_conv_weight)
        if deformable_conv_bias is not None:
            inputs["bias"] = deformable_conv_bias
        out = F.contrib.DeformableConvolution(name="fwd", **inputs, **self._kwargs_deformable_conv)
        return self.act(out) if self.act is not None else out

    def _alias(self):
        return "deformable_conv"


class ModulatedDeformableConvolution(DeformableConvolution):
    """2-D deformable convolution v2: the offset convolution also gives one value per tap, whose
    sigmoid times 2 scales that tap's sample (1 at first, with the zero-initialized offset weights)."""
    _OFFSETS_PER_TAP = 3  # (dy, dx, mask)

    def __init__(self, channels, kernel_size=(1, 1), strides=(1, 1), padding=(0, 0), dilation=(1, 1), groups=1,
                 num_deformable_group=1, layout="NCHW", use_bias=True, in_channels=0, activation=None,
                 weight_initializer=None, bias_initializer="zeros", offset_weight_initializer="zeros",
                 offset_bias_initializer="zeros", offset_use_bias=True, op_name="ModulatedDeformableConvolution",
                 adj=None, prefix=None, params=None):
        super().__init__(channels, kernel_size, strides, padding, dilation, groups, num_deformable_group, layout,
                         use_bias, in_channels, activation, weight_initializer, bias_initializer,
                         offset_weight_initializer, offset_bias_initializer, offset_use_bias, op_name, adj, prefix,
                         params)

    def hybrid_forward(self, F, x, offset_weight, deformable_conv_weight, offset_bias=None, deformable_conv_bias=None):
        if offset_bias is None:
            offset = F.Convolution(x, offset_weight, cudnn_off=True, **self._kwargs_offset)
        else:
            offset = F.Convolution(x, offset_weight, offset_bias, cudnn_off=True, **self._kwargs_offset)
        offset_t = F.slice_axis(offset, axis=1, begin=0, end=self.offset_split_index)
        mask = F.sigmoid(F.slice_axis(offset, axis=1, begin=self.offset_split_index, end=None)) * 2
        inputs = dict(data=x, offset=offset_t, mask=mask, weight=deformable_conv_weight)
        if deformable_conv_bias is not None:
            inputs["bias"] = deformable_conv_bias
        out = F.contrib.ModulatedDeformableConvolution(name="fwd", **inputs, **self._kwargs_deformable_conv)
        return self.act(out) if self.act is not None else out
