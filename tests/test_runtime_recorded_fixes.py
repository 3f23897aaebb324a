"""Behaviour recorded from MXNet 1.9.1 where the runtime gave silently different results."""
import numpy as np
import pytest

import runtime
from runtime import autograd, nd, sym


def test_integer_arange_casts_start_and_step_before_stepping():
    # MXNet 1.9.1: arange(1.3, 456.6, 1.3, dtype='int32') has 351 values, 1 .. 351
    for values in (nd.arange(1.3, 456.6, 1.3, dtype="int32"),
                   sym.arange(1.3, 456.6, 1.3, dtype="int32").eval()[0]):
        assert values.shape == (351,) and values.dtype == np.int32
        assert values.asnumpy()[:3].tolist() == [1, 2, 3] and values.asnumpy()[-4:].tolist() == [348, 349, 350, 351]
    assert nd.arange(-2.5, 3.7, 0.9, dtype="int64").asnumpy().tolist() == [-2] * 7
    assert nd.arange(0, 10, 3, repeat=2, dtype="int32").asnumpy().tolist() == [0, 0, 3, 3, 6, 6, 9, 9]
    assert np.allclose(nd.arange(0.5, 2.0, 0.5).asnumpy(), [0.5, 1.0, 1.5])


@pytest.mark.parametrize("fill, value", [(nd.ones, 1.0), (nd.zeros, 0.0)])
def test_creation_with_out_writes_into_it_and_returns_it(fill, value):
    out = nd.full((2, 3), 7.0)
    assert fill((2, 3), out=out) is out
    assert out.asnumpy().tolist() == [[value] * 3] * 2


def test_simple_bind_allocates_each_variable_in_its_dtype():
    x = sym.Variable("x", dtype="float16")
    executor = (x * 2).simple_bind(runtime.cpu(), x=(2,))
    assert executor.arg_dict["x"].dtype == np.float16
    executor = (x * 2).simple_bind(runtime.cpu(), x=(2,), type_dict={"x": "float64"})
    assert executor.arg_dict["x"].dtype == np.float64


def test_infer_type_follows_cast():
    cast = sym.Cast(sym.Variable("d"), dtype="int32")
    assert cast.infer_type(d="float32") == ([np.float32], [np.int32], [])
    mixed = sym.Cast(sym.Variable("d"), dtype="float16") + sym.Variable("e")
    assert mixed.infer_type(d="float32") == ([np.float32, np.float16], [np.float16], [])
    assert cast.infer_type() == (None, None, None)


# recorded from MXNet 1.9.1: gluon.contrib.nn.PixelShuffle*D over arange inputs, flattened
PIXEL_SHUFFLES = [
    ("PixelShuffle1D", 2, (1, 4, 3), (1, 2, 6), [0, 3, 1, 4, 2, 5, 6, 9, 7, 10, 8, 11]),
    ("PixelShuffle2D", (2, 3), (1, 12, 2, 2), (1, 2, 4, 6),
     [0, 4, 8, 1, 5, 9, 12, 16, 20, 13, 17, 21, 2, 6, 10, 3, 7, 11, 14, 18, 22, 15, 19, 23, 24, 28, 32, 25, 29, 33,
      36, 40, 44, 37, 41, 45, 26, 30, 34, 27, 31, 35, 38, 42, 46, 39, 43, 47]),
    ("PixelShuffle3D", (2, 1, 2), (1, 8, 2, 1, 2), (1, 2, 4, 1, 4),
     [0, 4, 1, 5, 8, 12, 9, 13, 2, 6, 3, 7, 10, 14, 11, 15, 16, 20, 17, 21, 24, 28, 25, 29, 18, 22, 19, 23, 26, 30,
      27, 31]),
]


@pytest.mark.parametrize("name, factor, shape, out_shape, expected", PIXEL_SHUFFLES)
def test_pixel_shuffle_blocks_match_mxnet(name, factor, shape, out_shape, expected):
    with runtime.as_mxnet() as mx:
        from mxnet.gluon.contrib import nn as contrib_nn
        block = getattr(contrib_nn, name)(factor)
        x = mx.nd.arange(int(np.prod(shape))).reshape(shape)
        for _ in range(2):
            y = block(x)
            assert y.shape == out_shape and y.asnumpy().astype(int).reshape(-1).tolist() == expected
            block.hybridize()


def test_sparse_embedding_is_an_embedding_over_dense_arrays():
    with runtime.as_mxnet() as mx:
        from mxnet.gluon.contrib.nn import SparseEmbedding
        layer = SparseEmbedding(10, 3)
        layer.initialize(mx.init.One())
        assert layer(mx.nd.array([1, 4])).asnumpy().tolist() == [[1.0] * 3] * 2


