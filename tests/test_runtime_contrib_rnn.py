"""`gluon.contrib.rnn` and `gluon.contrib.data` against values recorded from MXNet 1.9.1
(tests/data/contrib_rnn_cells.json, written by tools/record_contrib_rnn_cells.py)."""
import json
from pathlib import Path

import numpy as np
import pytest

import runtime
from runtime import autograd, nd, sym
from runtime.gluon import contrib, rnn

CASES = json.loads((Path(__file__).parent / "data" / "contrib_rnn_cells.json").read_text())


def _cell(name, case):
    kwargs = {k: tuple(v) for k, v in case["kwargs"].items()}
    return getattr(contrib.rnn, case["cls"])(*case["args"], prefix=name + "_", **kwargs)


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("hybridize", [False, True])
def test_cell_unroll_matches_mxnet(name, hybridize):
    case = CASES[name]
    cell = _cell(name, case)
    cell.initialize()
    data = nd.array(case["data"])
    length = data.shape[1]
    cell.unroll(length, data, merge_outputs=True)
    for key, param in cell.collect_params().items():
        param.set_data(nd.array(case["params"][key[len(name) + 1:]]))
    if hybridize:
        cell.hybridize()
    outputs, states = cell.unroll(length, data, merge_outputs=True)
    np.testing.assert_allclose(outputs.asnumpy(), case["outputs"], rtol=1e-4, atol=1e-5)
    assert len(states) == len(case["states"])
    for state, expected in zip(states, case["states"]):
        np.testing.assert_allclose(state.asnumpy(), expected, rtol=1e-4, atol=1e-5)


def test_symbolic_unroll_names_and_shapes():
    # MXNet 1.9.1: parameter names, per-step output names and inferred shapes
    cell = contrib.rnn.LSTMPCell(100, 64, prefix="rnn_")
    outputs, _ = cell.unroll(3, [sym.Variable("rnn_t%d_data" % i) for i in range(3)])
    outputs = sym.Group(outputs)
    assert sorted(cell.collect_params()) == ["rnn_h2h_bias", "rnn_h2h_weight", "rnn_h2r_weight", "rnn_i2h_bias",
                                             "rnn_i2h_weight"]
    assert outputs.list_outputs() == ["rnn_t0_out_output", "rnn_t1_out_output", "rnn_t2_out_output"]
    assert outputs.infer_shape(rnn_t0_data=(10, 50), rnn_t1_data=(10, 50), rnn_t2_data=(10, 50))[1] == [(10, 64)] * 3
    cell = contrib.rnn.Conv2DGRUCell((10, 20, 50), 100, 3, 3, prefix="rnn_")
    outputs, _ = cell.unroll(3, [sym.Variable("rnn_t%d_data" % i) for i in range(3)])
    outputs = sym.Group(outputs)
    assert outputs.list_outputs() == ["rnn_t0_out_output", "rnn_t1_out_output", "rnn_t2_out_output"]
    shapes = {"rnn_t%d_data" % i: (1, 10, 20, 50) for i in range(3)}
    assert outputs.infer_shape(**shapes)[1] == [(1, 100, 18, 48)] * 3


def test_conv_cell_learns_input_channels_from_data():
    cell = contrib.rnn.Conv1DLSTMCell((0, 7), 10, (3,), (3,))
    cell.hybridize()
    cell.initialize()
    outputs, _ = cell.unroll(3, nd.ones((8, 3, 5, 7)), merge_outputs=True)
    assert cell.i2h_weight.shape == (40, 5, 3) and outputs.shape == (8, 3, 10, 5)


def test_variational_dropout_keeps_one_mask_per_sequence():
    cell = contrib.rnn.VariationalDropoutCell(rnn.RNNCell(50, prefix="rnn_"), drop_inputs=0.5, drop_outputs=0.5)
    cell.initialize(init="ones")
    data = nd.ones((2, 5, 3))
    with autograd.record():
        outputs, _ = cell.unroll(5, data, merge_outputs=True)
    dropped = outputs.asnumpy() == 0
    # the same output units are dropped at every step of a sequence
    assert (dropped == dropped[:, :1, :]).all() and dropped.any() and not dropped.all()
    with autograd.predict_mode():
        outputs, _ = cell.unroll(5, data, merge_outputs=True)
    assert (outputs.asnumpy() != 0).all()


def test_interval_sampler():
    # MXNet 1.9.1: IntervalSampler(10, 3) -> 0 3 6 9 1 4 7 2 5 8; without rollover 0 3 6 9, yet len 10
    assert list(contrib.data.IntervalSampler(10, 3)) == [0, 3, 6, 9, 1, 4, 7, 2, 5, 8]
    assert list(contrib.data.IntervalSampler(10, 3, rollover=False)) == [0, 3, 6, 9]
    assert len(contrib.data.IntervalSampler(10, 3, rollover=False)) == 10


def test_mxnet_module_paths():
    with runtime.as_mxnet():
        from mxnet.gluon.contrib.rnn import LSTMPCell  # noqa: F401
        from mxnet.gluon.contrib.data import IntervalSampler  # noqa: F401
