"""`gluon.contrib.rnn` cells: LSTM with a projected state (LSTMP), variational dropout, and the
convolutional RNN / LSTM / GRU cells over 1, 2 or 3 spatial dimensions, with MXNet 1.x's parameter
names, state layouts and output names."""
from __future__ import annotations

from runtime.gluon.rnn.rnn_cell import BidirectionalCell, HybridRecurrentCell, ModifierCell


class LSTMPCell(HybridRecurrentCell):
    """An LSTM whose recurrent state r is the hidden state projected to `projection_size`
    (r = h W_h2r^T, no bias); states [r, c], output r."""

    def __init__(self, hidden_size, projection_size, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 h2r_weight_initializer=None, i2h_bias_initializer="zeros", h2h_bias_initializer="zeros",
                 input_size=0, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._hidden_size = hidden_size
        self._input_size = input_size
        self._projection_size = projection_size
        rows = 4 * hidden_size
        self.i2h_weight = self.params.get("i2h_weight", shape=(rows, input_size), init=i2h_weight_initializer,
                                          allow_deferred_init=True)
        self.h2h_weight = self.params.get("h2h_weight", shape=(rows, projection_size), init=h2h_weight_initializer,
                                          allow_deferred_init=True)
        self.h2r_weight = self.params.get("h2r_weight", shape=(projection_size, hidden_size),
                                          init=h2r_weight_initializer, allow_deferred_init=True)
        self.i2h_bias = self.params.get("i2h_bias", shape=(rows,), init=i2h_bias_initializer, allow_deferred_init=True)
        self.h2h_bias = self.params.get("h2h_bias", shape=(rows,), init=h2h_bias_initializer, allow_deferred_init=True)

    def state_info(self, batch_size=0):
        return [{"shape": (batch_size, self._projection_size), "__layout__": "NC"},
                {"shape": (batch_size, self._hidden_size), "__layout__": "NC"}]

    def _alias(self):
        return "lstmp"

    def __repr__(self):
        shape = self.i2h_weight.shape
        proj = self.h2r_weight.shape
        return "{name}({i} -> {h} -> {p})".format(name=self.__class__.__name__, i=shape[1] if shape[1] else None,
                                                 h=shape[0], p=proj[0])

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, h2r_weight, i2h_bias, h2h_bias):
        prefix = "t%d_" % self._counter
        rows = 4 * self._hidden_size
        i2h = F.FullyConnected(data=inputs, weight=i2h_weight, bias=i2h_bias, num_hidden=rows, name=prefix + "i2h")
        h2h = F.FullyConnected(data=states[0], weight=h2h_weight, bias=h2h_bias, num_hidden=rows,
                               name=prefix + "h2h")
        gates = F.elemwise_add(i2h, h2h, name=prefix + "plus0")
        sliced = F.SliceChannel(gates, num_outputs=4, name=prefix + "slice")
        in_gate = F.Activation(sliced[0], act_type="sigmoid", name=prefix + "i")
        forget_gate = F.Activation(sliced[1], act_type="sigmoid", name=prefix + "f")
        in_transform = F.Activation(sliced[2], act_type="tanh", name=prefix + "c")
        out_gate = F.Activation(sliced[3], act_type="sigmoid", name=prefix + "o")
        next_c = F.elemwise_add(F.elemwise_mul(forget_gate, states[1], name=prefix + "mul0"),
                                F.elemwise_mul(in_gate, in_transform, name=prefix + "mul1"), name=prefix + "state")
        hidden = F.elemwise_mul(out_gate, F.Activation(next_c, act_type="tanh", name=prefix + "activation0"),
                                name=prefix + "hidden")
        next_r = F.FullyConnected(data=hidden, weight=h2r_weight, num_hidden=self._projection_size, no_bias=True,
                                  name=prefix + "out")
        return next_r, [next_r, next_c]


