"""The base of MXNet 1.x's legacy symbolic recurrent cells (`mx.rnn`): shared parameter variables,
begin states, unrolling over time, and the per-gate weight layout that checkpoints use."""
from __future__ import annotations

from runtime import nd, sym
from runtime.gluon.rnn.rnn_cell import symbol_zeros_batched_like


def split_steps(length, inputs, layout, merge, in_layout=None):
    """(inputs as one Symbol when `merge` is True, a list of `length` steps when False, as given when
    None; the time axis of `layout`)."""
    if inputs is None:
        raise AssertionError("unroll(inputs=None) has been deprecated. Please create input variables outside unroll.")
    axis = layout.find("T")
    in_axis = in_layout.find("T") if in_layout is not None else axis
    if isinstance(inputs, sym.Symbol):
        if merge is False:
            if len(inputs.list_outputs()) != 1:
                raise AssertionError("unroll doesn't allow grouped symbol as input. Please convert to list "
                                     "with list(inputs) first or let unroll handle splitting.")
            steps = sym.split(inputs, axis=in_axis, num_outputs=length, squeeze_axis=1)
            inputs = list(steps) if length > 1 else [steps]
    else:
        if length is not None and len(inputs) != length:
            raise AssertionError("unroll: %d steps given for length %d" % (len(inputs), length))
        if merge is True:
            inputs = sym.Concat(*[sym.expand_dims(step, axis=axis) for step in inputs], dim=axis)
            in_axis = axis
    if isinstance(inputs, sym.Symbol) and axis != in_axis:
        inputs = sym.swapaxes(inputs, dim1=axis, dim2=in_axis)
    return inputs, axis


def zeros_batched_like_inputs(inputs, layout):
    """A begin-state `func` for unroll: zeros with the inputs' batch size (MXNet leaves the batch
    dimension 0 for shape inference to fill; here the state is broadcast to the data's batch)."""
    if isinstance(inputs, sym.Symbol):
        return symbol_zeros_batched_like(inputs, layout.find("N"))
    return symbol_zeros_batched_like(inputs[0], 0)


def _unsized_zeros(state):
    """(name, shape) of a zeros Symbol whose shape has an unknown (0) dimension; else None."""
    if not isinstance(state, sym.Symbol) or len(state._outputs) != 1:
        return None
    node = state._outputs[0][0]
    if node.op is None or node.op.name not in ("_zeros", "zeros"):
        return None
    shape = tuple(node.attrs.get("shape", ()))
    return (node.name, shape) if 0 in shape else None


def sized_like_inputs(states, inputs, layout):
    """`states` with each zeros of an unknown (0) batch dimension, as `begin_state()` makes them,
    remade as zeros of the inputs' batch size under the same name; other states as given."""
    zeros = zeros_batched_like_inputs(inputs, layout)
    sized = []
    for state in states:
        unsized = _unsized_zeros(state)
        if unsized is not None:
            name, shape = unsized
            # the states' layouts (NC, LNC, NCHW) leave only the batch dimension 0
            state_layout = "".join("N" if size == 0 else "C" for size in shape)
            state = zeros(name=name, shape=shape, __layout__=state_layout)
        sized.append(state)
    return sized


class RNNParams:
    """The parameter variables of cells, by name, so that cells given one container share them."""

    def __init__(self, prefix=""):
        self._prefix = prefix
        self._params = {}

    def get(self, name, **kwargs):
        """The variable `prefix + name`, made (with `kwargs`, e.g. `init`) on first request."""
        name = self._prefix + name
        if name not in self._params:
            self._params[name] = sym.Variable(name, **kwargs)
        return self._params[name]


class BaseRNNCell:
    """A recurrent cell: called on one step's input and states, it returns (output, new states)."""

    def __init__(self, prefix="", params=None):
        self._own_params = params is None
        self._prefix = prefix
        self._params = RNNParams(prefix) if params is None else params
        self._modified = False  # wrapped by a modifier cell, which must be called instead
        self.reset()

    def reset(self):
        """Restart the step counters that name the nodes of each step (`{prefix}t{i}_`)."""
        self._init_counter = -1
        self._counter = -1
        for cell in getattr(self, "_cells", ()):
            cell.reset()

    def __call__(self, inputs, states):
        raise NotImplementedError()

    @property
    def params(self):
        # handing the container out means another cell may fill it: it is shared from then on
        self._own_params = False
        return self._params

    @property
    def state_info(self):
        raise NotImplementedError()

    @property
    def state_shape(self):
        return [info["shape"] for info in self.state_info]

    @property
    def _gate_names(self):
        return ()

    def begin_state(self, func=sym.zeros, **kwargs):
        """The initial states, one `func(name='{prefix}begin_state_{i}', shape=..., __layout__=...)` each."""
        if self._modified:
            raise AssertionError("After applying modifier cells (e.g. DropoutCell) the base cell cannot be "
                                 "called directly. Call the modifier cell instead.")
        states = []
        for info in self.state_info:
            self._init_counter += 1
            if info is not None:
                kwargs.update(info)
            states.append(func(name="%sbegin_state_%d" % (self._prefix, self._init_counter), **kwargs))
        return states

    def unpack_weights(self, args):
        """`args` with each joined i2h/h2h weight and bias split into one array per gate
        (`{prefix}i2h{gate}_weight`), the form checkpoints keep."""
        args = dict(args)
        if not self._gate_names:
            return args
        hidden = self._num_hidden
        for group in ("i2h", "h2h"):
            weight = args.pop("%s%s_weight" % (self._prefix, group))
            bias = args.pop("%s%s_bias" % (self._prefix, group))
            for j, gate in enumerate(self._gate_names):
                rows = slice(j * hidden, (j + 1) * hidden)
                args["%s%s%s_weight" % (self._prefix, group, gate)] = weight[rows].copy()
                args["%s%s%s_bias" % (self._prefix, group, gate)] = bias[rows].copy()
        return args

    def pack_weights(self, args):
        """The inverse of unpack_weights: per-gate arrays joined back, gates in `_gate_names` order."""
        args = dict(args)
        if not self._gate_names:
            return args
        for group in ("i2h", "h2h"):
            for kind in ("weight", "bias"):
                parts = [args.pop("%s%s%s_%s" % (self._prefix, group, gate, kind)) for gate in self._gate_names]
                args["%s%s_%s" % (self._prefix, group, kind)] = nd.concatenate(parts)
        return args

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        """Step the cell `length` times: (outputs, merged into one Symbol or a list as
        `merge_outputs` says, and the last states)."""
        self.reset()
        inputs, _ = split_steps(length, inputs, layout, False)
        if begin_state is None:
            begin_state = self.begin_state(func=zeros_batched_like_inputs(inputs, layout))
        states = sized_like_inputs(begin_state, inputs, layout)
        outputs = []
        for i in range(length):
            output, states = self(inputs[i], states)
            outputs.append(output)
        outputs, _ = split_steps(length, outputs, layout, merge_outputs)
        return outputs, states

    def _get_activation(self, inputs, activation, **kwargs):
        if isinstance(activation, str):
            return sym.Activation(inputs, act_type=activation, **kwargs)
        return activation(inputs, **kwargs)
