"""The fast paths of the convolution, pooling and matrix-product kernels give what the plain
versions give: pooling against its general loop, convolution against a NumPy contraction over
strided windows, large products against np.matmul with BLAS set back to one thread afterwards."""
import itertools
import math

import numpy as np
import pytest
from threadpoolctl import threadpool_info

from runtime import nd, threads
from runtime.kernels import nn as kernels

RNG = np.random.default_rng(7)


def pooled_by_general_loop(x, kernel, stride, pad, convention, pool_type, include):
    (kh, kw), (sh, sw), (ph, pw) = kernel, stride, pad
    h, w = x.shape[2:]
    if convention == "full":
        oh, ow = math.ceil((h + 2 * ph - kh) / sh) + 1, math.ceil((w + 2 * pw - kw) / sw) + 1
    else:
        oh, ow = (h + 2 * ph - kh) // sh + 1, (w + 2 * pw - kw) // sw + 1
    return kernels._pool2d(np.ascontiguousarray(x), kh, kw, sh, sw, ph, pw, oh, ow, pool_type == "max", include,
                           pool_type == "sum")


POOLINGS = [case for case in itertools.product(
    [(2, 2), (3, 3), (1, 3)], [(1, 1), (2, 2), (3, 1), (9, 2)], [(0, 0), (1, 1)], ["valid", "full"],
    ["max", "avg", "sum"], [True, False], [np.float32, np.float64])
    if case[2][0] < case[0][0] and case[2][1] < case[0][1]]


@pytest.mark.parametrize("kernel,stride,pad,convention,pool_type,include,dtype", POOLINGS)
def test_pooling_equals_the_general_loop(kernel, stride, pad, convention, pool_type, include, dtype):
    x = RNG.standard_normal((2, 3, 9, 8)).astype(dtype)
    x[0, 0, 1, 1] = np.nan  # a NaN is never a window's maximum, as in the general loop
    got = kernels.pooling(x, kernel=kernel, pool_type=pool_type, stride=stride, pad=pad,
                          pooling_convention=convention, count_include_pad=include)
    expected = pooled_by_general_loop(x, kernel, stride, pad, convention, pool_type, include)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)


SHAPED = [((2, 3, 9), (3,), (2,), (1,), "valid", None), ((2, 3, 9), (3,), (2,), (0,), "same", None),
          ((2, 3, 9, 8), (3, 3), (2, 2), (1, 1), "full", None), ((2, 3, 13, 13), (13, 13), (), (), "valid", None),
          ((1, 2, 7, 6, 5), (2, 3, 2), (2, 2, 1), (1, 1, 0), "full", None),
          ((2, 9, 8, 3), (3, 2), (2, 3), (1, 0), "full", "NHWC"), ((2, 9, 3), (4,), (3,), (0,), "full", "NWC")]


@pytest.mark.parametrize("shape,kernel,stride,pad,convention,layout", SHAPED)
def test_pooled_shape_is_the_shape_pooling_gives(shape, kernel, stride, pad, convention, layout):
    """Shape inference computes the pooled shape instead of pooling zeros (which compiled kernels
    for it in a new process); it must be the shape the kernels give."""
    attrs = dict(kernel=kernel, stride=stride, pad=pad, pooling_convention=convention, layout=layout)
    pooled = kernels.pooling(RNG.standard_normal(shape).astype(np.float32), **attrs)
    assert kernels.pooled_shape(shape, **attrs) == pooled.shape


def test_max_pooling_of_a_lenet_feature_map():
    x = RNG.standard_normal((4, 6, 24, 24)).astype(np.float32)
    got = nd.Pooling(nd.array(x), kernel=(2, 2), stride=(2, 2), pool_type="max").asnumpy()
    np.testing.assert_array_equal(got, x.reshape(4, 6, 12, 2, 12, 2).max(axis=(3, 5)))


CONVOLUTIONS = list(itertools.product([(1, 1), (3, 3), (2, 3)], [1, 2], [1, 2], [0, 1], [1, 2], [True, False]))


