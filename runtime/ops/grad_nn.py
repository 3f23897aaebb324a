"""Gradients of the neural-network operators of runtime/ops/nn.py and runtime/ops/outputs.py.

The convolution and pooling products live in runtime/kernels/grad_nn.py; the rest is NumPy here.
"""
from __future__ import annotations

import numpy as np

from runtime.kernels import grad_nn as kg
from runtime.kernels.ctc import ctc_loss_grad
from runtime.kernels.nn import same_padded
from runtime.kernels.tensor import softmax
from runtime.ops.grad_math import zero_gradient
from runtime.ops.grad_tensor import selection
from runtime.kernels import nn as kg_nn
from runtime.registry import REGISTRY, gradient_of
from runtime.threads import wide_product


def _cast(values, like):
    return [None if v is None else np.asarray(v).astype(x.dtype, copy=False) for v, x in zip(values, like)]


@gradient_of("Dropout")
def _dropout(inputs, outputs, out_grads, **attrs):
    return [(out_grads[0] * outputs[1]).astype(inputs[0].dtype, copy=False)]


def _needs(needed, count):
    return needed if needed is not None else [True] * count


@gradient_of("FullyConnected", selective=True)
def _fully_connected(inputs, outputs, out_grads, num_hidden, no_bias=False, flatten=True, needed=None):
    data, weight = inputs[0], inputs[1]
    needed = _needs(needed, len(inputs))
    g = out_grads[0].reshape(-1, num_hidden)
    x = data.reshape(data.shape[0], -1) if flatten else data.reshape(-1, data.shape[-1])
    # the two products, on several BLAS threads when CPUs are idle, as the forward's product is
    grads = [wide_product(g, weight).reshape(data.shape) if needed[0] else None,
             wide_product(g.T, x) if needed[1] else None]
    if not no_bias:
        grads.append(g.sum(axis=0))
    return _cast(grads, inputs)


def _spatial(attrs, name, default):
    return tuple(attrs[name]) or (default,) * len(attrs["kernel"])


@gradient_of("Convolution", selective=True)
def _convolution(inputs, outputs, out_grads, needed=None, **attrs):
    data, weight = inputs[0], inputs[1]
    needed = _needs(needed, len(inputs))
    if attrs.get("layout") not in (None, "NCW", "NCHW", "NCDHW"):
        raise NotImplementedError("the gradient of a channels-last convolution")
    g = out_grads[0]
    geometry = (attrs["kernel"], _spatial(attrs, "stride", 1), _spatial(attrs, "dilate", 1), _spatial(attrs, "pad", 0))
    with_bias = not attrs["no_bias"]
    grads = kg.convolution_grads(data, weight, g, *geometry, attrs["num_group"],
                                 (needed[0], needed[1], with_bias and needed[2]))
    return _cast(grads if with_bias else grads[:2], inputs)


@gradient_of("Deconvolution")
def _deconvolution(inputs, outputs, out_grads, **attrs):
    # a deconvolution is the data gradient of a convolution: its own gradients are a convolution
    # of the head gradient (for the data) and the convolution's weight gradient with roles swapped
    data, weight = inputs[0], inputs[1]
    g = out_grads[0]
    geometry = (attrs["kernel"], _spatial(attrs, "stride", 1), _spatial(attrs, "dilate", 1), _spatial(attrs, "pad", 0))
    kernel, stride, dilate, pad = geometry
    groups = attrs["num_group"]
    # extra rows of the head gradient (adj, target_shape) are read by no window: they get nothing
    windows = kg._windows(kg._pad(g, pad), kernel, stride, dilate, data.shape[2:])
    n = data.shape[0]
    cin, fg = weight.shape[0], weight.shape[1]
    cg = cin // groups
    taps = int(np.prod(kernel))
    positions = int(np.prod(data.shape[2:]))
    d_data = np.empty(data.shape, dtype=np.float64)
    d_weight = np.empty(weight.shape, dtype=np.float64)
    for group in range(groups):
        cols = windows[:, group * fg:(group + 1) * fg]  # (N, fg, *positions, *kernel)
        cols = np.moveaxis(cols.reshape(n, fg, positions, taps), 1, 2).reshape(n, positions, fg * taps)
        w = weight[group * cg:(group + 1) * cg].reshape(cg, fg * taps)
        d_data[:, group * cg:(group + 1) * cg] = np.matmul(cols, w.T).transpose(0, 2, 1).reshape(
            (n, cg) + data.shape[2:])
        x = data[:, group * cg:(group + 1) * cg].reshape(n, cg, positions)
        d_weight[group * cg:(group + 1) * cg] = np.einsum("ncp,npk->ck", x, cols).reshape(weight[group * cg:(group + 1) * cg].shape)
    grads = [d_data, d_weight]
    if len(inputs) > 2:
        grads.append(out_grads[0].sum(axis=(0,) + tuple(range(2, g.ndim))))
    return _cast(grads, inputs)


