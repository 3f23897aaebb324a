"""Non-maximum suppression (`contrib.box_nms`): a detector's post-processing over thousands of boxes.

The greedy pass over the boxes in score order is a Numba loop; everything is computed in the
input's dtype, as MXNet does, so that an overlap at the threshold is judged the same way.
"""
from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def _greedy_keep(order, corners, overlap_thresh):
    """The boxes of `order` (indices, best score first) that no better kept box overlaps by more
    than `overlap_thresh`, in the same order."""
    count = order.shape[0]
    zero = corners.dtype.type(0)
    # the boxes gathered in score order: the pass below reads them sequentially
    left = np.empty(count, corners.dtype)
    top = np.empty(count, corners.dtype)
    right = np.empty(count, corners.dtype)
    bottom = np.empty(count, corners.dtype)
    areas = np.empty(count, corners.dtype)
    for i in range(count):
        box = order[i]
        left[i], top[i], right[i], bottom[i] = corners[box, 0], corners[box, 1], corners[box, 2], corners[box, 3]
        width = right[i] - left[i]
        height = bottom[i] - top[i]
        areas[i] = zero if width < zero or height < zero else width * height
    removed = np.zeros(count, np.bool_)
    kept = np.empty(count, np.int64)
    total = 0
    for i in range(count):
        if removed[i]:
            continue
        kept[total] = order[i]
        total += 1
        for j in range(i + 1, count):
            if removed[j]:
                continue
            width = min(right[i], right[j]) - max(left[i], left[j])
            height = min(bottom[i], bottom[j]) - max(top[i], top[j])
            if width <= zero or height <= zero:
                continue
            intersection = width * height
            union = areas[i] + areas[j] - intersection
            if union > zero and intersection / union > overlap_thresh:
                removed[j] = True
    return kept[:total]


def _keep(order, corners, classes, overlap_thresh, by_class):
    """The greedy pass, over each class on its own when only boxes of one class suppress each other
    (a third of the pairs with three classes); the kept boxes come back in score order."""
    if not by_class:
        return _greedy_keep(order, corners, overlap_thresh)
    grouped = order[np.argsort(classes[order], kind="stable")]  # each class's boxes, still best first
    bounds = np.flatnonzero(np.diff(classes[grouped])) + 1
    kept = [_greedy_keep(part, corners, overlap_thresh) for part in np.split(grouped, bounds)]
    rank = np.empty(classes.shape[0], np.int64)
    rank[order] = np.arange(order.shape[0])
    merged = np.concatenate(kept) if kept else order[:0]
    return merged[np.argsort(rank[merged], kind="stable")]


def _to_corners(boxes: np.ndarray) -> np.ndarray:
    x, y, w, h = boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 3]
    return np.stack([x - w / 2, y - h / 2, x + w / 2, y + h / 2], axis=1)


def _to_center(boxes: np.ndarray) -> np.ndarray:
    left, top, right, bottom = boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 3]
    return np.stack([(left + right) / 2, (top + bottom) / 2, right - left, bottom - top], axis=1)