@pytest.mark.parametrize("kernel,stride,dilate,pad,groups,with_bias", CONVOLUTIONS)
def test_convolution_equals_a_contraction_over_windows(kernel, stride, dilate, pad, groups, with_bias):
    x = RNG.standard_normal((3, 4, 9, 8)).astype(np.float32)
    weight = RNG.standard_normal((6, 4 // groups) + kernel).astype(np.float32)
    bias = RNG.standard_normal(6).astype(np.float32) if with_bias else None
    attrs = dict(kernel=kernel, stride=(stride, stride), dilate=(dilate, dilate), pad=(pad, pad), num_filter=6,
                 num_group=groups, no_bias=not with_bias)
    expected = kernels._convolution_nd(x, weight, bias, kernel, attrs["stride"], attrs["dilate"], attrs["pad"], 6,
                                       groups, not with_bias)
    for _ in range(2):  # the second call reuses the first one's scratch columns
        got = kernels.convolution(x, weight, bias, **attrs)
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("pad", [(1, 1), (0, 0)])  # padded, and stride 1 unpadded (wide rows)
@pytest.mark.parametrize("chunk_bytes", [1, 8 << 20])  # chunks of one image, or the whole batch
def test_one_image_columns_do_not_leak_into_the_next_image(monkeypatch, pad, chunk_bytes):
    monkeypatch.setattr(kernels, "COLUMN_BYTES", chunk_bytes)
    weight = RNG.standard_normal((2, 1, 3, 3)).astype(np.float32)
    batch = np.zeros((2, 1, 6, 6), np.float32)
    batch[0] = RNG.standard_normal((1, 6, 6)) * 100
    assert not kernels.convolution(batch, weight, kernel=(3, 3), pad=pad, num_filter=2, no_bias=True)[1].any()


@pytest.mark.parametrize("groups,relu", [(1, False), (2, True)])
@pytest.mark.parametrize("stride,pad,dilate", [((2, 1), (1, 1), (1, 1)), ((1, 1), (0, 0), (2, 1))])
def test_convolution_in_chunks_of_images_equals_one_chunk(monkeypatch, groups, relu, stride, pad, dilate):
    x = RNG.standard_normal((5, 4, 9, 8)).astype(np.float32)
    weight = RNG.standard_normal((6, 4 // groups, 3, 3)).astype(np.float32)
    bias = RNG.standard_normal(6).astype(np.float32)
    attrs = dict(kernel=(3, 3), stride=stride, pad=pad, dilate=dilate, num_filter=6, num_group=groups, relu=relu)
    whole = kernels.convolution(x, weight, bias, **attrs)
    expected = kernels._convolution_nd(x, weight, bias, (3, 3), stride, dilate, pad, 6, groups, False)
    np.testing.assert_allclose(whole, np.maximum(expected, 0) if relu else expected, rtol=1e-4, atol=1e-4)
    monkeypatch.setattr(kernels, "COLUMN_BYTES", 2 * 4 * 9 * 5 * 8 * 4)  # two images a chunk: 2, 2, 1
    np.testing.assert_allclose(kernels.convolution(x, weight, bias, **attrs), whole, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("groups", [1, 2])
@pytest.mark.parametrize("band_rows", [1, 3])
def test_convolution_in_bands_of_rows_equals_whole_images(monkeypatch, groups, band_rows):
    from runtime.kernels import conv
    x = RNG.standard_normal((2, 4, 11, 9)).astype(np.float32)
    weight = RNG.standard_normal((6, 4 // groups, 3, 3)).astype(np.float32)
    residual = RNG.standard_normal((2, 6, 6, 5)).astype(np.float32)
    args = ((3, 3, 2, 2, 1, 1, 1, 1, 6, 5), groups, RNG.uniform(0.5, 2, 6).astype(np.float32),
            RNG.standard_normal(6).astype(np.float32), residual, conv.RELU)
    w2d = weight.reshape(6, -1)
    whole = conv.conv2d(x, w2d, *args).copy()
    monkeypatch.setattr(conv, "BAND_BYTES", (4 * 9) * 5 * 4 * band_rows)  # `band_rows` output rows of columns
    banded = conv.conv2d(x, w2d, *args)
    np.testing.assert_allclose(banded, whole, rtol=1e-5, atol=1e-5)  # products of other widths: rounding


def test_convolution_of_integers_keeps_their_type():
    x = np.arange(2 * 2 * 5 * 5, dtype=np.int32).reshape(2, 2, 5, 5)
    weight = np.ones((3, 2, 2, 2), np.int32)
    got = kernels.convolution(x, weight, kernel=(2, 2), num_filter=3, no_bias=True)
    windows = x[:, :, :-1, :-1] + x[:, :, 1:, :-1] + x[:, :, :-1, 1:] + x[:, :, 1:, 1:]
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, np.repeat(windows.sum(axis=1, keepdims=True), 3, axis=1))


@pytest.mark.parametrize("rows", [1, 64])
def test_a_wide_product_equals_matmul_and_leaves_blas_on_one_thread(rows):
    a = RNG.standard_normal((rows, 512)).astype(np.float32)
    b = RNG.standard_normal((512, 256)).astype(np.float32)
    np.testing.assert_allclose(threads.wide_product(a, b), a @ b, rtol=1e-4, atol=1e-3)
    assert all(pool["num_threads"] == 1 for pool in threadpool_info() if pool["user_api"] == "blas")


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_convolution_with_relu_equals_relu_of_convolution(dtype):
    x = (RNG.standard_normal((3, 2, 7, 7)) * 10).astype(dtype)
    weight = (RNG.standard_normal((4, 2, 3, 3)) * 10).astype(dtype)
    if dtype == np.float32:
        x[0, 0, 3, 3] = np.nan  # the fused ReLU is the Activation operator's: NaN gives 0 (MXNet 1.9.1)
    attrs = dict(kernel=(3, 3), pad=(1, 1), num_filter=4, no_bias=True)
    product = kernels.convolution(x, weight, **attrs)
    expected = np.where(product > 0, product, 0).astype(product.dtype)
    np.testing.assert_array_equal(kernels.convolution(x, weight, relu=True, **attrs), expected)


def test_a_hybridized_convolution_with_relu_equals_the_eager_one():
    from runtime.gluon import nn
    net = nn.HybridSequential()
    net.add(nn.Conv2D(5, kernel_size=3, padding=1, activation="relu"), nn.Conv2D(3, kernel_size=1))
    net.initialize()
    x = nd.array(RNG.standard_normal((2, 3, 8, 8)).astype(np.float32))
    eager = net(x).asnumpy()
    net.hybridize()
    np.testing.assert_allclose(net(x).asnumpy(), eager, rtol=1e-5, atol=1e-5)


def test_a_hybridized_output_never_shares_memory_with_the_input_or_a_parameter():
    from runtime.gluon import HybridBlock, nn

    class Views(HybridBlock):
        def hybrid_forward(self, F, x):
            return x, F.reshape(x, (-1,)), F.Flatten(x)

    block = Views()
    block.hybridize()
    x = nd.array(np.ones((2, 3), np.float32))
    for out in block(x):
        out[:] = 5
    np.testing.assert_array_equal(x.asnumpy(), np.ones((2, 3)))

    dense = nn.Dense(3, in_units=3, use_bias=False)
    dense.initialize()
    dense.hybridize()
    first = dense(x)
    dense(nd.array(np.zeros((2, 3), np.float32)))  # a second call does not overwrite the first result
    np.testing.assert_allclose(first.asnumpy(), x.asnumpy() @ dense.weight.data().asnumpy().T, rtol=1e-6)


def test_a_hybridized_batchnorm_in_training_updates_its_running_statistics_as_eagerly():
    from runtime import autograd
    from runtime.gluon import nn

    def running_mean(hybridized):
        net = nn.BatchNorm(in_channels=3)
        net.initialize()
        if hybridized:
            net.hybridize()
        x = nd.array(RNG.standard_normal((4, 3, 2, 2)).astype(np.float32) + 5)
        with autograd.record():
            y = net(x)
        # as in MXNet 1.9.1, the forward pass leaves the statistics and the backward pass moves them
        assert not net.running_mean.data().asnumpy().any()
        y.backward()
        return net.running_mean.data().asnumpy()

    state = RNG.bit_generator.state
    eager = running_mean(False)
    RNG.bit_generator.state = state
    hybridized = running_mean(True)
    assert eager.any()
    np.testing.assert_allclose(hybridized, eager, rtol=1e-5)


@pytest.mark.parametrize("rows,outputs,dtype,with_bias,relu", itertools.product(
    [1, 3, 4, 5, 64], [2, 16, 40], [np.float32, np.float64], [True, False], [True, False]))
def test_a_fully_connected_layer_equals_the_blas_product(rows, outputs, dtype, with_bias, relu):
    # few rows or few outputs take the row-by-row loop; the others BLAS: both agree with matmul
    x = RNG.standard_normal((rows, 2, 30)).astype(dtype)
    x[0, 0, 0] = np.nan  # the fused ReLU is the Activation operator's: NaN gives 0 (MXNet 1.9.1)
    weight = RNG.standard_normal((outputs, 60)).astype(dtype)
    bias = RNG.standard_normal(outputs).astype(dtype)
    expected = x.reshape(rows, 60) @ weight.T + (bias if with_bias else 0)
    if relu:
        expected = np.where(expected > 0, expected, 0)
    got = kernels.fully_connected(x, weight, bias, num_hidden=outputs, no_bias=not with_bias, relu=relu)
    assert got.dtype == dtype and got.shape == (rows, outputs)
    np.testing.assert_allclose(got, expected, rtol=1e-4 if dtype == np.float32 else 1e-10, atol=1e-4)
    assert (got[0] == 0).all() if relu else np.isnan(got[0]).all()


def test_a_fully_connected_layer_reads_a_strided_input():
    x = RNG.standard_normal((30, 3)).astype(np.float32).T  # (3, 30), not contiguous
    weight = RNG.standard_normal((8, 30)).astype(np.float32)
    got = kernels.fully_connected(x, weight, None, num_hidden=8, no_bias=True)
    np.testing.assert_allclose(got, x @ weight.T, rtol=1e-5, atol=1e-5)


def _layers(sizes, dtype):
    return [array for n_in, n_out in zip(sizes, sizes[1:])
            for array in (RNG.standard_normal((n_out, n_in)).astype(dtype), RNG.standard_normal(n_out).astype(dtype))]


@pytest.mark.parametrize("rows", [1, 4, 5, 64])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_chain_of_dense_layers_equals_them_one_by_one(rows, dtype):
    x = RNG.standard_normal((rows, 3, 8)).astype(dtype)
    parameters = _layers([24, 40, 16, 2], dtype)
    relus = (True, False, True)
    expected = x
    for (weight, bias), relu in zip(zip(parameters[0::2], parameters[1::2]), relus):
        expected = kernels.fully_connected(expected, weight, bias, num_hidden=weight.shape[0], relu=relu)
    got = kernels.dense_chain(x, *parameters, relus=relus)
    assert got.dtype == dtype and got.shape == (rows, 2)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def test_a_chain_of_dense_layers_of_mixed_types_goes_layer_by_layer():
    x = RNG.standard_normal((1, 24)).astype(np.float32)
    parameters = _layers([24, 40, 2], np.float32)
    parameters[2] = parameters[2].astype(np.float64)  # the second weight in another type
    got = kernels.dense_chain(x, *parameters, relus=(True, False))
    hidden = np.maximum(x @ parameters[0].T + parameters[1], 0)
    np.testing.assert_allclose(got, hidden @ parameters[2].T + parameters[3], rtol=1e-5, atol=1e-5)


def test_a_chain_of_dense_layers_rejects_a_weight_of_the_wrong_width():
    parameters = _layers([24, 40, 2], np.float32)
    parameters[2] = parameters[2][:, :39]
    with pytest.raises(ValueError, match="Shape inconsistent"):
        kernels.dense_chain(np.ones((1, 24), np.float32), *parameters, relus=(True, False))


@pytest.mark.parametrize("window,stride", [((2, 2), (2, 2)), ((3, 3), (2, 2)), ((2, 3), (1, 2))])
@pytest.mark.parametrize("conv_stride,pad", [((1, 1), (0, 0)), ((2, 1), (1, 1))])
@pytest.mark.parametrize("relu,with_bias", [(True, True), (False, True), (True, False)])
@pytest.mark.parametrize("convention", ["valid", "full"])  # "full": windows past the edge or not, by size
def test_convolution_then_max_pooling_in_one_pass_equals_the_two(window, stride, conv_stride, pad, relu, with_bias,
                                                                 convention):
    x = RNG.standard_normal((3, 2, 11, 10)).astype(np.float32)
    weight = RNG.standard_normal((4, 2, 3, 3)).astype(np.float32)
    bias = RNG.standard_normal(4).astype(np.float32) if with_bias else None
    attrs = dict(kernel=(3, 3), stride=conv_stride, pad=pad, num_filter=4, no_bias=not with_bias)
    expected = kernels.pooling(kernels.convolution(x, weight, bias, relu=relu, **attrs), kernel=window,
                               stride=stride, pool_type="max", pooling_convention=convention)
    got = kernels.convolution_max_pool(x, weight, bias, relu=relu, pool_kernel=window, pool_stride=stride,
                                       pool_convention=convention, **attrs)
    assert got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


def test_convolution_then_max_pooling_skips_nan_as_pooling_does():
    x = np.ones((1, 1, 4, 4), np.float32)
    x[0, 0, :2, :2] = np.nan  # the first pooled window sees only NaN
    x[0, 0, 2, 2] = np.nan    # the last one a single NaN
    x[0, 0, 0, 3] = -np.inf   # the second one a -inf among ones
    weight = np.ones((1, 1, 1, 1), np.float32)
    for relu in (True, False):
        expected = kernels.pooling(kernels.convolution(x, weight, np.zeros(1, np.float32), kernel=(1, 1),
                                                       num_filter=1, relu=relu), kernel=(2, 2), stride=(2, 2))
        got = kernels.convolution_max_pool(x, weight, np.zeros(1, np.float32), kernel=(1, 1), num_filter=1,
                                           relu=relu)
        np.testing.assert_array_equal(got, expected)
        # the fused ReLU (the Activation operator's) made the window's NaN 0 before the pooling
        assert got[0, 0, 0, 0] == (0 if relu else -np.inf) and got[0, 0, 1, 1] == 1


def test_convolution_then_max_pooling_of_integers_runs_the_two_operators():
    x = np.arange(2 * 1 * 6 * 6, dtype=np.int32).reshape(2, 1, 6, 6) % 7
    weight = np.ones((2, 1, 2, 2), np.int32)
    expected = kernels.pooling(kernels.convolution(x, weight, kernel=(2, 2), num_filter=2, no_bias=True),
                               kernel=(2, 2), stride=(2, 2))
    got = kernels.convolution_max_pool(x, weight, kernel=(2, 2), num_filter=2, no_bias=True)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("relu", [True, False])
def test_a_fully_connected_layer_without_flattening_keeps_leading_axes(relu):
    x = RNG.standard_normal((6, 3, 30)).astype(np.float32)  # 18 rows of 30 features
    weight = RNG.standard_normal((40, 30)).astype(np.float32)
    bias = RNG.standard_normal(40).astype(np.float32)
    expected = x @ weight.T + bias
    got = kernels.fully_connected(x, weight, bias, num_hidden=40, flatten=False, relu=relu)
    assert got.shape == (6, 3, 40)
    np.testing.assert_allclose(got, np.maximum(expected, 0) if relu else expected, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("size", [15, 17])  # the convolution's 7x7 or 8x8: "full" windows inside it, or past it
@pytest.mark.parametrize("convention", ["valid", "full"])
def test_while_the_kernels_compile_the_fused_convolution_and_pooling_runs_the_two_apart(monkeypatch, size,
                                                                                         convention):
    """The fused kernels have no NumPy twin: while the kernels compile (an empty cache), a first
    forward pass takes the convolution and the pooling apart, with their twins, to the same values."""
    x = RNG.standard_normal((2, 3, size, size)).astype(np.float32)
    weight = RNG.standard_normal((4, 3, 3, 3)).astype(np.float32)
    bias = RNG.standard_normal(4).astype(np.float32)
    attrs = dict(kernel=(3, 3), stride=(2, 2), num_filter=4, relu=True)
    pool = dict(pool_kernel=(3, 3), pool_stride=(2, 2), pool_convention=convention)
    fused = kernels.convolution_max_pool(x, weight, bias, **pool, **attrs)
    expected = kernels.pooling(kernels.convolution(x, weight, bias, **attrs), kernel=(3, 3), stride=(2, 2),
                               pool_type="max", pooling_convention=convention)
    monkeypatch.setattr(kernels, "compiling", lambda: True)
    monkeypatch.setattr(kernels, "_place_max_pooled", None)  # not called
    apart = kernels.convolution_max_pool(x, weight, bias, **pool, **attrs)
    assert apart.shape == fused.shape == expected.shape
    np.testing.assert_array_equal(apart, fused)
