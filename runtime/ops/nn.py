"""Neural-network operators. Their shape inference also fills in parameter shapes from the data,
which Gluon's deferred initialization and Symbol.infer_shape rely on."""
from __future__ import annotations

import math

from runtime.base import MXNetError
from runtime.kernels import boxes, multibox
from runtime.kernels import nn as k
from runtime.registry import (Attr, bool_, choice, declare, dtype_, float_, floats_, int_, optional, shape_,
                              shape_inconsistent, str_, uniform_types)
from runtime.util import is_np_shape


def _fc_shapes(in_shapes, attrs):
    data = in_shapes[0]
    features = int(math.prod(data[1:])) if attrs["flatten"] else data[-1]
    in_shapes[1] = (attrs["num_hidden"], features)
    if not attrs["no_bias"]:
        bias = in_shapes[2]
        if bias is not None and tuple(bias) != (attrs["num_hidden"],):
            raise ValueError("Unexpected shape for bias [%s]" % ",".join(map(str, bias)))
        in_shapes[2] = (attrs["num_hidden"],)
    out = (data[0], attrs["num_hidden"]) if attrs["flatten"] else tuple(data[:-1]) + (attrs["num_hidden"],)
    return in_shapes, [out]


_TYPE_FLAGS = {"float32": 0, "float64": 1, "float16": 2, "uint8": 3, "int32": 4, "int8": 5, "int64": 6}


def _fc_types(in_dtypes, attrs, names):
    """Uniform, and a floating type the CPU build implements (float16 needs cuDNN)."""
    in_dtypes, dtype = uniform_types()(in_dtypes, attrs, names)
    if dtype == "float16":
        raise ValueError("float16 fully connected layer is currentlyonly supported by CuDNN version.")
    if dtype is not None and dtype not in ("float32", "float64"):
        raise ValueError("Unsupported type %s" % _TYPE_FLAGS.get(dtype, dtype))
    return in_dtypes, dtype


declare("FullyConnected", inputs=("data", "weight", "bias"),
        attrs=[Attr("num_hidden", int_, required=True, low=1), Attr("no_bias", bool_, False),
               Attr("flatten", bool_, True)],
        kernel=k.fully_connected, infer=_fc_shapes, types=_fc_types)

_CONV = [Attr("kernel", shape_, required=True), Attr("stride", shape_, ()), Attr("dilate", shape_, ()),
         Attr("pad", shape_, ()), Attr("num_filter", int_, required=True), Attr("num_group", int_, 1),
         Attr("workspace", int_, 1024), Attr("no_bias", bool_, False), Attr("cudnn_tune", optional(str_), None),
         Attr("cudnn_off", bool_, False), Attr("layout", optional(str_), None)]


def _spatial(attrs, name, default):
    values = attrs[name] or (default,) * len(attrs["kernel"])
    return tuple(values)


def _dims(values) -> str:
    return "[%s]" % ",".join(map(str, values))


def _check_spatial(attrs, stride, dilate, pad=None):
    kernel = attrs["kernel"]
    for name, values in (("Stride", stride), ("Dilate", dilate), ("Padding", pad)):
        if values is not None and len(values) != len(kernel):
            raise ValueError("%s must have the same number of dimensions with kernel_size,but kernel_size is set to "
                             "%s while %s is %s" % (name, _dims(kernel), name.lower(), _dims(values)))
    for name, values in (("stride", stride), ("dilate", dilate)):
        if not all(v > 0 for v in values):
            raise ValueError("incorrect %s size: %s" % (name, _dims(values)))


_CONV_LAYOUT = {1: "3D in batch-num_filter-x", 2: "4D in batch-num_filter-y-x", 3: "5D in batch-num_filter-depth-y-x"}


def _check_conv_data(data, attrs, dilate, pad):
    if attrs["layout"] and not attrs["layout"].startswith("NC"):
        return  # channels last: the checks below read channels at axis 1
    kernel = attrs["kernel"]
    if len(data) != len(kernel) + 2:
        raise ValueError("Input data should be %s" % _CONV_LAYOUT.get(len(kernel), "%dD" % (len(kernel) + 2)))
    if data[1] % attrs["num_group"]:
        raise ValueError("input num_filter must divide group size")
    if attrs["num_filter"] % attrs["num_group"]:
        raise ValueError("output num_filter must divide group size")
    for d, kk, dl, p in zip(data[2:], kernel, dilate, pad):
        if dl * (kk - 1) + 1 > d + 2 * p and not _unknown_size(d):
            raise ValueError("kernel size exceed input")


