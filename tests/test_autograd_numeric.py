"""Each differentiable operator's gradient against central finite differences, in float64, on
shapes other than the golden cases' (tests/test_autograd_golden.py checks those against MXNet)."""
import numpy as np
import pytest

from runtime import autograd, nd
from runtime.kernels import rnn as rnn_kernels
from runtime.ops.grad_math import zero_gradient
from runtime.registry import REGISTRY

# an input: (shape, kind); kinds: x (-1..1), pos (0.5..2), unit (-0.9..0.9), idx:N (whole numbers
# below N, no gradient), zeros / ones (no gradient: BatchNorm's moving statistics), a list (given values,
# no gradient), ("attached", list) (given values with a gradient)
X, POS, UNIT = "x", "pos", "unit"
S = (2, 3, 2)
CASES = {}


def case(op, inputs, **attrs):
    CASES.setdefault(op, []).append((inputs, attrs))


for name in ("relu", "sigmoid", "tanh", "exp", "abs", "square", "negative", "softsign", "sin", "cos", "tan",
             "arctan", "sinh", "cosh", "erf", "expm1", "log1p", "identity"):
    case(name, [(S, X)])
for name in ("log", "log2", "log10", "sqrt", "rsqrt", "cbrt", "reciprocal", "gamma", "gammaln"):
    case(name, [(S, POS)])
for name in ("arcsin", "arccos", "erfinv"):
    case(name, [(S, UNIT)])
for act in ("relu", "sigmoid", "tanh", "softrelu", "softsign"):
    case("Activation", [(S, X)], act_type=act)
# not selu: left of zero, MXNet's gradient is scale * (y + alpha), which is not the derivative
# (tests/test_autograd_golden.py checks MXNet's)
for act in ("leaky", "elu", "gelu"):
    case("LeakyReLU", [(S, X)], act_type=act, slope=0.3)
case("LeakyReLU", [((2, 3, 2), X), ((3,), POS)], act_type="prelu")
case("clip", [(S, X)], a_min=-0.5, a_max=0.6)
case("cast", [(S, X)], dtype="float64")
case("smooth_l1", [(S, X)], scalar=1.5)
for name in ("add", "sub", "mul", "maximum", "minimum", "hypot"):
    case("broadcast_" + name, [((2, 3, 4), X), ((1, 3, 1), X)])
case("broadcast_div", [((2, 3, 4), X), ((1, 3, 1), POS)])
case("broadcast_mod", [((2, 3, 4), POS), ((1, 3, 1), POS)])
case("broadcast_power", [((2, 3, 4), POS), ((1, 3, 1), X)])
for name in ("elemwise_add", "elemwise_sub", "elemwise_mul", "_maximum", "_minimum", "_hypot"):
    case(name, [(S, X), (S, X)])
case("elemwise_div", [(S, X), (S, POS)])
case("_mod", [(S, POS), (S, POS)])
case("_power", [(S, POS), (S, X)])
for name in ("plus", "minus", "rminus", "mul", "div", "maximum", "minimum", "hypot", "mod"):
    case("_%s_scalar" % name, [(S, X)], scalar=0.4)
for name in ("rdiv", "power", "rpower", "rmod"):
    case("_%s_scalar" % name, [(S, POS)], scalar=1.7)
case("add_n", [((2, 2), X)] * 3)
for name in ("sum", "mean", "prod", "nansum", "nanprod"):
    case(name, [((2, 3, 4), X)], axis=(0, 2), keepdims=True)
    case(name, [((3, 2), X)], axis=0, exclude=True)
for name in ("max", "min"):
    case(name, [((2, 3, 4), X)], axis=1)
case("norm", [((2, 3, 4), X)], axis=1)
case("norm", [((3, 2), X)], ord=1, axis=0)
case("sort", [((3, 4), X)], axis=0, is_ascend=False)
case("topk", [((3, 4), X)], axis=1, k=2, ret_typ="value")
case("topk", [((3, 4), X)], axis=0, k=2, ret_typ="both")
for name in ("softmax", "log_softmax", "softmin"):
    case(name, [((2, 3, 4), X)], axis=1, temperature=2.0)