@gradient_of("Pooling")
def _pooling(inputs, outputs, out_grads, **attrs):
    if attrs["pool_type"] == "lp":
        raise NotImplementedError("the gradient of lp pooling")
    data, output, out_grad = inputs[0], outputs[0], out_grads[0]
    last = attrs.get("layout") in ("NWC", "NHWC", "NDHWC")
    if last:  # as channels-first, as the forward pooled it
        data, output, out_grad = (np.moveaxis(a, -1, 1) for a in (data, output, out_grad))
    convention, pad, width = attrs["pooling_convention"], attrs["pad"], data.shape[-1]
    if convention == "same" and not attrs["global_pool"]:  # the windows of the padded data, as the forward
        data, convention, pad = same_padded(data, attrs["kernel"], attrs["stride"], attrs["pool_type"]), "valid", (0,)
    grad = kg.pooling_grad(data, output, out_grad, attrs["kernel"], attrs["pool_type"], attrs["global_pool"],
                           convention, attrs["stride"], pad, attrs["count_include_pad"])[..., :width]
    return [np.ascontiguousarray(np.moveaxis(grad, 1, -1)) if last else grad]


@gradient_of("_contrib_AdaptiveAvgPooling2D")
def _adaptive_avg_pool(inputs, outputs, out_grads, output_size=()):
    data, g = inputs[0], out_grads[0]
    h, w = data.shape[2:]
    oh, ow = g.shape[2:]
    dx = np.zeros(data.shape, np.float64)
    for i in range(oh):
        y0, y1 = (i * h) // oh, -((-(i + 1) * h) // oh)
        for j in range(ow):
            x0, x1 = (j * w) // ow, -((-(j + 1) * w) // ow)
            dx[:, :, y0:y1, x0:x1] += g[:, :, i:i + 1, j:j + 1] / ((y1 - y0) * (x1 - x0))
    return [dx.astype(data.dtype)]


@gradient_of("_contrib_BilinearResize2D")
def _bilinear_resize(inputs, outputs, out_grads, **attrs):
    """The forward's two interpolation products, transposed."""
    data, g = inputs[0], out_grads[0].astype(np.float64)
    (h, w), (oh, ow) = data.shape[2:], g.shape[2:]
    rows = kg_nn.interpolation_matrix(oh, h, attrs["align_corners"])
    columns = kg_nn.interpolation_matrix(ow, w, attrs["align_corners"])
    return [(rows.T @ g @ columns).astype(data.dtype)] + [None] * (len(inputs) - 1)


@gradient_of("UpSampling")
def _upsampling(inputs, outputs, out_grads, scale=1, sample_type="nearest", num_args=1, num_filter=0,
                multi_input_mode="concat", workspace=512):
    if sample_type == "bilinear":  # the gradient of the Deconvolution it is
        attrs = REGISTRY["Deconvolution"].parse_attrs(kg_nn.bilinear_upsampling_attrs(scale, num_filter))
        return REGISTRY["Deconvolution"].gradient(inputs, outputs, out_grads, **attrs)
    return kg_nn.upsampling_nearest_grad(inputs, out_grads[0], multi_input_mode)
gradient_of("SequenceMask")(selection("SequenceMask", value=0.0))
gradient_of("SequenceLast")(selection("SequenceLast"))
gradient_of("SequenceReverse")(selection("SequenceReverse"))
gradient_of("_contrib_box_iou")(zero_gradient)
gradient_of("_contrib_bipartite_matching")(zero_gradient)
gradient_of("_contrib_MultiBoxTarget")(zero_gradient)  # MXNet writes zeros for the class predictions
gradient_of("_contrib_MultiBoxPrior")(zero_gradient)


