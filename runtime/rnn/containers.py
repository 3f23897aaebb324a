"""Cells made of cells: a stack, a bidirectional pair, and the modifiers (dropout between layers,
zoneout, residual connections)."""
from __future__ import annotations

import numbers

from runtime import sym
from runtime.rnn.base import BaseRNNCell, sized_like_inputs, split_steps, zeros_batched_like_inputs


def _not_modified(cell):
    if cell._modified:
        raise AssertionError("After applying modifier cells (e.g. DropoutCell) the base cell cannot be "
                             "called directly. Call the modifier cell instead.")


def _join_params(owner, cells):
    """Children share the owner's container when it was given one; the owner lists theirs."""
    if owner._override_cell_params:
        if not all(cell._own_params for cell in cells):
            raise AssertionError("Either specify params for %s or child cells, not both." % type(owner).__name__)
        for cell in cells:
            cell.params._params.update(owner.params._params)
    for cell in cells:
        owner.params._params.update(cell.params._params)


class _CellGroup(BaseRNNCell):
    """States, begin states and weights of a group of cells, in the cells' order."""

    @property
    def state_info(self):
        return [info for cell in self._cells for info in cell.state_info]

    def begin_state(self, **kwargs):
        _not_modified(self)
        return [state for cell in self._cells for state in cell.begin_state(**kwargs)]

    def unpack_weights(self, args):
        for cell in self._cells:
            args = cell.unpack_weights(args)
        return args

    def pack_weights(self, args):
        for cell in self._cells:
            args = cell.pack_weights(args)
        return args


class SequentialRNNCell(_CellGroup):
    """Cells stacked: each one's output is the next one's input."""

    def __init__(self, params=None):
        super().__init__(prefix="", params=params)
        self._override_cell_params = params is not None
        self._cells = []

    def add(self, cell):
        self._cells.append(cell)
        _join_params(self, [cell])

    def __call__(self, inputs, states):
        self._counter += 1
        next_states = []
        position = 0
        for cell in self._cells:
            if isinstance(cell, BidirectionalCell):
                raise AssertionError("a BidirectionalCell cannot be stepped")
            count = len(cell.state_info)
            inputs, state = cell(inputs, states[position:position + count])
            position += count
            next_states.extend(state)
        return inputs, next_states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        self.reset()
        if begin_state is None:
            begin_state = self.begin_state(func=zeros_batched_like_inputs(inputs, layout))
        begin_state = sized_like_inputs(begin_state, inputs, layout)
        position = 0
        next_states = []
        last = len(self._cells) - 1
        for i, cell in enumerate(self._cells):
            count = len(cell.state_info)
            states = begin_state[position:position + count]
            position += count
            # the layers between pass on whatever form is cheapest; the last one gives what was asked
            inputs, states = cell.unroll(length, inputs=inputs, begin_state=states, layout=layout,
                                         merge_outputs=merge_outputs if i == last else None)
            next_states.extend(states)
        return inputs, next_states


class DropoutCell(BaseRNNCell):
    """Dropout on the sequence between layers; it has no state."""

    def __init__(self, dropout, prefix="dropout_", params=None):
        super().__init__(prefix, params)
        if not isinstance(dropout, numbers.Number):
            raise AssertionError("dropout probability must be a number")
        self.dropout = dropout

    @property
    def state_info(self):
        return []

    def __call__(self, inputs, states):
        if self.dropout > 0:
            inputs = sym.Dropout(data=inputs, p=self.dropout)
        return inputs, states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        self.reset()
        inputs, _ = split_steps(length, inputs, layout, merge_outputs)
        if isinstance(inputs, sym.Symbol):  # one Dropout over the whole sequence
            return self(inputs, [])
        return super().unroll(length, inputs, begin_state=begin_state, layout=layout, merge_outputs=merge_outputs)


class ModifierCell(BaseRNNCell):
    """Wraps a cell and changes what it computes; the wrapped cell is then only used through it."""

    def __init__(self, base_cell):
        super().__init__()
        base_cell._modified = True
        self.base_cell = base_cell

    @property
    def params(self):
        self._own_params = False
        return self.base_cell.params

    @property
    def state_info(self):
        return self.base_cell.state_info

    def begin_state(self, init_sym=sym.zeros, **kwargs):
        _not_modified(self)
        init_sym = kwargs.pop("func", init_sym)  # a group's unroll passes its zeros as `func`
        self.base_cell._modified = False
        begin = self.base_cell.begin_state(init_sym, **kwargs)
        self.base_cell._modified = True
        return begin

    def unpack_weights(self, args):
        return self.base_cell.unpack_weights(args)

    def pack_weights(self, args):
        return self.base_cell.pack_weights(args)

    def __call__(self, inputs, states):
        raise NotImplementedError


