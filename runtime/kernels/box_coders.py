"""contrib.box_decode and contrib.box_encode: GluonCV's box coders (the normalized center offsets of
Faster R-CNN's region proposals and detections, and of their training targets).

Each step rounds to the data's dtype in MXNet's order; exp is rounded from float64, as the C
library's expf gives it (NumPy's float32 vector exp misses by an ulp in a quarter of the cases),
and the log-size offsets are computed in double as MXNet's are, so that the results equal MXNet's
bit for bit and equal scores and overlaps downstream stay equal.
"""
from __future__ import annotations

import numpy as np

from runtime.base import MXNetError


def _rounded(function, values):
    return function(values.astype(np.float64)).astype(values.dtype)


def _log_offset(ratio, mean, std):
    """(log(ratio) - mean) / std, computed in float64 and rounded once: MXNet's `log` of a float32
    ratio is the C library's double one, and the rest of the expression follows it in double."""
    wide = np.float64
    return ((np.log(ratio.astype(wide)) - wide(mean)) / wide(std)).astype(ratio.dtype)


def _centers(boxes, corner: bool):
    """(x, y, width, height) of boxes given as corners or centers, in their dtype."""
    x, y, w, h = (boxes[..., i] for i in range(4))
    if corner:
        w, h = w - x, h - y
        half = boxes.dtype.type(0.5)
        x, y = x + w * half, y + h * half
    return x, y, w, h


def _whole_shape_error(size: int, wanted: int) -> Exception:
    return MXNetError("TBlob.get_with_shape: Check failed: this->shape_.Size() == static_cast<size_t>(shape.Size()) "
                      "(%d vs. %d) : new and old shape do not match total elements" % (size, wanted))


def box_decode(data, anchors, std0=1.0, std1=1.0, std2=1.0, std3=1.0, clip=-1.0, format="center"):
    """Boxes (corners) from offsets (B, N, 4) relative to N anchors (the first N boxes of `anchors`)."""
    dtype = data.dtype.type
    n = data.shape[1]
    if anchors.size != n * 4:
        raise _whole_shape_error(anchors.size, n * 4)
    # the parameters are float32 numbers, converted to the data's dtype
    stds = [dtype(np.float32(s)) for s in (std0, std1, std2, std3)]
    ax, ay, aw, ah = _centers(anchors.reshape(n, 4), format == "corner")
    x = data
    ox = x[..., 0] * stds[0] * aw + ax
    oy = x[..., 1] * stds[1] * ah + ay
    dw, dh = x[..., 2] * stds[2], x[..., 3] * stds[3]
    if np.float32(clip) > 0:
        limit = dtype(np.float32(clip))
        dw, dh = np.where(dw < limit, dw, limit), np.where(dh < limit, dh, limit)
    half = dtype(0.5)
    ow = _rounded(np.exp, dw) * aw * half
    oh = _rounded(np.exp, dh) * ah * half
    return np.stack([ox - ow, oy - oh, ox + ow, oy + oh], axis=-1)


def box_encode(samples, matches, anchors, refs, means, stds):
    """(targets, masks), each shaped as `anchors` (B, N, 4): each anchor's offsets to the reference
    box it matches (refs (B, M, 4), corners), less `means` and over `stds`, where its sample is
    positive (> 0.5); 0 elsewhere, and the masks say where."""
    b, n, m = anchors.shape[0], anchors.shape[1], refs.shape[1]
    for array, wanted in ((samples, b * n), (matches, b * n), (anchors, b * n * 4), (refs, b * m * 4),
                          (means, 4), (stds, 4)):
        if array.size != wanted:
            raise _whole_shape_error(array.size, wanted)
    dtype = anchors.dtype.type
    # a match is an index into the batch's references, read from the flat array of all of them
    # (as MXNet does: -1 reads the previous batch's last box); one outside every batch reads none
    flat = (np.arange(b)[:, None] * m + matches.reshape(b, n).astype(np.int64)).clip(0, b * m - 1)
    rx, ry, rw, rh = _centers(refs.reshape(b * m, 4)[flat], True)
    ax, ay, aw, ah = _centers(anchors.reshape(b, n, 4), True)
    means, stds = means.reshape(4), stds.reshape(4)
    with np.errstate(divide="ignore", invalid="ignore"):
        targets = np.stack([((rx - ax) / aw - means[0]) / stds[0], ((ry - ay) / ah - means[1]) / stds[1],
                            _log_offset(rw / aw, means[2], stds[2]), _log_offset(rh / ah, means[3], stds[3])],
                           axis=-1)
    valid = (samples.reshape(b, n) > dtype(0.5))[..., None]
    zero = dtype(0)
    targets = np.where(valid, targets, zero).astype(anchors.dtype).reshape(anchors.shape)
    masks = np.broadcast_to(valid, (b, n, 4)).astype(anchors.dtype).reshape(anchors.shape)
    return targets, masks