@gradient_of("_contrib_box_nms")
def _box_nms(inputs, outputs, out_grads, **attrs):
    """Each kept box's gradient goes back to the input row it was copied from."""
    data, out, g = inputs[0], outputs[0], out_grads[0]
    rows_in = data.reshape(-1, data.shape[-2], data.shape[-1])
    rows_out = out.reshape(rows_in.shape)
    heads = g.reshape(rows_in.shape)
    dx = np.zeros(rows_in.shape, dtype=data.dtype)
    for b in range(rows_in.shape[0]):
        used = np.zeros(rows_in.shape[1], dtype=bool)
        for r in range(rows_out.shape[1]):
            if np.all(rows_out[b, r] == -1):
                continue
            matches = np.flatnonzero(np.all(rows_in[b] == rows_out[b, r], axis=-1) & ~used)
            if matches.size:
                used[matches[0]] = True
                dx[b, matches[0]] += heads[b, r]
    return [dx.reshape(data.shape)]


# ---- normalization: x_hat = (x - mean) / std over the reduced axes
def _normalized_grads(x, g, axes, gamma_b, eps, mean=None, var=None):
    """(dx, x_hat) for y = gamma * x_hat + beta, statistics over `axes` (from the batch unless given)."""
    x = x.astype(np.float64)
    g = g.astype(np.float64)
    batch_stats = mean is None
    if batch_stats:
        mean = x.mean(axis=axes, keepdims=True)
        var = x.var(axis=axes, keepdims=True)
    inv_std = 1.0 / np.sqrt(var + eps)
    x_hat = (x - mean) * inv_std
    gx = g * gamma_b
    if batch_stats:
        dx = inv_std * (gx - gx.mean(axis=axes, keepdims=True) - x_hat * (gx * x_hat).mean(axis=axes, keepdims=True))
    else:
        dx = gx * inv_std
    return dx, x_hat


@gradient_of("BatchNorm")
def _batch_norm(inputs, outputs, out_grads, eps=1e-3, momentum=0.9, fix_gamma=True, use_global_stats=False,
                axis=1, is_train=False, **attrs):
    return _batch_norm_backward(inputs, outputs, out_grads, eps, momentum, fix_gamma, use_global_stats, axis,
                                is_train, third_is_invstd=True)


@gradient_of("_contrib_SyncBatchNorm", "BatchNorm_v1")  # BatchNorm's, their third output the variance
def _batch_norm_of_variance(inputs, outputs, out_grads, eps=1e-3, momentum=0.9, fix_gamma=True,
                            use_global_stats=False, is_train=False, **attrs):
    return _batch_norm_backward(inputs, outputs, out_grads, eps, momentum, fix_gamma, use_global_stats, 1,
                                is_train, third_is_invstd=False)


def _batch_norm_backward(inputs, outputs, out_grads, eps, momentum, fix_gamma, use_global_stats, axis, is_train,
                         third_is_invstd):
    from runtime.ops.nn import follow_batch
    data, gamma = inputs[0], inputs[1]
    axis = axis % data.ndim
    shape = [1] * data.ndim
    shape[axis] = -1
    axes = tuple(a for a in range(data.ndim) if a != axis)
    g = out_grads[0]
    gamma_b = (np.ones_like(gamma) if fix_gamma else gamma).astype(np.float64).reshape(shape)
    if is_train and not use_global_stats:
        # as in MXNet, the backward pass moves the moving statistics (the bound arrays, in place)
        # toward the batch's: a forward pass alone leaves them
        follow_batch(momentum, eps, inputs[3], inputs[4], outputs, third_is_invstd)
        dx, x_hat = _normalized_grads(data, g, axes, gamma_b, eps)
    else:
        dx, x_hat = _normalized_grads(data, g, axes, gamma_b, eps, inputs[3].reshape(shape).astype(np.float64),
                                      inputs[4].reshape(shape).astype(np.float64))
    d_gamma = np.zeros(gamma.shape) if fix_gamma else (g * x_hat).sum(axis=axes)
    d_beta = g.sum(axis=axes, dtype=np.float64)
    return _cast([dx, d_gamma, d_beta, np.zeros_like(inputs[3]), np.zeros_like(inputs[4])], inputs)


