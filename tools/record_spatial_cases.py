"""Record, with real MXNet 1.9.1, the operators over image positions: GridGenerator, BilinearSampler,
SpatialTransformer, ROIPooling, contrib.ROIAlign, contrib.RROIAlign, contrib.PSROIPooling and
Correlation: outputs and gradients (grid points inside and beyond the input; regions with halves
to round, clipped, empty or of an absent image; ROIAlign adaptive and fixed sampling,
position-sensitive, aligned; PSROIPooling with and without a group size; correlations by product
and by absolute difference, with strides, padding and a 3x3 kernel; float32 and float64), and
rejections of bad shapes and attributes (with RROIAlign's forward values, as it has no backward),
in the formats of tools/record_linalg_cases.py.

    python tools/record_spatial_cases.py fixtures/golden/grads_spatial.jsonl tests/data/spatial_rejections.jsonl

(a venv with mxnet==1.9.1)
"""
import json
import sys

import mxnet as mx
import numpy as np

from record_linalg_cases import record, rejection


def cases():
    rng = np.random.RandomState(9)
    for dtype in ("float32", "float64"):
        u = lambda low, high, *shape: rng.uniform(low, high, shape).astype(dtype)  # noqa: E731
        if dtype == "float32":  # MXNet's CPU GridGenerator takes float32 only
            yield "GridGenerator", {"transform_type": "affine", "target_shape": (4, 5)}, [u(-1, 1, 2, 6)]
            yield "GridGenerator", {"transform_type": "warp"}, [u(-2, 2, 2, 2, 3, 4)]
        yield "BilinearSampler", {}, [u(-1, 1, 2, 3, 5, 6), u(-1.3, 1.3, 2, 2, 4, 3)]
        yield "BilinearSampler", {}, [u(-1, 1, 1, 2, 4, 4), u(-0.9, 0.9, 1, 2, 6, 5)]
        theta = np.array([[0.9, 0.15, 0.1, -0.2, 0.8, -0.05], [1.1, -0.3, 0.2, 0.25, 0.6, 0.3]], dtype)
        yield "SpatialTransformer", {"target_shape": (4, 3), "transform_type": "affine",
                                     "sampler_type": "bilinear"}, [u(-1, 1, 2, 3, 6, 5), theta]
        # regions: corners to round (2.5 rounds away from zero), clipped at the edges, beyond the
        # map (empty bins), a batch index out of range (zeros), a single pixel
        rois = np.array([[0, 1.1, 1.1, 6.2, 6.2], [1, 2.5, 0.5, 7.5, 9.5], [1, -3, -2, 3, 4], [0, 9, 13, 12, 15],
                         [2, 1, 1, 4, 4], [0, 3, 3, 3, 3]], dtype)
        yield "ROIPooling", {"pooled_size": (3, 2), "spatial_scale": 1.0}, [u(-1, 1, 2, 3, 12, 8), rois]
        align_rois = np.array([[0, 1.1, 1.1, 6.2, 6.2], [1, 2.5, 0.5, 7.5, 9.5], [1, -3, -2, 3, 4], [0, 5, 10, 9, 14],
                               [0, 3, 3, 3.4, 3.2]], dtype)
        for attrs in ({}, {"sample_ratio": 2}, {"aligned": True, "sample_ratio": 3}):
            yield "contrib.ROIAlign", dict(attrs, pooled_size=(3, 2), spatial_scale=1.0), [u(-1, 1, 2, 3, 12, 8),
                                                                                          align_rois]
        yield "contrib.ROIAlign", {"pooled_size": (2, 2), "spatial_scale": 0.5, "position_sensitive": True}, \
            [u(-1, 1, 2, 8, 9, 7), (align_rois * [1, 2, 2, 2, 2]).astype(dtype)]
        ps_rois = np.array([[0, 10, 22, 161, 173], [1, 20, 15, 154, 160], [0, 100.5, 60.5, 90, 50], [1, 0, 0, 500, 40]],
                           dtype)
        yield "contrib.PSROIPooling", {"spatial_scale": 0.0625, "output_dim": 2, "pooled_size": 3}, \
            [u(-1, 1, 2, 18, 14, 14), ps_rois]
        yield "contrib.PSROIPooling", {"spatial_scale": 0.0625, "output_dim": 3, "pooled_size": 3, "group_size": 2}, \
            [u(-1, 1, 2, 12, 11, 12), ps_rois]
        for attrs in ({"max_displacement": 2, "pad_size": 2}, {"max_displacement": 2, "pad_size": 2, "is_multiply": False},
                      {"kernel_size": 3, "max_displacement": 1, "stride1": 2, "pad_size": 2},
                      {"kernel_size": 3, "max_displacement": 2, "stride2": 2, "pad_size": 1, "is_multiply": False},
                      {"max_displacement": 3, "stride1": 2, "stride2": 3, "pad_size": 3}):
            yield "Correlation", attrs, [u(0, 1, 2, 3, 7, 6), u(0, 1, 2, 3, 7, 6)]
        yield "ROIPooling", {"pooled_size": (2, 3), "spatial_scale": 0.5}, [u(-1, 1, 2, 2, 7, 6), (rois * [1, 2, 2, 2, 2]).astype(dtype)]


