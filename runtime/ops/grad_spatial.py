"""Gradients of the operators over image positions (runtime/ops/spatial.py) and of ROIPooling
ROIAlign and PSROIPooling (runtime/ops/regions.py)."""
from __future__ import annotations

import numpy as np

from runtime.kernels import correlation, regions
from runtime.kernels import spatial as k
from runtime.registry import gradient_of


@gradient_of("GridGenerator")
def _grid_generator(inputs, outputs, out_grads, transform_type="affine", target_shape=(0, 0)):
    g = out_grads[0].astype(inputs[0].dtype, copy=False)
    if transform_type == "affine":
        return [k.affine_grid_grad(g, target_shape).astype(inputs[0].dtype, copy=False)]
    return [k.warp_grid_grad(g)]


@gradient_of("BilinearSampler")
def _bilinear_sampler(inputs, outputs, out_grads, cudnn_off=None):
    return list(k.bilinear_sampler_grads(inputs[0], inputs[1], out_grads[0]))


@gradient_of("SpatialTransformer")
def _spatial_transformer(inputs, outputs, out_grads, target_shape=(0, 0), **attrs):
    return list(k.spatial_transformer_grads(inputs[0], inputs[1], out_grads[0], target_shape))


@gradient_of("ROIPooling")
def _roi_pooling(inputs, outputs, out_grads, pooled_size=(1, 1), spatial_scale=1.0):
    """The data's gradient only: MXNet gives the regions none (zeros)."""
    data, rois = inputs
    return [regions.roi_pooling_grad(data, rois, out_grads[0], pooled_size, spatial_scale), np.zeros_like(rois)]


@gradient_of("_contrib_ROIAlign")
def _roi_align(inputs, outputs, out_grads, **attrs):
    """The data's gradient only: MXNet gives the regions none (zeros)."""
    data, rois = inputs
    return [regions.roi_align_grad(data, rois, out_grads[0], **attrs), np.zeros_like(rois)]


@gradient_of("_contrib_PSROIPooling")
def _psroi_pooling(inputs, outputs, out_grads, **attrs):
    """The data's gradient only: MXNet gives the regions none (zeros)."""
    data, rois = inputs
    return [regions.psroi_pooling_grad(data, rois, out_grads[0], **attrs), np.zeros_like(rois)]


@gradient_of("Correlation")
def _correlation(inputs, outputs, out_grads, **attrs):
    return list(correlation.correlation_grads(inputs[0], inputs[1], out_grads[0], **attrs))
