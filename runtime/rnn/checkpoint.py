"""Checkpoints of models built from legacy cells: saved with per-gate (unpacked) weights, so that a
fused and an unfused network read each other's files; loaded back packed for the cells given."""
from __future__ import annotations

import warnings

from runtime.model import load_checkpoint, save_checkpoint
from runtime.rnn.base import BaseRNNCell


def _cell_list(cells):
    return [cells] if isinstance(cells, BaseRNNCell) else cells


def rnn_unroll(cell, length, inputs=None, begin_state=None, input_prefix="", layout="NTC"):
    """Deprecated: cell.unroll."""
    warnings.warn("rnn_unroll is deprecated. Please call cell.unroll directly.")
    return cell.unroll(length=length, inputs=inputs, begin_state=begin_state, layout=layout)


def save_rnn_checkpoint(cells, prefix, epoch, symbol, arg_params, aux_params):
    """save_checkpoint (`prefix-symbol.json`, `prefix-%04d.params`) of the cells' unpacked weights."""
    for cell in _cell_list(cells):
        arg_params = cell.unpack_weights(arg_params)
    save_checkpoint(prefix, epoch, symbol, arg_params, aux_params)


def load_rnn_checkpoint(cells, prefix, epoch):
    """(symbol, arg_params, aux_params) of load_checkpoint, the weights packed for `cells`."""
    symbol, arg_params, aux_params = load_checkpoint(prefix, epoch)
    for cell in _cell_list(cells):
        arg_params = cell.pack_weights(arg_params)
    return symbol, arg_params, aux_params


def do_rnn_checkpoint(cells, prefix, period=1):
    """An epoch-end callback for Module.fit that saves an RNN checkpoint every `period` epochs."""
    period = int(max(1, period))

    def _callback(iter_no, sym=None, arg=None, aux=None):
        if (iter_no + 1) % period == 0:
            save_rnn_checkpoint(cells, prefix, iter_no + 1, sym, arg, aux)
    return _callback