class VariationalDropoutCell(ModifierCell):
    """Dropout on the inputs, the first state and the outputs with one mask per sequence: the masks are
    drawn at the first step after `reset()` (which `unroll` calls) and reused at every later step."""

    def __init__(self, base_cell, drop_inputs=0.0, drop_states=0.0, drop_outputs=0.0):
        if isinstance(base_cell, BidirectionalCell):
            raise AssertionError("BidirectionalCell doesn't support variational state dropout. "
                                 "Please add VariationalDropoutCell to the cells underneath instead.")
        super().__init__(base_cell)
        self.drop_inputs = drop_inputs
        self.drop_states = drop_states
        self.drop_outputs = drop_outputs
        self._masks = {}

    def _alias(self):
        return "vardrop"

    def reset(self):
        super().reset()
        self._masks = {}

    def _mask(self, F, key, p, like):
        """The mask for `key` drawn once per sequence; one drawn in another namespace (a symbolic
        trace against eager arrays) is not reused."""
        mask = self._masks.get(key)
        if mask is None or not isinstance(mask, type(like)):
            mask = F.Dropout(F.ones_like(like), p=p)
            self._masks[key] = mask
        return mask

    def hybrid_forward(self, F, inputs, states):
        if self.drop_inputs:
            inputs = inputs * self._mask(F, "inputs", self.drop_inputs, inputs)
        if self.drop_states:
            states = list(states)
            states[0] = states[0] * self._mask(F, "states", self.drop_states, states[0])
        output, next_states = self.base_cell(inputs, states)
        if self.drop_outputs:
            output = output * self._mask(F, "outputs", self.drop_outputs, output)
        return output, next_states

    def __repr__(self):
        return "{name}(p_out = {o}, p_state = {s})".format(name=self.__class__.__name__, o=self.drop_outputs,
                                                          s=self.drop_states)


def _as_tuple(value, dims):
    if isinstance(value, int):
        return (value,) * dims
    if len(value) != dims:
        raise AssertionError("%s should have %d elements" % (value, dims))
    return tuple(value)


