"""Gluon on the runtime: MXNet 1.x naming, parameter collection, deferred initialization, modes."""
import numpy as np
import pytest

import runtime
from runtime import autograd, nd, sym
from runtime.context import cpu


def test_names_and_structural_parameter_names_follow_mxnet():
    with runtime.as_mxnet():
        from mxnet.gluon import nn
        net = nn.HybridSequential(prefix="model_")
        with net.name_scope():
            net.add(nn.Dense(4, in_units=3), nn.Dense(2, in_units=4))
        assert list(net.collect_params()) == ["model_dense0_weight", "model_dense0_bias", "model_dense1_weight",
                                              "model_dense1_bias"]
        assert sorted(net._collect_params_with_prefix()) == ["0.bias", "0.weight", "1.bias", "1.weight"]
        assert list(net.collect_params(".*weight")) == ["model_dense0_weight", "model_dense1_weight"]


def test_deferred_initialization_learns_shapes_from_the_first_input():
    from runtime.gluon import nn
    net = nn.HybridSequential()
    net.add(nn.Conv2D(5, kernel_size=3), nn.BatchNorm(), nn.Flatten(), nn.Dense(2))
    net.initialize()
    assert net[0].weight.shape == (5, 0, 3, 3)
    net(nd.ones((1, 4, 6, 6)))
    assert net[0].weight.shape == (5, 4, 3, 3) and net[1].gamma.shape == (5,) and net[3].weight.shape == (2, 80)


def test_dropout_is_identity_outside_training_and_random_inside():
    from runtime.gluon import nn
    layer = nn.Dropout(0.5)
    x = nd.ones((200,))
    assert layer(x).asnumpy().tolist() == x.asnumpy().tolist()
    with autograd.record():
        dropped = layer(x).asnumpy()
    assert set(np.unique(dropped)) <= {0.0, 2.0} and 0 < (dropped == 0).sum() < 200


def test_contrib_layers_and_split_and_load():
    with runtime.as_mxnet():
        import mxnet as mx
        from mxnet.gluon.contrib.nn import HybridConcurrent, Identity
        from mxnet.gluon.utils import split_and_load
        block = HybridConcurrent(axis=1)
        block.add(Identity(), Identity())
        block.hybridize()
        assert block(mx.nd.ones((2, 3))).shape == (2, 6)
        parts = split_and_load(mx.nd.arange(8).reshape((4, 2)), [mx.cpu(0), mx.cpu(1)])
        assert [p.shape for p in parts] == [(2, 2), (2, 2)] and parts[1].context == mx.cpu(1)


def test_as_mxnet_is_undone_by_the_context_manager():
    import sys
    before = sys.modules.get("mxnet")
    with runtime.as_mxnet() as mx:
        assert mx.nd is runtime.nd and sys.modules["mxnet"] is mx
    assert sys.modules.get("mxnet") is before


def test_hybridized_block_keeps_one_graph_per_input_signature():
    from runtime.gluon import nn
    net = nn.Dense(3, in_units=4)
    net.initialize()
    net.hybridize()
    net(nd.ones((2, 4)))
    net(nd.ones((5, 4)))
    net(nd.ones((2, 4)))
    assert len(net._cached) == 2


def test_hybrid_block_rejects_plain_block_children():
    from runtime.gluon import nn
    parent = nn.HybridSequential()
    with pytest.raises(ValueError, match="Children of HybridBlock must also be HybridBlock"):
        parent.add(nn.Sequential())


def test_volumetric_convolution_matches_a_direct_sum():
    from runtime.kernels.nn import _convolution_nd, convolution
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 4, 7, 8)).astype(np.float32)
    w = rng.standard_normal((6, 2, 3, 3)).astype(np.float32)
    planar = convolution(x, w, None, kernel=(3, 3), stride=(2, 1), dilate=(1, 2), pad=(1, 1), num_filter=6,
                         num_group=2, no_bias=True)
    generic = _convolution_nd(x, w, None, (3, 3), (2, 1), (1, 2), (1, 1), 6, 2, True)
    np.testing.assert_allclose(generic, planar, rtol=1e-5, atol=1e-5)
    volume = rng.standard_normal((1, 2, 3, 4, 4)).astype(np.float32)
    kernel = rng.standard_normal((3, 2, 2, 2, 2)).astype(np.float32)
    out = nd.Convolution(nd.array(volume), nd.array(kernel), kernel=(2, 2, 2), num_filter=3, no_bias=True)
    direct = np.zeros((1, 3, 2, 3, 3), np.float32)
    for f in range(3):
        for d in range(2):
            for h in range(3):
                for v in range(3):
                    direct[0, f, d, h, v] = (volume[0, :, d:d + 2, h:h + 2, v:v + 2] * kernel[f]).sum()
    np.testing.assert_allclose(out.asnumpy(), direct, rtol=1e-5, atol=1e-5)


