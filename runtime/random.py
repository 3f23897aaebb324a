"""The random state shared by initializers, Dropout and `nd.random.*`."""
from __future__ import annotations

import numpy as np

_state = {"generator": np.random.default_rng(0)}


def seed(seed_state: int, ctx="all") -> None:
    """Seed the runtime's generator, as mx.random.seed seeds MXNet's: NumPy's global generator,
    which user code (and MXNet's own Python, the samplers of gluon.data) draws from, is left alone."""
    # MXNet takes any 32-bit int, negative ones too (it passes a C int); NumPy wants 0 <= seed < 2^32
    state = int(seed_state) % (1 << 32)
    _state["generator"] = np.random.default_rng(state)


def generator() -> np.random.Generator:
    return _state["generator"]


def __getattr__(name):
    """`mx.random.uniform`, `normal`, ...: the samplers of `nd.random`, drawing from the state above."""
    from runtime import nd
    try:
        return getattr(nd.random, name)
    except AttributeError:
        raise AttributeError("module 'mxnet.random' has no attribute '%s'" % name) from None