case("reshape", [((2, 3, 4), X)], shape=(4, -1))
case("Flatten", [((2, 3, 2), X)])
case("expand_dims", [((2, 3), X)], axis=1)
case("squeeze", [((2, 1, 3), X)])
case("reshape_like", [((2, 6), X), ((3, 4), X)])
case("transpose", [((2, 3, 4), X)], axes=(1, 2, 0))
case("SwapAxis", [((2, 3, 4), X)], dim1=0, dim2=2)
case("reverse", [((2, 3, 4), X)], axis=1)
case("tile", [((2, 3), X)], reps=(2, 1, 2))
case("repeat", [((2, 3), X)], repeats=2, axis=1)
case("diag", [((3, 3), X)], k=1)
case("depth_to_space", [((1, 4, 2, 2), X)], block_size=2)
case("space_to_depth", [((1, 1, 4, 4), X)], block_size=2)
case("broadcast_to", [((1, 3, 1), X)], shape=(2, 3, 2))
case("broadcast_axis", [((2, 1, 3), X)], axis=1, size=2)
case("broadcast_like", [((1, 3), X), ((2, 3), X)])
# densities of samples (2 sets of parameters, 3 samples each); discrete samples take no gradient
case("_random_pdf_normal", [((2, 3), X), ((2,), X), ((2,), POS)])
case("_random_pdf_normal", [((2, 3), X), ((2,), X), ((2,), POS)], is_log=True)
case("_random_pdf_uniform", [((2, 3), ("attached", [0.1, 0.5, -0.5, 1.0, 1.5, -1.0])),
                             ((2,), ("attached", [-1.0, -2.0])), ((2,), ("attached", [1.0, 2.0]))])
