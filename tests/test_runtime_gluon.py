"""Gluon on the runtime: MXNet 1.x naming, parameter collection, deferred initialization, modes."""
import numpy as np
import pytest

import runtime
from runtime import autograd, nd


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
