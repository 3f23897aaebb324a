"""Chains of channel Concats in predict-mode plans (runtime/concat_elision.py): the operands are
written in their place in one array and the Concats copy nothing, with the values of a plan that
copies, whatever the shapes of later calls, and without touching what earlier calls returned."""
import threading

import numpy as np
import pytest

from runtime import concat_elision, nd
from runtime.gluon import nn
from tests.test_runtime_inference_fusion import DenseLayer, randomized

RNG = np.random.RandomState(11)


class Block(nn.HybridBlock):
    """A stem (convolution, BatchNorm, ReLU: one fused step) and three dense layers; with
    `inner`, the second layer's concatenation is returned too."""

    def __init__(self, inner=False, tail=False, **kwargs):
        super().__init__(**kwargs)
        self.inner, self.tail = inner, tail
        with self.name_scope():
            self.stem = nn.HybridSequential()
            self.stem.add(nn.Conv2D(6, 3, padding=1, use_bias=False), nn.BatchNorm(), nn.Activation("relu"))
            self.layers = [DenseLayer(4, prefix="dense%d_" % i) for i in range(3)]
            for layer in self.layers:
                self.register_child(layer)
            self.flatten = nn.Flatten()

    def hybrid_forward(self, F, x):
        x = self.stem(x)
        middle = None
        for index, layer in enumerate(self.layers):
            x = layer(x)
            if index == 1:
                middle = x
        if self.tail:
            x = self.flatten(x)
        return (x, middle) if self.inner else x


class Copying:
    """A hybridized block whose plans (one per input shape, compiled at its first call with that
    shape) are compiled without elision."""

    def __init__(self, block, monkeypatch):
        self.block, self.monkeypatch = block, monkeypatch

    def __call__(self, x):
        with self.monkeypatch.context() as patch:
            patch.setattr(concat_elision, "elide", lambda steps, heads, keep=False: 0)
            return self.block(x)


def twins(monkeypatch, static_alloc, **options):
    """The same block hybridized twice: with the chains elided, and with the Concats copying."""
    shape = (1, 3, 10, 10)
    elided = randomized(Block(**options), shape)
    copying = Block(**options)
    copying.initialize()
    copying(nd.ones(shape))
    for mine, theirs in zip(copying.collect_params().values(), elided.collect_params().values()):
        mine.set_data(theirs.data())
    elided.hybridize(static_alloc=static_alloc, static_shape=static_alloc)
    copying.hybridize(static_alloc=static_alloc, static_shape=static_alloc)
    elided(nd.ones(shape))
    return elided, Copying(copying, monkeypatch)


def outputs(value):
    return [v.asnumpy() for v in value] if isinstance(value, (list, tuple)) else [value.asnumpy()]


def random_input(shape):
    return nd.array(RNG.uniform(-1, 1, shape).astype(np.float32))


@pytest.mark.parametrize("static_alloc", [True, False])
def test_chained_concats_take_their_operands_in_place_with_the_copying_plans_values(static_alloc, monkeypatch):
    elided, copying = twins(monkeypatch, static_alloc)
    steps = elided._cached and next(iter(elided._cached.values())).executor.plan_steps(False, ("data",))
    places = [step for step in steps if isinstance(step.attrs.get("buffer"), concat_elision.Place)]
    assert len(places) == 4  # the stem and each layer's 3x3 convolution
    seen = []
    same = concat_elision._same_memory
    monkeypatch.setattr(concat_elision, "_same_memory", lambda a, b: seen.append(same(a, b)) or seen[-1])
    for _ in range(3):
        x = random_input((1, 3, 10, 10))
        seen.clear()
        np.testing.assert_array_equal(elided(x).asnumpy(), copying(x).asnumpy())
        # every operand in place: the stem, each convolution, and the two inner concatenations
        assert seen == [True] * 6