case("_random_pdf_gamma", [((2, 3), POS), ((2,), POS), ((2,), POS)])
case("_random_pdf_exponential", [((2, 3), POS), ((2,), POS)], is_log=True)
case("_random_pdf_poisson", [((2, 3), [0, 1, 2, 3, 1, 0]), ((2,), POS)])
case("_random_pdf_negative_binomial", [((2, 3), [0, 1, 2, 3, 1, 0]), ((2,), POS), ((2,), ("attached", [0.3, 0.6]))])
case("_random_pdf_generalized_negative_binomial", [((2, 3), [0, 1, 2, 3, 1, 0]), ((2,), POS), ((2,), POS)])
case("_random_pdf_dirichlet", [((2, 3, 2), POS), ((2, 2), POS)], is_log=True)
case("slice", [((3, 4, 2), X)], begin=(1, 0, None), end=(3, 3, None))
case("slice_axis", [((3, 4), X)], axis=1, begin=1, end=3)
case("slice_like", [((3, 4), X), ((2, 2), X)])
case("take", [((4, 3), X), ((2, 2), "idx:4")], axis=0)
case("pick", [((3, 4), X), ((3,), "idx:4")], axis=1)
case("gather_nd", [((3, 4), X), ((2, 3), "idx:3")])
case("Concat", [((2, 1), X), ((2, 3), X)], dim=1)
case("stack", [((2, 3), X), ((2, 3), X)], axis=1)
case("SliceChannel", [((2, 6), X)], num_outputs=3, axis=1)
case("_split_v2", [((4, 3), X)], indices=(1, 3), axis=0)
case("pad", [((1, 1, 3, 3), X)], mode="reflect", pad_width=(0, 0, 0, 0, 1, 1, 1, 1))
case("pad", [((1, 1, 3, 3), X)], mode="constant", pad_width=(0, 0, 0, 0, 1, 2, 2, 1), constant_value=1.0)
case("where", [((2, 3), [[1, 0, 1], [0, 0, 1]]), ((2, 3), X), ((2, 3), X)])
case("dot", [((3, 4), X), ((4, 2), X)])
case("dot", [((4, 3), X), ((2, 4), X)], transpose_a=True, transpose_b=True)
# the storage operators (runtime/ops/sparse.py) and contrib.quadratic
case("cast_storage", [((3, 4), X)], stype="row_sparse")
case("_sparse_retain", [((4, 3), X), ((2,), [3, 1])])
case("_square_sum", [((3, 4), X)], axis=1, keepdims=True)
case("_square_sum", [(S, X)], axis=(0, 2))
case("_contrib_quadratic", [(S, X)], a=0.7, b=-1.5, c=0.3)
case("batch_dot", [((2, 3, 4), X), ((2, 2, 4), X)], transpose_b=True)
case("_linalg_gemm2", [((2, 4, 3), X), ((2, 4, 5), X)], transpose_a=True, alpha=2.0)
case("_linalg_gemm2", [((3, 2, 4), X), ((5, 2, 4), X)], transpose_b=True, axis=0)
case("_linalg_gemm", [((2, 3, 4), X), ((2, 4, 2), X), ((2, 3, 2), X)], alpha=1.5, beta=-0.5)
case("_linalg_gemm", [((4, 2, 3), X), ((2, 2, 4), X), ((3, 2, 2), X)], transpose_a=True, transpose_b=True, axis=-3)
# well-conditioned square matrices: a dominant diagonal
_SPD = [[4, 1, 0.5], [1, 3, -0.2], [0.5, -0.2, 2]]
_FACTOR = [[2, 0, 0], [0.5, 1.5, 0], [-0.3, 0.4, 1.2]]
case("_linalg_potri", [((3, 3), ("attached", _FACTOR))])
case("_linalg_potri", [((3, 3), ("attached", [list(r) for r in zip(*_FACTOR)]))], lower=False)
for _flags in ({}, {"transpose": True}, {"rightside": True, "lower": False}, {"rightside": True, "transpose": True}):
    case("_linalg_trmm", [((2, 3, 3), X), ((2, 3, 3), X)], alpha=1.5, **_flags)
    case("_linalg_trsm", [((3, 3), ("attached", _FACTOR if _flags.get("lower", True) else
                                    [list(r) for r in zip(*_FACTOR)])), ((3, 2) if not _flags.get("rightside") else
                                                                        (2, 3), X)], alpha=-0.7, **_flags)
case("_linalg_syrk", [((2, 3, 2), X)], alpha=0.5)
case("_linalg_syrk", [((3, 2), X)], transpose=True)
case("_linalg_sumlogdiag", [((2, 3, 3), POS)])
case("_linalg_extractdiag", [((2, 3, 3), X)], offset=-1)
case("_linalg_makediag", [((2, 3), X)], offset=1)
case("_linalg_extracttrian", [((3, 3), X)], lower=False)
case("_linalg_maketrian", [((2, 3), X)], offset=-1)
case("_linalg_inverse", [((3, 3), ("attached", _SPD))])
case("_linalg_det", [((3, 3), ("attached", _FACTOR))])
case("_linalg_slogdet", [((3, 3), ("attached", [[-1, 0.5, 0.2], [0.3, 2, 0.1], [0.4, -0.5, 1.5]]))])
case("_linalg_gelqf", [((2, 4), X)])
case("_linalg_gelqf", [((2, 3, 3), X)])
case("GridGenerator", [((2, 6), X)], transform_type="affine", target_shape=(3, 4))
case("GridGenerator", [((2, 2, 3, 4), X)], transform_type="warp")
# grid points inside and beyond the input's edges (x in [-1.2, 1.2]), none on a pixel boundary
case("BilinearSampler", [((2, 3, 4, 5), X), ((2, 2, 3, 2), ("attached", [
    -1.2, -0.3, 0.55, 0.9, 1.1, 0.05, -0.95, 0.4, 0.7, -0.6, 1.15, 0.2,
    0.3, -0.8, -1.1, 0.45, 0.85, 0.1, 0.6, -0.25, -0.55, 1.05, 0.15, -0.7]))])