def test_a_container_with_an_empty_prefix_shares_its_parents_naming():
    from runtime.gluon import nn

    class Net(nn.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.features = nn.HybridSequential(prefix="")
                with self.features.name_scope():
                    self.features.add(nn.Dense(4), nn.Dense(4))
                self.output = nn.Dense(2)

        def hybrid_forward(self, F, x):
            return self.output(self.features(x))

    net = Net(prefix="alex_")
    assert [net.features[0].prefix, net.features[1].prefix, net.output.prefix] == \
        ["alex_dense0_", "alex_dense1_", "alex_dense2_"]
    net.initialize()
    assert net(nd.ones((1, 3))).shape == (1, 2)


def test_a_hybrid_blocks_inputs_as_mxnet_takes_them():
    # MXNet 1.9.1: None among the inputs; Python values until hybridized; one structure per cached graph
    from runtime.gluon import nn as gnn

    class Add(gnn.HybridBlock):
        def hybrid_forward(self, F, a, b):
            if a is None:
                return b
            if isinstance(b, (list, tuple)):
                b = sum(b)
            return a + b

    block = Add()
    assert block(None, nd.ones((2,))).asnumpy().tolist() == [1, 1]
    assert block(nd.ones((2,)), 3).asnumpy().tolist() == [4, 4]
    assert block(nd.ones((2,)), [nd.ones((2,)), nd.ones((2,))]).asnumpy().tolist() == [3, 3]
    with pytest.raises(ValueError, match="there must be one NDArray or one Symbol"):
        block(None, None)
    block.hybridize()
    with pytest.raises(ValueError, match="must be \\(nested\\) list of Symbol or NDArray"):
        block(nd.ones((2,)), 3)
    block = Add()
    block.hybridize()
    block(None, nd.ones((2,)))
    block(None, nd.ones((3,)))  # another shape: fine
    with pytest.raises(ValueError, match="does not match the cached version"):
        block(nd.ones((2,)), nd.ones((2,)))
    with pytest.raises(ValueError, match="mixed NDArrays and Symbols"):
        Add()(nd.ones((2,)), sym.var("a"))
    block = Add()
    block.hybridize()
    with pytest.raises(ValueError, match="multiple contexts"):
        block(nd.ones((2,), ctx=cpu(1)), nd.ones((2,), ctx=cpu(2)))


def test_block_attributes_and_containers_as_mxnet_checks_them():
    import warnings

    from runtime.gluon import nn as gnn
    from runtime.gluon.block import Block
    block = Block()
    block.child = Block()
    with pytest.raises(TypeError, match="Changing attribute type for child"):
        block.child = (2,)

    class Holder(Block):
        def __init__(self):
            super().__init__()
            self.layers = [gnn.Dense(2), gnn.Dense(3)]  # not children: their parameters are not collected
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        Holder().collect_params()
    assert any("unregistered container with Blocks" in str(w.message) for w in caught)
    sequential = gnn.Sequential()
    sequential.add(gnn.Dense(2))
    with pytest.warns(UserWarning, match="Consider using HybridSequential"):
        sequential.hybridize()


# recorded from MXNet 1.9.1: the summary of the network below, then of an LSTM with its states
SUMMARY = """--------------------------------------------------------------------------------
        Layer (type)                                Output Shape         Param #
================================================================================
               Input                                (2, 3, 6, 6)               0
            Conv2D-1                                (2, 4, 4, 4)             112
         BatchNorm-2                                (2, 4, 4, 4)              16
        Activation-3                                (2, 4, 4, 4)               0
           Flatten-4                                     (2, 64)               0
             Dense-5                                      (2, 5)             325
             Dense-6                                      (2, 5)              30
             Dense-7                                      (2, 5)              30
================================================================================
Parameters in forward computation graph, duplicate included
   Total params: 513
   Trainable params: 505
   Non-trainable params: 8
Shared params in forward computation graph: 30
Unique parameters in model: 483
--------------------------------------------------------------------------------
--------------------------------------------------------------------------------
        Layer (type)                                Output Shape         Param #
================================================================================
               Input           (4, 2, 5), [(1, 2, 3), (1, 2, 3)]               0
              LSTM-1           (4, 2, 3), [(1, 2, 3), (1, 2, 3)]             120
================================================================================
Parameters in forward computation graph, duplicate included
   Total params: 120
   Trainable params: 120
   Non-trainable params: 0
Shared params in forward computation graph: 0
Unique parameters in model: 120
--------------------------------------------------------------------------------
"""


def test_summary_prints_mxnets_table(capsys):
    from runtime.gluon import nn as gnn
    from runtime.gluon import rnn as grnn
    net = gnn.HybridSequential()
    net.add(gnn.Conv2D(4, 3), gnn.BatchNorm(), gnn.Activation("relu"), gnn.Flatten(), gnn.Dense(5))
    dense = gnn.Dense(5, in_units=5)
    net.add(dense, gnn.Dense(5, in_units=5, params=dense.params))
    net.initialize()
    net.summary(nd.ones((2, 3, 6, 6)))
    lstm = grnn.LSTM(3)
    lstm.initialize()
    lstm.summary(nd.ones((4, 2, 5)), lstm.begin_state(2))
    assert capsys.readouterr().out == SUMMARY
    net.hybridize()
    with pytest.raises(AssertionError, match="must not be hybridized to print summary"):
        net.summary(nd.ones((2, 3, 6, 6)))


def test_clearing_the_cached_op_traces_hybrid_forward_again():
    """GluonCV's set_nms and reset_class change what hybrid_forward reads, then call MXNet's
    private `_clear_cached_op`, so that the next call traces again."""
    from runtime.gluon import nn

    class Scaled(nn.HybridBlock):
        factor = 2.0

        def hybrid_forward(self, F, x):
            return x * self.factor

    block = Scaled()
    block.hybridize()
    x = nd.ones((2,))
    np.testing.assert_array_equal(block(x).asnumpy(), [2, 2])
    block.factor = 3.0
    np.testing.assert_array_equal(block(x).asnumpy(), [2, 2])  # the traced graph still runs
    block._clear_cached_op()
    np.testing.assert_array_equal(block(x).asnumpy(), [3, 3])
