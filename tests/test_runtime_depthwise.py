"""The direct depthwise kernel against a float64 reference, over filter sizes, strides, padding and
dilation (uneven ones included) and every epilogue; and its NumPy twin, bit for bit."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from runtime.kernels import conv
from runtime.kernels.depthwise import depthwise, depthwise_channels_last
from tests.test_runtime_winograd import through_epilogue
from tests.test_tiered_kernels import both, same_bits, values

RNG = np.random.RandomState(11)


def reference(x, weight, stride, pad, dilate, scale, shift, residual, act):
    n, c = x.shape[:2]
    kh, kw = weight.shape[1:]
    padded = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])))
    oh = (padded.shape[2] - dilate[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (padded.shape[3] - dilate[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((n, c, oh, ow))
    for i, j in itertools.product(range(kh), range(kw)):
        y0, x0 = i * dilate[0], j * dilate[1]
        window = padded[:, :, y0:y0 + stride[0] * (oh - 1) + 1:stride[0], x0:x0 + stride[1] * (ow - 1) + 1:stride[1]]
        out += window * weight[:, i, j].reshape(1, c, 1, 1)
    return through_epilogue(out, scale, shift, residual, act)


KERNELS = {"planes": depthwise, "channels_last": depthwise_channels_last}


def run(x, weight, stride, pad, dilate, scale, shift, residual, act, kernel=depthwise):
    n, c, h, w = x.shape
    kh, kw = weight.shape[1:]
    oh = (h + 2 * pad[0] - dilate[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (w + 2 * pad[1] - dilate[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.full((n, c, oh, ow), np.nan, x.dtype)
    kernel(x, weight, stride[0], stride[1], pad[0], pad[1], dilate[0], dilate[1], scale, shift, residual, act, out)
    return out


GEOMETRIES = [  # kernel, stride, pad, dilate, (h, w)
    ((3, 3), (1, 1), (1, 1), (1, 1), (7, 9)), ((3, 3), (2, 2), (1, 1), (1, 1), (9, 8)),
    ((5, 5), (1, 1), (2, 2), (1, 1), (8, 8)), ((5, 5), (2, 2), (2, 2), (1, 1), (11, 10)),
    ((3, 3), (1, 1), (0, 0), (1, 1), (5, 6)), ((3, 3), (1, 1), (2, 2), (2, 2), (6, 7)),
    ((3, 5), (2, 1), (1, 2), (1, 1), (7, 7)), ((7, 7), (3, 3), (3, 3), (1, 1), (13, 12)),
    ((1, 1), (2, 2), (0, 0), (1, 1), (5, 5)), ((2, 4), (1, 3), (1, 0), (2, 1), (6, 11)),
    ((3, 3), (2, 2), (3, 0), (1, 1), (4, 4)), ((5, 5), (1, 1), (2, 2), (1, 1), (3, 3)),
]


@pytest.mark.parametrize("method", sorted(KERNELS))
@pytest.mark.parametrize("kernel,stride,pad,dilate,size", GEOMETRIES)
@pytest.mark.parametrize("act,scaled,added", [(conv.NONE, False, False), (conv.RELU, True, False),
                                              (conv.RELU6, True, True), (conv.RELU_OP, False, True)])
def test_depthwise_equals_the_reference_through_the_epilogue(method, kernel, stride, pad, dilate, size, act, scaled,
                                                             added):
    n, c = 2, 3
    x = RNG.uniform(-1, 1, (n, c) + size).astype(np.float32)
    weight = RNG.uniform(-1, 1, (c,) + kernel).astype(np.float32)
    scale = RNG.uniform(0.5, 2, c).astype(np.float32) if scaled else np.empty(0, np.float32)
    shift = RNG.uniform(-1, 1, c).astype(np.float32)
    expected_shape = reference(x, weight, stride, pad, dilate, scale, shift, conv.no_residual(np.float32),
                               conv.NONE).shape
    residual = (RNG.uniform(-1, 1, expected_shape).astype(np.float32) if added
                else conv.no_residual(np.float32))
    got = run(x, weight, stride, pad, dilate, scale, shift, residual, act, KERNELS[method])
    np.testing.assert_allclose(got, reference(x, weight, stride, pad, dilate, scale, shift, residual, act),
                               rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("method", sorted(KERNELS))
def test_float64_stays_float64_and_exact_to_its_precision(method):
    x = RNG.uniform(-1, 1, (1, 4, 9, 9))
    weight = RNG.uniform(-1, 1, (4, 3, 3))
    none, empty, zeros = conv.no_residual(np.float64), np.empty(0), np.zeros(4)
    got = run(x, weight, (2, 2), (1, 1), (1, 1), empty, zeros, none, conv.NONE, KERNELS[method])
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, reference(x, weight, (2, 2), (1, 1), (1, 1), empty, zeros, none, conv.NONE),
                               rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("method", sorted(KERNELS))
@pytest.mark.parametrize("act", [conv.NONE, conv.RELU_OP])
def test_nan_in_the_input_reaches_only_the_outputs_whose_window_holds_it(act, method):
    x = np.zeros((1, 1, 6, 6), np.float32)
    x[0, 0, 2, 3] = np.nan
    weight = np.ones((1, 3, 3), np.float32)
    got = run(x, weight, (1, 1), (1, 1), (1, 1), np.empty(0, np.float32), np.zeros(1, np.float32),
              conv.no_residual(np.float32), act, KERNELS[method])
    window = np.zeros((6, 6), bool)
    window[1:4, 2:5] = True
    assert np.isnan(got[0, 0][window]).all() and not np.isnan(got[0, 0][~window]).any()


@pytest.mark.parametrize("method", sorted(KERNELS))
@pytest.mark.parametrize("kernel,stride,pad,dilate,size", GEOMETRIES)
@pytest.mark.parametrize("act,scaled,added", [(conv.NONE, False, False), (conv.RELU, True, False),
                                              (conv.RELU6, True, True), (conv.RELU_OP, False, True)])
def test_the_depthwise_kernels_twin_gives_its_bits(method, kernel, stride, pad, dilate, size, act, scaled, added):
    c = 3
    x = values(2, c, *size)
    weight = values(c, *kernel)
    scale = values(c) if scaled else np.empty(0, np.float32)
    probe = run(x, weight, stride, pad, dilate, np.empty(0, np.float32), np.zeros(c, np.float32),
                conv.no_residual(np.float32), conv.NONE)
    residual = values(*probe.shape) if added else conv.no_residual(np.float32)
    out = np.full(probe.shape, 7, np.float32)
    args = (x, weight, stride[0], stride[1], pad[0], pad[1], dilate[0], dilate[1], scale, values(c), residual, act, out)
    same_bits(*both(KERNELS[method], *args, out_index=12))


def mostly_zeros(*shape):
    """values() with two thirds of them zeros of either sign: sums of zeros, whose sign only the
    order of the additions decides, are frequent."""
    x = values(*shape)
    zeros = RNG.uniform(size=shape) < 2 / 3
    x[zeros] = np.where(RNG.uniform(size=shape) < 0.5, 0.0, -0.0)[zeros]
    return x


@pytest.mark.filterwarnings("ignore:invalid value encountered in multiply")  # the twin's 0 * inf
@pytest.mark.parametrize("kernel,stride,pad,dilate,size", GEOMETRIES)
@pytest.mark.parametrize("act", [conv.NONE, conv.RELU, conv.RELU6, conv.RELU_OP])
@pytest.mark.parametrize("shift_kind", ["nonzero", "zeros"])
@pytest.mark.parametrize("finite", [True, False])
def test_the_channels_last_kernel_skips_the_padding_only_where_that_keeps_the_twins_bits(
        kernel, stride, pad, dilate, size, act, shift_kind, finite):
    """Finite weights and a shift without zeros (or the Activation's ReLU): the padding skipped;
    otherwise added as the twin adds it. Either way, the twin's bits."""
    c = 4
    x = mostly_zeros(2, c, *size)
    weight = RNG.uniform(-2, 2, (c,) + kernel).astype(np.float32)
    weight[RNG.uniform(size=weight.shape) < 0.2] = -0.0
    if not finite:
        weight[0, 0, 0] = np.inf
    shift = RNG.uniform(0.5, 1, c).astype(np.float32) * RNG.choice([-1, 1], c).astype(np.float32)
    if shift_kind == "zeros":
        shift[::2] = [0.0, -0.0]
    probe = run(x, weight, stride, pad, dilate, np.empty(0, np.float32), shift, conv.no_residual(np.float32),
                conv.NONE)
    out = np.full(probe.shape, 7, np.float32)
    args = (x, weight, stride[0], stride[1], pad[0], pad[1], dilate[0], dilate[1], np.empty(0, np.float32), shift,
            conv.no_residual(np.float32), act, out)
    same_bits(*both(depthwise_channels_last, *args, out_index=12))


@pytest.mark.parametrize("size,kernel,stride", [((7, 7), (5, 5), (1, 1)), ((14, 14), (5, 5), (2, 2)),
                                                ((14, 14), (3, 3), (1, 1)), ((9, 6), (3, 3), (2, 2))])
@pytest.mark.parametrize("act", [conv.NONE, conv.RELU, conv.RELU6])
def test_the_two_depthwise_methods_give_the_same_bits_whichever_the_measuring_keeps(size, kernel, stride, act):
    """The measured choice (conv._depthwise) may switch methods between a model's calls."""
    c = 40
    x = mostly_zeros(2, c, *size)
    weight = RNG.uniform(-1, 1, (c,) + kernel).astype(np.float32)
    scale, shift = RNG.uniform(0.5, 2, c).astype(np.float32), RNG.uniform(-1, 1, c).astype(np.float32)
    pad = (kernel[0] // 2, kernel[1] // 2)
    planes, channels = (run(x, weight, stride, pad, (1, 1), scale, shift, conv.no_residual(np.float32), act, k)
                        for k in (depthwise, depthwise_channels_last))
    same_bits(planes, channels)
    oh, ow = planes.shape[2:]
    geometry = (kernel[0], kernel[1], stride[0], stride[1], pad[0], pad[1], 1, 1, oh, ow)
    chosen = conv.conv2d(x, weight.reshape(c, -1), geometry, c, scale, shift, conv.no_residual(np.float32), act)
    same_bits(chosen, planes)
