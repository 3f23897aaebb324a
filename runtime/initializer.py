"""Parameter initializers, with MXNet's names and defaults."""
from __future__ import annotations

import json

import numpy as np

from runtime import random
from runtime.class_registry import get_register_func, get_registry


class InitDesc(str):
    """A parameter's name with the attributes of its variable (`__init__`: an initializer of its
    own, as `Variable(init=...)` and composing BatchNorm or a PReLU give it)."""

    def __new__(cls, name, attrs=None, global_init=None):
        desc = super().__new__(cls, name)
        desc.attrs = dict(attrs or {})
        desc.global_init = global_init
        return desc


class Initializer:
    def __init__(self, **kwargs):
        self._kwargs = kwargs

    def dumps(self) -> str:
        return json.dumps([type(self).__name__.lower(), self._kwargs])

    def __eq__(self, other):
        # equal when of one class with equal arguments (shared parameters compare their initializers);
        # like MXNet's, an initializer is then unhashable
        if not isinstance(other, Initializer):
            return NotImplemented
        return type(self) is type(other) and self._kwargs == other._kwargs

    def __call__(self, name: str, array) -> None:
        """Fill `array` (an NDArray) for the parameter called `name`; a variable's own initializer
        (an InitDesc's `__init__`) comes first, as in MXNet."""
        own = getattr(name, "attrs", {}).get("__init__")
        if own:
            create(own)._init_weight(name, array)
        elif name.endswith(("bias", "beta", "running_mean", "moving_mean")):
            array[:] = 0.0
        elif name.endswith(("gamma", "running_var", "moving_var")):
            array[:] = 1.0
        else:
            self._init_weight(name, array)

    def _init_weight(self, name, array) -> None:
        raise NotImplementedError


class _FillsEveryName(Initializer):
    """An initializer that fills whatever it is given, bias or weight, with its `_init_weight`;
    a variable's own initializer (an InitDesc's `__init__`, e.g. FusedRNN's) still comes first."""

    def __call__(self, name, array):
        if getattr(name, "attrs", {}).get("__init__"):
            super().__call__(name, array)
        else:
            self._init_weight(name, array)


class Zero(_FillsEveryName):
    def _init_weight(self, name, array):
        array[:] = 0.0


class One(_FillsEveryName):
    def _init_weight(self, name, array):
        array[:] = 1.0


class Constant(_FillsEveryName):
    def __init__(self, value):
        super().__init__(value=value)
        self.value = value

    def _init_weight(self, name, array):
        array[:] = self.value

    def dumps(self) -> str:
        # an array value is written as nested lists, so the JSON stays loadable
        value = self._kwargs["value"]
        if not np.isscalar(value):
            value = value.tolist() if isinstance(value, np.ndarray) else value.asnumpy().tolist()
            self._kwargs["value"] = value
        return super().dumps()


class Uniform(Initializer):
    def __init__(self, scale=0.07):
        super().__init__(scale=scale)
        self.scale = scale

    def _init_weight(self, name, array):
        array[:] = random.generator().uniform(-self.scale, self.scale, array.shape)


class Normal(Initializer):
    def __init__(self, sigma=0.01):
        super().__init__(sigma=sigma)
        self.sigma = sigma

    def _init_weight(self, name, array):
        array[:] = random.generator().normal(0, self.sigma, array.shape)


class Xavier(Initializer):
    def __init__(self, rnd_type="uniform", factor_type="avg", magnitude=3):
        super().__init__(rnd_type=rnd_type, factor_type=factor_type, magnitude=magnitude)
        self.rnd_type, self.factor_type, self.magnitude = rnd_type, factor_type, float(magnitude)

    def _init_weight(self, name, array):
        shape = array.shape
        hw = int(np.prod(shape[2:])) if len(shape) > 2 else 1
        fan_in, fan_out = shape[1] * hw if len(shape) > 1 else shape[0], shape[0] * hw
        factor = {"avg": (fan_in + fan_out) / 2.0, "in": fan_in, "out": fan_out}[self.factor_type]
        scale = np.sqrt(self.magnitude / factor)
        if self.rnd_type == "uniform":
            array[:] = random.generator().uniform(-scale, scale, shape)
        else:
            array[:] = random.generator().normal(0, scale, shape)


class MSRAPrelu(Xavier):
    def __init__(self, factor_type="avg", slope=0.25):
        super().__init__("gaussian", factor_type, 2.0 / (1 + slope ** 2))


