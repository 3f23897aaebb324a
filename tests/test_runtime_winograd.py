"""3x3 stride-1 convolutions by Winograd's F(2x2, 3x3): the values of the column method within
rounding, through every epilogue, on odd sizes and paddings; the twins give the compiled kernels'
bits; transformed filters are kept only while the weights keep every bit."""
import itertools

import numpy as np
import pytest

from runtime.kernels import conv, measured, tiered, winograd
from tests.test_tiered_kernels import both, same_bits, values

RNG = np.random.RandomState(11)


def reference(x, weight, pad, scale, shift, residual, act):
    """The convolution in float64 by columns, then the epilogue as the kernels apply it."""
    n, c, h, w = x.shape
    filters = weight.shape[0]
    padded = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])))
    oh, ow = padded.shape[2] - 2, padded.shape[3] - 2
    out = np.zeros((n, filters, oh, ow))
    for i, j in itertools.product(range(3), range(3)):
        out += np.einsum("fc,nchw->nfhw", weight[:, :, i, j], padded[:, :, i:i + oh, j:j + ow])
    return through_epilogue(out, scale, shift, residual, act)


def through_epilogue(out, scale, shift, residual, act):
    """A convolution's float64 output scaled, shifted, added to and activated as the kernels do."""
    if scale.shape[0]:
        out = out * scale.reshape(1, -1, 1, 1)
    out = out + shift.reshape(1, -1, 1, 1)
    if residual.shape[0]:
        out = out + residual
    if act in (conv.RELU, conv.RELU_OP, conv.RELU6):
        out = np.maximum(out, 0)
    if act == conv.RELU6:
        out = np.minimum(out, 6)
    return out


@pytest.mark.parametrize("n,c,h,w,filters,pad", [(1, 4, 6, 6, 5, (1, 1)), (2, 3, 7, 5, 4, (1, 1)),
                                                 (1, 2, 9, 8, 3, (0, 0)), (3, 5, 5, 7, 2, (2, 1)),
                                                 (1, 6, 3, 3, 4, (0, 1)), (1, 64, 14, 14, 64, (1, 1))])
@pytest.mark.parametrize("act,scaled,added", [(conv.NONE, False, False), (conv.RELU, True, False),
                                              (conv.RELU6, True, True), (conv.RELU_OP, False, True)])
def test_winograd_equals_the_convolution_through_the_epilogue(n, c, h, w, filters, pad, act, scaled, added):
    x = RNG.uniform(-1, 1, (n, c, h, w)).astype(np.float32)
    weight = RNG.uniform(-1, 1, (filters, c, 3, 3)).astype(np.float32)
    oh, ow = h + 2 * pad[0] - 2, w + 2 * pad[1] - 2
    scale = RNG.uniform(0.5, 2, filters).astype(np.float32) if scaled else np.empty(0, np.float32)
    shift = RNG.uniform(-0.5, 0.5, filters).astype(np.float32)
    residual = (RNG.uniform(-1, 1, (n, filters, oh, ow)).astype(np.float32) if added
                else conv.no_residual(np.float32))
    out = np.full((n, filters, oh, ow), np.nan, np.float32)
    winograd.convolve(x, weight, pad[0], pad[1], scale, shift, residual, act, out)
    expected = reference(x, weight, pad, scale, shift, residual, act)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5 * np.abs(expected).max())


def test_a_float64_convolution_stays_float64_and_exact_to_its_precision():
    x = RNG.uniform(-1, 1, (2, 3, 6, 7))
    weight = RNG.uniform(-1, 1, (4, 3, 3, 3))
    none = conv.no_residual(np.float64)
    out = np.empty((2, 4, 6, 7))
    winograd.convolve(x, weight, 1, 1, np.empty(0), np.zeros(4), none, conv.NONE, out)
    np.testing.assert_allclose(out, reference(x, weight, (1, 1), np.empty(0), np.zeros(4), none, conv.NONE),
                               rtol=1e-12, atol=1e-12)


