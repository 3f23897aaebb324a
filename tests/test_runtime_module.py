"""mxnet.mod.Module on the runtime, against what MXNet 1.9.1 recorded (tools/record_module_cases.py)."""
import json
import os
from pathlib import Path

import numpy as np
import pytest

import runtime

CASE = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "training" / "module.json").read_text())


@pytest.fixture
def mx():
    """`import mxnet` means the runtime within each test (and only there)."""
    with runtime.as_mxnet() as package:
        yield package


def network(mx):
    data = mx.sym.var("data")
    hidden = mx.sym.FullyConnected(data, num_hidden=6, name="fc1")
    hidden = mx.sym.BatchNorm(hidden, name="bn", fix_gamma=False)
    hidden = mx.sym.LeakyReLU(hidden, act_type="leaky", slope=0.1, name="leaky")
    out = mx.sym.FullyConnected(hidden, num_hidden=3, name="fc2")
    return mx.sym.SoftmaxOutput(out, name="softmax")


def assert_params(found, recorded):
    assert sorted(found) == sorted(recorded)
    for name, values in recorded.items():
        np.testing.assert_allclose(found[name].asnumpy(), np.array(values), rtol=1e-4, atol=1e-5, err_msg=name)


def trained(mx):
    x, y = np.array(CASE["x"], "float32"), np.array(CASE["y"], "float32")
    module = mx.mod.Module(network(mx), data_names=("data",), label_names=("softmax_label",))
    train = mx.io.NDArrayIter(x, y, batch_size=CASE["batch_size"], shuffle=False, last_batch_handle="pad")
    module.fit(train, num_epoch=3, optimizer="sgd", optimizer_params={"learning_rate": 0.1, "momentum": 0.9, "wd": 0.01},
               arg_params={k: mx.nd.array(v) for k, v in CASE["arg_params"].items()},
               aux_params={k: mx.nd.array(v) for k, v in CASE["aux_params"].items()}, eval_metric="acc")
    return module, train


def test_fit_trains_as_mxnet_does(mx):
    module, train = trained(mx)
    recorded = CASE["after_sgd"]
    arg_params, aux_params = module.get_params()
    assert_params(arg_params, recorded["arg_params"])
    assert_params(aux_params, recorded["aux_params"])
    [(name, value)] = module.score(train, "ce")
    assert name == recorded["score"][0][0]
    assert value == pytest.approx(recorded["score"][0][1], rel=1e-4)
    predicted = module.predict(train)
    assert predicted.shape == (10, 3)  # the last batch's padding is left out
    np.testing.assert_allclose(predicted.asnumpy(), np.array(recorded["predict"]), rtol=1e-4, atol=1e-5)


def test_a_checkpoint_resumes_with_the_optimizer_states(mx, tmp_path):
    module, train = trained(mx)
    prefix = os.path.join(str(tmp_path), "net")
    module.save_checkpoint(prefix, 3, save_optimizer_states=True)
    assert sorted(os.listdir(str(tmp_path))) == ["net-0003.params", "net-0003.states", "net-symbol.json"]
    loaded = mx.mod.Module.load(prefix, 3, load_optimizer_states=True, data_names=("data",),
                                label_names=("softmax_label",))
    loaded.bind(data_shapes=train.provide_data, label_shapes=train.provide_label)
    loaded.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.1, "momentum": 0.9, "wd": 0.01})
    train.reset()
    loaded.forward_backward(next(iter(train)))
    loaded.update()
    assert_params(loaded.get_params()[0], CASE["after_resumed_step"]["arg_params"])


def test_init_params_takes_each_variables_own_initializer_first(mx):
    """`Variable(init=...)`, and what composing BatchNorm and a PReLU gives their variables."""
    symbol = mx.sym.LeakyReLU(mx.sym.BatchNorm(mx.sym.var("data"), name="bn"),
                              gamma=mx.sym.var("slope", init=mx.init.Constant(0.5)), act_type="prelu", name="act")
    module = mx.mod.Module(symbol, label_names=None)
    module.bind(data_shapes=[("data", (2, 3))], for_training=False)
    module.init_params(mx.init.Uniform(0.1))
    recorded = CASE["own_initializers"]
    arg_params, aux_params = module.get_params()
    assert_params(arg_params, recorded["arg_params"])
    assert_params(aux_params, recorded["aux_params"])
    attrs = symbol.attr_dict()
    for name in ("bn_moving_mean", "bn_moving_var", "slope"):
        assert json.loads(attrs[name]["__init__"]) == json.loads(recorded["attr_dict"][name]["__init__"])


def test_a_prelu_slope_composed_without_a_variable_starts_at_a_quarter(mx):
    module = mx.mod.Module(mx.sym.LeakyReLU(mx.sym.var("data"), act_type="prelu"), label_names=None)
    module.bind(data_shapes=[("data", (10, 10))])
    module.init_params()
    [slope] = module.get_params()[0].values()
    assert (slope.asnumpy() == 0.25).all()


def test_operators_without_parameters_ignore_what_they_are_given(mx):
    """MXNet 1.9.1 has no attribute parser for them (checked there: exp, relu, zeros_like,
    broadcast_maximum take `foo=1`); operators with parameters still reject unknown ones."""
    x = mx.nd.array([[1.0, 2.0]])
    assert mx.nd.broadcast_maximum(mx.nd.array([0.0]), x, axis=1).shape == (1, 2)
    assert (mx.nd.zeros_like(x, dtype="float16").asnumpy() == 0).all()
    with pytest.raises(mx.base.MXNetError, match="foo"):
        mx.nd.sum(x, foo=1)


