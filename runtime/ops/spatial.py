"""Operators over image positions: the spatial transformer family (GridGenerator, BilinearSampler,
SpatialTransformer; kernels in runtime/kernels/spatial.py) and Correlation
(runtime/kernels/correlation.py), with MXNet 1.9.1's shape checks in its words."""
from __future__ import annotations

from runtime.kernels import correlation
from runtime.kernels import spatial as k
from runtime.registry import Attr, bool_, choice, declare, int_, optional, shape_, uniform_types


def _require(ok, words):
    if not ok:
        raise ValueError(words)


def _target_shape(attrs):
    for size in attrs["target_shape"]:
        _require(size > 0, "incorrect target_shape: %d" % size)
    return tuple(attrs["target_shape"])


def _grid_generator_shapes(in_shapes, attrs):
    data = in_shapes[0]
    if data is None:
        return in_shapes, [None]
    if attrs["transform_type"] == "affine":
        _require(len(data) == 2, "if transform_type is affine, data is affine matrixaffine matrix should be 2D in "
                                 "batch-num_hidden")
        _require(data[1] == 6, "incorrect data shape[1], should be 6")
        return in_shapes, [(data[0], 2) + _target_shape(attrs)]
    _require(len(data) == 4, "if transform_type is warp, data is optical flowoptical flow should be 4D in "
                             "batch-num_hidden-y-x")
    _require(data[1] == 2, "incorrect data shape[1], should be 2")
    return in_shapes, [tuple(data)]


def _sampler_shapes(in_shapes, attrs):
    data, grid = in_shapes
    if data is None or grid is None:
        return in_shapes, [None]
    _require(len(data) == 4, "input data should be 4D in batch-num_filter-y-x")
    _require(len(grid) == 4, "Sampler grid should be 4D in batch-2-y-x")
    _require(data[0] == grid[0], "Check failed: dshape[0] == lshape[0] (%d vs. %d)" % (data[0], grid[0]))
    _require(grid[1] == 2, "incorrect grid shape[1], should be 2")
    return in_shapes, [(data[0], data[1], grid[2], grid[3])]


def _transformer_shapes(in_shapes, attrs):
    data, loc = in_shapes
    if data is None or loc is None:
        return in_shapes, [None]
    _require(len(data) == 4, "input data should be 4D in batch-num_filter-y-x")
    _require(len(loc) == 2, "locolisation paramter should be 4D in batch-num_hidden")
    _require(loc[1] == 6, "incorrect locolisation network shape[1], should be 6")
    return in_shapes, [(data[0], data[1]) + _target_shape(attrs)]


def _check(infer):
    def check(in_shapes, attrs):
        infer(in_shapes, attrs)
    return check


def _float32_only(in_dtypes, attrs, names):
    """MXNet's CPU GridGenerator is built for float32 alone."""
    in_dtypes, dtype = uniform_types()(in_dtypes, attrs, names)
    if dtype is not None and dtype != "float32":
        raise ValueError("Other DTypes are not supported!")
    return in_dtypes, dtype


_TARGET = Attr("target_shape", shape_, (0, 0))
_CUDNN = Attr("cudnn_off", optional(bool_), None)

declare("GridGenerator", attrs=[Attr("transform_type", choice("affine", "warp"), required=True), _TARGET],
        kernel=k.grid_generator, infer=_grid_generator_shapes, check=_check(_grid_generator_shapes),
        types=_float32_only)
declare("BilinearSampler", inputs=("data", "grid"), attrs=[_CUDNN], kernel=k.bilinear_sampler,
        infer=_sampler_shapes)
declare("SpatialTransformer", inputs=("data", "loc"),
        attrs=[_TARGET, Attr("transform_type", choice("affine"), required=True),
               Attr("sampler_type", choice("bilinear"), required=True), _CUDNN],
        kernel=k.spatial_transformer, infer=_transformer_shapes)


def _correlation_shapes(in_shapes, attrs):
    first, second = in_shapes
    if first is None or second is None:
        return in_shapes, [None]
    _require(len(first) == 4 and len(second) == 4, "data should be a 4D tensor")
    top_h, top_w, radius = correlation.geometry(first[2], first[3], attrs["kernel_size"], attrs["max_displacement"],
                                                attrs["stride1"], attrs["stride2"], attrs["pad_size"])
    _require(top_h >= 1 and top_w >= 1, "Correlation cannot be done with current settings.Neighborhood and kernel "
                                        "don't fit in blob")
    return in_shapes, [(first[0], (2 * radius + 1) ** 2, top_h, top_w)]


declare("Correlation", inputs=("data1", "data2"),
        attrs=[Attr("kernel_size", int_, 1), Attr("max_displacement", int_, 1), Attr("stride1", int_, 1),
               Attr("stride2", int_, 1), Attr("pad_size", int_, 0), Attr("is_multiply", bool_, True)],
        kernel=correlation.correlation, infer=_correlation_shapes)