def box_nms(data, overlap_thresh=0.5, valid_thresh=0.0, topk=-1, coord_start=2, score_index=1, id_index=-1,
            background_id=-1, force_suppress=False, in_format="corner", out_format="corner"):
    """(the kept boxes of each batch, best first, then rows of -1; for each batch the indices of the
    boxes in score order, MXNet's hidden second output)."""
    shape = data.shape
    batches = data.reshape(-1, shape[-2], shape[-1])
    out = np.full_like(batches, -1)
    order_out = np.full(batches.shape[:2], -1, dtype=data.dtype)
    dtype = batches.dtype.type
    by_class = id_index >= 0 and not force_suppress
    for b, boxes in enumerate(batches):
        scores = boxes[:, score_index]
        valid = scores > dtype(valid_thresh)
        if id_index >= 0 and background_id >= 0:
            valid &= boxes[:, id_index] != dtype(background_id)
        candidates = np.flatnonzero(valid)
        # best first; equal scores keep their input order
        order = candidates[np.argsort(-scores[candidates], kind="stable")]
        if topk > 0:
            order = order[:topk]
        order_out[b, :order.shape[0]] = order
        coords = np.ascontiguousarray(boxes[:, coord_start:coord_start + 4])
        corners = _to_corners(coords) if in_format == "center" else coords
        # MXNet compares class ids as integers: ids 0.02 and 0.11 are one class
        classes = boxes[:, id_index if id_index >= 0 else score_index].astype(np.int64)
        kept = _keep(order.astype(np.int64), corners, classes, dtype(overlap_thresh), by_class)
        rows = out[b, :kept.shape[0]]
        rows[:] = boxes[kept]
        if out_format != in_format:
            rows[:, coord_start:coord_start + 4] = _to_center(corners[kept]) if out_format == "center" \
                else corners[kept]
    return out.reshape(shape), order_out.reshape(shape[:-1])


def box_decode(data, anchors, std0=1.0, std1=1.0, std2=1.0, std3=1.0, clip=-1.0, format="center"):
    """`contrib.box_decode`: offsets (B, N, 4) against anchors (1, N, 4) back to corner boxes, in the
    data's dtype as MXNet computes them (the stds and clip are cast to it first)."""
    dtype = data.dtype.type
    a = anchors.reshape(1, -1, 4)
    ax, ay, aw, ah = (a[..., i] for i in range(4))
    if format == "corner":  # (xmin, ymin, xmax, ymax) to centre and size
        aw = aw - ax
        ah = ah - ay
        ax = ax + aw * dtype(0.5)
        ay = ay + ah * dtype(0.5)
    ox = data[..., 0] * dtype(std0) * aw + ax
    oy = data[..., 1] * dtype(std1) * ah + ay
    dw = data[..., 2] * dtype(std2)
    dh = data[..., 3] * dtype(std3)
    if clip > 0:
        dw = np.minimum(dw, dtype(clip))
        dh = np.minimum(dh, dtype(clip))
    ow = np.exp(dw) * aw * dtype(0.5)
    oh = np.exp(dh) * ah * dtype(0.5)
    return np.stack([ox - ow, oy - oh, ox + ow, oy + oh], axis=-1).astype(data.dtype, copy=False)


def bipartite_matching(data, threshold, is_ascend=False, topk=-1):
    """`contrib.bipartite_matching`: greedy matching of a score matrix's rows and columns, best
    score first, per matrix of the batch. Returns (row -> column, column -> row), -1 unmatched.

    As MXNet: the scores are ordered stably (equal scores in index order); a pair whose row or
    column is taken is skipped, the first free pair whose score misses the threshold ends the
    matrix, and `topk` stops after the match that exceeds it (so topk + 1 matches are kept)."""
    rows, cols = data.shape[-2], data.shape[-1]
    scores = data.reshape(-1, rows * cols)
    row_marker = np.full((scores.shape[0], rows), -1, dtype=data.dtype)
    col_marker = np.full((scores.shape[0], cols), -1, dtype=data.dtype)
    for b in range(scores.shape[0]):
        order = np.argsort(scores[b] if is_ascend else -scores[b], kind="stable")
        _match(scores[b], order, cols, threshold, is_ascend, topk, row_marker[b], col_marker[b])
    return (row_marker.reshape(data.shape[:-1]),
            col_marker.reshape(data.shape[:-2] + (cols,)))


def _match(score, order, cols, threshold, is_ascend, topk, row_marker, col_marker):
    count = 0
    for idx in order:
        r, c = divmod(int(idx), cols)
        if row_marker[r] != -1 or col_marker[c] != -1:
            continue
        if not (score[idx] < threshold if is_ascend else score[idx] > threshold):
            break
        row_marker[r] = c
        col_marker[c] = r
        count += 1
        if 0 < topk < count:
            break
