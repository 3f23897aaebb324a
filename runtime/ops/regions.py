"""ROIPooling, contrib.ROIAlign, contrib.RROIAlign and contrib.PSROIPooling (kernels in
runtime/kernels/regions.py), with MXNet 1.9.1's shape checks in its words."""
from __future__ import annotations

from runtime.kernels import regions as k
from runtime.registry import Attr, bool_, declare, float_, int_, shape_


def _roi_pooling_shapes(in_shapes, attrs):
    size = attrs["pooled_size"]
    text = "[%s]" % ",".join(map(str, size))
    if len(size) != 2:
        raise ValueError("value %sfor Parameter pooled_size has wrong dimensions, expected dimension=2" % text)
    if 0 in size:
        raise ValueError("value %sfor Parameter pooled_size is invalid, the input shape must be nonzero in all "
                         "dimensions" % text)
    if not _known_regions(in_shapes, 5):
        return in_shapes, [None]
    data, rois = in_shapes
    return in_shapes, [(rois[0], data[1]) + tuple(attrs["pooled_size"])]


def _known_regions(in_shapes, width: int) -> bool:
    """Whether the data and regions shapes are known, checked in MXNet's words: 4-D data, regions
    (batch index and corners, and an angle for rotated ones) `width` numbers each."""
    data, rois = in_shapes
    if data is None or rois is None:
        return False
    if len(data) != 4:
        raise ValueError("data should be a 4D tensor")
    if len(rois) != 2 or rois[1] != width:
        raise ValueError("bbox should be a 2D tensor of shape [batch, %d]" % width)
    return True


declare("ROIPooling", inputs=("data", "rois"),
        attrs=[Attr("pooled_size", shape_, required=True),
               Attr("spatial_scale", float_, required=True, low=0.0, high=1.0)],
        kernel=k.roi_pooling, infer=_roi_pooling_shapes)


def _roi_align_shapes(in_shapes, attrs):
    in_shapes, out = _roi_pooling_shapes(in_shapes, attrs)
    if out[0] is None or not attrs["position_sensitive"]:
        return in_shapes, out
    bins = attrs["pooled_size"][0] * attrs["pooled_size"][1]
    channels = in_shapes[0][1]
    if channels % bins:
        raise ValueError("Check failed: dshape[1] %% (param.pooled_size[0]*param.pooled_size[1]) == 0 (%d vs. 0) : "
                         "Input channels should be divided by pooled_size[0]*pooled_size[1]when position_sensitive "
                         "is true." % (channels % bins))
    return in_shapes, [(out[0][0], channels // bins) + out[0][2:]]


declare("_contrib_ROIAlign", inputs=("data", "rois"),
        attrs=[Attr("pooled_size", shape_, required=True),
               Attr("spatial_scale", float_, required=True, low=0.0, high=1.0), Attr("sample_ratio", int_, -1),
               Attr("position_sensitive", bool_, False), Attr("aligned", bool_, False)],
        kernel=k.roi_align, infer=_roi_align_shapes, aliases=("contrib.ROIAlign",))


def _psroi_pooling_shapes(in_shapes, attrs):
    if not _known_regions(in_shapes, 5):
        return in_shapes, [None]
    size = attrs["pooled_size"]
    return in_shapes, [(in_shapes[1][0], attrs["output_dim"], size, size)]


declare("_contrib_PSROIPooling", inputs=("data", "rois"),
        attrs=[Attr("spatial_scale", float_, required=True, low=0.0, high=1.0), Attr("output_dim", int_, required=True),
               Attr("pooled_size", int_, required=True), Attr("group_size", int_, 0)],
        kernel=k.psroi_pooling, infer=_psroi_pooling_shapes,
        aliases=("contrib.PSROIPooling",))


def _rroi_align_shapes(in_shapes, attrs):
    if not _known_regions(in_shapes, 6):
        return in_shapes, [None]
    data, rois = in_shapes
    return in_shapes, [(rois[0], data[1]) + tuple(attrs["pooled_size"])]


# MXNet registers no usable gradient (its backward fails: "RROIAlign: Backward is not supported.")
declare("_contrib_RROIAlign", inputs=("data", "rois"),
        attrs=[Attr("pooled_size", shape_, required=True),
               Attr("spatial_scale", float_, required=True, low=0.0, high=1.0), Attr("sampling_ratio", int_, -1)],
        kernel=k.rroi_align, infer=_rroi_align_shapes, aliases=("contrib.RROIAlign",))