# regions with corners to round, one clipped at the edge, one of an absent image (no gradient)
case("ROIPooling", [((2, 2, 6, 5), X), ((3, 5), [[0, 0.6, 1.4, 3.2, 4.6], [1, 2, 3, 7, 8], [2, 1, 1, 3, 3]])],
     pooled_size=(2, 2), spatial_scale=1.0)
case("_contrib_ROIAlign", [((2, 2, 6, 5), X), ((3, 5), [[0, 0.6, 1.4, 3.2, 4.6], [1, 2, 3, 7, 8], [1, -1, -1, 2, 2]])],
     pooled_size=(2, 2), spatial_scale=1.0, sample_ratio=2)
case("_contrib_ROIAlign", [((1, 4, 5, 5), X), ((1, 5), [[0, 0.6, 1.4, 3.2, 4.6]])], pooled_size=(2, 1),
     spatial_scale=1.0, position_sensitive=True, aligned=True)
case("_contrib_PSROIPooling", [((2, 8, 6, 5), X), ((2, 5), [[0, 0.6, 1.4, 3.2, 4.6], [1, 2, 3, 7, 8]])],
     spatial_scale=1.0, output_dim=2, pooled_size=2)
case("Correlation", [((1, 2, 5, 4), X), ((1, 2, 5, 4), X)], kernel_size=3, max_displacement=1, pad_size=1)
case("Correlation", [((2, 1, 5, 5), X), ((2, 1, 5, 5), X)], max_displacement=2, stride1=2, stride2=2, pad_size=2,
     is_multiply=False)
case("SpatialTransformer", [((1, 2, 5, 6), X), ((1, 6), ("attached", [0.8, 0.1, 0.05, -0.15, 0.7, 0.1]))],
     target_shape=(3, 4), transform_type="affine", sampler_type="bilinear")
case("FullyConnected", [((3, 2, 2), X), ((4, 4), X), ((4,), X)], num_hidden=4)
case("FullyConnected", [((2, 3, 5), X), ((4, 5), X)], num_hidden=4, no_bias=True, flatten=False)
case("Convolution", [((2, 2, 5, 5), X), ((4, 1, 3, 3), X), ((4,), X)], kernel=(3, 3), num_filter=4, num_group=2,
     stride=(2, 2), pad=(1, 1))
case("Convolution", [((1, 2, 7), X), ((3, 2, 3), X)], kernel=(3,), num_filter=3, dilate=(2,), no_bias=True)
case("Deconvolution", [((1, 2, 3, 3), X), ((2, 3, 3, 3), X)], kernel=(3, 3), num_filter=3, stride=(2, 2),
     pad=(1, 1), adj=(1, 1))
case("Pooling", [((1, 2, 5, 5), X)], kernel=(3, 3), stride=(2, 2), pool_type="max", pooling_convention="full")
case("Pooling", [((1, 1, 5, 5), X)], kernel=(2, 2), pad=(1, 1), pool_type="avg", count_include_pad=False)
case("Pooling", [((1, 1, 4, 4), X)], kernel=(3, 3), pad=(1, 1), pool_type="avg")
case("Pooling", [((1, 2, 6), X)], kernel=(2,), stride=(2,), pool_type="sum")
case("Pooling", [((2, 2, 3, 3), X)], kernel=(1, 1), global_pool=True, pool_type="max")
case("_contrib_AdaptiveAvgPooling2D", [((1, 2, 5, 5), X)], output_size=(2, 3))
case("_contrib_BilinearResize2D", [((1, 1, 3, 4), X)], height=5, width=6)
case("_contrib_BilinearResize2D", [((1, 1, 3, 4), X)], height=5, width=7, align_corners=False)
case("UpSampling", [((1, 2, 2, 2), X)], scale=3, sample_type="nearest")
case("BatchNorm", [((4, 3, 2), X), ((3,), POS), ((3,), X), ((3,), "zeros"), ((3,), "ones")], fix_gamma=False)
case("BatchNorm", [((4, 3), X), ((3,), POS), ((3,), X), ((3,), [0.1, -0.2, 0.3]), ((3,), [0.5, 1, 1.5])],
     use_global_stats=True,
     fix_gamma=False)