@pytest.mark.parametrize("static_alloc", [True, False])
def test_calls_of_other_shapes_give_the_copying_plans_values(static_alloc, monkeypatch):
    elided, copying = twins(monkeypatch, static_alloc)
    for shape in [(1, 3, 10, 10), (1, 3, 10, 10), (1, 3, 7, 9), (2, 3, 10, 10), (1, 3, 10, 10), (3, 3, 6, 6),
                  (1, 3, 7, 9)]:
        x = random_input(shape)
        np.testing.assert_array_equal(elided(x).asnumpy(), copying(x).asnumpy())


@pytest.mark.parametrize("static_alloc", [True, False])
@pytest.mark.parametrize("options", [{}, {"inner": True}, {"tail": True}])
def test_what_a_call_returned_is_not_changed_by_later_calls(options, static_alloc, monkeypatch):
    """The outermost array is kept from call to call under static_alloc: what the plan returns of
    it (the chain's output, an inner concatenation's, a Flatten's view) must be copies."""
    elided, copying = twins(monkeypatch, static_alloc, **options)
    first = random_input((1, 3, 10, 10))
    elided(first)
    kept = elided(first)  # the places are known from the second call on
    expected = outputs(copying(first))
    for got, want in zip(outputs(kept), expected):
        np.testing.assert_array_equal(got, want)
    elided(random_input((1, 3, 10, 10)))
    for got, want in zip(outputs(kept), expected):
        np.testing.assert_array_equal(got, want)


def test_threads_calling_one_plan_each_get_their_own_values(monkeypatch):
    elided, copying = twins(monkeypatch, static_alloc=False)
    inputs = [random_input((1, 3, 10, 10)) for _ in range(2)]
    expected = [copying(x).asnumpy() for x in inputs]
    failures = []

    def run(which):
        for _ in range(30):
            if not np.array_equal(elided(inputs[which]).asnumpy(), expected[which]):
                failures.append(which)

    threads = [threading.Thread(target=run, args=(which,)) for which in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures


def test_a_lone_concat_is_left_to_copy(monkeypatch):
    """One Concat that no other reads (SqueezeNet's fire module) saves one copy, which the
    producers' writes into memory out of cache cost back: left as it was."""
    class Fire(nn.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.left = nn.Conv2D(4, 1, activation="relu")
                self.right = nn.Conv2D(4, 3, padding=1, activation="relu")

        def hybrid_forward(self, F, x):
            return F.concat(self.left(x), self.right(x), dim=1)

    net = randomized(Fire(), (1, 3, 8, 8))
    net.hybridize(static_alloc=True, static_shape=True)
    net(random_input((1, 3, 8, 8)))
    steps = next(iter(net._cached.values())).executor.plan_steps(False, ("data",))
    assert not any("buffer" in step.attrs for step in steps)


@pytest.mark.parametrize("static_alloc", [True, False])
def test_operands_are_in_place_again_once_a_new_shape_was_seen(static_alloc, monkeypatch):
    elided, copying = twins(monkeypatch, static_alloc)
    seen = []
    same = concat_elision._same_memory
    monkeypatch.setattr(concat_elision, "_same_memory", lambda a, b: seen.append(same(a, b)) or seen[-1])
    for shape in [(1, 3, 10, 10), (1, 3, 7, 9), (1, 3, 7, 9)]:
        seen.clear()
        x = random_input(shape)
        np.testing.assert_array_equal(elided(x).asnumpy(), copying(x).asnumpy())
    assert seen == [True] * 6


def test_the_plan_profile_reads_a_plan_with_places(monkeypatch):
    from runtime.plan_profile import arena_bytes, profile_plan
    elided, _ = twins(monkeypatch, static_alloc=True)
    x = random_input((1, 3, 10, 10))
    elided(x)
    graph = next(iter(elided._cached.values()))
    rows, peak, total = profile_plan(graph.executor, graph.input_names, [x._data], repeat=2)
    steps = graph.executor.plan_steps(False, graph.input_names)
    assert len(rows) == len(steps) and 0 <= arena_bytes(steps) < total
