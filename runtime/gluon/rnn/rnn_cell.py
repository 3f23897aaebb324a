"""`gluon.rnn` cells: one time step at a time (`cell(x, states)`) or a whole sequence (`unroll`), on
NDArrays or Symbols, with MXNet 1.x's parameter names, gate orders and state layouts."""
from __future__ import annotations

from runtime.base import string_types
from runtime.gluon.block import Block, HybridBlock
from runtime.ndarray import NDArray
from runtime.symbol import Symbol

TENSORS = (Symbol, NDArray)


def _namespaces():
    import runtime
    return runtime.nd, runtime.sym


def _format_sequence(length, inputs, layout, merge, in_layout=None):
    """(inputs as a list of steps or one tensor as `merge` asks, time axis, F, batch size)."""
    if inputs is None:
        raise AssertionError("unroll(inputs=None) has been deprecated. Please create input variables outside unroll.")
    nd, sym = _namespaces()
    axis = layout.find("T")
    batch_axis = layout.find("N")
    batch_size = 0
    in_axis = in_layout.find("T") if in_layout is not None else axis
    if isinstance(inputs, Symbol):
        F = sym
        if merge is False:
            if len(inputs.list_outputs()) != 1:
                raise AssertionError("unroll doesn't allow grouped symbol as input. Please convert to list with "
                                     "list(inputs) first or let unroll handle splitting.")
            inputs = list(sym.split(inputs, axis=in_axis, num_outputs=length, squeeze_axis=1))
    elif isinstance(inputs, NDArray):
        F = nd
        batch_size = inputs.shape[batch_axis]
        if merge is False:
            if length is not None and length != inputs.shape[in_axis]:
                raise AssertionError("length %s does not match the inputs' time axis %d" % (length, inputs.shape[in_axis]))
            split = nd.split(inputs, axis=in_axis, num_outputs=inputs.shape[in_axis], squeeze_axis=1)
            inputs = split if isinstance(split, list) else [split]
    else:
        if length is not None and len(inputs) != length:
            raise AssertionError("%d inputs for a sequence of %d steps" % (len(inputs), length))
        F = sym if isinstance(inputs[0], Symbol) else nd
        if F is nd:
            batch_size = inputs[0].shape[0]  # each step is (batch, features), whatever the layout
        if merge is True:
            inputs = F.stack(*inputs, axis=axis)
            in_axis = axis
    if isinstance(inputs, TENSORS) and axis != in_axis:
        inputs = F.swapaxes(inputs, dim1=axis, dim2=in_axis)
    return inputs, axis, F, batch_size


def _mask_sequence_variable_length(F, data, length, valid_length, time_axis, merge):
    if not isinstance(data, TENSORS):
        data = F.stack(*data, axis=time_axis)
    outputs = F.SequenceMask(data, sequence_length=valid_length, use_sequence_length=True, axis=time_axis)
    if not merge:
        outputs = F.split(outputs, num_outputs=length, axis=time_axis, squeeze_axis=True)
        outputs = outputs if isinstance(outputs, list) else list(outputs) if isinstance(outputs, Symbol) else [outputs]
    return outputs


def _reverse_sequences(sequences, unroll_step, valid_length=None):
    nd, sym = _namespaces()
    F = sym if isinstance(sequences[0], Symbol) else nd
    if valid_length is None:
        return list(reversed(sequences))
    reversed_sequences = F.SequenceReverse(F.stack(*sequences, axis=0), sequence_length=valid_length,
                                           use_sequence_length=True)
    split = F.split(reversed_sequences, axis=0, num_outputs=unroll_step, squeeze_axis=True)
    return list(split) if not isinstance(split, NDArray) else [split]


