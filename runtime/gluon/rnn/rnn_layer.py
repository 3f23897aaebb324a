"""`gluon.rnn` layers RNN, LSTM and GRU: whole sequences through the fused `RNN` operator, with MXNet
1.x's parameter names (l0_i2h_weight, r1_h2h_bias...), layouts ('TNC' / 'NTC') and state handling."""
from __future__ import annotations

import re

from runtime.gluon.block import HybridBlock
from runtime.kernels.rnn import GATES
from runtime.ndarray import NDArray
from runtime.symbol import Symbol


# a fused layer's parameter: direction (l or r), layer, then i2h/h2h/h2r and weight/bias
_LAYER_PARAMETER = re.compile(r"([lr])(\d+)_((?:i2h|h2h|h2r)_(?:weight|bias))\Z")


class _RNNLayer(HybridBlock):
    def __init__(self, hidden_size, num_layers, layout, dropout, bidirectional, input_size, i2h_weight_initializer,
                 h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer, mode, projection_size,
                 h2r_weight_initializer, lstm_state_clip_min, lstm_state_clip_max, lstm_state_clip_nan, dtype,
                 use_sequence_length=False, **kwargs):
        super().__init__(**kwargs)
        if layout not in ("TNC", "NTC"):
            raise AssertionError("Invalid layout %s; must be one of ['TNC' or 'NTC']" % layout)
        self._hidden_size = hidden_size
        self._projection_size = projection_size if projection_size else None
        self._num_layers = num_layers
        self._mode = mode
        self._layout = layout
        self._dropout = dropout
        self._dir = 2 if bidirectional else 1
        self._input_size = input_size
        self._lstm_state_clip_min = lstm_state_clip_min
        self._lstm_state_clip_max = lstm_state_clip_max
        self._lstm_state_clip_nan = lstm_state_clip_nan
        self._dtype = dtype
        self._use_sequence_length = use_sequence_length
        self._gates = GATES[mode]
        self._initializers = {"i2h_weight_initializer": i2h_weight_initializer,
                              "h2h_weight_initializer": h2h_weight_initializer,
                              "i2h_bias_initializer": i2h_bias_initializer,
                              "h2h_bias_initializer": h2h_bias_initializer}
        self.skip_states = None
        rows = self._gates * hidden_size
        recurrent = self._projection_size or hidden_size
        width = input_size
        with self.name_scope():
            for layer in range(num_layers):
                for direction in ("l", "r")[:self._dir]:
                    self._register_param("%s%d_i2h_weight" % (direction, layer), (rows, width), i2h_weight_initializer)
                    self._register_param("%s%d_h2h_weight" % (direction, layer), (rows, recurrent),
                                         h2h_weight_initializer)
                    self._register_param("%s%d_i2h_bias" % (direction, layer), (rows,), i2h_bias_initializer)
                    self._register_param("%s%d_h2h_bias" % (direction, layer), (rows,), h2h_bias_initializer)
                    if self._projection_size:
                        self._register_param("%s%d_h2r_weight" % (direction, layer), (self._projection_size,
                                                                                      hidden_size),
                                             h2r_weight_initializer)
                width = recurrent * self._dir

    def _register_param(self, name, shape, init):
        param = self.params.get(name, shape=shape, init=init, allow_deferred_init=True, dtype=self._dtype)
        setattr(self, name, param)
        return param

    def __repr__(self):
        shape = self.l0_i2h_weight.shape
        mapping = "{0} -> {1}".format(shape[1] if shape[1] else None, shape[0] // self._gates)
        extra = ", {}".format(self._layout)
        if self._num_layers != 1:
            extra += ", num_layers={}".format(self._num_layers)
        if self._dropout != 0:
            extra += ", dropout={}".format(self._dropout)
        if self._dir == 2:
            extra += ", bidirectional"
        return "{name}({mapping}{extra})".format(name=self.__class__.__name__, mapping=mapping, extra=extra)

    def _collect_params_with_prefix(self, prefix=""):
        """Saved and loaded under the names of the stepped cells the layer replaced, as MXNet 1.9.1
        writes them: `l0_i2h_weight` as `_unfused.0.i2h_weight`, and with two directions
        `_unfused.0.l_cell.i2h_weight` / `_unfused.0.r_cell.i2h_weight` (so files round-trip)."""
        if prefix:
            prefix += "."
        both = any(key.startswith("r") for key in self._reg_params)
        found = {}
        for key, value in self._reg_params.items():
            match = _LAYER_PARAMETER.match(key)
            if match is None:
                found[prefix + key] = value
                continue
            direction, layer, part = match.groups()
            cell = "%s_cell." % direction if both else ""
            found["%s_unfused.%s.%s%s" % (prefix, layer, cell, part)] = value
        for name, child in self._children.items():
            found.update(child._collect_params_with_prefix(prefix + name))
        return found

    def _unfuse(self):
        """The layer as a stack of stepped cells sharing its parameters (MXNet 1.9.1's `_unfuse`):
        l0_, r0_, l1_... cells, bidirectional pairs, dropout cells between layers."""
        from runtime.gluon.rnn import rnn_cell
        if self._projection_size:
            raise AssertionError("_unfuse does not support projection layer yet!")
        if self._lstm_state_clip_min or self._lstm_state_clip_max:
            raise AssertionError("_unfuse does not support state clipping yet!")

        def cell(prefix, input_size):
            kwargs = dict(self._initializers, input_size=input_size, prefix=prefix)
            if self._mode in ("rnn_relu", "rnn_tanh"):
                return rnn_cell.RNNCell(self._hidden_size, activation=self._mode[4:], **kwargs)
            return (rnn_cell.LSTMCell if self._mode == "lstm" else rnn_cell.GRUCell)(self._hidden_size, **kwargs)
        stack = rnn_cell.HybridSequentialRNNCell(prefix=self.prefix, params=self.params)
        with stack.name_scope():
            width = self._input_size
            for layer in range(self._num_layers):
                if self._dir == 2:
                    stack.add(rnn_cell.BidirectionalCell(cell("l%d_" % layer, width), cell("r%d_" % layer, width)))
                else:
                    stack.add(cell("l%d_" % layer, width))
                if self._dropout > 0 and layer != self._num_layers - 1:
                    stack.add(rnn_cell.DropoutCell(self._dropout))
                width = self._hidden_size * self._dir
        return stack

    def state_info(self, batch_size=0):
        recurrent = self._projection_size or self._hidden_size
        states = [{"shape": (self._num_layers * self._dir, batch_size, recurrent), "__layout__": "LNC",
                   "dtype": self._dtype}]
        if self._mode == "lstm":
            states.append({"shape": (self._num_layers * self._dir, batch_size, self._hidden_size),
                           "__layout__": "LNC", "dtype": self._dtype})
        return states

    def begin_state(self, batch_size=0, func=None, **kwargs):
        if func is None:
            import runtime
            func = runtime.nd.zeros
        states = []
        for i, info in enumerate(self.state_info(batch_size)):
            info = dict(info, **kwargs) if info is not None else dict(kwargs)
            states.append(func(name="%sh0_%d" % (self.prefix, i), **info))
        return states

    def __call__(self, inputs, states=None, sequence_length=None, **kwargs):
        self.skip_states = states is None
        if states is None:
            if isinstance(inputs, NDArray):
                batch_size = inputs.shape[self._layout.find("N")]
                states = self.begin_state(batch_size, ctx=inputs.context, dtype=inputs.dtype)
            else:
                from runtime.gluon.rnn.rnn_cell import symbol_zeros_batched_like
                states = self.begin_state(0, func=symbol_zeros_batched_like(inputs, self._layout.find("N")))
        if isinstance(states, (NDArray, Symbol)):
            states = [states]
        if self._use_sequence_length:
            return super().__call__(inputs, states, sequence_length, **kwargs)
        return super().__call__(inputs, states, **kwargs)

    def infer_shape(self, inputs, *args):
        """The input width decides the first layer's i2h weights; every other shape is known."""
        width = inputs.shape[2]
        recurrent = self._projection_size or self._hidden_size
        for layer in range(self._num_layers):
            for direction in ("l", "r")[:self._dir]:
                getattr(self, "%s%d_i2h_weight" % (direction, layer)).shape = (self._gates * self._hidden_size, width)
            width = recurrent * self._dir

    def _infer_param_shapes(self, inputs, *args):
        self.infer_shape(inputs, *args)
        for param in self.collect_params().values():
            param._finish_deferred_init()

    def hybrid_forward(self, F, inputs, states, sequence_length=None, **kwargs):
        import runtime
        if F is runtime.nd:
            batch_size = inputs.shape[self._layout.find("N")]
            for state, info in zip(states, self.state_info(batch_size)):
                if state.shape != info["shape"]:
                    raise ValueError("Invalid recurrent state shape. Expecting %s, got %s."
                                     % (str(info["shape"]), str(state.shape)))
        out = self._forward_kernel(F, inputs, states, sequence_length, **kwargs)
        return out[0] if self.skip_states else out

    def _forward_kernel(self, F, inputs, states, sequence_length, **kwargs):
        if self._layout == "NTC":
            inputs = F.swapaxes(inputs, dim1=0, dim2=1)
        kinds = ("i2h", "h2h", "h2r") if self._projection_size else ("i2h", "h2h")
        flat = [kwargs["%s%d_%s_%s" % (d, layer, kind, what)].reshape(-1)
                for what in ("weight", "bias") for layer in range(self._num_layers) for d in ("l", "r")[:self._dir]
                for kind in kinds if not (kind == "h2r" and what == "bias")]
        params = F._rnn_param_concat(*flat, dim=0)
        rnn_args = list(states)
        if self._use_sequence_length:
            rnn_args.append(sequence_length)
        rnn = F.RNN(inputs, params, *rnn_args, use_sequence_length=self._use_sequence_length,
                    state_size=self._hidden_size, projection_size=self._projection_size, num_layers=self._num_layers,
                    bidirectional=self._dir == 2, p=self._dropout, state_outputs=True, mode=self._mode,
                    lstm_state_clip_min=self._lstm_state_clip_min, lstm_state_clip_max=self._lstm_state_clip_max,
                    lstm_state_clip_nan=self._lstm_state_clip_nan)
        outputs, states = (rnn[0], [rnn[1], rnn[2]]) if self._mode == "lstm" else (rnn[0], [rnn[1]])
        if self._layout == "NTC":
            outputs = F.swapaxes(outputs, dim1=0, dim2=1)
        return outputs, states


class RNN(_RNNLayer):
    def __init__(self, hidden_size, num_layers=1, activation="relu", layout="TNC", dropout=0, bidirectional=False,
                 i2h_weight_initializer=None, h2h_weight_initializer=None, i2h_bias_initializer="zeros",
                 h2h_bias_initializer="zeros", input_size=0, dtype="float32", **kwargs):
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size, i2h_weight_initializer,
                         h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer, "rnn_" + activation,
                         None, None, None, None, False, dtype, **kwargs)


class LSTM(_RNNLayer):
    def __init__(self, hidden_size, num_layers=1, layout="TNC", dropout=0, bidirectional=False, input_size=0,
                 i2h_weight_initializer=None, h2h_weight_initializer=None, i2h_bias_initializer="zeros",
                 h2h_bias_initializer="zeros", projection_size=None, h2r_weight_initializer=None,
                 state_clip_min=None, state_clip_max=None, state_clip_nan=False, dtype="float32", **kwargs):
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size, i2h_weight_initializer,
                         h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer, "lstm", projection_size,
                         h2r_weight_initializer, state_clip_min, state_clip_max, state_clip_nan, dtype, **kwargs)


class GRU(_RNNLayer):
    def __init__(self, hidden_size, num_layers=1, layout="TNC", dropout=0, bidirectional=False, input_size=0,
                 i2h_weight_initializer=None, h2h_weight_initializer=None, i2h_bias_initializer="zeros",
                 h2h_bias_initializer="zeros", dtype="float32", **kwargs):
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size, i2h_weight_initializer,
                         h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer, "gru", None, None, None,
                         None, False, dtype, **kwargs)