def test_before_measuring_the_layers_that_gained_on_a_zen_4_take_winograd_first(monkeypatch):
    taken = []
    monkeypatch.setattr(winograd, "convolve", lambda *args: taken.append(args[1].shape) or args[-1])
    monkeypatch.setattr(measured, "_measuring", False)  # no trials, no choices: the order of preference
    monkeypatch.setattr(tiered, "loading", lambda: False)  # compiled kernels, not twins
    none = conv.no_residual(np.float32)
    for c, filters, size, stride in ((64, 64, 14, 1), (128, 32, 14, 1), (32, 128, 14, 1), (16, 64, 14, 1),
                                     (64, 16, 14, 1), (64, 64, 14, 2), (256, 256, 7, 1), (512, 512, 14, 1)):
        x = np.ones((1, c, size, size), np.float32)
        oh = (size + 2 - 3) // stride + 1
        conv.conv2d(x, np.ones((filters, c * 9), np.float32), (3, 3, stride, stride, 1, 1, 1, 1, oh, oh), 1,
                    np.empty(0, np.float32), np.zeros(filters, np.float32), none, conv.NONE)
    # few channels, few filters, a stride, 16 blocks of 7x7, more than 256 x 256 filters: the others
    assert taken == [(64, 64, 3, 3), (32, 128, 3, 3), (128, 32, 3, 3)]


def test_transformed_filters_follow_weights_changed_in_place():
    x = RNG.uniform(-1, 1, (1, 2, 5, 5)).astype(np.float32)
    weight = RNG.uniform(-1, 1, (3, 2, 3, 3)).astype(np.float32)
    none, empty, zeros = conv.no_residual(np.float32), np.empty(0, np.float32), np.zeros(3, np.float32)
    first = winograd.convolve(x, weight, 1, 1, empty, zeros, none, conv.NONE, np.empty((1, 3, 5, 5), np.float32))
    first = first.copy()
    weight[2, 1, 0, 2] = np.nextafter(weight[2, 1, 0, 2], np.float32(9))  # one bit, same array
    second = winograd.convolve(x, weight, 1, 1, empty, zeros, none, conv.NONE, np.empty((1, 3, 5, 5), np.float32))
    np.testing.assert_allclose(second, reference(x, weight, (1, 1), empty, zeros, none, conv.NONE), rtol=1e-5,
                               atol=1e-6)
    assert not np.array_equal(first[:, 2], second[:, 2]) and np.array_equal(first[:, :2], second[:, :2])


@pytest.mark.parametrize("kind", ["u4", "u8"])
@pytest.mark.parametrize("size", [1, winograd.SAME_BITS_BLOCK - 1, winograd.SAME_BITS_BLOCK,
                                  3 * winograd.SAME_BITS_BLOCK + 5])
