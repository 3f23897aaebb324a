"""Image resizing and border padding with OpenCV's arithmetic, which `mx.image` exposes.

MXNet's `imresize` is OpenCV's `cv::resize` on an HxWxC image; its results are part of what a model
sees, so the taps, weights and roundings follow OpenCV's: pixel centres at +0.5; uint8 images
weighted with 11-bit fixed-point coefficients (2048 = 1.0) in both passes, other dtypes in float32;
bilinear and area shrinking by exactly 2 in both directions taking the 2x2 block mean rounded half up;
area shrinking by other factors weighting each source pixel by the share of it a destination pixel
covers; cubic (A = -0.75) and Lanczos (8 taps) reading beyond the edge as the edge pixel.
Plain NumPy over whole rows and columns: images are small next to the models that consume them.
"""
from __future__ import annotations

import math

import numpy as np

NEAREST, LINEAR, CUBIC, AREA, LANCZOS4 = 0, 1, 2, 3, 4
_COEF_BITS = 11
_COEF_SCALE = 1 << _COEF_BITS


def _cubic_weights(x: np.ndarray) -> np.ndarray:
    a = np.float32(-0.75)
    x = x.astype(np.float32)
    one = np.float32(1)
    w0 = ((a * (x + one) - np.float32(5) * a) * (x + one) + np.float32(8) * a) * (x + one) - np.float32(4) * a
    w1 = ((a + np.float32(2)) * x - (a + np.float32(3))) * x * x + one
    w2 = ((a + np.float32(2)) * (one - x) - (a + np.float32(3))) * (one - x) * (one - x) + one
    return np.stack([w0, w1, w2, one - w0 - w1 - w2], axis=-1)


def _lanczos_weights(x: np.ndarray) -> np.ndarray:
    taps = np.arange(8)
    t = x[:, None].astype(np.float64) + 3 - taps
    with np.errstate(invalid="ignore", divide="ignore"):
        y = t * math.pi / 4
        w = np.where(np.abs(t) < 1e-12, 1.0, np.sin(t * math.pi) * np.sin(y) / (t * math.pi * y))
    w[x < np.finfo(np.float32).eps] = (taps == 3)
    return (w / w.sum(axis=1, keepdims=True)).astype(np.float32)


def _taps(src: int, dst: int, interp: int, snap_edges: bool = True):
    """Source indices (dst x k, clamped to the image) and float32 weights for one axis. OpenCV moves
    a linear tap beyond the edge onto the edge pixel with weight 1 across columns (`snap_edges`),
    while down rows it only clamps the row read, keeping the weights (one pixel, two weights)."""
    scale = 1.0 / (dst / src)
    d = np.arange(dst, dtype=np.float64)
    if interp == AREA:  # enlarging with INTER_AREA: linear weights that snap to whole pixels
        start = np.floor(d * scale).astype(np.int64)
        frac = ((d + 1) - (start + 1) / scale).astype(np.float32)
        frac = np.where(frac <= 0, np.float32(0), frac - np.floor(frac)).astype(np.float32)
    else:
        pos = ((d + 0.5) * scale - 0.5).astype(np.float32)
        start = np.floor(pos).astype(np.int64)
        frac = (pos - start).astype(np.float32)
    if interp in (LINEAR, AREA) and snap_edges:
        low = start < 0
        frac[low], start[low] = 0, 0
        high = start >= src - 1
        frac[high], start[high] = 0, src - 1
    if interp in (LINEAR, AREA):
        weights = np.stack([np.float32(1) - frac, frac], axis=-1)
        index = start[:, None] + np.arange(2)
    elif interp == CUBIC:
        weights = _cubic_weights(frac)
        index = start[:, None] + np.arange(-1, 3)
    else:
        weights = _lanczos_weights(frac)
        index = start[:, None] + np.arange(-3, 5)
    return np.clip(index, 0, src - 1), weights.astype(np.float32)


def _separable(image: np.ndarray, height: int, width: int, interp: int) -> np.ndarray:
    rows, row_w = _taps(image.shape[0], height, interp, snap_edges=False)
    cols, col_w = _taps(image.shape[1], width, interp)
    if image.dtype == np.uint8:
        row_i = np.rint(row_w * _COEF_SCALE).astype(np.int64)
        col_i = np.rint(col_w * _COEF_SCALE).astype(np.int64)
        src = image.astype(np.int64)
        horizontal = np.einsum("hwkc,wk->hwc", src[:, cols], col_i)
        if rows.shape[1] == 2:
            # two rows: OpenCV's vector code drops 4 bits of each row sum, keeps the high half of
            # each product, and rounds the sum of the two
            top = (row_i[:, 0, None, None] * (horizontal[rows[:, 0]] >> 4)) >> 16
            bottom = (row_i[:, 1, None, None] * (horizontal[rows[:, 1]] >> 4)) >> 16
            return np.clip((top + bottom + 2) >> 2, 0, 255).astype(np.uint8)
        if interp == CUBIC:
            # four rows: OpenCV's vector code sums in float32 with the weights scaled back to 1.0,
            # and rounds half to even (an integer sum rounding half up differs on exact halves)
            scale = np.float32(1.0 / (_COEF_SCALE * _COEF_SCALE))
            weights = (row_i.astype(np.float32) * scale).astype(np.float32)
            total = np.zeros((height, width, image.shape[2]), np.float32)
            for k in range(4):
                total += horizontal[rows[:, k]].astype(np.float32) * weights[:, k, None, None]
            return np.clip(np.rint(total), 0, 255).astype(np.uint8)
        vertical = np.einsum("hkwc,hk->hwc", horizontal[rows], row_i)
        shift = 2 * _COEF_BITS
        return np.clip((vertical + (1 << (shift - 1))) >> shift, 0, 255).astype(np.uint8)
    src = image.astype(np.float32)
    horizontal = np.zeros((src.shape[0], width, src.shape[2]), np.float32)
    for k in range(cols.shape[1]):
        horizontal += src[:, cols[:, k]] * col_w[None, :, k, None]
    out = np.zeros((height, width, src.shape[2]), np.float32)
    for k in range(rows.shape[1]):
        out += horizontal[rows[:, k]] * row_w[:, k, None, None]
    return _cast(out, image.dtype)


