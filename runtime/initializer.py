"""Parameter initializers, with MXNet's names and defaults."""
from __future__ import annotations

import json

import numpy as np

from runtime import random


class Initializer:
    def __init__(self, **kwargs):
        self._kwargs = kwargs

    def dumps(self) -> str:
        return json.dumps([type(self).__name__.lower(), self._kwargs])

    def __call__(self, name: str, array) -> None:
        """Fill `array` (an NDArray) for the parameter called `name`."""
        if name.endswith(("bias", "beta", "running_mean", "moving_mean")):
            array[:] = 0.0
        elif name.endswith(("gamma", "running_var", "moving_var")):
            array[:] = 1.0
        else:
            self._init_weight(name, array)

    def _init_weight(self, name, array) -> None:
        raise NotImplementedError


class Zero(Initializer):
    def _init_weight(self, name, array):
        array[:] = 0.0

    def __call__(self, name, array):
        array[:] = 0.0


class One(Initializer):
    def _init_weight(self, name, array):
        array[:] = 1.0

    def __call__(self, name, array):
        array[:] = 1.0


class Constant(Initializer):
    def __init__(self, value):
        super().__init__(value=value)
        self.value = value

    def _init_weight(self, name, array):
        array[:] = self.value

    def __call__(self, name, array):
        array[:] = self.value


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


def create(init) -> Initializer:
    if isinstance(init, Initializer):
        return init
    if init is None:
        return Uniform()
    if isinstance(init, str):
        table = {"zeros": Zero, "zero": Zero, "ones": One, "one": One, "uniform": Uniform, "normal": Normal,
                 "xavier": Xavier, "msraprelu": MSRAPrelu}
        return table[init.lower()]()
    raise ValueError("unknown initializer %r" % (init,))