def symbol_zeros_batched_like(data, data_batch_axis: int):
    """A `func` for begin_state on Symbols: zeros whose batch dimension is the data's.

    MXNet 1.x makes symbolic begin states `zeros(shape=(0, hidden))`, reading 0 as a dimension that
    shape inference completes later; here shapes are concrete, so the state is broadcast to the
    data's batch size instead, which gives the same shapes and values."""
    _, sym = _namespaces()

    def zeros(name=None, **info):
        shape = list(info.get("shape", ()))
        batch_axis = info.get("__layout__", "NC").find("N")
        shape[batch_axis] = 1
        base = sym.zeros(shape=tuple(shape), dtype=info.get("dtype"))
        return sym.broadcast_like(base, data, lhs_axes=(batch_axis,), rhs_axes=(data_batch_axis,), name=name)
    return zeros


def _get_begin_state(cell, F, begin_state, inputs, batch_size, layout="NTC"):
    if begin_state is not None:
        return begin_state
    nd, _ = _namespaces()
    if F is nd:
        ctx = inputs.context if isinstance(inputs, TENSORS) else inputs[0].context
        with ctx:
            return cell.begin_state(func=F.zeros, batch_size=batch_size)
    if isinstance(inputs, TENSORS):
        return cell.begin_state(func=symbol_zeros_batched_like(inputs, layout.find("N")), batch_size=batch_size)
    return cell.begin_state(func=symbol_zeros_batched_like(inputs[0], 0), batch_size=batch_size)


