"""contrib.MultiBoxTarget: SSD's training targets for anchors, with MXNet 1.9.1's matching rules.

Per image: the ground truths are the label rows before the first whose class is -1. Each ground
truth first takes its best anchor, greedily (the highest remaining overlap first, ties to the first
anchor then the first ground truth); then every other anchor whose best overlap exceeds
`overlap_threshold` is positive. With negative mining, the unmatched anchors whose best overlap is
under `negative_mining_thresh` and whose background probability (softmax of their class scores) is
lowest become negatives, `negative_mining_ratio` per positive; without it, every other anchor is
negative. Positives get their ground truth's class + 1 and the box offsets scaled by `variances`;
negatives class 0; the rest `ignore_label`. Arithmetic in the input's dtype, as MXNet's.
"""
from __future__ import annotations

import numpy as np

from runtime.base import MXNetError


def _overlaps(anchors: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """IoU of each anchor (rows) with each label box (columns); 0 where the union is 0."""
    a = anchors[:, None, :]
    g = labels[None, :, 1:5]
    zero = np.zeros((), anchors.dtype)
    width = np.maximum(zero, np.minimum(a[..., 2], g[..., 2]) - np.maximum(a[..., 0], g[..., 0]))
    height = np.maximum(zero, np.minimum(a[..., 3], g[..., 3]) - np.maximum(a[..., 1], g[..., 1]))
    inter = width * height
    anchor_area = (a[..., 2] - a[..., 0]) * (a[..., 3] - a[..., 1])
    union = anchor_area + (g[..., 2] - g[..., 0]) * (g[..., 3] - g[..., 1]) - inter
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(union == 0, zero, inter / np.where(union == 0, 1, union)).astype(anchors.dtype)


def _loc_targets(anchor: np.ndarray, box: np.ndarray, variances) -> np.ndarray:
    """MXNet computes these in single precision whatever the dtype."""
    anchor, box = anchor.astype(np.float32), box.astype(np.float32)
    aw, ah = anchor[2] - anchor[0], anchor[3] - anchor[1]
    ax, ay = (anchor[0] + anchor[2]) * np.float32(0.5), (anchor[1] + anchor[3]) * np.float32(0.5)
    gw, gh = box[2] - box[0], box[3] - box[1]
    gx, gy = (box[0] + box[2]) * np.float32(0.5), (box[1] + box[3]) * np.float32(0.5)
    vx, vy, vw, vh = (np.float32(v) for v in variances)
    return np.array([(gx - ax) / aw / vx, (gy - ay) / ah / vy, np.log(gw / aw) / vw, np.log(gh / ah) / vh],
                    np.float32)


def _match(overlaps: np.ndarray, num_valid: int, overlap_threshold: float):
    """(flag per anchor: 1 positive, -1 undecided; best overlap per anchor, -1 where not computed;
    its ground truth; the number of positives)."""
    num_anchors = overlaps.shape[0]
    flags = np.full(num_anchors, -1, np.int8)
    best_iou = np.full(num_anchors, -1.0, np.float64)
    best_gt = np.full(num_anchors, -1, np.int64)
    matched_gt = np.zeros(num_valid, bool)
    positives = 0
    valid = overlaps[:, :num_valid].astype(np.float64)
    while not matched_gt.all():
        masked = np.where(flags[:, None] == 1, -np.inf, np.where(matched_gt[None, :], -np.inf, valid))
        index = int(np.argmax(masked))  # the first highest, anchors then ground truths
        anchor, gt = divmod(index, num_valid)
        if not masked[anchor, gt] > 1e-6:
            break  # no more good match
        best_iou[anchor], best_gt[anchor] = masked[anchor, gt], gt
        matched_gt[gt] = True
        flags[anchor] = 1
        positives += 1
    if overlap_threshold > 0:
        rest = flags != 1
        gts = np.argmax(valid, axis=1)
        ious = valid[np.arange(num_anchors), gts]
        best_iou[rest], best_gt[rest] = ious[rest], gts[rest]
        chosen = rest & (ious > overlap_threshold)
        flags[chosen] = 1
        positives += int(chosen.sum())
    return flags, best_iou, best_gt, positives


def multibox_target(anchor, label, cls_pred, overlap_threshold=0.5, ignore_label=-1.0, negative_mining_ratio=-1.0,
                    negative_mining_thresh=0.5, minimum_negative_samples=0, variances=(0.1, 0.1, 0.2, 0.2)):
    if len(variances) != 4:
        raise MXNetError("Check failed: variances.ndim() == 4 (%d vs. 4) : " % len(variances))
    dtype = anchor.dtype
    anchors = anchor.reshape(-1, 4)
    batches, num_anchors = label.shape[0], anchors.shape[0]
    loc_target = np.zeros((batches, num_anchors * 4), dtype)
    loc_mask = np.zeros((batches, num_anchors * 4), dtype)
    cls_target = np.full((batches, num_anchors), ignore_label, dtype)
    for b in range(batches):
        labels = label[b]
        classes = labels[:, 0].astype(np.float32)
        ends = np.nonzero(classes == -1.0)[0]
        num_valid = int(ends[0]) if len(ends) else labels.shape[0]
        if num_valid == 0:
            continue
        overlaps = _overlaps(anchors, labels)
        flags, best_iou, best_gt, positives = _match(overlaps, num_valid, overlap_threshold)
        if negative_mining_ratio > 0:
            if not negative_mining_thresh > 0:
                raise MXNetError("Check failed: negative_mining_thresh > 0")
            negatives = min(int(positives * negative_mining_ratio), num_anchors - positives)
            if negatives > 0:
                undecided = np.nonzero(flags != 1)[0]
                missing = undecided[best_iou[undecided] < 0]
                gts = np.argmax(overlaps[missing, :num_valid].astype(np.float64), axis=1)
                best_iou[missing], best_gt[missing] = overlaps[missing, gts], gts
                candidates = undecided[(best_iou[undecided] < negative_mining_thresh) & (flags[undecided] == -1)]
                if len(candidates) < negatives:
                    raise MXNetError("Check failed: temp.size() >= num_negative (%d vs. %d) : "
                                     % (len(candidates), negatives))
                scores = cls_pred[b][:, candidates].astype(dtype)
                top = scores.max(axis=0)
                background = np.exp(scores[0] - top) / np.exp(scores - top).sum(axis=0, dtype=dtype)
                # the lowest background probabilities first (ties in anchor order)
                flags[candidates[np.argsort(background, kind="stable")[:negatives]]] = 0
        else:
            flags[flags != 1] = 0
        for i in np.nonzero(flags == 1)[0]:
            gt = labels[best_gt[i]]
            cls_target[b, i] = gt[0] + 1
            loc_mask[b, 4 * i:4 * i + 4] = 1
            loc_target[b, 4 * i:4 * i + 4] = _loc_targets(anchors[i], gt[1:5], variances)
        cls_target[b, flags == 0] = 0
    return loc_target, loc_mask, cls_target
