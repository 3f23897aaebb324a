"""Builds GluonCV model-zoo classifiers from GluonCV's sources, in the runtime's interpreter
(after `runtime.as_mxnet()`) or real MXNet's. The model modules are imported directly: gluoncv's
package __init__ pulls in data loaders and optional frameworks that the models do not need."""
import importlib
import os
import sys
import types

import numpy as np


def package(name, path):
    if name not in sys.modules:
        module = types.ModuleType(name)
        module.__path__ = [path]
        sys.modules[name] = module
    return sys.modules[name]


def build(source, module_name, factory):
    root = os.path.join(source, "gluoncv")
    package("gluoncv", root)
    package("gluoncv.model_zoo", os.path.join(root, "model_zoo"))
    gnn = package("gluoncv.nn", os.path.join(root, "nn"))
    block = importlib.import_module("gluoncv.nn.block")
    for name in ("ReLU6", "HardSigmoid", "HardSwish"):
        setattr(gnn, name, getattr(block, name, None))
    return getattr(importlib.import_module("gluoncv.model_zoo." + module_name), factory)(pretrained=False)


def make_parameters(net, path):
    """Random weights and BatchNorm statistics, so that folding them changes something."""
    import mxnet as mx

    rng = np.random.RandomState(0)
    net.initialize(mx.init.Xavier())
    net(mx.nd.ones((1, 3, 224, 224)))
    for name, param in net.collect_params().items():
        shape = param.shape
        if name.endswith("running_var"):
            param.set_data(mx.nd.array(rng.uniform(0.5, 1.5, shape)))
        elif name.endswith(("running_mean", "beta")):
            param.set_data(mx.nd.array(rng.uniform(-0.1, 0.1, shape)))
        elif name.endswith("gamma"):
            param.set_data(mx.nd.array(rng.uniform(0.8, 1.2, shape)))
    net.save_parameters(path)