class RecurrentCell(Block):
    """A cell: `state_info`, `begin_state`, one step by calling it, a sequence by `unroll`."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._modified = False
        self.reset()

    def reset(self):
        self._init_counter = -1
        self._counter = -1
        for cell in self._children.values():
            cell.reset()

    def state_info(self, batch_size=0):
        raise NotImplementedError()

    def begin_state(self, batch_size=0, func=None, **kwargs):
        if self._modified:
            raise AssertionError("After applying modifier cells (e.g. ZoneoutCell) the base cell cannot be called "
                                 "directly. Call the modifier cell instead.")
        if func is None:
            func = _namespaces()[0].zeros
        states = []
        for info in self.state_info(batch_size):
            self._init_counter += 1
            info = dict(info, **kwargs) if info is not None else dict(kwargs)
            states.append(func(name="%sbegin_state_%d" % (self._prefix, self._init_counter), **info))
        return states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None, valid_length=None):
        self.reset()
        inputs, axis, F, batch_size = _format_sequence(length, inputs, layout, False)
        states = _get_begin_state(self, F, begin_state, inputs, batch_size)
        outputs, all_states = [], []
        for i in range(length):
            output, states = self(inputs[i], states)
            outputs.append(output)
            if valid_length is not None:
                all_states.append(states)
        if valid_length is not None:
            states = [F.SequenceLast(F.stack(*per_step, axis=0), sequence_length=valid_length,
                                     use_sequence_length=True, axis=0) for per_step in zip(*all_states)]
            outputs = _mask_sequence_variable_length(F, outputs, length, valid_length, axis, True)
        outputs, _, _, _ = _format_sequence(length, outputs, layout, merge_outputs)
        return outputs, states

    def _get_activation(self, F, inputs, activation, **kwargs):
        from runtime.gluon.nn import LeakyReLU
        func = {"tanh": F.tanh, "relu": F.relu, "sigmoid": F.sigmoid, "softsign": F.softsign}.get(activation) \
            if isinstance(activation, string_types) else None
        if func is not None:
            return func(inputs, **kwargs)
        if isinstance(activation, string_types):
            return F.Activation(inputs, act_type=activation, **kwargs)
        if isinstance(activation, LeakyReLU):
            return F.LeakyReLU(inputs, act_type="leaky", slope=activation._alpha, **kwargs)
        return activation(inputs, **kwargs)

    def forward(self, inputs, states):
        self._counter += 1
        return super().forward(inputs, states)


class HybridRecurrentCell(RecurrentCell, HybridBlock):
    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError


def _fc(F, data, weight, bias, hidden, name):
    return F.FullyConnected(data=data, weight=weight, bias=bias, num_hidden=hidden, name=name)


class _GatedCell(HybridRecurrentCell):
    """The i2h / h2h weights and biases of RNN, LSTM and GRU cells (`gates` blocks of hidden_size rows)."""
    gates = 1
    states = 1

    def __init__(self, hidden_size, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros", input_size=0, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._hidden_size = hidden_size
        self._input_size = input_size
        rows = self.gates * hidden_size
        self.i2h_weight = self.params.get("i2h_weight", shape=(rows, input_size), init=i2h_weight_initializer,
                                          allow_deferred_init=True)
        self.h2h_weight = self.params.get("h2h_weight", shape=(rows, hidden_size), init=h2h_weight_initializer,
                                          allow_deferred_init=True)
        self.i2h_bias = self.params.get("i2h_bias", shape=(rows,), init=i2h_bias_initializer, allow_deferred_init=True)
        self.h2h_bias = self.params.get("h2h_bias", shape=(rows,), init=h2h_bias_initializer, allow_deferred_init=True)

    def state_info(self, batch_size=0):
        return [{"shape": (batch_size, self._hidden_size), "__layout__": "NC"} for _ in range(self.states)]

    def __repr__(self):
        shape = self.i2h_weight.shape
        mapping = "{0} -> {1}".format(shape[1] if shape[1] else None, shape[0])
        return "{name}({mapping}{extra})".format(name=self.__class__.__name__, mapping=mapping, extra=self._extra_repr())

    def _extra_repr(self):
        return ""


class RNNCell(_GatedCell):
    """h' = activation(x W_i2h^T + b_i2h + h W_h2h^T + b_h2h)."""

    def __init__(self, hidden_size, activation="tanh", i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros", input_size=0, prefix=None, params=None):
        super().__init__(hidden_size, i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, input_size, prefix, params)
        self._activation = activation

    def _alias(self):
        return "rnn"

    def _extra_repr(self):
        return ", {}".format(self._activation) if self._activation else ""

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = "t%d_" % self._counter
        i2h = _fc(F, inputs, i2h_weight, i2h_bias, self._hidden_size, prefix + "i2h")
        h2h = _fc(F, states[0], h2h_weight, h2h_bias, self._hidden_size, prefix + "h2h")
        output = self._get_activation(F, F.elemwise_add(i2h, h2h, name=prefix + "plus0"), self._activation,
                                      name=prefix + "out")
        return output, [output]


class LSTMCell(_GatedCell):
    """Gates in, forget, cell input, out (in that order of the weights' rows); states [h, c]."""
    gates = 4
    states = 2

    def __init__(self, hidden_size, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros", input_size=0, prefix=None, params=None,
                 activation="tanh", recurrent_activation="sigmoid"):
        super().__init__(hidden_size, i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, input_size, prefix, params)
        self._activation = activation
        self._recurrent_activation = recurrent_activation

    def _alias(self):
        return "lstm"

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = "t%d_" % self._counter
        i2h = _fc(F, inputs, i2h_weight, i2h_bias, 4 * self._hidden_size, prefix + "i2h")
        h2h = _fc(F, states[0], h2h_weight, h2h_bias, 4 * self._hidden_size, prefix + "h2h")
        gates = F.elemwise_add(i2h, h2h, name=prefix + "plus0")
        sliced = F.SliceChannel(gates, num_outputs=4, name=prefix + "slice")
        in_gate = self._get_activation(F, sliced[0], self._recurrent_activation, name=prefix + "i")
        forget_gate = self._get_activation(F, sliced[1], self._recurrent_activation, name=prefix + "f")
        in_transform = self._get_activation(F, sliced[2], self._activation, name=prefix + "c")
        out_gate = self._get_activation(F, sliced[3], self._recurrent_activation, name=prefix + "o")
        next_c = F.elemwise_add(F.elemwise_mul(forget_gate, states[1], name=prefix + "mul0"),
                                F.elemwise_mul(in_gate, in_transform, name=prefix + "mul1"), name=prefix + "state")
        next_h = F.elemwise_mul(out_gate, self._get_activation(F, next_c, self._activation, name=prefix + "activation0"),
                                name=prefix + "out")
        return next_h, [next_h, next_c]


class GRUCell(_GatedCell):
    """Gates reset, update, new (rows in that order); h' = (1 - z) * n + z * h."""
    gates = 3

    def __init__(self, hidden_size, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros", input_size=0, prefix=None, params=None,
                 activation="tanh", recurrent_activation="sigmoid"):
        super().__init__(hidden_size, i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, input_size, prefix, params)
        self._activation = activation
        self._recurrent_activation = recurrent_activation

    def _alias(self):
        return "gru"

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = "t%d_" % self._counter
        prev_h = states[0]
        i2h = _fc(F, inputs, i2h_weight, i2h_bias, 3 * self._hidden_size, prefix + "i2h")
        h2h = _fc(F, prev_h, h2h_weight, h2h_bias, 3 * self._hidden_size, prefix + "h2h")
        i2h_r, i2h_z, i2h = F.SliceChannel(i2h, num_outputs=3, name=prefix + "i2h_slice")
        h2h_r, h2h_z, h2h = F.SliceChannel(h2h, num_outputs=3, name=prefix + "h2h_slice")
        reset_gate = self._get_activation(F, F.elemwise_add(i2h_r, h2h_r, name=prefix + "plus0"),
                                          self._recurrent_activation, name=prefix + "r_act")
        update_gate = self._get_activation(F, F.elemwise_add(i2h_z, h2h_z, name=prefix + "plus1"),
                                           self._recurrent_activation, name=prefix + "z_act")
        next_h_tmp = self._get_activation(F, F.elemwise_add(i2h, F.elemwise_mul(reset_gate, h2h, name=prefix + "mul0"),
                                                            name=prefix + "plus2"), self._activation,
                                          name=prefix + "h_act")
        ones = F.ones_like(update_gate, name=prefix + "ones_like0")
        next_h = F.elemwise_add(F.elemwise_mul(F.elemwise_sub(ones, update_gate, name=prefix + "minus0"), next_h_tmp,
                                               name=prefix + "mul1"),
                                F.elemwise_mul(update_gate, prev_h, name=prefix + "mul20"), name=prefix + "out")
        return next_h, [next_h]


class _SequentialCells:
    """What SequentialRNNCell and HybridSequentialRNNCell share: children stacked, states concatenated."""

    def add(self, cell):
        self.register_child(cell)

    def state_info(self, batch_size=0):
        return [info for cell in self._children.values() for info in cell.state_info(batch_size)]

    def begin_state(self, **kwargs):
        if self._modified:
            raise AssertionError("After applying modifier cells the base cell cannot be called directly.")
        return [state for cell in self._children.values() for state in cell.begin_state(**kwargs)]

    def __getitem__(self, i):
        return list(self._children.values())[i]

    def __len__(self):
        return len(self._children)

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None, valid_length=None):
        self.reset()
        inputs, _, F, batch_size = _format_sequence(length, inputs, layout, None)
        begin_state = _get_begin_state(self, F, begin_state, inputs, batch_size, layout)
        position = 0
        next_states = []
        cells = list(self._children.values())
        for i, cell in enumerate(cells):
            count = len(cell.state_info())
            states = begin_state[position:position + count]
            position += count
            inputs, states = cell.unroll(length, inputs=inputs, begin_state=states, layout=layout,
                                         merge_outputs=None if i < len(cells) - 1 else merge_outputs,
                                         valid_length=valid_length)
            next_states.extend(states)
        return inputs, next_states

    def _step(self, inputs, states):
        self._counter += 1
        next_states = []
        position = 0
        for cell in self._children.values():
            if isinstance(cell, BidirectionalCell):
                raise AssertionError("BidirectionalCell cannot be stepped; use unroll")
            count = len(cell.state_info())
            state = states[position:position + count]
            position += count
            inputs, state = cell(inputs, state)
            next_states.append(state)
        return inputs, sum(next_states, [])


