"""Graphs thousands of operators deep (GluonCV's ResNeSt-269 FPN R-CNN has over ten thousand nodes):
every walk over a graph in the symbol, executor, autograd and hybridize paths runs with a stack of
its own, under Python's default recursion limit, and the fused kernels of a long elementwise chain
stay short enough to compile quickly. MXNet 1.9.1 builds and runs such chains in milliseconds."""
import math
import sys

import numpy as np
import pytest

import runtime
from runtime import autograd, fusion, gluon, nd, sym
from runtime.symbol import topological

DEPTH = 5000


@pytest.fixture(autouse=True)
def default_recursion_limit():
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)  # Python's default: no walk may need one frame per operator
    yield
    sys.setrecursionlimit(before)


@pytest.fixture
def kernel_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    return tmp_path / "hyblint" / ("fused-kernels-%s" % fusion.FORMAT)


class Chain(gluon.HybridBlock):
    """`depth` applications of one unary operator; with `unknown`, they start from F.zeros of an
    unknown batch size, which shape inference works back from the addition at the end."""

    def __init__(self, depth, op, unknown=False):
        super().__init__()
        self.depth, self.op, self.unknown = depth, op, unknown

    def hybrid_forward(self, F, x):
        y = F.zeros(shape=(0, 3)) if self.unknown else x
        for _ in range(self.depth):
            y = getattr(F, self.op)(y)
        return x + y if self.unknown else y


def symbol_chain(depth):
    data = sym.var("data")
    out = data
    for _ in range(depth):
        out = sym.relu(out)
    return data, out


X = np.array([[-1.0, 0.5, 2.0], [0.25, -3.0, 1.0]], np.float32)


def test_a_deep_chain_of_fusable_operators_runs_hybridized_in_short_kernels(kernel_cache):
    net = Chain(DEPTH, "relu")
    net.hybridize()
    assert np.array_equal(net(nd.array(X)).asnumpy(), np.maximum(X, 0))
    # cut into kernels of at most MAX_GROUP operators, whose sources are two: the full ones and the rest
    assert len(list(kernel_cache.glob("fused_*.py"))) == 2


def test_fused_groups_are_capped_and_keep_the_graph_order():
    _, out = symbol_chain(1000)
    order = topological(out._outputs)
    consumers = {id(n): 1 for n in order}
    groups = fusion.find_groups(order, consumers)
    assert [len(g) for g in groups] == [fusion.MAX_GROUP] * (1000 // fusion.MAX_GROUP) + [1000 % fusion.MAX_GROUP]
    position = {id(n): k for k, n in enumerate(order)}
    assert all([position[id(n)] for n in g] == sorted(position[id(n)] for n in g) for g in groups)


def test_a_bound_deep_chain_runs_as_few_steps():
    data, out = symbol_chain(DEPTH)
    executor = out.bind(runtime.cpu(), {"data": nd.array(X)})
    assert np.array_equal(executor.forward()[0].asnumpy(), np.maximum(X, 0))
    assert len(executor.plan_steps()) == math.ceil(DEPTH / fusion.MAX_GROUP)


def test_a_deep_chain_of_other_operators_runs_hybridized_and_differentiates():
    net = Chain(DEPTH, "sin")
    net.hybridize()
    x = nd.array(X)
    x.attach_grad()
    with autograd.record():
        y = net(x)
    y.backward()
    # d/dx of sin applied DEPTH times: the product of the cosines along the way (in float64)
    value, grad = X.astype(np.float64), np.ones_like(X, dtype=np.float64)
    for _ in range(DEPTH):
        grad *= np.cos(value)
        value = np.sin(value)
    assert np.allclose(y.asnumpy(), value, rtol=1e-4, atol=1e-5)
    assert np.allclose(x.grad.asnumpy(), grad, rtol=1e-3, atol=1e-5)


def test_shapes_are_worked_back_through_a_deep_chain():
    net = Chain(DEPTH, "relu", unknown=True)
    net.hybridize()
    assert np.array_equal(net(nd.array(X)).asnumpy(), X)


def test_a_deep_recorded_chain_gives_its_symbol():
    x = nd.array(X)
    x.attach_grad()
    with autograd.record():
        y = x
        for _ in range(DEPTH):
            y = nd.relu(y)
    graph = autograd.get_symbol(y)
    assert graph.list_arguments() == ["var0"]
    assert len(graph.get_internals().list_outputs()) == DEPTH + 1


def test_a_deep_symbol_composes_serializes_and_infers():
    data, out = symbol_chain(DEPTH)
    composed = out(data=sym.var("other"))
    assert composed.list_arguments() == ["other"]
    loaded = sym.load_json(out.tojson())
    assert len(loaded.get_internals().list_outputs()) == DEPTH + 1
    assert out.infer_shape(data=(2, 3))[1] == [(2, 3)]
    assert out.infer_type(data="float32")[1] == [np.float32]
    assert out.debug_str().count("Op:relu") == DEPTH
    block = gluon.SymbolBlock(out, [data])
    block.hybridize()
    assert np.array_equal(block(nd.array(X)).asnumpy(), np.maximum(X, 0))


def test_composing_with_one_output_of_several_reads_that_output():
    # MXNet 1.9.1: relu(b) composed with b = split(x)[2] is the ReLU of the third part ([[2, 3]]
    # for these values), not of the first
    x, b = sym.var("x"), sym.var("b")
    parts = sym.split(x, num_outputs=3, axis=0)
    composed = sym.relu(b)(b=parts[2])
    values = np.arange(6, dtype=np.float32).reshape(3, 2) - 2
    out = composed.bind(runtime.cpu(), {"x": nd.array(values)}).forward()[0]
    assert out.asnumpy().tolist() == [[2.0, 3.0]]
