"""3x3 stride-1 convolutions by Winograd's minimal filtering F(2x2, 3x3).

Each 2x2 block of outputs is computed from the 4x4 block of inputs around it: the filters and the
input blocks are carried into a 4x4 "transformed" space where the convolution is an elementwise
product, which over channels is 16 independent matrix products (filters x channels) @ (channels x
blocks), then the 16 products are carried back to the 2x2 outputs. That is 16 multiply-adds per
filter, channel and 4 outputs where the column method does 36: ResNet's 3x3 layers run their
products 2.1-2.6x faster, and the transforms cost a pass over the input and one over the output.
The transforms' only constant is 1/2, which scales exactly: the values differ from the column
method's by the rounding of sums taken in another order (about 1e-7 of the largest output).

B^T = [[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]] (input blocks),
G = [[1, 0, 0], [1/2, 1/2, 1/2], [1/2, -1/2, 1/2], [0, 0, 1]] (filters),
A^T = [[1, 1, 1, 0], [0, 1, -1, -1]] (outputs): Y = A^T [(G g G^T) * (B^T d B)] A.
"""
from __future__ import annotations

import threading
import weakref

import numba
import numpy as np
from numpy.lib.stride_tricks import as_strided

from runtime.kernels import twins
from runtime.kernels.activation import finish_row
from runtime.kernels.tiered import tiered
from runtime.kernels.workspace import scratch
from runtime.threads import wide_products


@tiered(twins.winograd_filters)
@numba.njit(cache=True, nogil=True)
def transform_filters(weight, out):
    """out (16, filters, channels) = G g G^T of each 3x3 filter g = weight[f, c]."""
    filters, channels = weight.shape[0], weight.shape[1]
    half = weight.dtype.type(0.5)
    rows = np.empty((4, 3), weight.dtype)
    for f in range(filters):
        for c in range(channels):
            g = weight[f, c]
            for j in range(3):
                rows[0, j] = g[0, j]
                rows[1, j] = (g[0, j] + g[1, j] + g[2, j]) * half
                rows[2, j] = (g[0, j] - g[1, j] + g[2, j]) * half
                rows[3, j] = g[2, j]
            for i in range(4):
                out[i * 4 + 0, f, c] = rows[i, 0]
                out[i * 4 + 1, f, c] = (rows[i, 0] + rows[i, 1] + rows[i, 2]) * half
                out[i * 4 + 2, f, c] = (rows[i, 0] - rows[i, 1] + rows[i, 2]) * half
                out[i * 4 + 3, f, c] = rows[i, 2]


@numba.njit(cache=True, nogil=True, inline="always")
def _b_transposed(d0, d1, d2, d3):
    """B^T times the 4 values (d0, d1, d2, d3)."""
    return d0 - d2, d1 + d2, d2 - d1, d1 - d3


@tiered(twins.winograd_blocks)
@numba.njit(cache=True, nogil=True)
def transform_blocks(x, ph, pw, bh, bw, r0, r1, out):
    """out (16, channels, (r1 - r0) * bw) = B^T d B of each 4x4 input block d of block rows r0 to
    r1 - 1, counted over the images one after the other (row r: image r // bh, block row r % bh);
    block (by, bx) starts at input row 2 * by - ph and column 2 * bx - pw (0 outside). Scalars,
    not small arrays, hold each block's values, so that they stay in registers."""
    n, c, h, w = x.shape
    wp = 2 * bw + 2
    band = np.zeros((4, wp), x.dtype)  # the block row's 4 input rows, padded
    cols_in = min(w, wp - pw)
    for ch in range(c):
        for r in range(r0, r1):
            b, by = r // bh, r % bh
            for i in range(4):
                y = 2 * by - ph + i
                if 0 <= y < h:
                    band[i, pw:pw + cols_in] = x[b, ch, y, :cols_in]
                else:
                    band[i, :] = 0
            q0, q1, q2, q3 = band[0], band[1], band[2], band[3]
            base = np.uint64((r - r0) * bw)
            for bx in range(np.uint64(bw)):  # unsigned: no negative-index branch in the loop
                k = np.uint64(2) * bx
                p = base + bx
                # B^T down each of the block's 4 columns, then along each of the 4 rows that gives
                c0 = _b_transposed(q0[k], q1[k], q2[k], q3[k])
                c1 = _b_transposed(q0[k + 1], q1[k + 1], q2[k + 1], q3[k + 1])
                c2 = _b_transposed(q0[k + 2], q1[k + 2], q2[k + 2], q3[k + 2])
                c3 = _b_transposed(q0[k + 3], q1[k + 3], q2[k + 3], q3[k + 3])
                for i in range(4):
                    v0, v1, v2, v3 = _b_transposed(c0[i], c1[i], c2[i], c3[i])
                    out[4 * i, ch, p] = v0
                    out[4 * i + 1, ch, p] = v1
                    out[4 * i + 2, ch, p] = v2
                    out[4 * i + 3, ch, p] = v3


