"""`runtime.as_mxnet()`: `import mxnet` (and its submodules) resolve to this runtime."""
from __future__ import annotations

import sys
import types


class _Installed:
    """Undoes the installation when used as a context manager; a plain call leaves it in place."""

    def __init__(self, saved):
        self._saved = saved

    def __enter__(self):
        return sys.modules["mxnet"]

    def __exit__(self, *exc):
        for name, module in self._saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


def _module(module_name: str, **attrs) -> types.ModuleType:
    module = types.ModuleType(module_name)
    module.__dict__.update(attrs)
    return module


def build():
    import runtime
    from runtime import autograd, base, context, gluon, initializer, name, random
    from runtime.gluon import block, contrib, nn, parameter, utils
    from runtime.ndarray import NDArray
    from runtime.symbol import Symbol

    nd, sym = runtime.nd, runtime.sym
    # MXNet's error messages name the Symbol class by its MXNet path; keep them identical
    Symbol.__module__ = "mxnet.symbol.symbol"
    NDArray.__module__ = "mxnet.ndarray.ndarray"
    util = _module("mxnet.util", use_np=lambda cls: cls, use_np_array=lambda cls: cls,
                   use_np_shape=lambda cls: cls, is_np_array=lambda: False, is_np_shape=lambda: False)
    init = _module("mxnet.initializer", **{k: v for k, v in vars(initializer).items() if not k.startswith("_")})
    mx = _module("mxnet", __version__="1.9.1", nd=nd, ndarray=nd, sym=sym, symbol=sym, gluon=gluon,
                 autograd=autograd, init=init, initializer=init, base=base, context=context, random=random,
                 name=name, cpu=context.cpu, gpu=context.gpu, cpu_pinned=context.cpu_pinned, Context=context.Context,
                 current_context=context.current_context, num_gpus=context.num_gpus, MXNetError=base.MXNetError,
                 util=util)
    mx.__path__ = []  # a package, so that `import mxnet.gluon.nn` is resolved through sys.modules
    nd.NDArray = NDArray
    nd.ndarray = _module("mxnet.ndarray.ndarray", NDArray=NDArray)
    sym.symbol = _module("mxnet.symbol.symbol", Symbol=Symbol)
    gluon.Block, gluon.HybridBlock, gluon.SymbolBlock = block.Block, block.HybridBlock, block.SymbolBlock
    gluon.Parameter, gluon.ParameterDict = parameter.Parameter, parameter.ParameterDict
    gluon.block, gluon.parameter, gluon.utils = block, parameter, utils
    gluon_contrib = _module("mxnet.gluon.contrib", nn=contrib.nn)
    gluon.contrib = gluon_contrib
    return {"mxnet": mx, "mxnet.ndarray": nd, "mxnet.nd": nd, "mxnet.symbol": sym, "mxnet.sym": sym,
            "mxnet.gluon": gluon, "mxnet.gluon.nn": nn, "mxnet.gluon.block": block,
            "mxnet.gluon.parameter": parameter, "mxnet.autograd": autograd, "mxnet.initializer": init,
            "mxnet.init": init, "mxnet.base": base, "mxnet.context": context, "mxnet.random": random,
            "mxnet.name": name, "mxnet.symbol.symbol": sym.symbol, "mxnet.ndarray.ndarray": nd.ndarray,
            "mxnet.util": util, "mxnet.ndarray.contrib": nd.contrib, "mxnet.symbol.contrib": sym.contrib,
            "mxnet.gluon.contrib": gluon_contrib, "mxnet.gluon.contrib.nn": contrib.nn, "mxnet.gluon.utils": utils}


def _training_modules(mx, gluon) -> dict:
    """The training API: optimizers, schedules, metrics, Trainer, losses, data loading, RecordIO."""
    from runtime import lr_scheduler, metric, optimizer, recordio
    from runtime.gluon import data, loss, trainer
    from runtime.gluon.data import dataloader, dataset, sampler, vision
    mx.optimizer, mx.lr_scheduler, mx.metric, mx.recordio = optimizer, lr_scheduler, metric, recordio
    gluon.trainer = trainer
    return {"mxnet.optimizer": optimizer, "mxnet.optimizer.optimizer": optimizer, "mxnet.lr_scheduler": lr_scheduler,
            "mxnet.metric": metric, "mxnet.recordio": recordio, "mxnet.gluon.trainer": trainer,
            "mxnet.gluon.loss": loss, "mxnet.gluon.data": data, "mxnet.gluon.data.dataset": dataset,
            "mxnet.gluon.data.dataloader": dataloader, "mxnet.gluon.data.sampler": sampler,
            "mxnet.gluon.data.vision": vision, "mxnet.gluon.data.vision.transforms": vision.transforms,
            "mxnet.gluon.data.vision.datasets": vision.datasets}


def install() -> _Installed:
    modules = build()
    modules.update(_training_modules(modules["mxnet"], modules["mxnet.gluon"]))
    saved = {name: sys.modules.get(name) for name in modules}
    sys.modules.update(modules)
    return _Installed(saved)
