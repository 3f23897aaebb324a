"""Convolution and pooling layers."""
from __future__ import annotations

from runtime.gluon.block import HybridBlock
from runtime.gluon.nn.basic_layers import Activation


def _tuple(value, n):
    return (value,) * n if isinstance(value, int) else tuple(value)


class _Conv(HybridBlock):
    def __init__(self, channels, kernel_size, strides, padding, dilation, groups, layout, in_channels=0,
                 activation=None, use_bias=True, weight_initializer=None, bias_initializer="zeros", op_name="Convolution",
                 adj=None, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        with self.name_scope():
            self._channels, self._in_channels = channels, in_channels
            self._op_name = op_name
            self._kwargs = {"kernel": kernel_size, "stride": strides, "dilate": dilation, "pad": padding,
                            "num_filter": channels, "num_group": groups, "no_bias": not use_bias, "layout": layout}
            if adj is not None:
                self._kwargs["adj"] = adj
            if op_name == "Convolution":
                wshape = (channels, in_channels // groups if in_channels else 0) + tuple(kernel_size)
            else:
                wshape = (in_channels, channels // groups) + tuple(kernel_size)
            self.weight = self.params.get("weight", shape=wshape, init=weight_initializer, allow_deferred_init=True)
            self.bias = self.params.get("bias", shape=(channels,), init=bias_initializer,
                                        allow_deferred_init=True) if use_bias else None
            self.act = Activation(activation, prefix=activation + "_") if activation is not None else None

    def _alias(self):
        # every convolution, transposed or not, counts as `conv`: conv0, conv1 (parameter files use these names)
        return "conv"

    def hybrid_forward(self, F, x, weight, bias=None):
        if bias is None:
            out = getattr(F, self._op_name)(x, weight, name="fwd", **self._kwargs)
        else:
            out = getattr(F, self._op_name)(x, weight, bias, name="fwd", **self._kwargs)
        return self.act(out) if self.act is not None else out


def _conv_class(dims, layout, op_name="Convolution"):
    class Conv(_Conv):
        def __init__(self, channels, kernel_size, strides=1, padding=0, dilation=1, groups=1, layout=layout,
                     activation=None, use_bias=True, weight_initializer=None, bias_initializer="zeros",
                     in_channels=0, output_padding=0, **kwargs):
            adj = _tuple(output_padding, dims) if op_name == "Deconvolution" else None
            super().__init__(channels, _tuple(kernel_size, dims), _tuple(strides, dims), _tuple(padding, dims),
                             _tuple(dilation, dims), groups, layout, in_channels, activation, use_bias,
                             weight_initializer, bias_initializer, op_name=op_name, adj=adj, **kwargs)
    return Conv


class Conv1D(_conv_class(1, "NCW")):
    pass


class Conv2D(_conv_class(2, "NCHW")):
    pass


class Conv3D(_conv_class(3, "NCDHW")):
    pass


class Conv1DTranspose(_conv_class(1, "NCW", "Deconvolution")):
    pass


class Conv2DTranspose(_conv_class(2, "NCHW", "Deconvolution")):
    pass


class _Pooling(HybridBlock):
    def __init__(self, pool_size, strides, padding, ceil_mode, global_pool, pool_type, layout,
                 count_include_pad=None, **kwargs):
        super().__init__(**kwargs)
        if strides is None:
            strides = pool_size
        self._kwargs = {"kernel": pool_size, "stride": strides, "pad": padding, "global_pool": global_pool,
                        "pool_type": pool_type, "pooling_convention": "full" if ceil_mode else "valid",
                        "layout": layout}
        if count_include_pad is not None:
            self._kwargs["count_include_pad"] = count_include_pad

    def _alias(self):
        return "pool"

    def hybrid_forward(self, F, x):
        return F.Pooling(x, name="fwd", **self._kwargs)


def _pool_class(dims, pool_type, global_pool=False):
    default_layout = "NC" + "DHW"[-dims:]
    if global_pool:
        class GlobalPool(_Pooling):
            def __init__(self, layout=default_layout, **kwargs):
                super().__init__((1,) * dims, None, (0,) * dims, True, True, pool_type, layout, **kwargs)
        return GlobalPool

    class Pool(_Pooling):
        def __init__(self, pool_size=2, strides=None, padding=0, layout=default_layout, ceil_mode=False,
                     count_include_pad=True, **kwargs):
            extra = {"count_include_pad": count_include_pad} if pool_type == "avg" else {}
            super().__init__(_tuple(pool_size, dims), _tuple(strides, dims) if strides is not None else None,
                             _tuple(padding, dims), ceil_mode, False, pool_type, layout, **extra, **kwargs)
    return Pool


class MaxPool1D(_pool_class(1, "max")):
    pass


class MaxPool2D(_pool_class(2, "max")):
    pass


class AvgPool1D(_pool_class(1, "avg")):
    pass


class AvgPool2D(_pool_class(2, "avg")):
    pass


class MaxPool3D(_pool_class(3, "max")):
    pass


class AvgPool3D(_pool_class(3, "avg")):
    pass


class GlobalMaxPool3D(_pool_class(3, "max", True)):
    pass


class GlobalAvgPool3D(_pool_class(3, "avg", True)):
    pass


class GlobalMaxPool1D(_pool_class(1, "max", True)):
    pass


class GlobalMaxPool2D(_pool_class(2, "max", True)):
    pass


class GlobalAvgPool1D(_pool_class(1, "avg", True)):
    pass


class GlobalAvgPool2D(_pool_class(2, "avg", True)):
    pass


class ReflectionPad2D(HybridBlock):
    """Pads the last two axes by reflection: `padding` on each side of each, or MXNet's eight-number
    pad_width (none on the batch and channel axes)."""

    def __init__(self, padding=0, **kwargs):
        super().__init__(**kwargs)
        if isinstance(padding, (int, float)):
            padding = (0, 0, 0, 0, padding, padding, padding, padding)
        assert len(padding) == 8
        self._padding = padding

    def hybrid_forward(self, F, x):
        return F.pad(x, mode="reflect", pad_width=self._padding)
