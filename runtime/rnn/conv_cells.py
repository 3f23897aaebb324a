"""Convolutional legacy cells: the FullyConnected of RNN/LSTM/GRU cells replaced by convolutions,
the state an image of `num_hidden` channels (its size from the i2h convolution of `input_shape`)."""
from __future__ import annotations

import functools

from runtime import sym
from runtime.rnn.base import BaseRNNCell

_LEAKY = functools.partial(sym.LeakyReLU, act_type="leaky", slope=0.2)


class BaseConvRNNCell(BaseRNNCell):
    def __init__(self, input_shape, num_hidden, h2h_kernel, h2h_dilate, i2h_kernel, i2h_stride, i2h_pad, i2h_dilate,
                 i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer,
                 activation, prefix="", params=None, conv_layout="NCHW"):
        super().__init__(prefix=prefix, params=params)
        if h2h_kernel[0] % 2 != 1 or h2h_kernel[1] % 2 != 1:
            raise AssertionError("Only support odd number, get h2h_kernel= %s" % str(h2h_kernel))
        self._h2h_kernel = h2h_kernel
        # h2h keeps the state's size: 'same' padding for the (dilated) kernel
        self._h2h_pad = (h2h_dilate[0] * (h2h_kernel[0] - 1) // 2, h2h_dilate[1] * (h2h_kernel[1] - 1) // 2)
        self._h2h_dilate = h2h_dilate
        self._i2h_kernel = i2h_kernel
        self._i2h_stride = i2h_stride
        self._i2h_pad = i2h_pad
        self._i2h_dilate = i2h_dilate
        self._num_hidden = num_hidden
        self._input_shape = input_shape
        self._conv_layout = conv_layout
        self._activation = activation
        probe = sym.Convolution(data=sym.Variable("data"), num_filter=num_hidden, kernel=i2h_kernel, stride=i2h_stride,
                                pad=i2h_pad, dilate=i2h_dilate, layout=conv_layout)
        state_shape = probe.infer_shape(data=input_shape)[1][0]
        self._state_shape = (0,) + tuple(state_shape[1:])
        self._iW = self.params.get("i2h_weight", init=i2h_weight_initializer)
        self._hW = self.params.get("h2h_weight", init=h2h_weight_initializer)
        self._iB = self.params.get("i2h_bias", init=i2h_bias_initializer)
        self._hB = self.params.get("h2h_bias", init=h2h_bias_initializer)

    @property
    def _num_gates(self):
        return len(self._gate_names)

    @property
    def state_info(self):
        return [{"shape": self._state_shape, "__layout__": self._conv_layout} for _ in range(self._num_states)]

    _num_states = 2

    def _conv_forward(self, inputs, states, name):
        filters = self._num_hidden * self._num_gates
        i2h = sym.Convolution(name="%si2h" % name, data=inputs, num_filter=filters, kernel=self._i2h_kernel,
                              stride=self._i2h_stride, pad=self._i2h_pad, dilate=self._i2h_dilate,
                              weight=self._iW, bias=self._iB, layout=self._conv_layout)
        h2h = sym.Convolution(name="%sh2h" % name, data=states[0], num_filter=filters, kernel=self._h2h_kernel,
                              dilate=self._h2h_dilate, pad=self._h2h_pad, stride=(1, 1), weight=self._hW,
                              bias=self._hB, layout=self._conv_layout)
        return i2h, h2h

    def __call__(self, inputs, states):
        raise NotImplementedError("BaseConvRNNCell is abstract class for convolutional RNN")


class ConvRNNCell(BaseConvRNNCell):
    _num_states = 1

    def __init__(self, input_shape, num_hidden, h2h_kernel=(3, 3), h2h_dilate=(1, 1), i2h_kernel=(3, 3),
                 i2h_stride=(1, 1), i2h_pad=(1, 1), i2h_dilate=(1, 1), i2h_weight_initializer=None,
                 h2h_weight_initializer=None, i2h_bias_initializer="zeros", h2h_bias_initializer="zeros",
                 activation=_LEAKY, prefix="ConvRNN_", params=None, conv_layout="NCHW"):
        super().__init__(input_shape, num_hidden, h2h_kernel, h2h_dilate, i2h_kernel, i2h_stride, i2h_pad,
                         i2h_dilate, i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, activation, prefix=prefix, params=params, conv_layout=conv_layout)

    @property
    def _gate_names(self):
        return ("",)

    def __call__(self, inputs, states):
        self._counter += 1
        name = "%st%d_" % (self._prefix, self._counter)
        i2h, h2h = self._conv_forward(inputs, states, name)
        output = self._get_activation(i2h + h2h, self._activation, name="%sout" % name)
        return output, [output]


class ConvLSTMCell(BaseConvRNNCell):
    """Gates input, forget, cell, output; `activation` for the candidate and the cell's output."""

    def __init__(self, input_shape, num_hidden, h2h_kernel=(3, 3), h2h_dilate=(1, 1), i2h_kernel=(3, 3),
                 i2h_stride=(1, 1), i2h_pad=(1, 1), i2h_dilate=(1, 1), i2h_weight_initializer=None,
                 h2h_weight_initializer=None, i2h_bias_initializer="zeros", h2h_bias_initializer="zeros",
                 activation=_LEAKY, prefix="ConvLSTM_", params=None, conv_layout="NCHW"):
        super().__init__(input_shape, num_hidden, h2h_kernel, h2h_dilate, i2h_kernel, i2h_stride, i2h_pad,
                         i2h_dilate, i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, activation, prefix=prefix, params=params, conv_layout=conv_layout)

    @property
    def _gate_names(self):
        return ["_i", "_f", "_c", "_o"]

    def __call__(self, inputs, states):
        self._counter += 1
        name = "%st%d_" % (self._prefix, self._counter)
        i2h, h2h = self._conv_forward(inputs, states, name)
        gates = sym.SliceChannel(i2h + h2h, num_outputs=4, axis=self._conv_layout.find("C"), name="%sslice" % name)
        in_gate = sym.Activation(gates[0], act_type="sigmoid", name="%si" % name)
        forget_gate = sym.Activation(gates[1], act_type="sigmoid", name="%sf" % name)
        in_transform = self._get_activation(gates[2], self._activation, name="%sc" % name)
        out_gate = sym.Activation(gates[3], act_type="sigmoid", name="%so" % name)
        next_c = sym._plus(forget_gate * states[1], in_gate * in_transform, name="%sstate" % name)
        next_h = sym._mul(out_gate, self._get_activation(next_c, self._activation), name="%sout" % name)
        return next_h, [next_h, next_c]


class ConvGRUCell(BaseConvRNNCell):
    _num_states = 1

    def __init__(self, input_shape, num_hidden, h2h_kernel=(3, 3), h2h_dilate=(1, 1), i2h_kernel=(3, 3),
                 i2h_stride=(1, 1), i2h_pad=(1, 1), i2h_dilate=(1, 1), i2h_weight_initializer=None,
                 h2h_weight_initializer=None, i2h_bias_initializer="zeros", h2h_bias_initializer="zeros",
                 activation=_LEAKY, prefix="ConvGRU_", params=None, conv_layout="NCHW"):
        super().__init__(input_shape, num_hidden, h2h_kernel, h2h_dilate, i2h_kernel, i2h_stride, i2h_pad,
                         i2h_dilate, i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, activation, prefix=prefix, params=params, conv_layout=conv_layout)

    @property
    def _gate_names(self):
        return ["_r", "_z", "_o"]

    def __call__(self, inputs, states):
        self._counter += 1
        name = "%st%d_" % (self._prefix, self._counter)
        i2h, h2h = self._conv_forward(inputs, states, name)
        i2h_r, i2h_z, i2h = sym.SliceChannel(i2h, num_outputs=3, name="%s_i2h_slice" % name)
        h2h_r, h2h_z, h2h = sym.SliceChannel(h2h, num_outputs=3, name="%s_h2h_slice" % name)
        reset_gate = sym.Activation(i2h_r + h2h_r, act_type="sigmoid", name="%s_r_act" % name)
        update_gate = sym.Activation(i2h_z + h2h_z, act_type="sigmoid", name="%s_z_act" % name)
        candidate = self._get_activation(i2h + reset_gate * h2h, self._activation, name="%s_h_act" % name)
        next_h = sym._plus((1. - update_gate) * candidate, update_gate * states[0], name="%sout" % name)
        return next_h, [next_h]
