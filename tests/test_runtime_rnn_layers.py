"""gluon.rnn's fused layers: their parameters are saved under the names MXNet 1.9.1 writes (those
of the stepped cells they replaced), and they train: the RNN operator's gradient is checked against
MXNet's in tests/test_autograd_golden.py and finite differences in tests/test_autograd_numeric.py."""
import numpy as np

from runtime import autograd, nd
from runtime.gluon import rnn

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
