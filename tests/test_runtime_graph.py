"""The compiled plan of a bound graph: fused elementwise kernels give the unfused results, and
their machine code is cached on disk for the next process."""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import runtime
from runtime import fusion, nd, sym

ROOT = Path(__file__).resolve().parents[1]


def bind_and_run(graph, **inputs):
    executor = graph.bind(runtime.cpu(), {k: nd.array(v) for k, v in inputs.items()})
    return executor, executor.forward()[0].asnumpy()


def chain():
    a, b = sym.var("a"), sym.var("b")
    return sym.tanh(sym.relu(a + b) * 2 - b / 3) + sym.sigmoid(a)


@pytest.fixture
def kernel_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    return tmp_path / "hyblint" / ("fused-kernels-%s" % fusion.FORMAT)


def test_fused_chain_equals_the_operators_one_by_one(kernel_cache, monkeypatch):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((3, 5)).astype(np.float32), rng.standard_normal((3, 5)).astype(np.float32)
    executor, fused = bind_and_run(chain(), a=a, b=b)
    assert len(executor.plan_steps()) == 1  # eight operators, one generated kernel
    assert len(list(kernel_cache.glob("fused_*.py"))) == 1
    monkeypatch.setenv("HYBLINT_RUNTIME_FUSION", "0")
    executor, plain = bind_and_run(chain(), a=a, b=b)
    assert len(executor.plan_steps()) == 8
    expected = np.tanh(np.maximum(a + b, 0) * 2 - b / 3) + 1 / (1 + np.exp(-a))
    np.testing.assert_allclose(fused, expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(plain, expected, rtol=1e-5, atol=1e-6)


def test_a_result_used_twice_is_not_fused_away():
    a = sym.var("a")
    shared = sym.relu(a)
    graph = sym.Group([shared * 2, shared + 1])
    executor = graph.bind(runtime.cpu(), {"a": nd.array([[-1.0, 2.0]])})
    first, second = [o.asnumpy() for o in executor.forward()]
    assert first.tolist() == [[0.0, 4.0]] and second.tolist() == [[1.0, 3.0]]


def test_a_new_process_loads_the_kernel_from_disk(kernel_cache):
    code = ("import runtime, numpy as np\nfrom runtime import nd, sym\n"
            "a, b = sym.var('a'), sym.var('b')\n"
            "g = sym.tanh(sym.relu(a + b) * 2 - b / 3) + sym.sigmoid(a)\n"
            "print(g.bind(runtime.cpu(), {'a': nd.ones((2, 2)), 'b': nd.ones((2, 2))}).forward()[0].asnumpy()[0, 0])")
    env = dict(os.environ, PYTHONPATH=str(ROOT), XDG_CACHE_HOME=str(kernel_cache.parent.parent))
    first = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    cached = list(kernel_cache.glob("__pycache__/*.nbi"))
    assert cached, "numba wrote no index of cached machine code"
    second = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert first.stdout == second.stdout


def test_constant_subgraphs_are_computed_once_at_bind_time():
    x = sym.var("x")
    graph = x + sym.ones((2,)) * 3
    executor = graph.bind(runtime.cpu(), {"x": nd.array([1.0, 2.0])})
    assert executor.forward()[0].asnumpy().tolist() == [4.0, 5.0]
    steps = executor.plan_steps()
    assert [step.node.op.name for step in steps] == ["elemwise_add"]  # ones * 3 was folded
    assert executor.forward(x=nd.array([0.0, -3.0]))[0].asnumpy().tolist() == [3.0, 0.0]


def test_static_alloc_reuses_buffers_and_returns_independent_results():
    from runtime.gluon import nn

    class Block(nn.HybridBlock):
        def hybrid_forward(self, F, a, b):
            return F.tanh(F.relu(a + b) * 2)

    block = Block()
    block.hybridize(static_alloc=True)
    first = block(nd.array([[1.0, -1.0]]), nd.array([[0.5, 0.5]]))
    second = block(nd.array([[2.0, 3.0]]), nd.array([[0.0, -4.0]]))
    np.testing.assert_allclose(first.asnumpy(), np.tanh(np.maximum([[1.5, -0.5]], 0) * 2), rtol=1e-6)
    np.testing.assert_allclose(second.asnumpy(), np.tanh(np.maximum([[2.0, -1.0]], 0) * 2), rtol=1e-6)
    [graph] = block._cached.values()
    step = graph.executor.plan_steps(names=graph.input_names)[0]
    assert step.function(np.ones((1, 2), np.float32), np.ones((1, 2), np.float32)) is \
        step.function(np.zeros((1, 2), np.float32), np.zeros((1, 2), np.float32))  # one buffer, reused


def test_a_hybridized_block_may_ignore_an_input():
    from runtime.gluon import nn

    class FirstOnly(nn.HybridBlock):
        def hybrid_forward(self, F, a, b):
            return F.relu(a) * 2

    block = FirstOnly()
    block.hybridize()
    for _ in range(2):  # the trace, then the compiled graph
        got = block(nd.array([[-1.0, 3.0]]), nd.array([[7.0]]))
        assert got.asnumpy().tolist() == [[0.0, 6.0]]


def test_an_error_while_a_compiled_graph_runs_names_the_operator():
    from runtime.base import MXNetError
    from runtime.gluon import nn

    class Take(nn.HybridBlock):
        def hybrid_forward(self, F, data, index):
            return F.take(data, index, mode="raise") + 1

    block = Take()
    block.hybridize()
    data = nd.array([[1.0, 2.0], [3.0, 4.0]])
    assert block(data, nd.array([1.0])).asnumpy().tolist() == [[4.0, 5.0]]
    with pytest.raises(MXNetError, match=r"^Error in operator take\d+_take\d+: index out of range"):
        block(data, nd.array([7.0]))  # same signature: the compiled graph runs, and take fails in it


def test_a_hybridized_mlp_runs_as_one_chain_of_dense_layers():
    from runtime.gluon import nn
    from runtime.kernels.nn import dense_chain

    class TwoHeads(nn.HybridBlock):  # the hidden layer is also an output: it cannot vanish in a chain
        def __init__(self):
            super().__init__()
            with self.name_scope():
                self.hidden, self.out = nn.Dense(8, activation="relu"), nn.Dense(2)

        def hybrid_forward(self, F, x):
            hidden = self.hidden(x)
            return hidden, self.out(hidden)

    mlp = nn.HybridSequential()
    mlp.add(nn.Dense(16, activation="relu"), nn.Dense(8, activation="relu"), nn.Dense(2))
    two_heads = TwoHeads()
    x = nd.array(np.random.default_rng(3).standard_normal((1, 5)))
    for block, chained in ((mlp, [True]), (two_heads, [False, False])):
        block.initialize()
        eager = block(x)
        block.hybridize()
        hybridized = block(x)
        for e, h in zip(_as_list(eager), _as_list(hybridized)):  # MXNet: a tuple eagerly, a list hybridized
            np.testing.assert_allclose(h.asnumpy(), e.asnumpy(), rtol=1e-5, atol=1e-6)
        [graph] = block._cached.values()
        plan = graph.executor.plan_steps(names=graph.input_names)
        assert [step.function is dense_chain for step in plan] == chained


def _as_list(outputs):
    return list(outputs) if isinstance(outputs, (tuple, list)) else [outputs]


def test_a_hybridized_convolution_then_max_pooling_runs_as_one_step():
    from runtime.gluon import nn
    from runtime.kernels.nn import convolution_max_pool

    class Features(nn.HybridBlock):  # the second convolution's output is also returned: not merged
        def __init__(self):
            super().__init__()
            with self.name_scope():
                self.conv1, self.conv2 = nn.Conv2D(4, 3, activation="relu"), nn.Conv2D(3, 3)
                self.pool = nn.MaxPool2D(2, 2, ceil_mode=True)  # its windows stay inside: fused

        def hybrid_forward(self, F, x):
            second = self.conv2(self.pool(self.conv1(x)))
            return second, self.pool(second)

    block = Features()
    block.initialize()
    x = nd.array(np.random.default_rng(4).standard_normal((2, 1, 14, 14)))
    eager = block(x)
    block.hybridize()
    hybridized = block(x)
    for e, h in zip(_as_list(eager), _as_list(hybridized)):
        np.testing.assert_allclose(h.asnumpy(), e.asnumpy(), rtol=1e-5, atol=1e-6)
    [graph] = block._cached.values()
    plan = graph.executor.plan_steps(names=graph.input_names)
    assert [step.function is convolution_max_pool for step in plan] == [True, False, False]


@pytest.mark.parametrize("static_alloc", [False, True])
def test_a_hybridized_constant_output_is_a_new_array_at_every_call(static_alloc):
    from runtime.gluon import nn

    class WithConstant(nn.HybridBlock):
        def hybrid_forward(self, F, x):
            return F.relu(x), F.ones((2,)) * 3  # the second output is folded at bind time

    block = WithConstant()
    block.hybridize(static_alloc=static_alloc)
    x = nd.array([[1.0, -1.0]])
    for _ in range(2):  # the trace, then the compiled graph
        first = block(x)
        first[1][:] = 0  # the caller writes into what it got
        second = block(x)
        assert second[1].asnumpy().tolist() == [3.0, 3.0]


def test_a_creation_operator_of_unknown_sizes_takes_them_from_its_consumers():
    # MXNet 1.9.1 (legacy shapes, 0 an unknown size): zeros((1, 0, 6)) alone infers (1, 0, 6);
    # added to d of (1, 2, 6) it is (1, 2, 6), and a bound graph computes it so
    zeros = sym.zeros((1, 0, 6))
    assert zeros.infer_shape_partial() == ([], [(1, 0, 6)], [])
    total = zeros + sym.var("d")
    assert total.infer_shape(d=(1, 2, 6)) == ([(1, 2, 6)], [(1, 2, 6)], [])
    _, out = bind_and_run(total, d=np.ones((1, 2, 6)))
    np.testing.assert_array_equal(out, np.ones((1, 2, 6)))


@pytest.mark.parametrize("a_min,a_max", [(0.0, 6.0), (-1.5, 0.25), (2.0, -1.0), (-np.inf, 0.5), (0.0, np.inf)])
def test_clip_fused_into_a_chain_gives_the_operators_values(a_min, a_max, kernel_cache, monkeypatch):
    """MobileNet v3's hard swish, x * clip(x + 3, 0, 6), as one kernel: NaN, -0 and values on the
    bounds as clip gives them (reversed bounds as MXNet orders its tests)."""
    x = sym.var("x")
    graph = x * sym.clip(x + 3, a_min=a_min, a_max=a_max) / 6
    values = np.array([[np.nan, -0.0, 0.0, -3.0, -4.5, 3.0, 2.9999998, -2.75, 7.0, 1e30]], np.float32)
    executor, fused = bind_and_run(graph, x=values)
    assert len(executor.plan_steps()) == 1
    monkeypatch.setenv("HYBLINT_RUNTIME_FUSION", "0")
    executor, plain = bind_and_run(graph, x=values)
    assert len(executor.plan_steps()) == 4
    np.testing.assert_array_equal(np.isnan(fused), np.isnan(plain))
    np.testing.assert_array_equal(np.signbit(fused), np.signbit(plain))
    np.testing.assert_allclose(fused, plain, rtol=1e-6, atol=0)