class Bilinear(Initializer):
    """Weights of a bilinear-upsampling deconvolution: a tent filter over the last two axes."""

    def _init_weight(self, name, array):
        shape = array.shape
        size = int(np.prod(shape))
        width = shape[3]
        f = np.ceil(width / 2.0)
        c = (2 * f - 1 - f % 2) / (2.0 * f)
        flat = np.arange(size)
        x, y = flat % width, (flat // width) % shape[2]
        weight = (1 - np.abs(x / f - c)) * (1 - np.abs(y / f - c))
        array[:] = weight.reshape(shape).astype(np.float32)


class Orthogonal(Initializer):
    """An orthogonal matrix (from an SVD of random values) scaled by `scale`, reshaped to the weight."""

    def __init__(self, scale=1.414, rand_type="uniform"):
        super().__init__(scale=scale, rand_type=rand_type)
        self.scale, self.rand_type = scale, rand_type

    def _init_weight(self, name, array):
        rows = array.shape[0]
        cols = int(np.prod(array.shape[1:]))
        if self.rand_type == "uniform":
            values = random.generator().uniform(-1.0, 1.0, (rows, cols))
        else:
            values = random.generator().normal(0.0, 1.0, (rows, cols))
        u, _, v = np.linalg.svd(values, full_matrices=False)
        q = u if u.shape == values.shape else v
        array[:] = (self.scale * q).reshape(array.shape)


class LSTMBias(Initializer):
    """LSTM biases: zero except the forget gate's (the second quarter), set to `forget_bias`."""

    def __init__(self, forget_bias=1.0):
        super().__init__(forget_bias=forget_bias)
        self.forget_bias = forget_bias

    def _init_weight(self, name, array):
        values = np.zeros(array.shape, dtype=np.float32)
        hidden = array.shape[0] // 4
        values[hidden:2 * hidden] = self.forget_bias
        array[:] = values


class FusedRNN(Initializer):
    """The flat parameter vector of a FusedRNNCell, filled as its per-gate weights would be: by
    `init` (the global initializer when None), each LSTM forget-gate bias set to `forget_bias`."""

    def __init__(self, init, num_hidden, num_layers, mode, bidirectional=False, forget_bias=1.0):
        if isinstance(init, str):
            init = create(init)
        super().__init__(init=init.dumps() if init is not None else None, num_hidden=num_hidden,
                         num_layers=num_layers, mode=mode, bidirectional=bidirectional, forget_bias=forget_bias)
        self._init = init
        self._num_hidden, self._num_layers, self._mode = num_hidden, num_layers, mode
        self._bidirectional, self._forget_bias = bidirectional, forget_bias

    def _init_weight(self, name, array):
        from runtime.rnn.fused import FusedRNNCell
        cell = FusedRNNCell(self._num_hidden, self._num_layers, self._mode, self._bidirectional,
                            forget_bias=self._forget_bias, prefix="")
        pieces = cell.unpack_weights({"parameters": array})
        fallback = getattr(name, "global_init", None)
        for piece_name, piece in pieces.items():
            if self._mode == "lstm" and piece_name.endswith("_f_bias"):
                piece[:] = self._forget_bias
                continue
            init = self._init if self._init is not None else fallback
            if init is None:
                raise ValueError("FusedRNN(init=None) for %s needs a global initializer" % name)
            # MXNet's dispatch by name (biases zero, weights by `init`) even for Zero/One/Constant,
            # which here fill any name they are given directly
            Initializer.__call__(init, InitDesc(piece_name, global_init=fallback), piece)
        array[:] = cell.pack_weights(pieces)["parameters"]


# `mx.init.register`: packages add initializers of their own (GluonNLP's TruncNorm), known by name
# to `create` and to the `__init__` attributes of variables
register = get_register_func(Initializer, "initializer")
_BUILT_IN = {"zeros": Zero, "zero": Zero, "ones": One, "one": One, "uniform": Uniform, "normal": Normal,
             "xavier": Xavier, "msraprelu": MSRAPrelu, "bilinear": Bilinear, "orthogonal": Orthogonal,
             "lstmbias": LSTMBias, "constant": Constant, "fusedrnn": FusedRNN}


def create(init) -> Initializer:
    if isinstance(init, Initializer):
        return init
    if init is None:
        return Uniform()
    if isinstance(init, str):
        table = dict(get_registry(Initializer), **_BUILT_IN)
        if init.startswith("["):  # an initializer's dumps(): ["name", {arguments}]
            name, arguments = json.loads(init)
            return table[name.lower()](**arguments)
        return table[init.lower()]()
    raise ValueError("unknown initializer %r" % (init,))