@gradient_of("LayerNorm")
def _layer_norm(inputs, outputs, out_grads, axis=-1, eps=1e-5, output_mean_var=False):
    data, gamma = inputs[0], inputs[1]
    axis = axis % data.ndim
    shape = [1] * data.ndim
    shape[axis] = -1
    others = tuple(a for a in range(data.ndim) if a != axis)
    g = out_grads[0]
    dx, x_hat = _normalized_grads(data, g, (axis,), gamma.astype(np.float64).reshape(shape), eps)
    return _cast([dx, (g * x_hat).sum(axis=others), g.sum(axis=others, dtype=np.float64)], inputs)


@gradient_of("InstanceNorm")
def _instance_norm(inputs, outputs, out_grads, eps=1e-3):
    data, gamma = inputs[0], inputs[1]
    shape = (1, -1) + (1,) * (data.ndim - 2)
    axes = tuple(range(2, data.ndim))
    g = out_grads[0]
    dx, x_hat = _normalized_grads(data, g, axes, gamma.astype(np.float64).reshape(shape), eps)
    sums = (0,) + axes
    return _cast([dx, (g * x_hat).sum(axis=sums), g.sum(axis=sums, dtype=np.float64)], inputs)


@gradient_of("GroupNorm")
def _group_norm(inputs, outputs, out_grads, num_groups=1, eps=1e-5, output_mean_var=False):
    data, gamma = inputs[0], inputs[1]
    n = data.shape[0]
    grouped = data.reshape(n, num_groups, -1)
    g = out_grads[0].reshape(grouped.shape)
    dx, x_hat = _normalized_grads(grouped, g, (2,), gamma.astype(np.float64).reshape(1, -1, 1), eps)
    return _cast([dx.reshape(data.shape), (g * x_hat).sum(axis=(0, 2)), g.sum(axis=(0, 2), dtype=np.float64)],
                 inputs)


@gradient_of("L2Normalization")
def _l2_normalization(inputs, outputs, out_grads, eps=1e-10, mode="instance"):
    data = inputs[0]
    axes = {"instance": tuple(range(1, data.ndim)), "channel": (1,)}.get(mode, tuple(range(2, data.ndim)))
    x, g = data.astype(np.float64), out_grads[0].astype(np.float64)
    norm = np.sqrt(np.sum(x * x, axis=axes, keepdims=True) + eps)
    y = x / norm
    return [((g - y * np.sum(g * y, axis=axes, keepdims=True)) / norm).astype(data.dtype)]


@gradient_of("Embedding")
def _embedding(inputs, outputs, out_grads, input_dim=0, output_dim=0, dtype="float32", sparse_grad=False):
    indices, weight = inputs
    rows = np.clip(indices.astype(np.int64), 0, weight.shape[0] - 1).ravel()
    d_weight = np.zeros(weight.shape, np.float64)
    np.add.at(d_weight, rows, out_grads[0].reshape(-1, weight.shape[1]))
    return [np.zeros_like(indices), d_weight.astype(weight.dtype)]


@gradient_of("SoftmaxActivation")
def _softmax_activation(inputs, outputs, out_grads, mode="instance"):
    data, y, g = inputs[0], outputs[0], out_grads[0]
    if mode == "channel":
        dx = y * (g - np.sum(g * y, axis=1, keepdims=True))
    else:
        y2, g2 = y.reshape(y.shape[0], -1), g.reshape(g.shape[0], -1)
        dx = (y2 * (g2 - np.sum(g2 * y2, axis=1, keepdims=True))).reshape(data.shape)
    return [dx.astype(data.dtype)]


@gradient_of("softmax_cross_entropy")
def _softmax_cross_entropy(inputs, outputs, out_grads):
    """(softmax(data) - one_hot(label)) times the head gradient; none for the label."""
    data, label = inputs
    grad = softmax(data, axis=1).astype(np.float64)
    grad[np.arange(data.shape[0]), label.astype(np.int64)] -= 1
    return [(grad * out_grads[0].reshape(-1)[0]).astype(data.dtype), np.zeros_like(label)]