class SequentialRNNCell(_SequentialCells, RecurrentCell):
    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def __call__(self, inputs, states):
        return self._step(inputs, states)


class HybridSequentialRNNCell(_SequentialCells, HybridRecurrentCell):
    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def __call__(self, inputs, states):
        return self._step(inputs, states)


class DropoutCell(HybridRecurrentCell):
    """Dropout on the inputs of each step (no state)."""

    def __init__(self, rate, axes=(), prefix=None, params=None):
        super().__init__(prefix, params)
        if not isinstance(rate, (int, float)):
            raise AssertionError("rate must be a number")
        self._rate = rate
        self._axes = axes

    def __repr__(self):
        return "{name}(rate={_rate}, axes={_axes})".format(name=self.__class__.__name__, **self.__dict__)

    def state_info(self, batch_size=0):
        return []

    def _alias(self):
        return "dropout"

    def hybrid_forward(self, F, inputs, states):
        if self._rate > 0:
            inputs = F.Dropout(data=inputs, p=self._rate, axes=self._axes, name="t%d_fwd" % self._counter)
        return inputs, states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None, valid_length=None):
        self.reset()
        inputs, _, F, _ = _format_sequence(length, inputs, layout, merge_outputs)
        if isinstance(inputs, TENSORS):
            return self.hybrid_forward(F, inputs, begin_state if begin_state else [])
        return super().unroll(length, inputs, begin_state=begin_state, layout=layout, merge_outputs=merge_outputs,
                              valid_length=None)