case("_contrib_SyncBatchNorm", [((4, 3, 2), X), ((3,), POS), ((3,), X), ((3,), "zeros"), ((3,), "ones")],
     fix_gamma=False, key="bn")
case("im2col", [((2, 2, 5, 4), X)], kernel=(2, 3), stride=(2, 1), pad=(1, 0))
case("col2im", [((1, 8, 6), X)], output_size=(4, 5), kernel=(2, 2), stride=(2, 2), pad=(1, 0))
case("LRN", [((2, 5, 2, 2), X)], nsize=3, alpha=0.5, beta=0.6, knorm=1.5)
case("_contrib_interleaved_matmul_selfatt_qk", [((3, 2, 12), X)], heads=2)
case("_contrib_interleaved_matmul_selfatt_valatt", [((3, 2, 12), X), ((4, 3, 3), X)], heads=2)
case("_contrib_interleaved_matmul_encdec_qk", [((3, 2, 4), X), ((4, 2, 8), X)], heads=2)
case("_contrib_interleaved_matmul_encdec_valatt", [((4, 2, 8), X), ((4, 3, 4), X)], heads=2)
case("BatchNorm_v1", [((4, 3, 2), X), ((3,), POS), ((3,), X), ((3,), "zeros"), ((3,), "ones")], fix_gamma=False)
# offsets a little away from whole numbers: the bilinear sampling has kinks there
case("_contrib_DeformableConvolution", [((1, 2, 4, 4), X), ((1, 18, 4, 4), ("attached", list(
    0.3 + 0.4 * np.random.RandomState(5).uniform(size=18 * 16)))), ((2, 2, 3, 3), X), ((2,), X)],
     kernel=(3, 3), pad=(1, 1), num_filter=2)
case("LayerNorm", [((2, 3, 4), X), ((3,), POS), ((3,), X)], axis=1)
case("InstanceNorm", [((2, 3, 4), X), ((3,), POS), ((3,), X)])
case("GroupNorm", [((2, 4, 3), X), ((2,), POS), ((2,), X)], num_groups=2)
case("L2Normalization", [((2, 3, 2), X)], mode="channel")
case("L2Normalization", [((2, 3, 2), X)], mode="spatial")
case("Embedding", [((2, 3), "idx:5"), ((5, 3), X)], input_dim=5, output_dim=3)
case("SoftmaxActivation", [((2, 3, 2), X)], mode="channel")
for name in ("SequenceMask", "SequenceLast", "SequenceReverse"):
    case(name, [((4, 2, 3), X), ((2,), [2, 3])], use_sequence_length=True)
case("_contrib_box_nms", [((3, 6), ("attached", [[0, 0.9, 0, 0, 2, 2], [0, 0.7, 0.1, 0.1, 2.1, 2.1], [1, 0.5, 3, 3, 4, 4]]))],
     overlap_thresh=0.5, id_index=0)
case("CTCLoss", [((5, 2, 4), X), ((2, 2), [1, 3, 2, 2])])  # the second label repeats: a blank between
case("_rnn_param_concat", [((6,), X), ((4,), X)], dim=0)
# the fused recurrent operator: (sequence, batch, features) data, the flat parameters, the states
for mode, layers, directions, projection, extra in [("lstm", 1, 1, None, {}), ("gru", 2, 1, None, {}),
                                                    ("rnn_tanh", 1, 2, None, {}), ("rnn_relu", 2, 2, None, {}),
                                                    ("lstm", 2, 2, None, {"state_outputs": True}),
                                                    ("lstm", 1, 1, 2, {"state_outputs": True}),
                                                    ("gru", 1, 2, None, {"use_sequence_length": True})]:
    count = rnn_kernels.parameter_count(mode, 3, 3, layers, directions, projection)
    states = [((layers * directions, 2, projection or 3), X)]
    if mode == "lstm":
        states.append(((layers * directions, 2, 3), X))
    lengths = [((2,), [3, 2])] if extra.get("use_sequence_length") else []
    case("RNN", [((3, 2, 3), X), ((count,), X)] + states + lengths, state_size=3, num_layers=layers, mode=mode,
         bidirectional=directions == 2, projection_size=projection, **extra)