class ZoneoutCell(ModifierCell):
    """Zoneout: in training, each unit of the output and of the states keeps its previous value
    with probability `zoneout_outputs` / `zoneout_states`."""

    def __init__(self, base_cell, zoneout_outputs=0., zoneout_states=0.):
        from runtime.rnn.fused import FusedRNNCell
        if isinstance(base_cell, FusedRNNCell):
            raise AssertionError("FusedRNNCell doesn't support zoneout. Please unfuse first.")
        if isinstance(base_cell, BidirectionalCell):
            raise AssertionError("BidirectionalCell doesn't support zoneout since it doesn't support step. "
                                 "Please add ZoneoutCell to the cells underneath instead.")
        super().__init__(base_cell)
        self.zoneout_outputs = zoneout_outputs
        self.zoneout_states = zoneout_states
        self.prev_output = None

    def reset(self):
        super().reset()
        self.prev_output = None

    def __call__(self, inputs, states):
        next_output, next_states = self.base_cell(inputs, states)

        def keep_new(p, like):  # 1 where the new value is taken (0 in a p share, in training)
            return sym.Dropout(sym.ones_like(like), p=p)

        # before the first step the previous output is zeros (MXNet's (0, 0) zeros, sized by inference)
        previous = self.prev_output if self.prev_output is not None else sym.zeros_like(next_output)
        output = next_output
        if self.zoneout_outputs != 0.:
            output = sym.where(keep_new(self.zoneout_outputs, next_output), next_output, previous)
        if self.zoneout_states != 0.:
            next_states = [sym.where(keep_new(self.zoneout_states, new), new, old)
                           for new, old in zip(next_states, states)]
        self.prev_output = output
        return output, next_states


class ResidualCell(ModifierCell):
    """The wrapped cell's output plus its input (`{output}_plus_residual`)."""

    def __call__(self, inputs, states):
        output, states = self.base_cell(inputs, states)
        output = sym.elemwise_add(output, inputs, name="%s_plus_residual" % output.name)
        return output, states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        self.reset()
        self.base_cell._modified = False
        outputs, states = self.base_cell.unroll(length, inputs=inputs, begin_state=begin_state, layout=layout,
                                                merge_outputs=merge_outputs)
        self.base_cell._modified = True
        if merge_outputs is None:
            merge_outputs = isinstance(outputs, sym.Symbol)
        inputs, _ = split_steps(length, inputs, layout, merge_outputs)
        if merge_outputs:
            outputs = sym.elemwise_add(outputs, inputs, name="%s_plus_residual" % outputs.name)
        else:
            outputs = [sym.elemwise_add(output, step, name="%s_plus_residual" % output.name)
                       for output, step in zip(outputs, inputs)]
        return outputs, states


class BidirectionalCell(_CellGroup):
    """One cell over the sequence forwards, one backwards; their outputs joined on the feature axis
    (`{output_prefix}t{i}` per step, `{output_prefix}out` merged). Its states are the pair
    [left states, right states]."""

    def __init__(self, l_cell, r_cell, params=None, output_prefix="bi_"):
        super().__init__("", params=params)
        self._output_prefix = output_prefix
        self._override_cell_params = params is not None
        _join_params(self, [l_cell, r_cell])
        self._cells = [l_cell, r_cell]

    def __call__(self, inputs, states):
        raise NotImplementedError("Bidirectional cannot be stepped. Please use unroll")

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        self.reset()
        inputs, axis = split_steps(length, inputs, layout, False)
        if begin_state is None:
            begin_state = self.begin_state(func=zeros_batched_like_inputs(inputs, layout))
        begin_state = sized_like_inputs(begin_state, inputs, layout)
        l_cell, r_cell = self._cells
        split = len(l_cell.state_info)
        l_outputs, l_states = l_cell.unroll(length, inputs=inputs, begin_state=begin_state[:split], layout=layout,
                                            merge_outputs=merge_outputs)
        r_outputs, r_states = r_cell.unroll(length, inputs=list(reversed(inputs)), begin_state=begin_state[split:],
                                            layout=layout, merge_outputs=merge_outputs)
        if merge_outputs is None:
            merge_outputs = isinstance(l_outputs, sym.Symbol) and isinstance(r_outputs, sym.Symbol)
            if not merge_outputs:
                l_outputs = self._steps(l_outputs, axis, length)
                r_outputs = self._steps(r_outputs, axis, length)
        if merge_outputs:
            return (sym.Concat(l_outputs, sym.reverse(r_outputs, axis=axis), dim=2,
                               name="%sout" % self._output_prefix), [l_states, r_states])
        outputs = [sym.Concat(left, right, dim=1, name="%st%d" % (self._output_prefix, i))
                   for i, (left, right) in enumerate(zip(l_outputs, reversed(r_outputs)))]
        return outputs, [l_states, r_states]

    @staticmethod
    def _steps(outputs, axis, length):
        if not isinstance(outputs, sym.Symbol):
            return list(outputs)
        steps = sym.SliceChannel(outputs, axis=axis, num_outputs=length, squeeze_axis=1)
        return list(steps) if length > 1 else [steps]
