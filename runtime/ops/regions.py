"""ROIPooling (kernel in runtime/kernels/regions.py), with MXNet 1.9.1's shape checks in its words."""
from __future__ import annotations

from runtime.kernels import regions as k
from runtime.registry import Attr, declare, float_, shape_


def _roi_pooling_shapes(in_shapes, attrs):
    size = attrs["pooled_size"]
    text = "[%s]" % ",".join(map(str, size))
    if len(size) != 2:
        raise ValueError("value %sfor Parameter pooled_size has wrong dimensions, expected dimension=2" % text)
    if 0 in size:
        raise ValueError("value %sfor Parameter pooled_size is invalid, the input shape must be nonzero in all "
                         "dimensions" % text)
    data, rois = in_shapes
    if data is None or rois is None:
        return in_shapes, [None]
    if len(data) != 4:
        raise ValueError("data should be a 4D tensor")
    if len(rois) != 2 or rois[1] != 5:
        raise ValueError("bbox should be a 2D tensor of shape [batch, 5]")
    return in_shapes, [(rois[0], data[1]) + tuple(attrs["pooled_size"])]


def _roi_pooling_check(in_shapes, attrs):
    _roi_pooling_shapes(in_shapes, attrs)


declare("ROIPooling", inputs=("data", "rois"),
        attrs=[Attr("pooled_size", shape_, required=True),
               Attr("spatial_scale", float_, required=True, low=0.0, high=1.0)],
        kernel=k.roi_pooling, infer=_roi_pooling_shapes, check=_roi_pooling_check)
