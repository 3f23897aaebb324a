"""Build GluonCV model-zoo image classifiers (pretrained=False) for `hyblint verify --factory`.

    GLUONCV_SRC=DIR hyblint verify --factory gluoncv_zoo:image_classifiers   (run from tools/)

DIR holds GluonCV's sources (the gluoncv wheel unpacked, as the corpus script does). The model
modules are imported directly: gluoncv's package __init__ pulls in data loaders, metrics and
optional frameworks that the models do not need. Each model comes with its input shape.
"""
import importlib
import os
import sys
import types

ROOT = os.path.join(os.environ.get("GLUONCV_SRC", ""), "gluoncv")
MODULES = {
    "resnet": ["resnet18_v1", "resnet34_v1", "resnet50_v1", "resnet101_v1", "resnet152_v1", "resnet18_v2",
               "resnet34_v2", "resnet50_v2", "resnet101_v2", "resnet152_v2"],
    "resnetv1b": ["resnet18_v1b", "resnet34_v1b", "resnet50_v1b", "resnet101_v1b", "resnet152_v1b", "resnet50_v1c",
                  "resnet50_v1d", "resnet50_v1e", "resnet50_v1s"],
    "mobilenet": ["mobilenet1_0", "mobilenet0_75", "mobilenet0_5", "mobilenet0_25", "mobilenet_v2_1_0",
                  "mobilenet_v2_0_5"],
    "vgg": ["vgg11", "vgg13", "vgg16", "vgg19", "vgg11_bn", "vgg16_bn"],
    "alexnet": ["alexnet"],
    "densenet": ["densenet121", "densenet161", "densenet169", "densenet201"],
    "squeezenet": ["squeezenet1_0", "squeezenet1_1"],
    "inception": ["inception_v3"],
    "cifarresnet": ["cifar_resnet20_v1", "cifar_resnet56_v1", "cifar_resnet20_v2"],
    "se_resnet": ["se_resnet18_v1", "se_resnet50_v1", "se_resnet18_v2"],
}


def _package(name, path):
    if name not in sys.modules:
        module = types.ModuleType(name)
        module.__path__ = [path]
        sys.modules[name] = module
    return sys.modules[name]


def image_classifiers():
    _package("gluoncv", ROOT)
    _package("gluoncv.model_zoo", os.path.join(ROOT, "model_zoo"))
    gnn = _package("gluoncv.nn", os.path.join(ROOT, "nn"))
    block = importlib.import_module("gluoncv.nn.block")
    gnn.ReLU6 = block.ReLU6
    gnn.HardSigmoid, gnn.HardSwish = getattr(block, "HardSigmoid", None), getattr(block, "HardSwish", None)
    for module_name, functions in MODULES.items():
        try:
            module = importlib.import_module("gluoncv.model_zoo." + module_name)
        except Exception as exc:
            print("cannot import %s: %s: %s" % (module_name, type(exc).__name__, exc), file=sys.stderr)
            continue
        for function in functions:
            size = 32 if function.startswith("cifar") else 299 if "inception" in function else 224
            try:
                net = getattr(module, function)(pretrained=False)
            except Exception as exc:
                print("cannot build %s: %s: %s" % (function, type(exc).__name__, exc), file=sys.stderr)
                continue
            yield function, net, [(1, 3, size, size)]