class _ConvRNNCellBase(HybridRecurrentCell):
    """i2h and h2h are convolutions; h2h keeps the state's spatial size (odd kernel, 'same' padding),
    so the state's shape is the i2h convolution's output shape for `input_shape` (channels first
    in the layout's order, batch excluded)."""
    gates = 1
    states = 1

    def __init__(self, input_shape, hidden_channels, i2h_kernel, h2h_kernel, i2h_pad, i2h_dilate, h2h_dilate,
                 i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer,
                 dims, conv_layout, activation, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._hidden_channels = hidden_channels
        self._input_shape = tuple(input_shape)
        self._conv_layout = conv_layout
        self._activation = activation
        self._i2h_kernel = _as_tuple(i2h_kernel, dims)
        self._h2h_kernel = _as_tuple(h2h_kernel, dims)
        if any(k % 2 == 0 for k in self._h2h_kernel):
            raise AssertionError("Only support odd number, get h2h_kernel= %s" % str(h2h_kernel))
        self._i2h_pad = _as_tuple(i2h_pad, dims)
        self._i2h_dilate = _as_tuple(i2h_dilate, dims)
        self._h2h_dilate = _as_tuple(h2h_dilate, dims)
        self._h2h_pad = tuple(d * (k - 1) // 2 for d, k in zip(self._h2h_dilate, self._h2h_kernel))
        # input_shape has no batch axis: the layout's channel position moves one to the left
        self._channel_axis = conv_layout.find("C")
        in_channels = self._input_shape[self._channel_axis - 1]
        spatial = [s for i, s in enumerate(self._input_shape) if i != self._channel_axis - 1]
        out_spatial = tuple(s + 2 * p - d * (k - 1)
                            for s, p, d, k in zip(spatial, self._i2h_pad, self._i2h_dilate, self._i2h_kernel))
        state = list(out_spatial)
        state.insert(self._channel_axis - 1, hidden_channels)
        self._state_shape = tuple(state)
        rows = self.gates * hidden_channels
        self.i2h_weight = self.params.get("i2h_weight", shape=(rows, in_channels) + self._i2h_kernel,
                                          init=i2h_weight_initializer, allow_deferred_init=True)
        self.h2h_weight = self.params.get("h2h_weight", shape=(rows, hidden_channels) + self._h2h_kernel,
                                          init=h2h_weight_initializer, allow_deferred_init=True)
        self.i2h_bias = self.params.get("i2h_bias", shape=(rows,), init=i2h_bias_initializer, allow_deferred_init=True)
        self.h2h_bias = self.params.get("h2h_bias", shape=(rows,), init=h2h_bias_initializer, allow_deferred_init=True)

    def state_info(self, batch_size=0):
        return [{"shape": (batch_size,) + self._state_shape, "__layout__": self._conv_layout}
                for _ in range(self.states)]

    def __repr__(self):
        shape = self.i2h_weight.shape
        return "{name}({i} -> {h}, {layout})".format(name=self.__class__.__name__, i=shape[1] if shape[1] else None,
                                                    h=shape[0] // self.gates, layout=self._conv_layout)

    def _convolutions(self, F, prefix, inputs, state, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        filters = self.gates * self._hidden_channels
        i2h = F.Convolution(data=inputs, weight=i2h_weight, bias=i2h_bias, kernel=self._i2h_kernel,
                            pad=self._i2h_pad, dilate=self._i2h_dilate, num_filter=filters,
                            layout=self._conv_layout, name=prefix + "i2h")
        h2h = F.Convolution(data=state, weight=h2h_weight, bias=h2h_bias, kernel=self._h2h_kernel,
                            pad=self._h2h_pad, dilate=self._h2h_dilate, num_filter=filters,
                            layout=self._conv_layout, name=prefix + "h2h")
        return i2h, h2h


class _ConvRNNCell(_ConvRNNCellBase):
    def _alias(self):
        return "conv_rnn"

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = "t%d_" % self._counter
        i2h, h2h = self._convolutions(F, prefix, inputs, states[0], i2h_weight, h2h_weight, i2h_bias, h2h_bias)
        output = self._get_activation(F, F.elemwise_add(i2h, h2h, name=prefix + "plus0"), self._activation,
                                      name=prefix + "out")
        return output, [output]


class _ConvLSTMCell(_ConvRNNCellBase):
    """Gates in, forget, cell input, out along the channel axis; states [h, c]."""
    gates = 4
    states = 2

    def _alias(self):
        return "conv_lstm"

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = "t%d_" % self._counter
        i2h, h2h = self._convolutions(F, prefix, inputs, states[0], i2h_weight, h2h_weight, i2h_bias, h2h_bias)
        gates = F.elemwise_add(i2h, h2h, name=prefix + "plus0")
        sliced = F.SliceChannel(gates, num_outputs=4, axis=self._channel_axis, name=prefix + "slice")
        in_gate = F.Activation(sliced[0], act_type="sigmoid", name=prefix + "i")
        forget_gate = F.Activation(sliced[1], act_type="sigmoid", name=prefix + "f")
        in_transform = self._get_activation(F, sliced[2], self._activation, name=prefix + "c")
        out_gate = F.Activation(sliced[3], act_type="sigmoid", name=prefix + "o")
        next_c = F.elemwise_add(F.elemwise_mul(forget_gate, states[1], name=prefix + "mul0"),
                                F.elemwise_mul(in_gate, in_transform, name=prefix + "mul1"), name=prefix + "state")
        next_h = F.elemwise_mul(out_gate, self._get_activation(F, next_c, self._activation),
                                name=prefix + "out")
        return next_h, [next_h, next_c]


class _ConvGRUCell(_ConvRNNCellBase):
    """Gates reset, update, new along the channel axis; h' = (1 - z) * n + z * h."""
    gates = 3

    def _alias(self):
        return "conv_gru"

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = "t%d_" % self._counter
        i2h, h2h = self._convolutions(F, prefix, inputs, states[0], i2h_weight, h2h_weight, i2h_bias, h2h_bias)
        i2h_r, i2h_z, i2h = F.SliceChannel(i2h, num_outputs=3, axis=self._channel_axis, name=prefix + "i2h_slice")
        h2h_r, h2h_z, h2h = F.SliceChannel(h2h, num_outputs=3, axis=self._channel_axis, name=prefix + "h2h_slice")
        reset_gate = F.Activation(F.elemwise_add(i2h_r, h2h_r), act_type="sigmoid", name=prefix + "r_act")
        update_gate = F.Activation(F.elemwise_add(i2h_z, h2h_z), act_type="sigmoid", name=prefix + "z_act")
        candidate = self._get_activation(F, F.elemwise_add(i2h, F.elemwise_mul(reset_gate, h2h)), self._activation,
                                         name=prefix + "h_act")
        keep_new = F.elemwise_sub(F.ones_like(update_gate), update_gate)
        next_h = F.elemwise_add(F.elemwise_mul(keep_new, candidate), F.elemwise_mul(update_gate, states[0]),
                                name=prefix + "out")
        return next_h, [next_h]


def _conv_cell(base, dims, layout, doc):
    """A public Conv{dims}D cell class: the base cell with that many spatial dimensions and the
    defaults MXNet gives it (no i2h padding, no dilation, zero biases, tanh)."""
    def __init__(self, input_shape, hidden_channels, i2h_kernel, h2h_kernel, i2h_pad=(0,) * dims,
                 i2h_dilate=(1,) * dims, h2h_dilate=(1,) * dims, i2h_weight_initializer=None,
                 h2h_weight_initializer=None, i2h_bias_initializer="zeros", h2h_bias_initializer="zeros",
                 conv_layout=layout, activation="tanh", prefix=None, params=None):
        base.__init__(self, input_shape, hidden_channels, i2h_kernel, h2h_kernel, i2h_pad, i2h_dilate, h2h_dilate,
                      i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer,
                      dims, conv_layout, activation, prefix=prefix, params=params)
    name = "Conv%dD%sCell" % (dims, {_ConvRNNCell: "RNN", _ConvLSTMCell: "LSTM", _ConvGRUCell: "GRU"}[base])
    return type(name, (base,), {"__init__": __init__, "__doc__": doc, "__module__": __name__})


_LAYOUTS = {1: "NCW", 2: "NCHW", 3: "NCDHW"}
Conv1DRNNCell, Conv2DRNNCell, Conv3DRNNCell = (
    _conv_cell(_ConvRNNCell, d, _LAYOUTS[d], "Convolutional RNN cell over %d spatial dimension(s)." % d)
    for d in (1, 2, 3))
Conv1DLSTMCell, Conv2DLSTMCell, Conv3DLSTMCell = (
    _conv_cell(_ConvLSTMCell, d, _LAYOUTS[d], "Convolutional LSTM cell over %d spatial dimension(s)." % d)
    for d in (1, 2, 3))
Conv1DGRUCell, Conv2DGRUCell, Conv3DGRUCell = (
    _conv_cell(_ConvGRUCell, d, _LAYOUTS[d], "Convolutional GRU cell over %d spatial dimension(s)." % d)
    for d in (1, 2, 3))


def dynamic_unroll(cell, inputs, begin_state, drop_inputs=0, drop_outputs=0, layout="TNC", valid_length=None):
    """`gluon.contrib.rnn.dynamic_unroll`: the cell run over the time axis by `contrib.foreach`, so
    a hybridized graph holds one loop node rather than a copy of the cell per step. With
    `valid_length`, each sequence's states stop changing after its length (a step counter rides
    along as an extra state) and its outputs after that are zeros (SequenceMask). As in MXNet
    1.9.1, Dropout on the inputs and outputs shares its mask along the axis the layout names time."""
    import runtime
    from runtime.symbol import Symbol
    symbolic = isinstance(inputs, Symbol) or (isinstance(inputs, (list, tuple)) and isinstance(inputs[0], Symbol))
    F = runtime.sym if symbolic else runtime.nd
    axis = layout.find("T")
    if isinstance(inputs, (list, tuple)):  # steps given one by one: merged along the time axis
        inputs = F.stack(*inputs, axis=axis)
    axes = None
    if axis != 0:  # the loop runs over axis 0
        axes = list(range(len(layout)))
        axes[0], axes[axis] = axes[axis], axes[0]
        inputs = F.transpose(inputs, axes=axes)
    if drop_inputs:
        inputs = F.Dropout(inputs, p=drop_inputs, axes=(axis,))
    states = begin_state
    if valid_length is None:
        def body(step, states):
            return cell(step, states)
    else:
        states = list(states) + [F.zeros((1,))]

        def body(step, states):
            previous, counter = states[:-1], states[-1]
            out, new_states = cell(step, previous)
            alive = F.broadcast_greater(valid_length, counter)
            return out, [F.where(alive, new, old) for new, old in zip(new_states, previous)] + [counter + 1]
    outputs, states = F.contrib.foreach(body, inputs, states)
    if drop_outputs:
        outputs = F.Dropout(outputs, p=drop_outputs, axes=(axis,))
    if axes is not None:
        outputs = F.transpose(outputs, axes=axes)
    if valid_length is None:
        return outputs, states
    outputs = F.SequenceMask(outputs, sequence_length=valid_length, use_sequence_length=True, axis=axis)
    return outputs, states[:-1]
