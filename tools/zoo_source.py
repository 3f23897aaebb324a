"""Import GluonCV's model zoo from its sources without the optional packages it never runs.

GluonCV's package `__init__` imports data loaders, downloads and optional frameworks that building
and running a model does not need. Modules no other finder finds are replaced by stand-ins whose
every attribute is another stand-in, so that a model fails only when it really uses something
missing. Used with the runtime and with real MXNet alike: this file imports neither (the caller has
made `import mxnet` mean the one it wants).
"""
import importlib.abc
import importlib.machinery
import os
import re
import sys
import types

# Packages that must be the real ones: a model that needs them and finds a stand-in would fail late.
REAL = ("gluoncv", "numpy", "scipy", "runtime", "numba", "llvmlite")


class StandIn(types.ModuleType):
    """A module, class or function that no model calls: every attribute is another stand-in."""
    __path__ = []

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        value = StandIn(self.__name__ + "." + name)
        setattr(self, name, value)
        return value

    def __call__(self, *args, **kwargs):
        return StandIn(self.__name__ + "()")

    def __mro_entries__(self, bases):
        return (object,)


class StandInFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds what no other finder does, outside the packages named `real`; with `fill_mxnet`, also
    the parts of `mxnet` that are not there (the runtime's `mxnet` lacks a few at import time)."""

    def __init__(self, real, fill_mxnet: bool = False):
        self.real = tuple(real)
        self.fill_mxnet = fill_mxnet

    def find_spec(self, name, path, target=None):
        top = name.split(".")[0]
        if top == "mxnet" and self.fill_mxnet:
            return None if name in sys.modules else importlib.machinery.ModuleSpec(name, self)
        if top in self.real or top == "mxnet":
            return None
        for finder in sys.meta_path:
            if finder is not self and getattr(finder, "find_spec", None) is not None:
                try:
                    if finder.find_spec(name, path, target) is not None:
                        return None
                except (ImportError, ValueError):
                    continue
        return importlib.machinery.ModuleSpec(name, self)

    def create_module(self, spec):
        return StandIn(spec.name)

    def exec_module(self, module):
        pass


def _numpy_aliases():
    """GluonCV 0.10.5's own code calls `np.int` (HRNet) and `np.float` (the R-CNN anchors): NumPy
    1.24 removed these aliases of the builtins, which real MXNet's NumPy (< 1.24) still has. The
    runtime's side gets them back, the same builtins, so that those models measure the runtime and
    not GluonCV's age."""
    import numpy as np
    for alias, builtin in (("int", int), ("float", float), ("bool", bool), ("object", object)):
        if alias not in np.__dict__:
            setattr(np, alias, builtin)


def import_gluoncv_zoo(root: str, fill_mxnet: bool):
    """`gluoncv.model_zoo` from the sources under `root`, and the names filled in with stand-ins."""
    import mxnet as mx
    if fill_mxnet:  # the runtime's mxnet.base lacks these two Python 2 leftovers
        mx.base.string_types, mx.base.numeric_types = (str,), (float, int)
        _numpy_aliases()
    sys.meta_path.append(StandInFinder(REAL, fill_mxnet=fill_mxnet))
    package = types.ModuleType("gluoncv")
    package.__path__ = [os.path.join(root, "gluoncv")]
    sys.modules["gluoncv"] = package
    filled = []
    for _ in range(200 if fill_mxnet else 0):  # each round fills one missing name and imports again
        try:
            import gluoncv.model_zoo as zoo
            return zoo, filled
        except (ImportError, AttributeError) as exc:
            found = re.match(r"cannot import name '(\w+)' from '([\w.]+)'", str(exc)) or \
                re.match(r"module '([\w.]+)' has no attribute '(\w+)'", str(exc))
            if found is None:
                raise
            name, owner = found.groups() if str(exc).startswith("cannot") else found.groups()[::-1]
            # the runtime's namespaces are named runtime.sym / runtime.nd in messages
            shown = owner.replace("runtime.sym", "mxnet.symbol").replace("runtime.nd", "mxnet.ndarray")
            setattr(sys.modules.get(shown) or sys.modules[owner], name, StandIn(owner + "." + name))
            filled.append(owner + "." + name)
            for key in [k for k in list(sys.modules) if k.startswith("gluoncv.")]:  # threads may import meanwhile
                del sys.modules[key]
    if not fill_mxnet:
        import gluoncv.model_zoo as zoo
        return zoo, filled
    raise SystemExit("gluoncv.model_zoo did not import after filling %d names" % len(filled))


# What a family's factory or model needs beyond pretrained=False, and the smallest inputs it accepts.
# Segmentation models size their pooling and upsampling from `crop_size` when they are built, so
# they are built again with a small one (a multiple of 32: ICNet and Fast-SCNN pool at 1/32).
SEGMENTATION_CROP = 128
# Video models: frames and side of the clip. C3D's classifier takes 16 frames of 112 pixels only;
# P3D and R(2+1)D pool time down to one step from 16 frames; I3D's temporal strides take 8.
VIDEO = [("c3d", 16, 112), ("p3d", 16, 112), ("r2plus1d", 16, 112), ("i3d", 8, 112)]
SIAMESE = {"siamrpn": [127, 287]}  # exemplar and search image of a tracker (24 x 24 search features)


def input_shapes(net, name: str):
    """The shapes of the inputs a model of the zoo is run on: by the family (the module defining
    the model) and what the built model says of itself (input images, frames), else by its name."""
    module = type(net).__module__
    for part, sides in SIAMESE.items():
        if part in module:
            return [(1, 3, side, side) for side in sides]
    if getattr(net, "crop_size", None) == SEGMENTATION_CROP:
        return [(1, 3, SEGMENTATION_CROP, SEGMENTATION_CROP)]
    if _is_video(net):
        frames = getattr(net, "fast_frames", 0) + getattr(net, "slow_frames", 0)
        for part, count, side in VIDEO:
            if part in module.rsplit(".", 1)[-1] and not frames:
                return [(1, 3, count, side, side)]
        return [(1, 3, frames or 16, 112, 112)]
    channels = 3 * getattr(getattr(net, "encoder", None), "num_input_images", 1)
    if "monodepth" in module:  # an encoder-decoder of strides up to 32: the KITTI frame's shape, halved
        return [(1, channels, 96, 320)]
    sizes = [("cifar", (32, 32)), ("inceptionv1", (224, 224)), ("inception", (299, 299)), ("ssd_300", (300, 300)), ("ssd_512", (512, 512)),
             ("yolo3", (320, 320)), ("rcnn", (320, 320)), ("center_net", (256, 256)), ("pose", (256, 192))]
    return [(1, channels) + next((size for part, size in sizes if part in name), (224, 224))]


def input_candidates(net, name: str):
    """Input shapes to try, smallest first: an image model whose size is not fixed when it is built
    (classifiers with global pooling, detectors, pose and depth networks) is tried with its shorter
    side at 64, then 128 pixels (multiples of 32), before its usual size; the first MXNet runs is used."""
    shapes = input_shapes(net, name)
    if len(shapes) != 1 or len(shapes[0]) != 4 or getattr(net, "crop_size", None) is not None:
        return [shapes]
    n, c, height, width = shapes[0]
    smaller = []
    for side in (64, 128):
        if side < min(height, width):
            scale = side / min(height, width)
            smaller.append([(n, c) + tuple(max(32, int(round(d * scale / 32)) * 32) for d in (height, width))])
    return smaller + [shapes]


def _is_video(net) -> bool:
    """Whether a model convolves over time: a 3-D convolution's weight has five axes, declared
    before the parameters are initialized (detectors' anchor constants have five too)."""
    return any(len(param.shape or ()) == 5 for name, param in net.collect_params().items() if name.endswith("weight"))


def _factory_arguments(zoo, name: str) -> dict:
    """Arguments some factories require or would use to download: the classes of a `*_custom`
    detector, no Kinetics weights for a custom video model."""
    import inspect
    factory = zoo.model_zoo._models[name.lower()]
    try:
        parameters = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return {}
    arguments = {}
    if "classes" in parameters and parameters["classes"].default is inspect.Parameter.empty:
        arguments["classes"] = ["a", "b", "c"]
    if "use_kinetics_pretrain" in parameters:
        arguments["use_kinetics_pretrain"] = False
    return arguments


def build(zoo, name: str):
    """The model, untrained (and without a trained backbone where its factory takes one);
    segmentation models with a small crop size."""
    arguments = _factory_arguments(zoo, name)
    net = _get_model(zoo, name, arguments)
    if getattr(net, "crop_size", None) not in (None, SEGMENTATION_CROP):
        net = _get_model(zoo, name, dict(arguments, crop_size=SEGMENTATION_CROP))
    return net


def _get_model(zoo, name: str, arguments: dict):
    try:
        return zoo.get_model(name, pretrained=False, pretrained_base=False, **arguments)
    except (TypeError, Warning):  # a factory that takes no such argument (some raise a Warning)
        return zoo.get_model(name, pretrained=False, **arguments)


class GluonCVZoo:
    """GluonCV's registry as zoo_check uses it: names, how each model is built, its inputs."""

    def __init__(self, root: str, fill_mxnet: bool):
        self.zoo, self.filled = import_gluoncv_zoo(root, fill_mxnet)

    def get_model_list(self):
        return list(self.zoo.get_model_list())

    def build(self, name: str):
        return build(self.zoo, name)

    def input_candidates(self, net, name: str, random):
        """Inputs to try, smallest first (input_candidates), each a list of arrays."""
        shapes = input_candidates(net, name)
        return [[random.uniform(-1, 1, shape).astype("float32") for shape in candidate] for candidate in shapes]
