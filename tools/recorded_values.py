"""How the recorders write a value MXNet gave as JSON: an array as its shape, dtype and flat data,
lists and tuples item by item, NumPy scalars as Python numbers. The tests that replay the cases
read them back with the same encoding."""
import numpy as np


def encode(value):
    if hasattr(value, "asnumpy"):
        data = value.asnumpy()
        return {"shape": list(data.shape), "dtype": data.dtype.name, "data": data.reshape(-1).tolist()}
    if isinstance(value, (list, tuple)):
        return [encode(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value