for name in ("degrees", "radians", "_contrib_div_sqrt_dim", "arcsinh"):
    case(name, [(S, X)])
case("rcbrt", [(S, POS)])
case("arccosh", [((2, 3), ("attached", [1.5, 2, 3, 1.2, 4, 7]))])  # defined above 1 only
case("arctanh", [(S, UNIT)])
case("hard_sigmoid", [(S, X)], alpha=0.8, beta=0.5)  # clipped beyond |x| = 0.625
case("moments", [((2, 3, 4), X)], axes=(0, 2))
case("moments", [((2, 3), X)], axes=(1,), keepdims=True)
case("_contrib_boolean_mask", [((3, 2), X), ((3,), [0, 1, 1])])
case("_contrib_index_copy", [((4, 2), X), ((2,), [3, 1]), ((2, 2), X)])
case("amp_cast", [(S, X)], dtype="float64")
case("amp_multicast", [(S, X), ((3,), X)], num_outputs=2)
case("softmax_cross_entropy", [((3, 4), X), ((3,), [1, 0, 3])])
case("_image_normalize", [((2, 3, 2, 2), X)], mean=(0.1, 0.2, 0.3), std=(1, 2, 4))
case("_image_normalize", [((3, 2, 2), X)], mean=(0.1, 0.2, 0.3), std=(0.5, 2.0, 4.0))

# gradients that are not the derivative of the forward, by definition: random masks, and the loss
# outputs whose gradient is the loss's (checked against MXNet's in tests/test_autograd_golden.py)
NOT_DERIVATIVES = {"Dropout", "SoftmaxOutput", "LinearRegressionOutput", "LogisticRegressionOutput",
                   "MAERegressionOutput", "SVMOutput", "MakeLoss", "make_loss",
                   # they read one triangle of a symmetric matrix and give the symmetric gradient
                   # (tests/test_linalg.py checks them on symmetrized input)
                   "_linalg_potrf", "_linalg_syevd",
                   # MXNet 1.9.1 passes the gradient through the image flips unflipped (tests/test_image_ops.py)
                   "_image_flip_left_right", "_image_flip_top_bottom",
                   # the identity whose gradient is scaled on purpose (recorded in ndarray_symbol_cases.jsonl)
                   "_contrib_gradientmultiplier",
                   # control flow: they run graphs of their own node, so no call here can make one;
                   # tests/test_control_flow.py checks their gradients by differences and against MXNet
                   "_foreach", "_while_loop", "_cond"}


def differentiable_ops():
    ops = {}
    for op in REGISTRY.values():
        if op.gradient is not None and op.gradient is not zero_gradient and op.name not in NOT_DERIVATIVES:
            ops[op.name] = op
    return sorted(ops)


def test_every_differentiable_operator_has_a_case():
    assert [name for name in differentiable_ops() if name not in CASES] == []


def make_input(shape, kind, rng):
    if isinstance(kind, tuple):  # ("attached", values): given values that get a gradient
        return np.array(kind[1], dtype=np.float64).reshape(shape), True
    if isinstance(kind, list):
        return np.array(kind, dtype=np.float64).reshape(shape), False
    if kind.startswith("idx:"):
        return rng.randint(0, int(kind[4:]), size=shape).astype(np.float64), False
    if kind in ("zeros", "ones"):
        return (np.zeros if kind == "zeros" else np.ones)(shape), False
    low, high = {X: (-1, 1), POS: (0.5, 2), UNIT: (-0.9, 0.9)}[kind]
    values = rng.uniform(low, high, size=shape)
    # away from the kinks of relu, abs, clip, mod and rounding (steps of 0.05 apart from 0)
    values = np.where(np.abs(values) < 0.05, values + 0.1, values)
    return values, True