@tiered(twins.winograd_outputs)
@numba.njit(cache=True, nogil=True)
def transform_outputs(products, bh, bw, r0, r1, scale, shift, residual, act, out):
    """out (images, filters, oh, ow) at block rows r0 to r1 - 1 (as in transform_blocks) = the
    epilogue (see conv) of A^T m A for each output block, m its 4x4 values in products
    (16, filters, (r1 - r0) * bw): a row of blocks gives two rows of outputs, then the epilogue
    runs along each row (both loops vectorize)."""
    n, filters, oh, ow = out.shape
    zero = out.dtype.type(0)
    six = out.dtype.type(6)
    one = out.dtype.type(1)
    scaled = scale.shape[0] > 0
    added = residual.shape[0] > 0
    rows = np.empty((2, 2 * bw), out.dtype)
    top = rows[0]
    bottom = rows[1]
    for f in range(filters):
        factor = scale[f] if scaled else one
        offset = shift[f]
        m = products[:, f]
        for r in range(r0, r1):
            b, by = r // bh, r % bh
            base = np.uint64((r - r0) * bw)
            for bx in range(np.uint64(bw)):
                p = base + bx
                t0 = m[0, p] + m[4, p] + m[8, p]
                t1 = m[1, p] + m[5, p] + m[9, p]
                t2 = m[2, p] + m[6, p] + m[10, p]
                t3 = m[3, p] + m[7, p] + m[11, p]
                top[np.uint64(2) * bx] = t0 + t1 + t2
                top[np.uint64(2) * bx + np.uint64(1)] = t1 - t2 - t3
                t0 = m[4, p] - m[8, p] - m[12, p]
                t1 = m[5, p] - m[9, p] - m[13, p]
                t2 = m[6, p] - m[10, p] - m[14, p]
                t3 = m[7, p] - m[11, p] - m[15, p]
                bottom[np.uint64(2) * bx] = t0 + t1 + t2
                bottom[np.uint64(2) * bx + np.uint64(1)] = t1 - t2 - t3
            for i in range(min(2, oh - 2 * by)):
                src = rows[i, :ow]
                res = residual[b, f, 2 * by + i] if added else src
                finish_row(out[b, f, 2 * by + i], src, factor, offset, res, added, act, zero, six)


# Elements compared per block: a loop that may stop at any element does not vectorize; the
# exclusive-or of a block, gathered and tested once, does: 590 K weights held in cache compare in
# 0.048 ms against 0.185. In a forward pass the weights and their copy come from memory: ResNet-50
# at batch 1 compares 7 M weights per call in 1.9 ms against 2.5.
SAME_BITS_BLOCK = 512


@numba.njit(cache=True, nogil=True)
def _same_bits(a, b):
    """Whether the unsigned integers a and b (the bits of two arrays) are equal."""
    n = a.shape[0]
    full = n - n % SAME_BITS_BLOCK
    zero = a.dtype.type(0)  # a typed accumulator: Numba would widen a literal 0 and not vectorize
    for start in range(0, full, SAME_BITS_BLOCK):
        differ = zero
        for k in range(SAME_BITS_BLOCK):
            differ |= a[start + k] ^ b[start + k]
        if differ != zero:
            return False
    for k in range(full, n):
        if a[k] != b[k]:
            return False
    return True


class _Filters:
    """Transformed filters kept from call to call, by the weight array's memory, with a copy of the
    weights they came from: a call whose weights differ in any bit (a training step, new
    parameters loaded in place) transforms them again. An entry goes when the array owning the
    weights does. At most LIMIT bytes are kept: a layer met once they are full is left to the
    column method (dropping older entries instead would make a model larger than the limit
    transform every layer at every call)."""

    LIMIT = 64 << 20

    def __init__(self):
        self.kept = {}
        self.bytes = 0
        # threads running forward passes at once share the entries; reentrant, because a weakref
        # callback may run (by garbage collection) inside `get` on the same thread
        self.lock = threading.RLock()

    def get(self, weight: np.ndarray):
        """The transformed filters (16, filters, channels) of weight (filters, channels, 3, 3), or
        None when they cannot be kept."""
        with self.lock:
            return self._get(weight)

    def _get(self, weight: np.ndarray):
        key = (weight.ctypes.data, weight.shape, weight.dtype.char)
        entry = self.kept.get(key)
        bits = weight.reshape(-1).view("u%d" % weight.itemsize)
        if entry is not None and entry[0]() is not None and _same_bits(bits, entry[1]):
            return entry[2]
        filters, channels = weight.shape[:2]
        size = bits.nbytes + 16 * filters * channels * weight.itemsize
        if entry is None and self.bytes + size > self.LIMIT:
            return None
        self._drop(key)
        transformed = np.empty((16, filters, channels), weight.dtype)
        transform_filters(weight, transformed)
        owner = weight
        while isinstance(owner.base, np.ndarray):
            owner = owner.base
        self.kept[key] = (weakref.ref(owner, lambda _, key=key: self._drop(key)), bits.copy(), transformed)
        self.bytes += size
        return transformed

    def _drop(self, key) -> None:
        with self.lock:
            entry = self.kept.pop(key, None)
            if entry is not None:
                self.bytes -= entry[1].nbytes + entry[2].nbytes


