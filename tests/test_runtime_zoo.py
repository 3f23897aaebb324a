"""Runtime behaviour that real model zoos depend on, against what MXNet 1.9.1 recorded
(tools/record_zoo_cases.py wrote tests/data/zoo/)."""
import json
from pathlib import Path

import numpy as np
import pytest

from runtime import MXNetError, nd, sym
from runtime.gluon import Parameter, ParameterDict, SymbolBlock, nn

DATA = Path(__file__).resolve().parent / "data" / "zoo"
CASES = json.loads((DATA / "cases.json").read_text())


def test_default_layer_names_and_output_names_are_mxnets():
    layers = nn.HybridSequential()
    with layers.name_scope():
        layers.add(nn.Conv2D(4, 3), nn.Conv1D(2, 1), nn.BatchNorm(), nn.Dense(2), nn.MaxPool2D(),
                   nn.Activation("relu"), nn.Conv2DTranspose(2, 1), nn.Conv3D(2, 1), nn.LayerNorm(),
                   nn.Embedding(3, 2), nn.Dropout(0.1))
    prefix = layers.prefix
    expected = CASES["layer_names"]
    mxnet_prefix = expected["children"][0].split("_")[0] + "_"
    assert [c.name for c in layers._children.values()] == [n.replace(mxnet_prefix, prefix, 1)
                                                           for n in expected["children"]]
    internals = layers(sym.var("data")).get_internals().list_outputs()
    assert internals == [n.replace(mxnet_prefix, prefix, 1) for n in expected["internals"]]
    x = sym.var("x")
    names = CASES["output_names"]
    assert sym.BatchNorm(x, name="bn").list_outputs() == names["BatchNorm"]
    assert sym.BatchNorm(x, name="bn", output_mean_var=True).list_outputs() == names["BatchNorm_mean_var"]
    assert sym.split(x, num_outputs=2, name="sp").list_outputs() == names["split"]
    assert sym.BatchNorm(x, name="bn")["bn_output"].list_outputs() == ["bn_output"]


def test_parameter_dict_load_reads_an_mxnet_file_with_a_restored_prefix():
    dense = nn.Dense(3, in_units=2, prefix="head_")
    dense.collect_params().load(str(DATA / "param_dict.params"), restore_prefix="head_")
    for name, value in CASES["param_dict"].items():
        np.testing.assert_array_equal(dense.collect_params()[name].data().asnumpy(), np.float32(value))
    with pytest.raises(MXNetError, match="does not start with"):
        dense.collect_params().load(str(DATA / "param_dict.params"), restore_prefix="other_")
    with pytest.raises(MXNetError, match="head_weight' is missing"):
        dense.collect_params().load(str(DATA / "param_dict.params"))
    loose = ParameterDict("x_")
    with pytest.raises(MXNetError, match="not present in ParameterDict"):
        loose.load(str(DATA / "param_dict.params"), restore_prefix="x_")
    loose.load(str(DATA / "param_dict.params"), restore_prefix="x_", ignore_extra=True)


class Unit(nn.HybridBlock):
    def hybrid_forward(self, F, x):
        return F.relu(x) + 1


