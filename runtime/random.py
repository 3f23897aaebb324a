"""The random state shared by initializers, Dropout and `nd.random.*`."""
from __future__ import annotations

import numpy as np

_state = {"generator": np.random.default_rng(0)}


def seed(seed_state: int, ctx="all") -> None:
    _state["generator"] = np.random.default_rng(seed_state)
    np.random.seed(seed_state)


def generator() -> np.random.Generator:
    return _state["generator"]