_filters = _Filters()


def _matrices(purpose: str, rows: int, blocks: int, dtype) -> np.ndarray:
    """Scratch (16, rows, blocks) whose 16 matrices sit 320 bytes past a multiple of 4 KiB from each
    other. Their elements are read and written 16 at a time, one of each matrix; matrices a
    multiple of 4 KiB apart fall into the same cache sets and evict each other (the input
    transform at ResNet's (64, 56, 56) took 2.4 ms so, 0.3 with them apart). Each matrix stays
    C-contiguous, as the products need."""
    dtype = np.dtype(dtype)
    period, target = 4096 // dtype.itemsize, 320 // dtype.itemsize
    size = rows * blocks
    stride = size + (target - size) % period
    flat = scratch(purpose, (15 * stride + size,), dtype)
    return as_strided(flat, (16, rows, blocks), (stride * dtype.itemsize, blocks * dtype.itemsize, dtype.itemsize))


def takes(channels: int, filters: int) -> bool:
    """Whether the method is worth trying on a layer: its transformed filters (16/9 of the weights,
    kept beside a copy of them) are not kept for more than 256 x 256 filters, and under 16 channels
    or filters the products are too thin to gain from the fewer multiplications."""
    return 16 <= channels and 16 <= filters and channels * filters <= 256 * 256


def pays(images: int, channels: int, filters: int, oh: int, ow: int) -> bool:
    """Whether the method is tried first, before the runtime has timed the methods in the model
    (kernels/measured.py); where it beat the others on 2 cores of a Zen 4 (measured with
    benchmarks/conv_methods.py): ResNet's 3x3 layers at 56, 28 and 14 pixels, 1.5-2.1x on one
    BLAS thread; DenseNet's 32 filters over 128 channels, 1.2-1.5x against shifted products;
    SqueezeNet's 32 and 48 channels, 1.3-1.7x on one thread, 0.86-1.45x on two, and the whole
    model faster on both (batch 1 and 8: 3-7%). Not with 16 channels (0.87-0.99x), nor on too
    few blocks (512 channels at 7 pixels and one image: 0.76x, the products too narrow); fewer
    than 32 filters were not measured. Layers of more than 256 x 256 filters are left out: their
    kept filters would cost 2.8 times their weights' memory (a copy and 16/9 of them transformed)
    for little gain."""
    return (takes(channels, filters) and 32 <= channels and 32 <= filters
            and images * ((oh + 1) // 2) * ((ow + 1) // 2) >= 32)


# Block rows are taken in chunks whose transformed blocks stay near this many bytes, so that the
# products read them from a core's L2 cache, but of at least MIN_BLOCKS blocks (or all of them):
# narrower products run well under the BLAS's speed (ResNet's 256-channel layer at 14 pixels: 5.1
# ms in chunks of 28 blocks, 2.7 in one of 49). At batch 8 and 56 pixels, 1 MiB chunks ran 26-29
# ms where whole images (3.2 MiB each) ran 33-39.
BLOCK_BYTES = 1 << 20
MIN_BLOCKS = 128


def convolve(x, weight, ph, pw, scale, shift, residual, act, out):
    """out = the epilogue of the 3x3 stride-1 convolution of x (images, channels, h, w) with weight
    (filters, channels, 3, 3), both C-contiguous, padded by (ph, pw); None (out untouched) when
    the transformed filters cannot be kept."""
    n, c = x.shape[:2]
    filters, oh, ow = out.shape[1:]
    transformed = _filters.get(weight)
    if transformed is None:
        return None
    bh, bw = (oh + 1) // 2, (ow + 1) // 2
    chunk = max(-(-MIN_BLOCKS // bw), BLOCK_BYTES // (16 * max(c, filters) * bw * x.itemsize))
    for r0 in range(0, n * bh, chunk):
        r1 = min(n * bh, r0 + chunk)
        blocks = (r1 - r0) * bw
        inputs = _matrices("winograd inputs", c, blocks, x.dtype)
        transform_blocks(x, ph, pw, bh, bw, r0, r1, inputs)
        products = _matrices("winograd products", filters, blocks, x.dtype)
        wide_products(transformed, inputs, products)
        transform_outputs(products, bh, bw, r0, r1, scale, shift, residual, act, out)
    return out
