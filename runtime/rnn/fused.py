"""FusedRNNCell: a whole multi-layer (bidirectional) RNN/LSTM/GRU as one `RNN` operator over one
flat parameter vector `{prefix}parameters`, convertible to and from per-gate weights and to an
equivalent stack of steppable cells (`unfuse`)."""
from __future__ import annotations

import warnings

from runtime import initializer, nd, sym
from runtime.rnn.base import BaseRNNCell, sized_like_inputs, split_steps, zeros_batched_like_inputs
from runtime.rnn.cells import GRUCell, LSTMCell, RNNCell
from runtime.rnn.containers import BidirectionalCell, DropoutCell, SequentialRNNCell

GATES = {"rnn_relu": [""], "rnn_tanh": [""], "lstm": ["_i", "_f", "_c", "_o"], "gru": ["_r", "_z", "_o"]}


class FusedRNNCell(BaseRNNCell):
    def __init__(self, num_hidden, num_layers=1, mode="lstm", bidirectional=False, dropout=0., get_next_state=False,
                 forget_bias=1.0, prefix=None, params=None):
        if prefix is None:
            prefix = "%s_" % mode
        super().__init__(prefix=prefix, params=params)
        self._num_hidden = num_hidden
        self._num_layers = num_layers
        self._mode = mode
        self._bidirectional = bidirectional
        self._dropout = dropout
        self._get_next_state = get_next_state
        self._directions = ["l", "r"] if bidirectional else ["l"]
        init = initializer.FusedRNN(None, num_hidden, num_layers, mode, bidirectional, forget_bias)
        self._parameter = self.params.get("parameters", init=init)

    @property
    def state_info(self):
        layers = (self._bidirectional + 1) * self._num_layers
        count = 2 if self._mode == "lstm" else 1
        return [{"shape": (layers, 0, self._num_hidden), "__layout__": "LNC"} for _ in range(count)]

    @property
    def _gate_names(self):
        return GATES[self._mode]

    @property
    def _num_gates(self):
        return len(self._gate_names)

    def _layout(self, num_input):
        """(name, shape) of each piece of the flat vector, in order: every layer's and direction's
        weights (i2h per gate, then h2h per gate), then all the biases in the same order."""
        hidden, directions = self._num_hidden, self._directions
        pieces = []
        for kind in ("weight", "bias"):
            for layer in range(self._num_layers):
                width = num_input if layer == 0 else len(directions) * hidden
                for direction in directions:
                    for group, columns in (("i2h", width), ("h2h", hidden)):
                        for gate in self._gate_names:
                            name = "%s%s%d_%s%s_%s" % (self._prefix, direction, layer, group, gate, kind)
                            pieces.append((name, (hidden, columns) if kind == "weight" else (hidden,)))
        return pieces

    def _num_input(self, size):
        """The input size that makes a flat vector of `size` elements."""
        b, m, h = len(self._directions), self._num_gates, self._num_hidden
        return size // b // h // m - (self._num_layers - 1) * (h + b * h + 2) - h - 2

    def unpack_weights(self, args):
        args = dict(args)
        flat = args.pop(self._parameter.name)
        position = 0
        for name, shape in self._layout(self._num_input(flat.size)):
            size = shape[0] * (shape[1] if len(shape) > 1 else 1)
            args[name] = flat[position:position + size].reshape(shape).copy()
            position += size
        if position != flat.size:
            raise AssertionError("Invalid parameters size for FusedRNNCell")
        return args

    def pack_weights(self, args):
        args = dict(args)
        first = args["%sl0_i2h%s_weight" % (self._prefix, self._gate_names[0])]
        pieces = [args.pop(name).reshape((-1,)) for name, _ in self._layout(first.shape[1])]
        args[self._parameter.name] = nd.concatenate(pieces)
        return args

    def __call__(self, inputs, states):
        raise NotImplementedError("FusedRNNCell cannot be stepped. Please use unroll")

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        self.reset()
        inputs, axis = split_steps(length, inputs, layout, True)
        if axis == 1:
            warnings.warn("NTC layout detected. Consider using TNC for FusedRNNCell for faster speed")
            inputs = sym.swapaxes(inputs, dim1=0, dim2=1)
        elif axis != 0:
            raise AssertionError("Unsupported layout %s" % layout)
        if begin_state is None:
            begin_state = self.begin_state(func=zeros_batched_like_inputs(inputs, "TNC"))
        begin_state = sized_like_inputs(begin_state, inputs, "TNC")
        states = {"state": begin_state[0]}
        if self._mode == "lstm":
            states["state_cell"] = begin_state[1]
        rnn = sym.RNN(data=inputs, parameters=self._parameter, state_size=self._num_hidden,
                      num_layers=self._num_layers, bidirectional=self._bidirectional, p=self._dropout,
                      state_outputs=self._get_next_state, mode=self._mode, name=self._prefix + "rnn", **states)
        if not self._get_next_state:
            outputs, states = rnn, []
        else:
            count = 2 if self._mode == "lstm" else 1
            states = [rnn[i + 1] for i in range(count)]
            for state in states:
                state._set_attr(__layout__="LNC")
            outputs = rnn[0]
        if axis == 1:
            outputs = sym.swapaxes(outputs, dim1=0, dim2=1)
        outputs, _ = split_steps(length, outputs, layout, merge_outputs)
        return outputs, states

    def unfuse(self):
        """The same network as a SequentialRNNCell of steppable cells (per layer `{prefix}l{i}_`,
        and `{prefix}r{i}_` backwards), whose per-gate weights are this cell's unpacked ones."""
        hidden = self._num_hidden
        make = {"rnn_relu": lambda prefix: RNNCell(hidden, activation="relu", prefix=prefix),
                "rnn_tanh": lambda prefix: RNNCell(hidden, activation="tanh", prefix=prefix),
                "lstm": lambda prefix: LSTMCell(hidden, prefix=prefix),
                "gru": lambda prefix: GRUCell(hidden, prefix=prefix)}[self._mode]
        stack = SequentialRNNCell()
        for i in range(self._num_layers):
            if self._bidirectional:
                stack.add(BidirectionalCell(make("%sl%d_" % (self._prefix, i)), make("%sr%d_" % (self._prefix, i)),
                                            output_prefix="%sbi_l%d_" % (self._prefix, i)))
            else:
                stack.add(make("%sl%d_" % (self._prefix, i)))
            if self._dropout > 0 and i != self._num_layers - 1:
                stack.add(DropoutCell(self._dropout, prefix="%s_dropout%d_" % (self._prefix, i)))
        return stack
