"""Which results share the input's memory, as in MXNet 1.9.1: NDArray.reshape, indexing and the
inplace=True forms of flatten/expand_dims/squeeze are views; every operator's output is a new array
(a write into the input after the call leaves it alone). Recorded from MXNet 1.9.1 by writing -1
into the input after each call."""
import numpy as np
import pytest

from runtime import nd

SHARES = {
    "flatten": (lambda x: x.flatten(), False),
    "flatten inplace": (lambda x: x.flatten(inplace=True), True),
    "nd.flatten": (lambda x: nd.flatten(x), False),
    "reshape op": (lambda x: nd.reshape(x, shape=(3, 2)), False),
    "expand_dims": (lambda x: x.expand_dims(0), False),
    "expand_dims inplace": (lambda x: x.expand_dims(0, inplace=True), True),
    "squeeze": (lambda x: x.expand_dims(0).squeeze(), False),
    "slice_axis": (lambda x: nd.slice_axis(x, axis=0, begin=0, end=1), False),
    "reshape method": (lambda x: x.reshape((3, 2)), True),
    "split": (lambda x: nd.split(x, 1), False),
    "broadcast_to the same shape": (lambda x: nd.broadcast_to(x, shape=(2, 3)), False),
    "reshape_like": (lambda x: nd.reshape_like(x, nd.zeros((3, 2))), False),
    "indexing": (lambda x: x[0], True),
}


@pytest.mark.parametrize("name", sorted(SHARES))
def test_a_write_into_the_input_reaches_views_only(name):
    make, shares = SHARES[name]
    x = nd.arange(6).reshape((2, 3))
    result = make(x)
    results = result if isinstance(result, list) else [result]
    before = [r.asnumpy().copy() for r in results]
    x[:] = -1
    changed = any((r.asnumpy() != b).any() for r, b in zip(results, before))
    assert changed == shares
    if not shares:
        assert not any(np.shares_memory(r._data, x._data) for r in results)
