"""The log-uniform (Zipfian) candidate samplers of MXNet 1.9.1: `contrib.rand_zipfian` (a front-end
composition, in nd and sym) and the `_sample_unique_zipfian` operator. Shapes, dtypes and expected
counts recorded from MXNet 1.9.1."""
import numpy as np

from runtime import nd, sym


def test_rand_zipfian_draws_int64_classes_and_float64_expected_counts():
    sampled, count_true, count_sampled = nd.contrib.rand_zipfian(nd.array([1, 3]), 6, 20)
    assert (sampled.dtype, sampled.shape) == (np.int64, (6,))
    assert (count_true.dtype, count_true.shape) == (np.float64, (2,))
    assert (count_sampled.dtype, count_sampled.shape) == (np.float64, (6,))
    # recorded from MXNet 1.9.1
    np.testing.assert_allclose(count_true.asnumpy(), [0.799071348105463, 0.43976069655325245], rtol=1e-12)
    classes = sampled.asnumpy()
    assert ((classes >= 0) & (classes < 20)).all()
    np.testing.assert_allclose(count_sampled.asnumpy(), np.log((classes + 2.0) / (classes + 1.0)) / np.log(21) * 6)


def test_rand_zipfian_in_a_graph():
    outputs = sym.Group(list(sym.contrib.rand_zipfian(sym.var("t"), 6, 20)))
    executor = outputs.bind(None, {"t": nd.array([1, 3])})
    sampled, count_true, count_sampled = executor.forward()
    assert sampled.shape == (6,) and count_true.shape == (2,) and count_sampled.shape == (6,)
    np.testing.assert_allclose(count_true.asnumpy(), [0.799071348105463, 0.43976069655325245], rtol=1e-12)


def test_unique_zipfian_rows_are_distinct_and_count_their_draws():
    samples, tries = nd._internal._sample_unique_zipfian(50, shape=(3, 10))
    assert (samples.dtype, samples.shape, tries.dtype, tries.shape) == (np.int64, (3, 10), np.int64, (3,))
    for row, count in zip(samples.asnumpy(), tries.asnumpy()):
        assert np.unique(row).size == 10 and ((row >= 0) & (row < 50)).all() and count >= 10


def test_unique_zipfian_draw_counts_follow_the_distribution():
    # the bounds MXNet's test_random.py sets for 8192 classes of 793472 (about 15700 draws)
    _, tries = nd._internal._sample_unique_zipfian(793472, shape=(2, 8192))
    assert ((tries.asnumpy() > 14500) & (tries.asnumpy() < 17000)).all()