def _unknown_size(size) -> bool:
    """A 0 in a partial shape (outside NumPy shape semantics): a size not known yet, which MXNet
    leaves 0 in what it infers from it."""
    return size == 0 and not is_np_shape()


def _conv_shapes(in_shapes, attrs):
    data = in_shapes[0]
    kernel = attrs["kernel"]
    stride, dilate, pad = _spatial(attrs, "stride", 1), _spatial(attrs, "dilate", 1), _spatial(attrs, "pad", 0)
    _check_spatial(attrs, stride, dilate, pad)
    _check_conv_data(data, attrs, dilate, pad)
    in_shapes[1] = (attrs["num_filter"], data[1] // attrs["num_group"]) + tuple(kernel)
    if not attrs["no_bias"]:
        in_shapes[2] = (attrs["num_filter"],)
    spatial = tuple(0 if _unknown_size(d) else (d + 2 * p - dl * (kk - 1) - 1) // s + 1
                    for d, kk, s, dl, p in zip(data[2:], kernel, stride, dilate, pad))
    return in_shapes, [(data[0], attrs["num_filter"]) + spatial]


def _deconv_shapes(in_shapes, attrs):
    data = in_shapes[0]
    kernel = attrs["kernel"]
    stride, dilate, pad = _spatial(attrs, "stride", 1), _spatial(attrs, "dilate", 1), _spatial(attrs, "pad", 0)
    adj = _spatial(attrs, "adj", 0)
    _check_spatial(attrs, stride, dilate)
    in_shapes[1] = (data[1], attrs["num_filter"] // attrs["num_group"]) + tuple(kernel)
    if not attrs["no_bias"]:
        in_shapes[2] = (attrs["num_filter"],)
    if attrs["target_shape"]:
        spatial = tuple(attrs["target_shape"])
    else:
        spatial = tuple((d - 1) * s - 2 * p + dl * (kk - 1) + 1 + a
                        for d, kk, s, dl, p, a in zip(data[2:], kernel, stride, dilate, pad, adj))
    return in_shapes, [(data[0], attrs["num_filter"]) + spatial]


declare("Convolution", inputs=("data", "weight", "bias"), attrs=_CONV, kernel=k.convolution, infer=_conv_shapes,
        types=uniform_types(wording="layer"))
declare("Deconvolution", inputs=("data", "weight", "bias"),
        attrs=[a if a.name != "no_bias" else Attr("no_bias", bool_, True) for a in _CONV]
        + [Attr("adj", shape_, ()), Attr("target_shape", shape_, ())],
        kernel=k.deconvolution, infer=_deconv_shapes, types=uniform_types(wording="layer"))
def _pooling_check(in_shapes, attrs):
    data = in_shapes[0]
    if attrs["pooling_convention"] == "same":
        if len(data) != 3:
            raise ValueError("Pooling: Input data should be 3D in (batch, channel, x). Currently 'same' supports "
                             "Max Pooling 1-D")
        if len(attrs["pad"]) < 3:  # MXNet's check reads three pads whatever the kernel's dimensions
            raise ValueError("Check failed: i >= 0 && i < ndim(): index = %d must be in range [0, %d)"
                             % (len(attrs["pad"]), len(attrs["pad"])))
        if any(attrs["pad"][:3]):
            raise ValueError("Same pooling convention disables the use of pad parameter.")
    if len(data) not in (3, 4, 5):
        raise ValueError("Input data should be  3D in (batch, channel, x) Or 4D in (batch, channel, y, x)  "
                         "Or 5D in (batch, channel, d, y, x)")
    if attrs["global_pool"]:
        return
    kernel = attrs["kernel"]
    if not kernel:
        raise ValueError("0D pooling not supported")
    if attrs["stride"] and not all(attrs["stride"]):
        raise ValueError("value %s for Parameter stride is invalid, the input shape must be nonzero in all dimensions"
                         % _dims(attrs["stride"]))
    pad = attrs["pad"] or (0,) * len(kernel)
    for i, (p, kk) in enumerate(zip(pad, kernel)):
        if p >= kk:
            raise ValueError("pad_l[%d] < kernel[%d] (%d vs. %d): padding must be smaller than the kernel" % (i, i, p, kk))
    spatial = data[1:-1] if attrs.get("layout") in ("NWC", "NHWC", "NDHWC") else data[2:]
    for d, p, kk in zip(spatial, pad, kernel):
        if kk > d + 2 * p:
            raise ValueError("kernel size (%d) exceeds input (%d padded to %d)" % (kk, d, d + 2 * p))


def _pooling_shapes(in_shapes, attrs):
    """A global pooling's output has size 1 on every spatial axis of the data, whatever its kernel
    says (a 2-D one of 3-D data infers in MXNet 1.9.1, and fails only when computed); the others'
    outputs are what the kernel makes of data of that shape (computed, not run)."""
    data = in_shapes[0]
    if data is None:
        return in_shapes, [None]
    if attrs["global_pool"]:
        last = attrs.get("layout") in k.CHANNELS_LAST
        return in_shapes, [tuple(data[:1]) + (1,) * (len(data) - 2) + tuple(data[-1:]) if last
                           else tuple(data[:2]) + (1,) * (len(data) - 2)]
    return in_shapes, [k.pooled_shape(tuple(data), **attrs)]


declare("Pooling", attrs=[Attr("kernel", shape_, ()), Attr("pool_type", choice("max", "avg", "sum", "lp"), "max"),
                          Attr("global_pool", bool_, False), Attr("cudnn_off", bool_, False),
                          Attr("pooling_convention", choice("valid", "full", "same"), "valid"),
                          Attr("stride", shape_, ()), Attr("pad", shape_, ()), Attr("p_value", optional(int_), None),
                          Attr("count_include_pad", optional(bool_), None), Attr("layout", optional(str_), None)],
        kernel=k.pooling, check=_pooling_check, infer=_pooling_shapes, kernel_checks_shapes=True)


def _channel_params(count_inputs, axis_words="%d"):
    def infer(in_shapes, attrs):
        axis = attrs.get("axis", 1)
        if not -len(in_shapes[0]) <= axis < len(in_shapes[0]):
            raise ValueError("Channel axis out of range: " + axis_words % axis)
        channels = in_shapes[0][axis % len(in_shapes[0])]
        for i in range(1, count_inputs):
            in_shapes[i] = (channels,)
        return in_shapes, None
    return infer


def _with_outputs(param_infer, outputs):
    def infer(in_shapes, attrs):
        in_shapes, _ = param_infer(in_shapes, attrs)
        return in_shapes, outputs(in_shapes, attrs)
    return infer


def _bn_outputs(in_shapes, attrs):
    c = in_shapes[1]
    return [in_shapes[0], c, c]


# what composing a batch normalization gives its moving statistics' variables (checked on MXNet 1.9.1)
MOVING_STATISTICS_INITS = {"moving_mean": '["zero", {}]', "moving_var": '["one", {}]'}

declare("BatchNorm", inputs=("data", "gamma", "beta", "moving_mean", "moving_var"),
        attrs=[Attr("eps", float_, 1e-3), Attr("momentum", float_, 0.9), Attr("fix_gamma", bool_, True),
               Attr("use_global_stats", bool_, False), Attr("output_mean_var", bool_, False), Attr("axis", int_, 1),
               Attr("cudnn_off", bool_, False), Attr("min_calib_range", optional(float_), None),
               Attr("max_calib_range", optional(float_), None)],
        kernel=k.batch_norm_invstd, aux=("moving_mean", "moving_var"), num_outputs=3, wants_training=True,
        output_names=("output", "mean", "var"), input_inits=MOVING_STATISTICS_INITS,
        visible_outputs=lambda a: 3 if a["output_mean_var"] else 1,
        infer=_with_outputs(_channel_params(5), _bn_outputs),
        types=uniform_types(wording="layer", params=("gamma", "beta", "moving_mean", "moving_var")))



def _batch_norm_v1(data, gamma, beta, moving_mean, moving_var, eps=1e-3, momentum=0.9, fix_gamma=True,
                   use_global_stats=False, output_mean_var=False, is_train=False):
    return k.batch_norm(data, gamma, beta, moving_mean, moving_var, eps=eps, momentum=momentum, fix_gamma=fix_gamma,
                        use_global_stats=use_global_stats, axis=1, is_train=is_train)


# MXNet's legacy batch normalization: channels on axis 1, and its third output the variance itself
declare("BatchNorm_v1", inputs=("data", "gamma", "beta", "moving_mean", "moving_var"),
        attrs=[Attr("eps", float_, 1e-3), Attr("momentum", float_, 0.9), Attr("fix_gamma", bool_, True),
               Attr("use_global_stats", bool_, False), Attr("output_mean_var", bool_, False)],
        kernel=_batch_norm_v1, aux=("moving_mean", "moving_var"), num_outputs=3, wants_training=True,
        output_names=("output", "mean", "var"), input_inits=MOVING_STATISTICS_INITS,
        visible_outputs=lambda a: 3 if a["output_mean_var"] else 1,
        infer=_with_outputs(_channel_params(5), lambda s, a: _bn_outputs(s, dict(a, axis=1))),
        types=uniform_types(wording="layer", params=("gamma", "beta", "moving_mean", "moving_var")))

def follow_batch(momentum, eps, moving_mean, moving_var, results, third_is_invstd) -> None:
    """Batch normalization's backward pass in training: its moving statistics (NumPy arrays,
    updated in place) move toward the batch's, by `momentum`. BatchNorm's third output is the
    inverse deviation (the variance comes back from it), SyncBatchNorm's and BatchNorm_v1's the
    variance itself."""
    batch_var = k.variance_of_invstd(results[2], eps) if third_is_invstd else results[2]
    moving_mean[...] = momentum * moving_mean + (1 - momentum) * results[1]
    moving_var[...] = momentum * moving_var + (1 - momentum) * batch_var


declare("LayerNorm", inputs=("data", "gamma", "beta"),
        attrs=[Attr("axis", int_, -1), Attr("eps", float_, 1e-5), Attr("output_mean_var", bool_, False)],
        kernel=k.layer_norm, infer=_with_outputs(_channel_params(3, "axis=%d"), lambda s, a: [s[0]]),
        bracket_shapes=True)
declare("InstanceNorm", inputs=("data", "gamma", "beta"), attrs=[Attr("eps", float_, 1e-3)],
        kernel=k.instance_norm, infer=_with_outputs(_channel_params(3), lambda s, a: [s[0]]))


def _group_norm_shapes(in_shapes, attrs):
    if in_shapes[0][1] % attrs["num_groups"]:
        raise ValueError("# of channels must be divisible by # of groups")
    in_shapes[1] = in_shapes[2] = (attrs["num_groups"],)
    return in_shapes, [in_shapes[0]]


declare("GroupNorm", inputs=("data", "gamma", "beta"),
        attrs=[Attr("num_groups", int_, 1), Attr("eps", float_, 1e-5), Attr("output_mean_var", bool_, False)],
        kernel=k.group_norm, infer=_group_norm_shapes)
declare("L2Normalization", attrs=[Attr("eps", float_, 1e-10), Attr("mode", choice("instance", "channel", "spatial"),
                                                                   "instance")], kernel=k.l2_normalization)


def _embedding_types(in_dtypes, attrs, names):
    """The indices may have any dtype; the output has the weight's (`dtype` when it is unknown)."""
    weight = in_dtypes[1] if len(in_dtypes) > 1 else None
    if weight is None and len(in_dtypes) > 1:
        in_dtypes[1] = weight = attrs["dtype"]
    return in_dtypes, [weight or attrs["dtype"]]


def _embedding_shapes(in_shapes, attrs):
    in_shapes[1] = (attrs["input_dim"], attrs["output_dim"])
    return in_shapes, [tuple(in_shapes[0]) + (attrs["output_dim"],)]


declare("Embedding", inputs=("data", "weight"),
        attrs=[Attr("input_dim", int_, required=True), Attr("output_dim", int_, required=True),
               Attr("dtype", dtype_, "float32"), Attr("sparse_grad", bool_, False)],
        kernel=k.embedding, infer=_embedding_shapes, types=_embedding_types)
declare("Dropout", attrs=[Attr("p", float_, 0.5, low=0, high=1), Attr("mode", choice("training", "always"), "training"),
                          Attr("axes", shape_, ()), Attr("cudnn_off", optional(bool_), False)],
        kernel=k.dropout, wants_training=True, infer=lambda s, a: (s, [s[0], s[0]]), num_outputs=2,
        visible_outputs=lambda a: 1, output_names=("output", "mask"))


def _softmax_output_shapes(in_shapes, attrs):
    data = in_shapes[0]
    if attrs["preserve_shape"]:
        label = tuple(data[:-1])
    else:
        label = (data[0],) + tuple(data[2:]) if attrs["multi_output"] else (data[0],)
    if in_shapes[1] is not None and tuple(in_shapes[1]) == tuple(data):
        return in_shapes, [in_shapes[0]]  # a label of the data's shape: probabilities per class
    if in_shapes[1] is None or int(math.prod(in_shapes[1])) != int(math.prod(label)):
        in_shapes[1] = label  # a label of the same size in another shape is accepted, as in MXNet
    return in_shapes, [in_shapes[0]]


declare("SoftmaxOutput", inputs=("data", "label"),
        attrs=[Attr("grad_scale", float_, 1.0), Attr("ignore_label", float_, -1.0), Attr("multi_output", bool_, False),
               Attr("use_ignore", bool_, False), Attr("preserve_shape", bool_, False),
               Attr("normalization", choice("null", "batch", "valid"), "null"), Attr("out_grad", bool_, False),
               Attr("smooth_alpha", float_, 0.0)],
        kernel=k.softmax_output, aliases=("Softmax",), infer=_softmax_output_shapes, bracket_shapes=True,
        types=uniform_types(wording="layer"))  # the label too takes the data's dtype, as MXNet 1.9.1 checks
def _softmax_cross_entropy_shapes(in_shapes, attrs):
    data, label = in_shapes
    if len(data) != 2:
        raise ValueError("SoftmaxCrossEntropy only accept 2D data")
    if label is None:
        in_shapes[1] = label = (data[0],)
    if len(label) != 1:
        raise ValueError("SoftmaxCrossEntropy only accept 1D label")
    if data[0] != label[0]:
        raise ValueError("SoftmaxCrossEntropy: data label shape mismatch")
    return in_shapes, [(1,)]


declare("softmax_cross_entropy", inputs=("data", "label"), kernel=k.softmax_cross_entropy,
        infer=_softmax_cross_entropy_shapes, types=uniform_types())
declare("SoftmaxActivation", attrs=[Attr("mode", choice("instance", "channel"), "instance")],
        unnamed_inputs=True,
        kernel=k.softmax_activation)
def _upsampling_shapes(in_shapes, attrs):
    data, scale = in_shapes[0], attrs["scale"]
    if data is None:
        return in_shapes, [None]
    if attrs["sample_type"] == "bilinear":
        if len(in_shapes) != 2:
            raise ValueError("Input:[data, weight]")
        if len(data) != 4:
            raise ValueError("UpSamplingBilinear: Input data should be 4D in (batch, channel, y, x)")
        kernel = 2 * scale - scale % 2
        in_shapes[1] = (data[1], 1, kernel, kernel)
        return in_shapes, [(data[0], data[1], data[2] * scale, data[3] * scale)]
    height, width, channels = data[2] * scale, data[3] * scale, 0
    for shape in in_shapes:
        if shape is None:
            return in_shapes, [None]
        if len(shape) != 4:
            raise ValueError("UpSamplingNearest: Input data should be 4D in (batch, channel, y, x)")
        if height % shape[2]:
            raise ValueError("UpSamplingNearest: input height of %ddoes not divide output height of %d"
                             % (shape[2], height))
        if width % shape[3]:
            raise ValueError("UpSamplingNearest: input width of %ddoes not divide output width of %d"
                             % (shape[3], width))
        if attrs["multi_input_mode"] == "sum":
            if channels not in (0, shape[1]):
                raise ValueError("Number of channels must be the same when multi_input_mode==sum")
            channels = shape[1]
        else:
            channels += shape[1]
    return in_shapes, [(data[0], channels, height, width)]


declare("UpSampling", inputs=("*data",), attrs=[Attr("scale", int_, required=True, low=1), Attr("num_filter", int_, 0),
                                                Attr("sample_type", choice("nearest", "bilinear"), required=True),
                                                Attr("multi_input_mode", choice("concat", "sum"), "concat"),
                                                Attr("workspace", int_, 512)],
        kernel=k.upsampling, infer=_upsampling_shapes)
_SEQUENCE = [Attr("use_sequence_length", bool_, False), Attr("axis", int_, 0)]


def _sequence_inputs(attrs):
    return ["data", "sequence_length"] if attrs.get("use_sequence_length") else ["data"]


def _sequence_shapes(in_shapes, attrs):
    data = in_shapes[0]
    if attrs["axis"] not in (0, 1):
        raise ValueError("Current implementation expects axis to be 0 or 1.")
    if attrs["use_sequence_length"] and len(in_shapes) > 1:
        batch = (data[1] if attrs["axis"] == 0 else data[0],)
        given = in_shapes[1]
        if given is not None and tuple(given) != batch:
            raise ValueError(shape_inconsistent(given, batch))
        in_shapes[1] = batch
    return in_shapes, None


for _name, _kernel, _extra in (("SequenceMask", k.sequence_mask, [Attr("value", float_, 0.0)]),
                               ("SequenceLast", k.sequence_last, []),
                               ("SequenceReverse", k.sequence_reverse, [])):
    _op = declare(_name, inputs=("data", "sequence_length"), attrs=_SEQUENCE + _extra, kernel=_kernel,
                  check=_sequence_shapes,
                  types=uniform_types(free=("sequence_length",)))
    _op.input_names = _sequence_inputs

declare("_contrib_AdaptiveAvgPooling2D", attrs=[Attr("output_size", shape_, ())], kernel=k.adaptive_avg_pool2d,
        aliases=("contrib.AdaptiveAvgPooling2D",), allows_empty=True)
def _four_d_check(in_shapes, attrs):
    if len(in_shapes[0]) != 4:
        raise ValueError("index = %d must be in range [0, %d)" % (len(in_shapes[0]), len(in_shapes[0])))


_resize = declare("_contrib_BilinearResize2D", inputs=("data", "like"), check=_four_d_check,
        attrs=[Attr("height", int_, 1, low=1), Attr("width", int_, 1, low=1), Attr("scale_height", optional(float_), None),
               Attr("scale_width", optional(float_), None),
               Attr("mode", choice("size", "like", "odd_scale", "to_even_down", "to_even_up", "to_odd_down",
                                   "to_odd_up"), "size"),
               Attr("align_corners", bool_, True)],
        kernel=k.bilinear_resize2d, aliases=("contrib.BilinearResize2D",), types=uniform_types(free=("like",)))
_resize.input_names = lambda a: ["data", "like"] if a.get("mode") == "like" else ["data"]
declare("_contrib_box_iou", inputs=("lhs", "rhs"), attrs=[Attr("format", choice("corner", "center"), "corner")],
        kernel=k.box_iou, aliases=("contrib.box_iou",))
def _matching_shapes(in_shapes, attrs):
    shape = in_shapes[0]
    if len(shape) < 2:
        raise ValueError("score matrix must have dim >= 2 %d provided" % len(shape))
    return in_shapes, [tuple(shape[:-1]), tuple(shape[:-2]) + (shape[-1],)]


declare("_contrib_bipartite_matching", attrs=[Attr("is_ascend", bool_, False), Attr("threshold", float_, required=True),
                                              Attr("topk", int_, -1)],
        kernel=boxes.bipartite_matching, aliases=("contrib.bipartite_matching",), num_outputs=2,
        infer=_matching_shapes)


def _prior_shapes(in_shapes, attrs):
    height, width = in_shapes[0][2], in_shapes[0][3]
    anchors = len(attrs["sizes"]) + len(attrs["ratios"]) - 1
    return in_shapes, [(1, height * width * anchors, 4)]


def _float32_only(in_dtypes, attrs, names):
    """MXNet 1.9.1's rule for MultiBoxPrior: float32 data only (eagerly, `_multibox_prior` checks)."""
    from runtime.serialization import type_flag
    for dtype in in_dtypes:
        if dtype is not None and dtype != "float32":
            raise MXNetError("Unsupported data type %d" % type_flag(dtype))
    return ["float32"] * len(in_dtypes), "float32"


def _multibox_prior(data, **attrs):
    _float32_only([data.dtype.name], attrs, ["data"])
    return boxes.multibox_prior(data, **attrs)


declare("_contrib_MultiBoxPrior", attrs=[Attr("sizes", floats_, (1.0,)), Attr("ratios", floats_, (1.0,)),
                                         Attr("clip", bool_, False), Attr("steps", floats_, (-1.0, -1.0)),
                                         Attr("offsets", floats_, (0.5, 0.5))],
        kernel=_multibox_prior, aliases=("contrib.MultiBoxPrior",), infer=_prior_shapes, types=_float32_only)


def _multibox_target_shapes(in_shapes, attrs):
    """MXNet 1.9.1's checks, in its words: anchors (1, N, 4), labels (batch, M, >= 5), class
    predictions (batch, classes, N); outputs (batch, N * 4) twice and (batch, N)."""
    anchor, label, pred = in_shapes
    checks = [(len(anchor) == 3, "Check failed: ashape.ndim() == 3 (%d vs. 3) : Anchor should be batch shared N*4 tensor"
               % len(anchor))]
    checks += [(anchor[0] == 1, "Check failed: ashape[0] == 1 (%d vs. 1) : Anchors are shared across batches, first "
                "dimension should be 1" % anchor[0]),
               (anchor[1] > 0, "Check failed: ashape[1] > 0 (%d vs. 0) : Number boxes should be greater than 0"
                % anchor[1]),
               (anchor[2] == 4, "Check failed: ashape[2] == 4 (%d vs. 4) : Box dimension should be 4: "
                "[xmin, ymin, xmax, ymax]" % anchor[2])] if len(anchor) == 3 else []
    checks += [(len(label) == 3, "Check failed: lshape.ndim() == 3 (%d vs. 3) : Label should be [batch, num_labels, "
                "label_width] tensor" % len(label))]
    checks += [(label[1] > 0, "Check failed: lshape[1] > 0 (%d vs. 0) : Padded label should be greater than 0"
                % label[1]),
               (label[2] >= 5, "Check failed: lshape[2] >= 5 (%d vs. 5) : Label width should be greater than or "
                "equal to 5" % label[2])] if len(label) == 3 else []
    checks += [(len(pred) == 3, "Check failed: pshape.ndim() == 3 (%d vs. 3) : Prediction: [batch, num_classes, "
                "num_anchors]" % len(pred))]
    checks += [(len(pred) != 3 or len(anchor) != 3 or pred[2] == anchor[1],
                "Check failed: pshape[2] == ashape[1] (%d vs. %d) : Number of anchors mismatch"
                % (pred[-1], anchor[1] if len(anchor) > 1 else -1))]
    for passed, message in checks:
        if not passed:
            raise MXNetError(message)
    boxes_count = anchor[1]
    return in_shapes, [(label[0], boxes_count * 4), (label[0], boxes_count * 4), (label[0], boxes_count)]


declare("_contrib_MultiBoxTarget", ("anchor", "label", "cls_pred"),
        [Attr("overlap_threshold", float_, 0.5), Attr("ignore_label", float_, -1.0),
         Attr("negative_mining_ratio", float_, -1.0), Attr("negative_mining_thresh", float_, 0.5),
         Attr("minimum_negative_samples", int_, 0), Attr("variances", floats_, (0.1, 0.1, 0.2, 0.2))],
        kernel=multibox.multibox_target, aliases=("contrib.MultiBoxTarget",), infer=_multibox_target_shapes,
        types=_float32_only, num_outputs=3, output_names=("loc_target", "loc_mask", "cls_target"))


def _box_nms_check(in_shapes, attrs):
    width = in_shapes[0][-1]
    start, end = attrs["coord_start"], attrs["coord_start"] + 3
    if not (start >= 0 and end < width):
        raise ValueError("coordinates: (%d, %d) out of range:: (0, %d)" % (start, end, width))


declare("_contrib_box_nms", attrs=[Attr("overlap_thresh", float_, 0.5), Attr("valid_thresh", float_, 0.0),
                                   Attr("topk", int_, -1), Attr("coord_start", int_, 2), Attr("score_index", int_, 1),
                                   Attr("id_index", int_, -1), Attr("background_id", int_, -1),
                                   Attr("force_suppress", bool_, False),
                                   Attr("in_format", choice("corner", "center"), "corner"),
                                   Attr("out_format", choice("corner", "center"), "corner")],
        kernel=boxes.box_nms, aliases=("contrib.box_nms", "_contrib_box_non_maximum_suppression"),
        check=_box_nms_check, num_outputs=2, visible_outputs=lambda a: 1)