class ModifierCell(HybridRecurrentCell):
    """A cell that changes what its base cell computes; it shares the base cell's parameters."""

    def __init__(self, base_cell):
        if base_cell._modified:
            raise AssertionError("Cell %s is already modified. One cell cannot be modified twice" % base_cell.name)
        base_cell._modified = True
        super().__init__(prefix=base_cell.prefix + self._alias(), params=None)
        self.base_cell = base_cell

    @property
    def params(self):
        return self.base_cell.params

    def state_info(self, batch_size=0):
        return self.base_cell.state_info(batch_size)

    def begin_state(self, func=None, **kwargs):
        if self._modified:
            raise AssertionError("After applying modifier cells the base cell cannot be called directly.")
        self.base_cell._modified = False
        begin = self.base_cell.begin_state(func=func, **kwargs)
        self.base_cell._modified = True
        return begin

    def hybrid_forward(self, F, inputs, states):
        raise NotImplementedError

    def __repr__(self):
        return "{name}({base_cell})".format(name=self.__class__.__name__, base_cell=self.base_cell)


class ZoneoutCell(ModifierCell):
    """Keeps each output / state element from the previous step with the given probabilities (training)."""

    def __init__(self, base_cell, zoneout_outputs=0.0, zoneout_states=0.0):
        if isinstance(base_cell, BidirectionalCell):
            raise AssertionError("BidirectionalCell doesn't support zoneout since it doesn't support step. "
                                 "Please add ZoneoutCell to the cells underneath instead.")
        super().__init__(base_cell)
        self.zoneout_outputs = zoneout_outputs
        self.zoneout_states = zoneout_states
        self._prev_output = None

    def _alias(self):
        return "zoneout"

    def reset(self):
        super().reset()
        self._prev_output = None

    def hybrid_forward(self, F, inputs, states):
        cell, p_outputs, p_states = self.base_cell, self.zoneout_outputs, self.zoneout_states
        next_output, next_states = cell(inputs, states)

        def mask(p, like):
            return F.Dropout(F.ones_like(like), p=p)

        prev_output = self._prev_output if self._prev_output is not None else F.zeros_like(next_output)
        output = F.where(mask(p_outputs, next_output), next_output, prev_output) if p_outputs != 0.0 else next_output
        states = ([F.where(mask(p_states, new), new, old) for new, old in zip(next_states, states)]
                  if p_states != 0.0 else next_states)
        self._prev_output = output
        return output, states


