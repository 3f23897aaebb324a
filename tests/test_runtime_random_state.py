"""The runtime's random state is MXNet's own, apart from NumPy's global generator, as on MXNet
1.9.1 (both checks below hold there): mx.random.seed leaves NumPy's stream alone, and seeding
NumPy does not change what MXNet's operators draw."""
import numpy as np

from runtime import nd, random


def test_seeding_mxnet_leaves_numpys_stream_alone():
    np.random.seed(3)
    expected = np.random.rand(3)
    np.random.seed(3)
    random.seed(7)
    assert (np.random.rand(3) == expected).all()


def test_seeding_numpy_leaves_mxnets_draws_alone():
    draws = []
    for numpy_seed in (1, 2):
        random.seed(7)
        np.random.seed(numpy_seed)
        draws.append((nd.Dropout(nd.ones((4, 16)), p=0.5, mode="always").asnumpy(),
                      nd.random.uniform(shape=(5,)).asnumpy()))
    assert (draws[0][0] == draws[1][0]).all() and (draws[0][1] == draws[1][1]).all()
