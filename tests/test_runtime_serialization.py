"""MXNet's NDArray file format: nd.save / nd.load / nd.load_frombuffer round trips, and a truncated
or inconsistent buffer is MXNet's error, never a shorter result."""
import numpy as np
import pytest

from runtime import nd
from runtime.base import MXNetError


def test_round_trips_and_truncations(tmp_path):
    arrays = {"weight": nd.array(np.arange(6, dtype=np.float32).reshape(2, 3)), "b": nd.array([1, 2], dtype="int32")}
    path = str(tmp_path / "a.params")
    nd.save(path, arrays)
    data = open(path, "rb").read()
    for loaded in (nd.load(path), nd.load_frombuffer(data)):
        assert sorted(loaded) == ["b", "weight"]
        assert loaded["weight"].asnumpy().tolist() == [[0, 1, 2], [3, 4, 5]] and loaded["b"].dtype == np.int32
    nd.save(path, [arrays["b"]])
    assert nd.load_frombuffer(open(path, "rb").read())[0].asnumpy().tolist() == [1, 2]
    for cut in (10, 1, len(data) // 2, len(data) - 30):  # through a name, the names' count, an array
        with pytest.raises(MXNetError):
            nd.load_frombuffer(data[:-cut])


def test_from_numpy_takes_the_memory_over():
    # as MXNet 1.9.1: with zero_copy the NumPy array turns read-only and sees writes through the NDArray
    source = np.array([[1, 2], [3, 4]], dtype=np.float32)
    shared = nd.from_numpy(source)
    with pytest.raises(ValueError):
        source[0, 0] = 7
    shared[1, 1] = 100
    assert source[1, 1] == 100
    copied = nd.from_numpy(np.ones((2,), np.float32), zero_copy=False)
    copied[0] = 5
    with pytest.raises(ValueError):
        nd.from_numpy(np.ones((2, 3)).T)