def test_one_flipped_bit_anywhere_makes_the_weights_differ(kind, size):
    kept = RNG.uniform(-1, 1, size).astype("f%s" % kind[1]).view(kind)
    assert winograd._same_bits(kept.copy(), kept)
    for at in sorted({0, size // 2, size - 1, max(0, size - 6), min(size - 1, winograd.SAME_BITS_BLOCK)}):
        for bit in (0, 8 * int(kind[1]) - 1):
            changed = kept.copy()
            changed[at] ^= changed.dtype.type(1) << changed.dtype.type(bit)
            assert not winograd._same_bits(changed, kept), (at, bit)


def test_the_kept_filters_are_bounded_and_go_with_their_weights(monkeypatch):
    kept = winograd._Filters()
    one = (2 * 2 * 9 + 16 * 2 * 2) * 4  # a copy of a (2, 2, 3, 3) weight and its transform, in bytes
    monkeypatch.setattr(winograd._Filters, "LIMIT", 3 * one)
    arrays = [RNG.uniform(-1, 1, (2, 2, 3, 3)).astype(np.float32) for _ in range(5)]
    got = [kept.get(weight) for weight in arrays]
    assert [g is not None for g in got] == [True, True, True, False, False] and kept.bytes == 3 * one
    assert kept.get(arrays[0]) is got[0]  # kept: not transformed again
    del arrays[1], got
    assert len(kept.kept) == 2 and kept.bytes == 2 * one  # its weights went, so did it
    assert kept.get(arrays[-1]) is not None


def test_a_layer_whose_filters_cannot_be_kept_takes_the_column_method(monkeypatch):
    monkeypatch.setattr(winograd, "_filters", winograd._Filters())
    monkeypatch.setattr(winograd._Filters, "LIMIT", 0)
    x = RNG.uniform(-1, 1, (1, 64, 8, 8)).astype(np.float32)
    weight = RNG.uniform(-1, 1, (64, 64, 3, 3)).astype(np.float32)
    none, empty, zeros = conv.no_residual(np.float32), np.empty(0, np.float32), np.zeros(64, np.float32)
    out = np.empty((1, 64, 8, 8), np.float32)
    assert winograd.convolve(x, weight, 1, 1, empty, zeros, none, conv.NONE, out) is None
    out = conv.conv2d(x, weight.reshape(64, -1), (3, 3, 1, 1, 1, 1, 1, 1, 8, 8), 1, empty, zeros, none, conv.NONE)
    np.testing.assert_allclose(out, reference(x, weight, (1, 1), empty, zeros, none, conv.NONE), rtol=1e-4,
                               atol=1e-4)


@pytest.mark.parametrize("rows", [1, 2, 3])
def test_block_rows_in_chunks_equal_one_chunk(monkeypatch, rows):
    x = RNG.uniform(-1, 1, (3, 3, 7, 6)).astype(np.float32)
    weight = RNG.uniform(-1, 1, (4, 3, 3, 3)).astype(np.float32)
    residual = RNG.uniform(-1, 1, (3, 4, 7, 6)).astype(np.float32)
    args = (1, 1, np.empty(0, np.float32), np.zeros(4, np.float32), residual, conv.RELU)
    whole = winograd.convolve(x, weight, *args, np.empty((3, 4, 7, 6), np.float32)).copy()
    monkeypatch.setattr(winograd, "BLOCK_BYTES", 16 * 4 * 3 * 4 * rows)  # `rows` block rows at a time
    monkeypatch.setattr(winograd, "MIN_BLOCKS", 1)
    same_bits(winograd.convolve(x, weight, *args, np.empty((3, 4, 7, 6), np.float32)), whole)


@pytest.mark.parametrize("act,scaled,added", [(conv.NONE, False, False), (conv.RELU, True, False),
                                              (conv.RELU6, True, True), (conv.RELU_OP, False, True)])
def test_the_winograd_kernels_twins_give_their_bits(act, scaled, added):
    n, c, h, w, filters = 2, 3, 7, 6, 4
    bh, bw = 4, 3  # (7 + 2 - 2 + 1) // 2, (6 + 2 - 2 + 1) // 2 with a padding of 1
    same_bits(*both(winograd.transform_filters, values(filters, c, 3, 3), np.zeros((16, filters, c), np.float32),
                    out_index=1))
    scale = values(filters) if scaled else np.empty(0, np.float32)
    residual = values(n, filters, h, w) if added else conv.no_residual(np.float32)
    x = values(n, c, h, w)
    for r0, r1 in ((0, n * bh), (3, 6), (5, 6)):  # every block row; rows across two images; one row
        same_bits(*both(winograd.transform_blocks, x, 1, 1, bh, bw, r0, r1,
                        np.zeros((16, c, (r1 - r0) * bw), np.float32), out_index=7))
        products = values(16, filters, (r1 - r0) * bw)
        same_bits(*both(winograd.transform_outputs, products, bh, bw, r0, r1, scale, values(filters), residual, act,
                        np.zeros((n, filters, h, w), np.float32), out_index=9))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_sixteen_matrices_are_contiguous_and_spread_over_the_cache_sets(dtype):
    for rows, blocks in ((64, 784), (128, 196), (256, 49), (3, 1), (512, 16)):
        matrices = winograd._matrices("test", rows, blocks, dtype)
        assert matrices.shape == (16, rows, blocks) and matrices[5].flags.c_contiguous
        assert len({(e * matrices.strides[0]) % 4096 // 64 for e in range(16)}) == 16
        matrices[15, -1, -1] = 1  # inside the scratch


def test_threads_sharing_the_kept_filters_count_each_entry_once():
    import threading
    kept = winograd._Filters()
    weights = [RNG.uniform(-1, 1, (8, 8, 3, 3)).astype(np.float32) for _ in range(4)]
    got = []

    def use():
        for _ in range(50):
            for weight in weights:
                got.append(kept.get(weight) is not None)
    threads = [threading.Thread(target=use) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(got) and len(kept.kept) == 4
    assert kept.bytes == sum(a.nbytes + b.nbytes for _, a, b in kept.kept.values())
