"""Large arrays are let go of when the program drops them, as in MXNet 1.9.1, rather than when
Python's cyclic collector next runs: MXNet's test_gluon.py builds sixteen networks over one
16x128x256x256 batch (512 MiB) in a loop, and arrays held a little longer each time add up to
gigabytes. Also: the gradient of a slice costs one array of the data's size."""
import gc
import tracemalloc
import weakref

import numpy as np

from runtime import autograd, nd
from runtime.gluon import HybridBlock, nn


class _NoCycleCollection:
    """Reference counting only, inside the block."""

    def __enter__(self):
        self.was = gc.isenabled()
        gc.collect()
        gc.disable()

    def __exit__(self, *exc):
        if self.was:
            gc.enable()


def test_a_variable_with_a_gradient_is_freed_by_reference_counting():
    with _NoCycleCollection():
        x = nd.ones((4, 5))
        x.attach_grad()
        with autograd.record():
            y = (x * 2).sum()
        y.backward()
        assert (x.grad.asnumpy() == 2).all()
        gone = weakref.ref(x)
        del x, y
        assert gone() is None


def test_a_gradient_still_reaches_its_buffer_when_the_variable_is_gone():
    x = nd.ones((2, 3))
    x.attach_grad()
    grad = x.grad
    with autograd.record():
        y = x * 3
    del x
    gc.collect()
    y.backward()
    assert (grad.asnumpy() == 3).all()


class _Twice(HybridBlock):
    def __init__(self, layer, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.layer = layer

    def hybrid_forward(self, F, x):
        return self.layer(x) * 2


def test_a_layer_shared_by_two_networks_does_not_keep_the_first_alive():
    pool = nn.MaxPool2D()
    first = _Twice(pool)
    first.hybridize()
    first(nd.ones((1, 1, 4, 4)))
    gone = weakref.ref(first)
    second = _Twice(pool)
    second(nd.ones((1, 1, 4, 4)))
    del first
    gc.collect()
    assert gone() is None


def test_a_hybridized_block_keeps_no_copy_of_its_input():
    net = nn.GlobalAvgPool2D()
    net.hybridize()
    x = nd.ones((8, 16, 64, 64))  # 2 MiB
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        out = net(x)
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert out.shape == (8, 16, 1, 1)
    # what the call leaves held (the cached graph, its output) is far below one copy of the input
    assert held < x.size * 4 // 2


def test_the_gradient_of_a_slice_costs_one_array_of_the_data():
    x = nd.array(np.random.RandomState(0).rand(64, 64, 256).astype(np.float32))  # 4 MiB
    x.attach_grad()
    with autograd.record():
        y = nd.slice(x, begin=(8, None, 250), end=(None, 3, 1), step=(2, 1, -3))
    head = nd.array(np.random.RandomState(1).rand(*y.shape).astype(np.float32))
    tracemalloc.start()
    try:
        y.backward(head)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    expected = np.zeros(x.shape, np.float32)
    expected[8::2, :3, 250:1:-3] = head.asnumpy()
    assert np.array_equal(x.grad.asnumpy(), expected)
    assert peak < 2 * x.size * 4


def test_slice_axis_and_slice_like_gradients_write_their_block():
    x = nd.arange(24).reshape((2, 3, 4))
    like = nd.zeros((1, 2, 9))
    x.attach_grad()
    with autograd.record():
        y = nd.slice_axis(x, axis=-1, begin=-3, end=None) * 2 + nd.slice_like(x, like, axes=(0, 1)).sum()
    y.backward()
    expected = np.zeros((2, 3, 4), np.float32)
    expected[..., 1:] = 2
    expected[:1, :2, :] += 18  # the sum reaches each of y's 2*3*3 elements
    assert np.array_equal(x.grad.asnumpy(), expected)


def test_a_hybridized_network_is_freed_by_reference_counting():
    with _NoCycleCollection():
        net = _Twice(nn.MaxPool2D())
        net.initialize()
        net.hybridize()
        x = nd.ones((1, 1, 4, 4))
        x.attach_grad()
        with autograd.record():
            y = net(x)
        y.backward()
        gone = weakref.ref(net)
        del net, y
        assert gone() is None
