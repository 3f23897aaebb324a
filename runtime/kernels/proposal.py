"""Region proposals from an RPN (MXNet's contrib.Proposal and MultiProposal).

Anchors (ratios x scales around a feature_stride square) are laid at every feature position;
each is moved by its predicted deltas, clipped to the image, and scored by its foreground
probability. Positions past the image's extent and boxes smaller than rpn_min_size * scale score
-1. The best rpn_pre_nms_top_n go through greedy non-maximum suppression (areas and overlaps
counted in pixels, +1), and the kept boxes fill rpn_post_nms_top_n rows, cycling when too few."""
from __future__ import annotations

import numpy as np


def anchors(feature_stride, ratios, scales):
    """(len(ratios) * len(scales), 4) boxes x1, y1, x2, y2, ratio-major, as MXNet rounds them."""
    size = float(feature_stride) * float(feature_stride)
    centre = 0.5 * (feature_stride - 1.0)
    out = []
    for ratio in ratios:
        for scale in scales:
            side = np.floor(np.sqrt(np.floor(size / ratio)) + 0.5)
            w = side * scale
            h = np.floor(side * ratio + 0.5) * scale
            out.append([centre - 0.5 * (w - 1), centre - 0.5 * (h - 1), centre + 0.5 * (w - 1), centre + 0.5 * (h - 1)])
    return np.array(out, np.float32)


def _proposals(scores, deltas, im_info, feature_stride, ratios, scales, rpn_min_size, iou_loss):
    """(count, 5) boxes and scores of one image, ordered by position (row, column) then anchor."""
    num_anchors, height, width = scores.shape
    base = anchors(feature_stride, ratios, scales)
    ys, xs = np.meshgrid(np.arange(height), np.arange(width), indexing="ij")
    shift = (np.stack([xs, ys, xs, ys], axis=-1) * feature_stride).astype(np.float32)
    boxes = (shift[:, :, None, :] + base[None, None, :, :]).astype(np.float64)  # (h, w, a, 4)
    d = deltas.reshape(num_anchors, 4, height, width).transpose(2, 3, 0, 1).astype(np.float64)
    im_h, im_w, im_scale = (float(v) for v in im_info[:3])
    if iou_loss:
        pred = boxes + d
    else:
        bw = boxes[..., 2] - boxes[..., 0] + 1.0
        bh = boxes[..., 3] - boxes[..., 1] + 1.0
        cx = boxes[..., 0] + 0.5 * (bw - 1.0)
        cy = boxes[..., 1] + 0.5 * (bh - 1.0)
        px, py = d[..., 0] * bw + cx, d[..., 1] * bh + cy
        pw, ph = np.exp(d[..., 2]) * bw, np.exp(d[..., 3]) * bh
        pred = np.stack([px - 0.5 * (pw - 1.0), py - 0.5 * (ph - 1.0), px + 0.5 * (pw - 1.0), py + 0.5 * (ph - 1.0)],
                        axis=-1)
    pred = pred.astype(np.float32)
    pred[..., 0::2] = np.clip(pred[..., 0::2], 0, np.float32(im_w - 1.0))
    pred[..., 1::2] = np.clip(pred[..., 1::2], 0, np.float32(im_h - 1.0))
    score = scores.transpose(1, 2, 0).astype(np.float32).copy()
    real_h, real_w = int(im_h / feature_stride), int(im_w / feature_stride)
    score[real_h:, :, :] = -1.0
    score[:, real_w:, :] = -1.0
    dets = np.concatenate([pred, score[..., None]], axis=-1).reshape(-1, 5)
    min_size = np.float32(rpn_min_size * im_scale)
    small = ((dets[:, 2] - dets[:, 0] + 1) < min_size) | ((dets[:, 3] - dets[:, 1] + 1) < min_size)
    dets[small, :2] -= min_size / 2
    dets[small, 2:4] += min_size / 2
    dets[small, 4] = -1.0
    return dets


def _suppress(dets, threshold, limit):
    """Indices kept by greedy non-maximum suppression over boxes in score order, at most `limit`."""
    x1, y1, x2, y2 = dets[:, 0], dets[:, 1], dets[:, 2], dets[:, 3]
    area = (x2 - x1 + 1) * (y2 - y1 + 1)
    alive = np.ones(len(dets), bool)
    keep = []
    for i in range(len(dets)):
        if len(keep) >= limit:
            break
        if not alive[i]:
            continue
        keep.append(i)
        rest = np.arange(i + 1, len(dets))[alive[i + 1:]]
        w = np.maximum(np.float32(0), np.minimum(x2[i], x2[rest]) - np.maximum(x1[i], x1[rest]) + 1)
        h = np.maximum(np.float32(0), np.minimum(y2[i], y2[rest]) - np.maximum(y1[i], y1[rest]) + 1)
        inter = w * h
        alive[rest[inter / (area[i] + area[rest] - inter) > threshold]] = False
    return np.array(keep, np.int64)


def _one_image(cls_prob, bbox_pred, im_info, rpn_pre_nms_top_n, rpn_post_nms_top_n, threshold, rpn_min_size,
               scales, ratios, feature_stride, iou_loss):
    num_anchors = cls_prob.shape[0] // 2
    dets = _proposals(cls_prob[num_anchors:], bbox_pred, im_info, feature_stride, ratios, scales, rpn_min_size,
                      iou_loss)
    count = len(dets)
    pre = min(rpn_pre_nms_top_n if rpn_pre_nms_top_n > 0 else count, count)
    order = np.argsort(-dets[:, 4], kind="stable")[:pre]
    ordered = dets[order]
    keep = _suppress(ordered, threshold, min(rpn_post_nms_top_n, pre))
    rows = keep[np.arange(rpn_post_nms_top_n) % len(keep)]
    return ordered[rows, :4], ordered[rows, 4:5]


def proposal(cls_prob, bbox_pred, im_info, rpn_pre_nms_top_n=6000, rpn_post_nms_top_n=300, threshold=0.7,
             rpn_min_size=16, scales=(4.0, 8.0, 16.0, 32.0), ratios=(0.5, 1.0, 2.0), feature_stride=16,
             output_score=False, iou_loss=False, multi=False):
    """(rois (batch * rpn_post_nms_top_n, 5) with the image's index first, scores (..., 1))"""
    if not multi and cls_prob.shape[0] != 1:
        raise ValueError("Sorry, multiple images each device is not implemented.")
    rois, scores = [], []
    for b in range(cls_prob.shape[0]):
        boxes, score = _one_image(cls_prob[b], bbox_pred[b], im_info[b], rpn_pre_nms_top_n, rpn_post_nms_top_n,
                                  threshold, rpn_min_size, scales, ratios, feature_stride, iou_loss)
        rois.append(np.concatenate([np.full((len(boxes), 1), b, np.float32), boxes], axis=1))
        scores.append(score)
    return np.concatenate(rois).astype(np.float32), np.concatenate(scores).astype(np.float32)