def bad_calls():
    ones = lambda *shape: np.ones(shape, "float32")  # noqa: E731
    yield "grid/affine_rank", "GridGenerator", {"transform_type": "affine", "target_shape": (2, 2)}, [ones(2, 6, 1)]
    yield "grid/affine_six", "GridGenerator", {"transform_type": "affine", "target_shape": (2, 2)}, [ones(2, 4)]
    yield "grid/target", "GridGenerator", {"transform_type": "affine"}, [ones(2, 6)]
    yield "grid/warp_rank", "GridGenerator", {"transform_type": "warp"}, [ones(2, 2, 3)]
    yield "grid/warp_two", "GridGenerator", {"transform_type": "warp"}, [ones(2, 3, 3, 3)]
    yield "grid/float64", "GridGenerator", {"transform_type": "warp"}, [np.ones((1, 2, 3, 3), "float64")]
    yield "sampler/data_rank", "BilinearSampler", {}, [ones(2, 3, 4), ones(2, 2, 3, 3)]
    yield "sampler/grid_rank", "BilinearSampler", {}, [ones(2, 3, 4, 4), ones(2, 2, 3)]
    yield "sampler/batch", "BilinearSampler", {}, [ones(2, 3, 4, 4), ones(3, 2, 3, 3)]
    yield "sampler/two", "BilinearSampler", {}, [ones(2, 3, 4, 4), ones(2, 3, 3, 3)]
    st = {"target_shape": (2, 2), "transform_type": "affine", "sampler_type": "bilinear"}
    yield "stn/data_rank", "SpatialTransformer", st, [ones(2, 3, 4), ones(2, 6)]
    yield "stn/loc_rank", "SpatialTransformer", st, [ones(2, 3, 4, 4), ones(2, 6, 1)]
    yield "stn/loc_six", "SpatialTransformer", st, [ones(2, 3, 4, 4), ones(2, 5)]
    yield "stn/target", "SpatialTransformer", dict(st, target_shape=(0, 2)), [ones(2, 3, 4, 4), ones(2, 6)]
    yield "corr/rank", "Correlation", {}, [ones(2, 3, 4), ones(2, 3, 4)]
    yield "corr/even_kernel", "Correlation", {"kernel_size": 2}, [ones(1, 1, 5, 5), ones(1, 1, 5, 5)]
    yield "corr/too_far", "Correlation", {"max_displacement": 4}, [ones(1, 1, 5, 5), ones(1, 1, 5, 5)]
    roi = {"pooled_size": (2, 2), "spatial_scale": 1.0}
    box = np.array([[0, 0, 0, 2, 2]], "float32")
    yield "align/channels", "contrib.ROIAlign", dict(roi, position_sensitive=True), [ones(1, 3, 4, 4), box]
    yield "align/box_width", "contrib.ROIAlign", roi, [ones(1, 3, 4, 4), ones(1, 4)]
    yield "psroi/box_width", "contrib.PSROIPooling", {"spatial_scale": 1.0, "output_dim": 1, "pooled_size": 2}, \
        [ones(1, 4, 4, 4), ones(1, 4)]
    # RROIAlign has no backward in MXNet: its forward values are recorded here, through nd and sym
    rng = np.random.RandomState(10)
    rotated = np.array([[0, 6, 5, 7, 4, 30], [1, 3.5, 8, 10, 3, 135], [0, 10, 2, 0.5, 6, -60], [1, 0, 0, 20, 20, 0]],
                       "float32")
    for attrs in ({"pooled_size": (3, 2), "spatial_scale": 1.0}, {"pooled_size": (2, 2), "spatial_scale": 0.5,
                                                                   "sampling_ratio": 2}):
        yield "rroi/values%d" % len(attrs), "contrib.RROIAlign", attrs, [rng.uniform(-1, 1, (2, 3, 11, 9)).astype(
            "float32"), rotated]
    yield "rroi/box_width", "contrib.RROIAlign", roi, [ones(1, 3, 4, 4), ones(1, 5)]
    yield "roi/data_rank", "ROIPooling", roi, [ones(3, 4, 4), box]
    yield "roi/box_width", "ROIPooling", roi, [ones(1, 3, 4, 4), ones(1, 4)]
    yield "roi/box_rank", "ROIPooling", roi, [ones(1, 3, 4, 4), ones(5)]
    yield "roi/scale", "ROIPooling", dict(roi, spatial_scale=1.5), [ones(1, 3, 4, 4), box]
    yield "roi/pooled_rank", "ROIPooling", dict(roi, pooled_size=(2,)), [ones(1, 3, 4, 4), box]
    yield "roi/pooled_zero", "ROIPooling", dict(roi, pooled_size=(0, 2)), [ones(1, 3, 4, 4), box]


def main(grads_path, rejections_path):
    assert mx.__version__ == "1.9.1", mx.__version__
    with open(grads_path, "w") as out:
        for number, case in enumerate(cases()):
            out.write(json.dumps(record(number, *case)) + "\n")
    with open(rejections_path, "w") as out:
        for case in bad_calls():
            out.write(json.dumps(rejection(*case)) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