def test_forward_hooks_run_around_forward_until_detached():
    with runtime.as_mxnet() as mx:
        from mxnet.gluon import nn
        net = nn.Dense(2, in_units=3)
        net.initialize()
        seen = []
        post = net.register_forward_hook(lambda block, inputs, output: seen.append(("post", output.shape)))
        net.register_forward_pre_hook(lambda block, inputs: seen.append(("pre", inputs[0].shape)))
        net(mx.nd.ones((4, 3)))
        post.detach()
        net.hybridize()
        net(mx.nd.ones((4, 3)))
        assert seen == [("pre", (4, 3)), ("post", (4, 2)), ("pre", (4, 3))]


def test_symbol_pickles_through_its_json_and_tojson_marks_np_shape():
    import json
    import pickle
    from runtime.util import np_shape
    fc = sym.FullyConnected(sym.var("x"), num_hidden=3, name="fc")
    assert pickle.loads(pickle.dumps(fc)).tojson() == fc.tojson()
    with np_shape():
        assert json.loads(fc.tojson())["attrs"]["is_np_shape"] == ["int", 1]
    assert "is_np_shape" not in json.loads(fc.tojson())["attrs"]


def test_nd_array_of_a_numpy_array_is_float32_unless_a_dtype_is_given():
    # MXNet 1.9.1: only an NDArray source lends its dtype; NumPy arrays of any dtype become float32
    for values in (np.array([1, 2]), np.array([1, 2], np.int32), np.array([1, 2], np.float16),
                   np.array([1, 0], np.uint8), np.array([True, False]), np.array([1.5, 2.5])):
        assert nd.array(values).dtype == np.float32, values.dtype
    assert nd.array(np.array([1, 2]), dtype="int64").dtype == np.int64
    assert nd.array(nd.array([1, 2], dtype="int32")).dtype == np.int32
    mixed = nd.concat(nd.array(np.random.RandomState(0).randint(0, 3, (2, 1))), nd.ones((2, 4)), dim=1)
    assert mixed.shape == (2, 5) and mixed.dtype == np.float32


def test_copy_params_from_casts_into_the_bound_arrays_and_rejects_unknown_names():
    # MXNet 1.9.1: values cast to the bound dtype; unknown names a ValueError unless allowed
    executor = sym.BatchNorm(sym.Variable("x") * 2, name="bn").simple_bind(
        runtime.cpu(), x=(2, 3), type_dict={"x": "float64"})
    bound_x = executor.arg_dict["x"]
    executor.copy_params_from({"x": nd.ones((2, 3)) * 3}, {"bn_moving_var": nd.ones((3,)) * 5})
    assert executor.arg_dict["x"] is bound_x and bound_x.dtype == np.float64
    assert bound_x.asnumpy().tolist() == [[3.0] * 3] * 2
    assert executor.aux_dict["bn_moving_var"].asnumpy().tolist() == [5.0] * 3
    with pytest.raises(ValueError, match='Find name "z" that is not in the arguments'):
        executor.copy_params_from({"z": nd.ones(1)})
    with pytest.raises(ValueError, match="Find name q that is not in the auxiliary states"):
        executor.copy_params_from({}, {"q": nd.ones(1)})
    executor.copy_params_from({"z": nd.ones(1)}, {"q": nd.ones(1)}, allow_extra_params=True)


@pytest.mark.parametrize("make, monitor_all, names", [
    (lambda d: sym.LRN(d, nsize=1, name="lrn"), False, ["lrn_output", "lrn_tmp_norm"]),
    (lambda d: sym.LRN(d, nsize=1, name="lrn"), True, ["data", "lrn_data", "lrn_output", "lrn_tmp_norm"]),
    (lambda d: sym.Activation(d, act_type="relu", name="act"), True, ["data", "act_input0", "act_output"]),
    (lambda d: sym.SoftmaxActivation(d, name="softmax"), True, ["data", "softmax_input0", "softmax_output"]),
])
def test_monitor_names_hidden_outputs_and_unnamed_inputs_as_mxnet(make, monitor_all, names):
    # MXNet 1.9.1: LRN's hidden tmp_norm is monitored; Activation and SoftmaxActivation register no
    # input names, so their inputs are input0...
    executor = make(sym.Variable("data", shape=(2, 3, 4, 4))).simple_bind(runtime.cpu(), grad_req="null")
    seen = []
    executor.set_monitor_callback(lambda name, handle: seen.append(name.decode()), monitor_all=monitor_all)
    executor.forward()
    assert seen == names


def test_simple_bind_reads_only_tuples_as_shapes():
    # MXNet 1.9.1 ignores simple_bind's keyword arguments that are not tuples (force_rebind=True)
    executor = (sym.Variable("x") * 2).simple_bind(runtime.cpu(), x=(2, 3), force_rebind=True)
    assert executor.arg_dict["x"].shape == (2, 3)