class EmptyPrefixNet(nn.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.a = Unit(prefix="")
            self.b = Unit(prefix="")
            self.dense = nn.Dense(2)

    def hybrid_forward(self, F, x):
        return self.dense(self.b(self.a(x)))


def test_children_with_an_empty_prefix_continue_the_parents_operator_names():
    net = EmptyPrefixNet(prefix="net_")
    assert net(sym.var("data")).get_internals().list_outputs() == CASES["empty_prefix"]["internals"]
    assert list(net.collect_params().keys()) == CASES["empty_prefix"]["params"]
    net.initialize()
    net.hybridize()
    assert net(nd.ones((2, 3))).shape == (2, 2)  # no duplicate node names in the traced graph


class WithSymbolBlock(nn.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        base = nn.HybridSequential(prefix="base_")
        with base.name_scope():
            base.add(nn.Dense(5, activation="relu"), nn.BatchNorm(), nn.Dense(4))
        data = sym.var("data")
        internals = base(data).get_internals()
        with self.name_scope():
            self.features = SymbolBlock(internals["base_batchnorm0_fwd_output"], data, params=base.collect_params())
            self.head = nn.Dense(2)

    def hybrid_forward(self, F, x):
        return self.head(self.features(x))


@pytest.mark.parametrize("hybridize", [False, True])
def test_symbol_block_parameters_load_from_and_save_as_mxnet_does(tmp_path, hybridize):
    expected = CASES["symbol_block"]
    model = WithSymbolBlock(prefix="model_")
    assert sorted(model.features._reg_params) == expected["features_reg_params"]
    model.load_parameters(str(DATA / "symbol_block.params"))
    if hybridize:
        model.hybridize()
    out = model(nd.array(expected["input"]))
    np.testing.assert_allclose(out.asnumpy(), expected["output"], rtol=1e-5, atol=1e-6)
    model.save_parameters(str(tmp_path / "saved.params"))
    assert sorted(nd.load(str(tmp_path / "saved.params"))) == expected["keys"]


class Nested(nn.HybridBlock):
    def hybrid_forward(self, F, x, pair):
        first, (second, third) = x
        return first * 2 + second - third * pair[0] + pair[1]


def test_nested_lists_and_tuples_of_arrays_are_inputs_eagerly_and_hybridized():
    case = CASES["nested_input"]
    x = [nd.array(case["x"][0]), tuple(nd.array(a) for a in case["x"][1])]
    pair = tuple(nd.array(a) for a in case["pair"])
    block = Nested()
    np.testing.assert_allclose(block(x, pair).asnumpy(), case["eager"], rtol=1e-6)
    block.hybridize()
    np.testing.assert_allclose(block(x, pair).asnumpy(), case["hybrid"], rtol=1e-6)
    np.testing.assert_allclose(block(x, pair).asnumpy(), case["hybrid"], rtol=1e-6)  # the cached graph


def test_item_assignment_of_a_one_element_array_at_integer_positions():
    target = nd.zeros((2, 3, 4))
    target[1, 2, 3] = nd.array([5.0])
    target[0, 1] = nd.array([7.0])
    assert target.asnumpy().tolist() == CASES["setitem_one_element"]
    with pytest.raises(ValueError):
        target[0, 1] = nd.array([1.0, 2.0])


class TiedLM(nn.HybridBlock):
    """A BERT-like masked language model whose decoder reuses the embedding's weight."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.embed = nn.Embedding(10, 4)
            self.encoder = nn.Dense(4, flatten=False)
            self.decoder = nn.HybridSequential()
            with self.decoder.name_scope():
                self.decoder.add(nn.Dense(4, flatten=False))
                self.decoder.add(nn.Dense(10, flatten=False, params=self.embed.params))

    def hybrid_forward(self, F, tokens):
        return self.decoder(self.encoder(self.embed(tokens)))


def test_params_of_another_block_inside_a_name_scope_tie_the_weights():
    expected = CASES["tied"]
    lm = TiedLM(prefix="lm_")
    assert lm.decoder[1].weight is lm.embed.weight
    assert expected["same_object"]
    assert lm.decoder[1].weight.name == expected["decoder_weight"]
    assert list(lm.collect_params().keys()) == expected["params"]
    assert list(lm.decoder[1].params.keys()) == expected["decoder_params"]
    lm.initialize()
    tokens = nd.array([[1, 2, 3]])
    lm(tokens)
    lm.embed.weight.set_data(nd.ones((10, 4)))
    np.testing.assert_array_equal(lm.decoder[1].weight.data().asnumpy(), np.ones((10, 4)))


def test_random_samplers_take_the_shape_by_position():
    shapes = CASES["random_shapes"]
    assert list(nd.random.normal(0, 1, (2, 3)).shape) == shapes["normal"]
    assert nd.random.normal(0, 1, (2, 3)).dtype.__name__ == shapes["normal_dtype"]
    assert list(nd.random.uniform(-1, 1, (4,)).shape) == shapes["uniform"]
    assert nd.random.normal(0, 1, (2,), "float64").dtype == np.float64
    with pytest.raises(TypeError, match="multiple values for argument 'shape'"):
        nd.random.normal(0, 1, (2,), shape=(3,))


def test_parameter_deferred_init_is_mxnets_tuple():
    expected = CASES["deferred_init"]
    param = Parameter("w", shape=(0, 3), allow_deferred_init=True)
    param.initialize()
    deferred = param._deferred_init
    assert len(deferred) == expected["length"]
    assert [str(c) for c in deferred[1]] == expected["ctx"]
    assert (deferred[3] is None) == expected["data"]
    param.shape = (2, 3)
    param._finish_deferred_init()
    assert list(param._deferred_init) == expected["after"]


class WeightDrop(Parameter):
    """GluonNLP's way of wrapping a parameter: copy its private state, including `_deferred_init`."""

    def __init__(self, parameter):
        p = parameter
        self._deferred_init = p._deferred_init
        super().__init__(name=p.name, grad_req=p.grad_req, shape=p._shape, dtype=p.dtype, lr_mult=p.lr_mult,
                         wd_mult=p.wd_mult, init=p.init, allow_deferred_init=p._allow_deferred_init,
                         differentiable=p._differentiable)
        self._var, self._data, self._grad = p._var, p._data, p._grad
        self._ctx_list, self._ctx_map, self._trainer = p._ctx_list, p._ctx_map, p._trainer

    def data(self, ctx=None):
        return self._check_and_get(self._data, ctx) * 0.5


def test_a_parameter_wrapped_by_copying_its_private_state_runs():
    dense = nn.Dense(2, in_units=3, use_bias=False)
    dense.initialize()
    weight = dense.weight.data().asnumpy()
    dense.weight = WeightDrop(dense.weight)
    np.testing.assert_allclose(dense(nd.ones((1, 3))).asnumpy(), 0.5 * weight.sum(axis=1, keepdims=True).T,
                               rtol=1e-6)


def test_shape_array_and_size_array_as_methods_and_symbols():
    expected = CASES["shape_array"]
    x = nd.zeros((2, 3, 5))
    assert x.shape_array().asnumpy().tolist() == expected["shape"]
    assert x.size_array().asnumpy().tolist() == expected["size"]
    assert x.shape_array().dtype.__name__ == expected["dtype"]
    v = sym.var("v")
    group = sym.Group([v.shape_array(), v.size_array(), sym.shape_array(v), sym.size_array(v)])
    outputs = group.bind(None, {"v": x}).forward()
    assert [o.asnumpy().tolist() for o in outputs] == expected["symbolic"]


NMS = np.load(DATA / "box_nms.npz")


@pytest.mark.parametrize("case", range(len(CASES["box_nms"])))
def test_box_nms_equals_mxnets_results(case):
    attrs = CASES["box_nms"][case]
    data = NMS["input%d" % case]
    np.testing.assert_array_equal(nd.contrib.box_nms(nd.array(data), **attrs).asnumpy(), NMS["output%d" % case])
    np.testing.assert_array_equal(nd.contrib.box_nms(nd.array(data[0]), **attrs).asnumpy(),
                                  NMS["output%d_2d" % case])
    graph = sym.contrib.box_nms(sym.var("boxes"), **attrs)
    (out,) = graph.bind(None, {"boxes": nd.array(data)}).forward()
    np.testing.assert_array_equal(out.asnumpy(), NMS["output%d" % case])


def test_box_nms_has_mxnets_output_names():
    assert sym.contrib.box_nms(sym.var("x"), name="nms").list_outputs() == CASES["output_names"]["box_nms"]