class ResidualCell(ModifierCell):
    """Adds each step's input to the base cell's output."""

    def __init__(self, base_cell):
        super().__init__(base_cell)

    def _alias(self):
        return "residual"

    def hybrid_forward(self, F, inputs, states):
        output, states = self.base_cell(inputs, states)
        output = F.elemwise_add(output, inputs, name="t%d_fwd" % self._counter)
        return output, states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None, valid_length=None):
        self.reset()
        self.base_cell._modified = False
        outputs, states = self.base_cell.unroll(length, inputs=inputs, begin_state=begin_state, layout=layout,
                                                merge_outputs=merge_outputs, valid_length=valid_length)
        self.base_cell._modified = True
        merge_outputs = isinstance(outputs, TENSORS) if merge_outputs is None else merge_outputs
        inputs, axis, F, _ = _format_sequence(length, inputs, layout, merge_outputs)
        if valid_length is not None:
            inputs = _mask_sequence_variable_length(F, inputs, length, valid_length, axis, merge_outputs)
        if merge_outputs:
            outputs = F.elemwise_add(outputs, inputs)
        else:
            outputs = [F.elemwise_add(i, j) for i, j in zip(outputs, inputs)]
        return outputs, states


class BidirectionalCell(HybridRecurrentCell):
    """Runs one cell forward and one backward over the sequence; outputs concatenated on features."""

    def __init__(self, l_cell, r_cell, output_prefix="bi_"):
        super().__init__(prefix="", params=None)
        self.register_child(l_cell, "l_cell")
        self.register_child(r_cell, "r_cell")
        self._output_prefix = output_prefix

    def __call__(self, inputs, states):
        raise NotImplementedError("Bidirectional cannot be stepped. Please use unroll")

    def __repr__(self):
        return "{name}(forward={l_cell}, backward={r_cell})".format(
            name=self.__class__.__name__, l_cell=self._children["l_cell"], r_cell=self._children["r_cell"])

    def state_info(self, batch_size=0):
        return [info for cell in self._children.values() for info in cell.state_info(batch_size)]

    def begin_state(self, **kwargs):
        if self._modified:
            raise AssertionError("After applying modifier cells the base cell cannot be called directly.")
        return [state for cell in self._children.values() for state in cell.begin_state(**kwargs)]

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None, valid_length=None):
        self.reset()
        inputs, axis, F, batch_size = _format_sequence(length, inputs, layout, False)
        reversed_inputs = _reverse_sequences(inputs, length, valid_length)
        begin_state = _get_begin_state(self, F, begin_state, inputs, batch_size)
        l_cell, r_cell = self._children["l_cell"], self._children["r_cell"]
        count = len(l_cell.state_info(batch_size))
        l_outputs, l_states = l_cell.unroll(length, inputs=inputs, begin_state=begin_state[:count], layout=layout,
                                            merge_outputs=merge_outputs, valid_length=valid_length)
        r_outputs, r_states = r_cell.unroll(length, inputs=reversed_inputs, begin_state=begin_state[count:],
                                            layout=layout, merge_outputs=False, valid_length=valid_length)
        reversed_r_outputs = _reverse_sequences(r_outputs, length, valid_length)
        if merge_outputs is None:
            merge_outputs = isinstance(l_outputs, TENSORS)
            l_outputs, _, _, _ = _format_sequence(None, l_outputs, layout, merge_outputs)
            reversed_r_outputs, _, _, _ = _format_sequence(None, reversed_r_outputs, layout, merge_outputs)
        if merge_outputs:
            reversed_r_outputs = F.stack(*reversed_r_outputs, axis=axis)
            outputs = F.concat(l_outputs, reversed_r_outputs, dim=2, name="%sout" % self._output_prefix)
        else:
            outputs = [F.concat(l_o, r_o, dim=1, name="%st%d" % (self._output_prefix, i))
                       for i, (l_o, r_o) in enumerate(zip(l_outputs, reversed_r_outputs))]
        if valid_length is not None:
            outputs = _mask_sequence_variable_length(F, outputs, length, valid_length, axis, merge_outputs)
        return outputs, l_states + r_states
