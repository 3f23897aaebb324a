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


def _greedy_keep_half(order, corners, overlap_thresh):
    """_greedy_keep for float16 boxes (which Numba lacks): NumPy's float16 operations round every
    result to half precision, as MXNet's half_t arithmetic does; the overlap is compared with the
    threshold in single precision, as MXNet compares a half with its float threshold."""
    boxes = corners[order]
    left, top, right, bottom = boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 3]
    zero = np.float16(0)
    width, height = right - left, bottom - top
    areas = np.where((width < zero) | (height < zero), zero, width * height)
    removed = np.zeros(len(order), bool)
    kept = []
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in range(len(order)):
            if removed[i]:
                continue
            kept.append(order[i])
            others = np.arange(i + 1, len(order))[~removed[i + 1:]]
            w = np.minimum(right[i], right[others]) - np.maximum(left[i], left[others])
            h = np.minimum(bottom[i], bottom[others]) - np.maximum(top[i], top[others])
            intersection = np.where(w > zero, w, zero) * np.where(h > zero, h, zero)
            overlap = intersection / (areas[i] + areas[others] - intersection)
            removed[others[overlap.astype(np.float32) > np.float32(overlap_thresh)]] = True
    return np.array(kept, np.int64)


def _keep(order, corners, classes, overlap_thresh, by_class):
    """The greedy pass, over each class on its own when only boxes of one class suppress each other
    (a third of the pairs with three classes); the kept boxes come back in score order."""
    greedy_keep = _greedy_keep_half if corners.dtype == np.float16 else _greedy_keep
    if not by_class:
        return greedy_keep(order, corners, overlap_thresh)
    grouped = order[np.argsort(classes[order], kind="stable")]  # each class's boxes, still best first
    bounds = np.flatnonzero(np.diff(classes[grouped])) + 1
    kept = [greedy_keep(part, corners, overlap_thresh) for part in np.split(grouped, bounds)]
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
        if id_index >= 0:  # MXNet drops the background class, -1 (its default) included
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
        # (MXNet compares a half overlap with its float threshold: float16 keeps the threshold as given)
        threshold = overlap_thresh if dtype is np.float16 else dtype(overlap_thresh)
        kept = _keep(order.astype(np.int64), corners, classes, threshold, by_class)
        rows = out[b, :kept.shape[0]]
        rows[:] = boxes[kept]
        if out_format != in_format:
            rows[:, coord_start:coord_start + 4] = _to_center(corners[kept]) if out_format == "center" \
                else corners[kept]
    return out.reshape(shape), order_out.reshape(shape[:-1])


def bipartite_matching(data, threshold, is_ascend=False, topk=-1):
    """Greedy matching of the rows and columns of each (rows, cols) score matrix, best scores first
    (ties in index order): a pair whose row and column are both free is matched while its score is
    above `threshold` (below it with `is_ascend`), the first that is not ending the matching; with
    `topk` > 0 the matching ends once it has made more than `topk` pairs, as MXNet 1.9.1's does.
    (the column matched to each row, the row matched to each column), -1 where none, in data's dtype."""
    rows, cols = data.shape[-2], data.shape[-1]
    scores = data.reshape(-1, rows * cols)
    row_match = np.full((scores.shape[0], rows), -1, dtype=data.dtype)
    col_match = np.full((scores.shape[0], cols), -1, dtype=data.dtype)
    for b in range(scores.shape[0]):
        order = np.argsort(scores[b] if is_ascend else -scores[b], kind="stable")
        count = 0
        for index in order:
            r, c = divmod(int(index), cols)
            if row_match[b, r] != -1 or col_match[b, c] != -1:
                continue
            score = scores[b, index]
            if not (score < threshold if is_ascend else score > threshold):
                break
            row_match[b, r], col_match[b, c] = c, r
            count += 1
            if 0 < topk < count:
                break
    return row_match.reshape(data.shape[:-1]), col_match.reshape(data.shape[:-2] + (cols,))


def multibox_prior(data, sizes=(1.0,), ratios=(1.0,), clip=False, steps=(-1.0, -1.0), offsets=(0.5, 0.5)):
    """Anchor boxes (1, height * width * anchors, 4) as (xmin, ymin, xmax, ymax) over data's (N, C,
    height, width) grid: at each position, row by row, one box per size with the first ratio, then
    one per further ratio with the first size; in float32 arithmetic, each step as MXNet 1.9.1's."""
    f32 = np.float32
    height, width = data.shape[2], data.shape[3]
    step_y, step_x = f32(steps[0]), f32(steps[1])
    if step_y <= 0 or step_x <= 0:
        step_y, step_x = f32(1) / f32(height), f32(1) / f32(width)
    center_y = (np.arange(height, dtype=f32) + f32(offsets[0])) * step_y
    center_x = (np.arange(width, dtype=f32) + f32(offsets[1])) * step_x
    shapes = [(f32(size), np.sqrt(f32(ratios[0])) if len(ratios) else f32(1)) for size in sizes]
    shapes += [(f32(sizes[0]), np.sqrt(f32(ratio))) for ratio in ratios[1:]]
    half = [(size * f32(height) / f32(width) * ratio / f32(2), size / ratio / f32(2)) for size, ratio in shapes]
    out = np.empty((height, width, len(half), 4), f32)
    for a, (w, h) in enumerate(half):
        out[:, :, a, 0] = center_x[None, :] - w
        out[:, :, a, 1] = center_y[:, None] - h
        out[:, :, a, 2] = center_x[None, :] + w
        out[:, :, a, 3] = center_y[:, None] + h
    if clip:
        np.clip(out, 0, 1, out=out)
    return out.reshape(1, -1, 4)
