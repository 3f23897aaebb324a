"""`mxnet.model`: checkpoints of a symbol and its parameters, as MXNet 1.x writes them.

`prefix-symbol.json` holds the graph; `prefix-EPOCH.params` (epoch in four digits) the arrays,
parameters named `arg:NAME` and auxiliary states `aux:NAME`.
"""
from __future__ import annotations

from collections import namedtuple

BatchEndParam = namedtuple("BatchEndParams", ["epoch", "nbatch", "eval_metric", "locals"])


def save_checkpoint(prefix, epoch, symbol, arg_params, aux_params, remove_amp_cast=True) -> None:
    from runtime import nd
    if symbol is not None:
        symbol.save("%s-symbol.json" % prefix)
    arrays = {"arg:%s" % name: value for name, value in arg_params.items()}
    arrays.update({"aux:%s" % name: value for name, value in aux_params.items()})
    nd.save("%s-%04d.params" % (prefix, epoch), arrays)


def load_params(prefix, epoch):
    """(arg_params, aux_params) of a checkpoint."""
    from runtime import nd
    arg_params, aux_params = {}, {}
    for key, value in nd.load("%s-%04d.params" % (prefix, epoch)).items():
        kind, name = key.split(":", 1)
        if kind == "arg":
            arg_params[name] = value
        elif kind == "aux":
            aux_params[name] = value
    return arg_params, aux_params


def load_checkpoint(prefix, epoch):
    """(symbol, arg_params, aux_params) of a checkpoint."""
    from runtime import sym
    symbol = sym.load("%s-symbol.json" % prefix)
    arg_params, aux_params = load_params(prefix, epoch)
    return symbol, arg_params, aux_params