def test_ndarray_iter_indexes_labels_by_the_data_examples(mx):
    """MXNet 1.9.1 does not check the labels' length against the data's."""
    it = mx.io.NDArrayIter(mx.nd.ones((4, 2)), {"label": mx.nd.arange(8)}, batch_size=2)
    assert [b.label[0].asnumpy().tolist() for b in it] == [[0.0, 1.0], [2.0, 3.0]]


def test_an_operators_lr_mult_reaches_the_variables_composing_creates(mx):
    """`FullyConnected(..., lr_mult=0)` is an attribute of the node and of the weight and bias it
    creates, not a parameter; a variable given with its own lr_mult keeps it (MXNet 1.9.1)."""
    bias = mx.sym.var("fc1_bias", lr_mult=1.0)
    fc1 = mx.sym.FullyConnected(mx.sym.var("data"), bias=bias, name="fc1", num_hidden=10, lr_mult=0)
    fc2 = mx.sym.FullyConnected(fc1, name="fc2", num_hidden=10, wd_mult=0.5)
    attrs = fc2.attr_dict()
    assert attrs["fc1_weight"]["__lr_mult__"] == "0" and attrs["fc1_weight"]["lr_mult"] == "0"
    assert attrs["fc1_bias"]["__lr_mult__"] == "1.0"
    module = mx.mod.Module(fc2, label_names=None)
    module.bind(data_shapes=[("data", (5, 10))])
    module.init_params(mx.init.Uniform(1.0))
    module.init_optimizer(optimizer_params={"learning_rate": 1.0})
    assert module._optimizer.lr_mult == {"fc1_bias": 1.0, "fc1_weight": 0.0}
    assert module._optimizer.wd_mult == {"fc2_bias": 0.5, "fc2_weight": 0.5, "fc1_bias": 0.0}
    with pytest.raises(mx.base.MXNetError, match="weight_lr_mult is deprecated"):
        mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=2, weight_lr_mult=0)


def test_reflection_pad_2d_and_the_deprecated_params_files(mx, tmp_path):
    """Values and names recorded on MXNet 1.9.1."""
    from mxnet.gluon import nn
    x = mx.nd.array(np.arange(2 * 1 * 3 * 4).reshape(2, 1, 3, 4))
    assert nn.ReflectionPad2D(1)(x).asnumpy()[0, 0].tolist() == [
        [5.0, 4.0, 5.0, 6.0, 7.0, 6.0], [1.0, 0.0, 1.0, 2.0, 3.0, 2.0], [5.0, 4.0, 5.0, 6.0, 7.0, 6.0],
        [9.0, 8.0, 9.0, 10.0, 11.0, 10.0], [5.0, 4.0, 5.0, 6.0, 7.0, 6.0]]
    net = nn.HybridSequential(prefix="net_")
    with net.name_scope():
        net.add(nn.Dense(2, in_units=3))
    net.initialize()
    path = str(tmp_path / "net.params")
    with pytest.warns(UserWarning, match="save_params is deprecated"):
        net.save_params(path)
    assert sorted(mx.nd.load(path)) == ["dense0_bias", "dense0_weight"]
    before = net[0].weight.data().asnumpy()
    net[0].weight.set_data(mx.nd.zeros((2, 3)))
    with pytest.warns(UserWarning, match="load_params is deprecated"):
        net.load_params(path)
    assert (net[0].weight.data().asnumpy() == before).all()


@pytest.mark.parametrize("grad_req", ["write", "add", "null", ["null", "write", "write"]])
def test_a_string_grad_req_is_the_datas_too_when_inputs_need_gradients(mx, grad_req):
    """As MXNet 1.9.1's executor group: 'null' leaves the data without a gradient (get_input_grads()
    is [None]), 'add' accumulates it; a list gives each argument's request in order."""
    fc = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=2, name="fc")
    module = mx.mod.Module(fc, label_names=None)
    module.bind(data_shapes=[("data", (3, 4))], inputs_need_grad=True, grad_req=grad_req)
    module.init_params(mx.init.One())
    batch = mx.io.DataBatch([mx.nd.ones((3, 4))])
    for _ in range(2):
        module.forward(batch, is_train=True)
        module.backward([mx.nd.ones((3, 2))])
    grad = module.get_input_grads()[0]
    data_request = grad_req[0] if isinstance(grad_req, list) else grad_req
    if data_request == "null":
        assert grad is None
    else:
        assert grad.asnumpy().tolist() == [[2.0 * (2 if data_request == "add" else 1)] * 4] * 3


def test_partial_inference_and_output_labels_take_mxnets_answers():
    # recorded from MXNet 1.9.1: unknown shapes are (), and a loss output's label takes the data's dtype
    import numpy as np

    from runtime import sym
    from runtime.base import MXNetError
    data, prev = sym.Variable("data"), sym.Variable("prevstate")
    out = sym.Activation(sym.elemwise_add(sym.FullyConnected(data, name="x2h", num_hidden=4),
                                          sym.FullyConnected(prev, name="h2h", num_hidden=4)), act_type="relu")
    arg_shapes = dict(zip(out.list_arguments(), out.infer_shape_partial(data=(2, 3))[0]))
    assert arg_shapes["x2h_weight"] == (4, 3) and arg_shapes["h2h_weight"] == ()
    assert out.infer_shape(data=(2, 3)) == (None, None, None)
    mlp = sym.SoftmaxOutput(sym.FullyConnected(sym.Cast(data, dtype="float32"), name="fc1", num_hidden=8),
                            name="softmax")
    assert mlp.infer_type(data=np.float16)[0] == [np.float16, np.float32, np.float32, np.float32]
    assert mlp.infer_type_partial()[0] == [None, np.float32, np.float32, np.float32]
    with pytest.raises(MXNetError, match="uniform type"):
        sym.SoftmaxOutput(data, name="s").infer_type(data=np.float32, s_label=np.int32)