# ---- loss outputs: the gradient is the loss's, and the head gradient is ignored
@gradient_of("SoftmaxOutput")
def _softmax_output(inputs, outputs, out_grads, grad_scale=1.0, ignore_label=-1.0, multi_output=False,
                    use_ignore=False, preserve_shape=False, normalization="null", out_grad=False, smooth_alpha=0.0):
    data, label = inputs
    if label.shape == outputs[0].shape:  # probabilities as the label (MXNet ignores the other options)
        grad = (outputs[0].astype(np.float64) - label) * grad_scale
        if out_grad:
            grad = grad * out_grads[0]
        return [grad.astype(data.dtype), np.zeros_like(label)]
    probabilities = outputs[0].astype(np.float64)
    if multi_output:  # classes on axis 1: move them last
        probabilities = np.moveaxis(probabilities, 1, -1)
    classes = probabilities.shape[-1]
    if not multi_output and not preserve_shape:
        probabilities = probabilities.reshape(data.shape[0], -1)
        classes = probabilities.shape[-1]
    flat = probabilities.reshape(-1, classes)
    labels = label.reshape(-1).astype(np.int64)
    target = np.zeros_like(flat)
    if smooth_alpha:
        target[:] = smooth_alpha / (classes - 1)
        target[np.arange(flat.shape[0]), np.clip(labels, 0, classes - 1)] = 1 - smooth_alpha
    else:
        target[np.arange(flat.shape[0]), np.clip(labels, 0, classes - 1)] = 1
    grad = flat - target
    valid = np.ones(flat.shape[0], dtype=bool)
    if use_ignore:
        valid = label.reshape(-1) != ignore_label
        grad[~valid] = 0
    if normalization == "batch":
        grad /= data.shape[0]
    elif normalization == "valid":
        grad /= max(int(valid.sum()), 1)
    if multi_output and normalization != "valid":  # MXNet also averages over the positions
        grad /= max(flat.shape[0] // data.shape[0], 1)
    grad *= grad_scale
    grad = grad.reshape(probabilities.shape)
    if multi_output:
        grad = np.moveaxis(grad, -1, 1)
    return [grad.reshape(data.shape).astype(data.dtype), np.zeros_like(label)]


def _per_sample_outputs(label) -> int:
    return max(label.size // label.shape[0], 1) if label.ndim else 1


def _regression(difference):
    def gradient(inputs, outputs, out_grads, grad_scale=1.0):
        data, label = inputs
        grad = difference(outputs[0], label.reshape(data.shape)) * (grad_scale / _per_sample_outputs(label))
        return [grad.astype(data.dtype), np.zeros_like(label)]
    return gradient


gradient_of("LinearRegressionOutput", "LogisticRegressionOutput")(_regression(lambda y, t: y - t))
gradient_of("MAERegressionOutput")(_regression(lambda y, t: np.sign(y - t)))


@gradient_of("SVMOutput")
def _svm_output(inputs, outputs, out_grads, margin=1.0, regularization_coefficient=1.0, use_linear=False):
    data, label = inputs
    x = data.reshape(data.shape[0], -1).astype(np.float64)
    is_label = np.zeros(x.shape, dtype=bool)
    is_label[np.arange(x.shape[0]), label.reshape(-1).astype(np.int64)] = True
    if use_linear:
        grad = np.where(is_label, -1.0 * (margin > x), 1.0 * (margin + x > 0))
    else:
        grad = np.where(is_label, -2 * np.maximum(0, margin - x), 2 * np.maximum(0, margin + x))
    grad *= regularization_coefficient
    return [grad.reshape(data.shape).astype(data.dtype), np.zeros_like(label)]


@gradient_of("MakeLoss")
def _make_loss_scaled(inputs, outputs, out_grads, grad_scale=1.0, valid_thresh=0.0, normalization="null"):
    data = inputs[0]
    scale = grad_scale
    if normalization == "batch":
        scale /= data.shape[0]
    elif normalization == "valid":
        scale /= max(int(np.sum(data > valid_thresh)), 1)
    return [np.full(data.shape, scale, dtype=data.dtype)]


@gradient_of("make_loss")
def _make_loss(inputs, outputs, out_grads):
    return [np.ones_like(inputs[0])]


@gradient_of("CTCLoss")
def _ctc_loss(inputs, outputs, out_grads, **attrs):
    """Each sequence's gradient through the softmax, scaled by the head gradient of its loss; the
    labels and the lengths get zeros."""
    data = inputs[0]
    d_data = ctc_loss_grad(*inputs, **attrs) * np.asarray(out_grads[0], np.float64)[None, :, None]
    return [d_data.astype(data.dtype)] + [np.zeros_like(x) for x in inputs[1:]]
