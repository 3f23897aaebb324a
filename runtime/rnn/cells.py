"""The steppable legacy cells: plain RNN, LSTM and GRU, each one FullyConnected for the input and
one for the state per step, named `{prefix}t{step}_...` as MXNet 1.x names them."""
from __future__ import annotations

from runtime import initializer, sym
from runtime.rnn.base import BaseRNNCell


def _state(num_hidden):
    return {"shape": (0, num_hidden), "__layout__": "NC"}


class _FullyConnectedCell(BaseRNNCell):
    """What the three cells share: the i2h and h2h weights and biases, `states` states of
    `num_hidden` values, and each step's two products (`gates` blocks of `num_hidden` outputs)."""

    states = 1

    def __init__(self, num_hidden, prefix, params, i2h_bias_init=None):
        super().__init__(prefix=prefix, params=params)
        self._num_hidden = num_hidden
        self._iW = self.params.get("i2h_weight")
        self._hW = self.params.get("h2h_weight")
        self._iB = self.params.get("i2h_bias", **({} if i2h_bias_init is None else {"init": i2h_bias_init}))
        self._hB = self.params.get("h2h_bias")

    @property
    def state_info(self):
        return [_state(self._num_hidden) for _ in range(self.states)]

    def _products(self, inputs, state, gates: int, separator: str = ""):
        """(the step's name prefix, i2h, h2h): the step's input and state products."""
        self._counter += 1
        name = "%st%d_" % (self._prefix, self._counter)
        hidden = self._num_hidden * gates
        i2h = sym.FullyConnected(data=inputs, weight=self._iW, bias=self._iB, num_hidden=hidden,
                                 name="%s%si2h" % (name, separator))
        h2h = sym.FullyConnected(data=state, weight=self._hW, bias=self._hB, num_hidden=hidden,
                                 name="%s%sh2h" % (name, separator))
        return name, i2h, h2h


class RNNCell(_FullyConnectedCell):
    """h' = activation(W_i x + b_i + W_h h + b_h)."""

    def __init__(self, num_hidden, activation="tanh", prefix="rnn_", params=None):
        super().__init__(num_hidden, prefix, params)
        self._activation = activation

    @property
    def _gate_names(self):
        return ("",)

    def __call__(self, inputs, states):
        name, i2h, h2h = self._products(inputs, states[0], 1)
        output = self._get_activation(i2h + h2h, self._activation, name="%sout" % name)
        return output, [output]


class LSTMCell(_FullyConnectedCell):
    """An LSTM step; gates in the order input, forget, cell, output. The i2h bias starts with
    `forget_bias` in the forget gate (its variable carries an LSTMBias initializer)."""

    states = 2

    def __init__(self, num_hidden, prefix="lstm_", params=None, forget_bias=1.0):
        super().__init__(num_hidden, prefix, params, initializer.LSTMBias(forget_bias=forget_bias))

    @property
    def _gate_names(self):
        return ["_i", "_f", "_c", "_o"]

    def __call__(self, inputs, states):
        name, i2h, h2h = self._products(inputs, states[0], 4)
        gates = sym.SliceChannel(i2h + h2h, num_outputs=4, name="%sslice" % name)
        in_gate = sym.Activation(gates[0], act_type="sigmoid", name="%si" % name)
        forget_gate = sym.Activation(gates[1], act_type="sigmoid", name="%sf" % name)
        in_transform = sym.Activation(gates[2], act_type="tanh", name="%sc" % name)
        out_gate = sym.Activation(gates[3], act_type="sigmoid", name="%so" % name)
        next_c = sym._plus(forget_gate * states[1], in_gate * in_transform, name="%sstate" % name)
        next_h = sym._mul(out_gate, sym.Activation(next_c, act_type="tanh"), name="%sout" % name)
        return next_h, [next_h, next_c]


class GRUCell(_FullyConnectedCell):
    """A GRU step (gates reset, update, then the candidate), the reset gate applied after h2h."""

    def __init__(self, num_hidden, prefix="gru_", params=None):
        super().__init__(num_hidden, prefix, params)

    @property
    def _gate_names(self):
        return ["_r", "_z", "_o"]

    def __call__(self, inputs, states):
        previous = states[0]
        name, i2h, h2h = self._products(inputs, previous, 3, separator="_")
        i2h_r, i2h_z, i2h = sym.SliceChannel(i2h, num_outputs=3, name="%s_i2h_slice" % name)
        h2h_r, h2h_z, h2h = sym.SliceChannel(h2h, num_outputs=3, name="%s_h2h_slice" % name)
        reset_gate = sym.Activation(i2h_r + h2h_r, act_type="sigmoid", name="%s_r_act" % name)
        update_gate = sym.Activation(i2h_z + h2h_z, act_type="sigmoid", name="%s_z_act" % name)
        candidate = sym.Activation(i2h + reset_gate * h2h, act_type="tanh", name="%s_h_act" % name)
        next_h = sym._plus((1. - update_gate) * candidate, update_gate * previous, name="%sout" % name)
        return next_h, [next_h]