def _cast(values: np.ndarray, dtype) -> np.ndarray:
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return np.clip(np.rint(values), info.min, info.max).astype(dtype)
    return values.astype(dtype)


def _area_taps(src: int, dst: int):
    """Source indices and float32 weights (dst x taps, zero weights padding) of each destination
    pixel: the share of each source pixel it covers (OpenCV's area table, in its order)."""
    scale = src / dst
    entries = []
    for d in range(dst):
        first = d * scale
        last = first + scale
        cell = min(scale, src - first)
        lo = min(int(math.ceil(first)), src - 1)
        hi = min(int(math.floor(last)), src - 1)
        lo = min(lo, hi)
        row = []
        if lo - first > 1e-3:
            row.append((lo - 1, (lo - first) / cell))
        row.extend((s, 1.0 / cell) for s in range(lo, hi))
        if last - hi > 1e-3:
            row.append((hi, min(min(last - hi, 1.0), cell) / cell))
        entries.append(row)
    taps = max(len(row) for row in entries)
    index = np.zeros((dst, taps), np.int64)
    weight = np.zeros((dst, taps), np.float32)
    for d, row in enumerate(entries):
        for k, (s, w) in enumerate(row):
            index[d, k], weight[d, k] = s, w
    return index, weight


def _area_shrink(image: np.ndarray, height: int, width: int) -> np.ndarray:
    src_h, src_w = image.shape[:2]
    fy, fx = src_h / height, src_w / width
    if fy == int(fy) and fx == int(fx):
        fy, fx = int(fy), int(fx)
        blocks = image[:height * fy, :width * fx].reshape(height, fy, width, fx, -1)
        if image.dtype == np.uint8:
            total = blocks.astype(np.int64).sum(axis=(1, 3))
            if fy == 2 and fx == 2:
                return ((total + 2) >> 2).astype(np.uint8)
            return _cast(total.astype(np.float32) * np.float32(1.0 / (fx * fy)), image.dtype)
        total = blocks.astype(np.float32).sum(axis=(1, 3))
        return _cast(total * np.float32(1.0 / (fx * fy)), image.dtype)
    # in float32, summed in OpenCV's order: along each source row first, then over the rows
    rows, row_w = _area_taps(src_h, height)
    cols, col_w = _area_taps(src_w, width)
    src = image.astype(np.float32)
    horizontal = np.zeros((src_h, width, src.shape[2]), np.float32)
    for k in range(cols.shape[1]):
        horizontal += src[:, cols[:, k]] * col_w[None, :, k, None]
    out = np.zeros((height, width, src.shape[2]), np.float32)
    for k in range(rows.shape[1]):
        out += horizontal[rows[:, k]] * row_w[:, k, None, None]
    return _cast(out, image.dtype)


def resize(image: np.ndarray, width: int, height: int, interp: int = LINEAR) -> np.ndarray:
    """`image` (HxWxC) resized to height x width with OpenCV's interpolation `interp` (0-4)."""
    if width <= 0 or height <= 0:
        raise ValueError("the target size must be positive, got width %d and height %d" % (width, height))
    src_h, src_w = image.shape[:2]
    if (src_h, src_w) == (height, width):
        return image.copy()
    if interp == NEAREST:
        rows = np.minimum(np.floor(np.arange(height) * (1.0 / (height / src_h))).astype(np.int64), src_h - 1)
        cols = np.minimum(np.floor(np.arange(width) * (1.0 / (width / src_w))).astype(np.int64), src_w - 1)
        return image[rows][:, cols].copy()
    shrinking = src_h >= height and src_w >= width
    halving = src_h == 2 * height and src_w == 2 * width
    if interp == AREA and shrinking or interp == LINEAR and halving:
        return _area_shrink(image, height, width)
    return _separable(image, height, width, interp)


# OpenCV's border kinds, by their numbers there (MXNet passes `type` through unchanged; its
# docstring's list is in another order, but the values recorded from it follow these)
CONSTANT, REPLICATE, REFLECT, WRAP, REFLECT_101 = 0, 1, 2, 3, 4
_NUMPY_MODES = {REFLECT: "symmetric", REFLECT_101: "reflect", REPLICATE: "edge", WRAP: "wrap"}


def copy_make_border(image: np.ndarray, top: int, bottom: int, left: int, right: int, kind: int = CONSTANT,
                     values=(0.0,)) -> np.ndarray:
    """`image` (HxWxC) padded by the given margins; CONSTANT fills channel c with values[c] (0 beyond)."""
    pad = ((top, bottom), (left, right), (0, 0))
    if kind in _NUMPY_MODES:
        return np.pad(image, pad, mode=_NUMPY_MODES[kind])
    if kind != CONSTANT:
        raise ValueError("unknown border type %d: 0 (constant), 1 (replicate), 2 (reflect), "
                         "3 (wrap) or 4 (reflect 101)" % kind)
    out = np.empty((image.shape[0] + top + bottom, image.shape[1] + left + right, image.shape[2]), image.dtype)
    fill = list(values) + [0.0] * (image.shape[2] - len(values))
    out[...] = _cast(np.asarray(fill[:image.shape[2]], np.float64), image.dtype)
    out[top:top + image.shape[0], left:left + image.shape[1]] = image
    return out
