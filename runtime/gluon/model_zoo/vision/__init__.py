"""`gluon.model_zoo.vision`: the image classification networks (ResNet V1/V2 so far)."""
# ruff: noqa: F401  (the names this package re-exports)
from runtime.gluon.model_zoo.vision.resnet import (BasicBlockV1, BasicBlockV2, BottleneckV1, BottleneckV2, ResNetV1,
                                                   ResNetV2, get_resnet, resnet18_v1, resnet18_v2, resnet34_v1,
                                                   resnet34_v2, resnet50_v1, resnet50_v2, resnet101_v1, resnet101_v2,
                                                   resnet152_v1, resnet152_v2)

_models = {name: globals()[name] for name in (
    "resnet18_v1", "resnet34_v1", "resnet50_v1", "resnet101_v1", "resnet152_v1",
    "resnet18_v2", "resnet34_v2", "resnet50_v2", "resnet101_v2", "resnet152_v2")}


def get_model(name, **kwargs):
    name = name.lower()
    if name not in _models:
        raise ValueError("Model %s is not supported. Available options are\n\t%s" % (name, "\n\t".join(sorted(_models))))
    return _models[name](**kwargs)