def test_batchnorm_v1_normalizes_over_axis_1_and_outputs_the_variance():
    # MXNet 1.9.1, symbolic BatchNorm_v1 in training on arange(8).reshape(2, 2, 1, 2)
    y = sym.BatchNorm_v1(sym.Variable("x"), fix_gamma=False, output_mean_var=True, name="bn")
    assert y.list_auxiliary_states() == ["bn_moving_mean", "bn_moving_var"]
    assert y.list_outputs() == ["bn_output", "bn_mean", "bn_var"]
    executor = y.simple_bind(runtime.cpu(), x=(2, 2, 1, 2))
    values = nd.array(np.arange(8).reshape(2, 2, 1, 2))
    executor.arg_dict["x"][:] = values
    executor.arg_dict["bn_gamma"][:] = nd.array([1, 2])
    executor.arg_dict["bn_beta"][:] = nd.array([0, 1])
    executor.forward(is_train=True)
    out, mean, var = (o.asnumpy().ravel() for o in executor.outputs)
    np.testing.assert_allclose(out, [-1.2125355, -0.7275213, -1.425071, -0.4550426, 0.7275213, 1.2125355,
                                     2.4550426, 3.425071], rtol=1e-5)
    assert mean.tolist() == [2.5, 4.5] and var.tolist() == [4.25, 4.25]
    executor.backward([values, nd.zeros(2), nd.zeros(2)])
    np.testing.assert_allclose(executor.grad_dict["bn_gamma"].asnumpy(), [8.245242, 8.245242], rtol=1e-5)
    np.testing.assert_allclose(executor.grad_dict["x"].asnumpy().ravel(),
                               [-2.85e-4, -1.71e-4, -5.71e-4, -3.42e-4, 1.71e-4, 2.85e-4, 3.42e-4, 5.71e-4],
                               atol=2e-5)


def test_a_monitor_hands_out_handles_and_stays_on_a_reshaped_module():
    # MXNet 1.9.1: the callback gets (bytes name, handle); NDArray(ctypes.cast(handle, NDArrayHandle))
    # reads the array; a module reshaped for another input shape keeps the installed callback
    import ctypes
    from runtime.base import NDArrayHandle
    from runtime.io import DataBatch
    from runtime.module import Module
    seen = {}

    def callback(name, handle):
        array = nd.NDArray(ctypes.cast(handle, NDArrayHandle), writable=False)
        seen[name.decode()] = array.shape

    module = Module(sym.Convolution(sym.Variable("data"), kernel=(1, 1), num_filter=1, name="conv"),
                    label_names=None)
    module.bind(for_training=False, data_shapes=[("data", (1, 3, 4, 4))])
    module.init_params()
    module._exec_group.execs[0].set_monitor_callback(callback, monitor_all=True)
    module.forward(DataBatch(data=[nd.ones((1, 3, 4, 6))]), is_train=False)
    assert seen == {"data": (1, 3, 4, 6), "conv_data": (1, 3, 4, 6), "conv_weight": (1, 3, 1, 1),
                    "conv_bias": (1,), "conv_output": (1, 1, 4, 6)}


@pytest.mark.parametrize("op, extra", [(nd.BatchNorm, {}), (nd.contrib.SyncBatchNorm, {"key": "k"})])
def test_batch_normalization_moves_its_moving_statistics_in_the_backward_pass(op, extra):
    # MXNet 1.9.1: recording the forward pass leaves them; backward moves them toward the batch's
    x = nd.array(np.arange(12).reshape(2, 3, 2))
    moving_mean, moving_var = nd.array([1, 1, 1]), nd.array([2, 2, 2])
    x.attach_grad()
    with autograd.record():
        y = op(x, nd.array([1, 2, 3]), nd.zeros(3), moving_mean, moving_var, momentum=0.5, eps=0.01, **extra)
    assert moving_mean.asnumpy().tolist() == [1, 1, 1] and moving_var.asnumpy().tolist() == [2, 2, 2]
    y.backward()
    np.testing.assert_allclose(moving_mean.asnumpy(), [2.25, 3.25, 4.25], rtol=1e-6)
    np.testing.assert_allclose(moving_var.asnumpy(), [5.625] * 3, rtol=1e-6)


def test_a_proposal_executor_takes_head_gradients_of_any_shape():
    # MXNet 1.9.1: MultiProposal's backward reads no head gradient, so none is checked; all zeros
    y = sym.contrib.MultiProposal(cls_prob=sym.Variable("c"), bbox_pred=sym.Variable("b"), im_info=sym.Variable("i"),
                                  scales=(1, 2), ratios=(1,), rpn_post_nms_top_n=4)
    executor = y.simple_bind(runtime.cpu(), c=(2, 4, 3, 3), b=(2, 8, 3, 3), i=(2, 3))
    executor.arg_dict["i"][:] = nd.array([[40, 40, 1], [40, 40, 1]])
    executor.forward(is_train=True)
    assert executor.outputs[0].shape == (8, 5)
    executor.backward([nd.ones((4, 5))])
    assert executor.grad_dict["c"].shape == (2, 4, 3, 3) and not executor.grad_dict["c"].asnumpy().any()
