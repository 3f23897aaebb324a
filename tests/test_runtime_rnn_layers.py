"""gluon.rnn's fused layers: their parameters are saved under the names MXNet 1.9.1 writes (those
of the stepped cells they replaced), and they train: the RNN operator's gradient is checked against
MXNet's in tests/test_autograd_golden.py and finite differences in tests/test_autograd_numeric.py."""
import numpy as np

from runtime import autograd, nd
from runtime import initializer as mx_init
from runtime.gluon import nn, rnn
from runtime.gluon.parameter import Parameter

# recorded from MXNet 1.9.1: sorted(GRU(3, num_layers=2, bidirectional=B)._collect_params_with_prefix('net'))
ONE_DIRECTION = ['net._unfused.0.h2h_bias', 'net._unfused.0.h2h_weight', 'net._unfused.0.i2h_bias',
                 'net._unfused.0.i2h_weight', 'net._unfused.1.h2h_bias', 'net._unfused.1.h2h_weight',
                 'net._unfused.1.i2h_bias', 'net._unfused.1.i2h_weight']
TWO_DIRECTIONS = sorted("net._unfused.%d.%s_cell.%s" % (layer, side, name) for layer in (0, 1) for side in "lr"
                        for name in ("h2h_bias", "h2h_weight", "i2h_bias", "i2h_weight"))


def test_saved_names_are_mxnets():
    for bidirectional, expected in ((False, ONE_DIRECTION), (True, TWO_DIRECTIONS)):
        layer = rnn.GRU(3, num_layers=2, bidirectional=bidirectional, input_size=2)
        layer.initialize()
        assert sorted(layer._collect_params_with_prefix("net")) == expected


def test_a_saved_layer_loads_back(tmp_path):
    layer = rnn.LSTM(4, num_layers=2, bidirectional=True, input_size=3)
    layer.initialize()
    layer.save_parameters(str(tmp_path / "lstm.params"))
    again = rnn.LSTM(4, num_layers=2, bidirectional=True, input_size=3)
    again.load_parameters(str(tmp_path / "lstm.params"))
    for (name, mine), theirs in zip(layer.collect_params().items(), again.collect_params().values()):
        np.testing.assert_array_equal(mine.data().asnumpy(), theirs.data().asnumpy(), err_msg=name)


def test_eager_and_hybridized_gradients_agree():
    layer = rnn.LSTM(5, num_layers=2, input_size=3)
    layer.initialize()
    x = nd.array(np.random.RandomState(0).uniform(-1, 1, (4, 2, 3)).astype(np.float32))
    found = []
    for hybridize in (False, True):
        if hybridize:
            layer.hybridize()
        x.attach_grad()
        with autograd.record():
            loss = (layer(x) ** 2).sum()
        loss.backward()
        found.append((x.grad.asnumpy(), layer.l1_h2h_weight.grad().asnumpy()))
    for eager, hybrid in zip(*found):
        np.testing.assert_allclose(hybrid, eager, rtol=1e-5, atol=1e-7)
        assert np.abs(eager).sum() > 0


def test_a_layer_of_unknown_input_size_in_a_hybridized_network_learns_it():
    # RNN's flat parameter vector decides the concatenated i2h weights of both directions
    net = nn.HybridSequential()
    net.add(rnn.LSTM(10, bidirectional=True), nn.Dense(3))
    net.hybridize()
    net.initialize()
    assert net(nd.ones((2, 3, 7))).shape == (2, 3)
    layer = net[0]
    assert layer.l0_i2h_weight.shape == layer.r0_i2h_weight.shape == (40, 7)


def test_infer_shape_sets_the_parameters_shapes():
    layer = rnn.GRU(4, num_layers=2)
    layer.initialize()
    x = nd.ones((5, 2, 3))
    layer.infer_shape(x, layer.begin_state(2))
    assert layer.l0_i2h_weight.shape == (12, 3) and layer.l1_i2h_weight.shape == (12, 4)


def test_the_unfused_cells_compute_what_the_layer_does():
    layer = rnn.LSTM(4, num_layers=2, bidirectional=True, input_size=3)
    layer.initialize()
    x = nd.array(np.random.RandomState(1).uniform(-1, 1, (5, 2, 3)).astype(np.float32))
    stack = layer._unfuse()
    assert sorted(stack.collect_params()) == sorted(layer.collect_params())
    unrolled, _ = stack.unroll(5, x, layout="TNC", merge_outputs=True)
    np.testing.assert_allclose(unrolled.asnumpy(), layer(x).asnumpy(), rtol=1e-5, atol=1e-6)


def test_a_parameters_variable_carries_its_initializer():
    # recorded from MXNet 1.9.1: Parameter('w', shape=(2,), init=...).var().attr('__init__')
    assert Parameter("w", shape=(2,), init=mx_init.LSTMBias(2.0)).var().attr("__init__") \
        == '["lstmbias", {"forget_bias": 2.0}]'
    assert Parameter("w", shape=(2,)).var().attr("__init__") is None


def test_rnn_outputs_are_named_as_mxnets():
    # recorded from MXNet 1.9.1: mx.sym.RNN(..., name='rnn', state_outputs=...).list_outputs()
    from runtime import sym
    for mode, states, expected in (("gru", False, ["rnn_output"]), ("gru", True, ["rnn_output", "rnn_state_output"]),
                                   ("lstm", True, ["rnn_output", "rnn_state_output", "rnn_statecell_output"])):
        cell = [sym.var("c")] if mode == "lstm" else []
        out = sym.RNN(sym.var("data"), sym.var("p"), sym.var("s"), *cell, state_size=3, num_layers=1, mode=mode,
                      name="rnn", state_outputs=states)
        assert out.list_outputs() == expected


class _ZeroBatchState(nn.HybridBlock):
    """GluonNLP's language models: a hybridized call asks for the begin state of batch 0, whose
    batch the RNN operator then decides (as in MXNet 1.9.1, where the hybridized result equals the
    eager one: 0.0 apart, recorded with this block)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.lstm = rnn.LSTM(6, input_size=4)

    def hybrid_forward(self, F, x):
        if F is nd:
            state = self.lstm.begin_state(batch_size=x.shape[1])
        else:
            state = self.lstm.begin_state(batch_size=0, func=F.zeros)
        return self.lstm(x, state)[0]


def test_a_begin_state_of_batch_0_takes_the_batch_of_the_data_when_hybridized():
    net = _ZeroBatchState()
    net.initialize()
    x = nd.array(np.random.RandomState(0).uniform(-1, 1, (5, 2, 4)))
    eager = net(x).asnumpy()
    net.hybridize()
    np.testing.assert_allclose(net(x).asnumpy(), eager, rtol=1e-5, atol=1e-6)
    assert net(nd.ones((5, 3, 4))).shape == (5, 3, 6)  # another batch: the state follows it