# operators that MXNet's CPU build runs in float32 alone: differences of a larger step, looser tolerance
FLOAT32_ONLY = {"GridGenerator"}


def dtype_of(op_name):
    return np.float32 if op_name in FLOAT32_ONLY else np.float64


def evaluate(op_name, arrays, attrs):
    with autograd.train_mode():  # as under record(): BatchNorm normalizes with the batch's statistics
        out = getattr(nd, op_name)(*[nd.array(a, dtype=dtype_of(op_name)) for a in arrays], **attrs)
    outs = out if isinstance(out, (list, tuple)) else [out]
    return [o.asnumpy().astype(np.float64) for o in outs]


ALL_CASES = [(name, i) for name in sorted(CASES) for i in range(len(CASES[name]))]


@pytest.mark.parametrize("name,index", ALL_CASES, ids=["%s/%d" % c for c in ALL_CASES])
def test_gradient_against_finite_differences(name, index):
    inputs, attrs = CASES[name][index]
    rng = np.random.RandomState(len(name) * 31 + index)
    made = [make_input(shape, kind, rng) for shape, kind in inputs]
    arrays = [m[0] for m in made]
    variables = [nd.array(a, dtype=dtype_of(name)) for a in arrays]
    for variable, wanted in zip(variables, made):
        if wanted[1]:
            variable.attach_grad()
    with autograd.record():
        out = getattr(nd, name)(*variables, **attrs)
    outs = out if isinstance(out, (list, tuple)) else [out]
    heads = [rng.uniform(-1, 1, o.shape) for o in outs]
    autograd.backward(outs, [nd.array(h, dtype=dtype_of(name)) for h in heads])

    def objective(values):
        return sum(float(np.sum(h * o)) for h, o in zip(heads, evaluate(name, values, attrs)))
    step, rtol, atol = (1e-6, 1e-4, 1e-6) if dtype_of(name) == np.float64 else (1e-2, 1e-3, 1e-4)
    for position, (array, (_, wanted)) in enumerate(zip(arrays, made)):
        if not wanted:
            continue
        numeric = np.zeros(array.shape)
        for element in np.ndindex(*array.shape):
            plus = [a.copy() for a in arrays]
            minus = [a.copy() for a in arrays]
            plus[position][element] += step
            minus[position][element] -= step
            numeric[element] = (objective(plus) - objective(minus)) / (2 * step)
        np.testing.assert_allclose(variables[position].grad.asnumpy(), numeric, rtol=rtol, atol=atol,
                                   err_msg="input %d" % position)


@pytest.mark.parametrize("groups", [1, 2])
def test_convolution_gradients_made_a_chunk_of_images_at_a_time_equal_the_whole_batchs(monkeypatch, groups):
    from runtime.kernels import grad_nn
    rng = np.random.RandomState(3)
    data = rng.uniform(-1, 1, (5, 4, 7, 6)).astype(np.float32)
    weight = rng.uniform(-1, 1, (6, 4 // groups, 3, 2)).astype(np.float32)
    out_grad = rng.uniform(-1, 1, (5, 6, 4, 5)).astype(np.float32)  # the output of that geometry
    geometry = ((3, 2), (2, 1), (1, 1), (1, 0), groups)

    def both():
        return (grad_nn.convolution_weight_grad(data, out_grad, *geometry),
                grad_nn.convolution_data_grad(out_grad, weight, data.shape, *geometry))
    whole = both()
    monkeypatch.setattr(grad_nn, "COLUMN_BYTES", 1)  # one image per chunk
    assert grad_nn._image_chunks(5, 100, 16) == [(i, i + 1) for i in range(5)]
    for chunked, expected in zip(both(), whole):
        np.testing.assert_allclose(chunked, expected, rtol=1e-5, atol=1e-6)
