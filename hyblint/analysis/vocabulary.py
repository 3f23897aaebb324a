"""The names rules look for, kept apart from the rules so that the screen (which runs before libcst
is even imported) reads the very same sets."""
from __future__ import annotations

# Python builtins whose result the analysis takes for a plain Python value.
PYTHON_BUILTINS = frozenset({"len", "range", "int", "float", "bool", "str", "isinstance", "hasattr", "getattr",
                             "enumerate", "zip", "list", "tuple", "dict", "set", "min", "max", "sum", "abs",
                             "round", "sorted", "reversed", "type", "id", "repr", "format", "any", "all",
                             "super"})

# What the analysis takes a value for (the screen mirrors it, over-approximating).
# Ops with more than one visible output, where integer indexing selects an output (legal once
# hybridized). Recorded from MXNet 1.9.1's registry: `len(mx.sym.<op>(<vars>, **attrs).list_outputs())`
# for every op of mx.sym, mx.sym.contrib, .linalg, .random, .image, .sparse called with variables,
# then the ops whose count depends on an attribute called with it set (ops with hidden outputs
# only, such as the optimizer updates, show one and are absent). By short name (`F.linalg.slogdet`
# and `F.linalg_slogdet` alike):
FIXED_OUTPUTS = {
    "slogdet": 2, "linalg_slogdet": 2, "gelqf": 2, "linalg_gelqf": 2, "syevd": 2, "linalg_syevd": 2,
    "moments": 2, "box_encode": 2, "bipartite_matching": 2, "MultiBoxTarget": 3,
    "hawkesll": 2, "calibrate_entropy": 2, "dgl_csr_neighbor_uniform_sample": 3, "quantize": 3,
    "quantize_asym": 3, "quantize_v2": 3, "quantized_batch_norm": 3, "quantized_concat": 3,
    "quantized_elemwise_add": 3, "quantized_elemwise_mul": 3, "quantized_flatten": 3, "requantize": 3,
    "meshgrid": 2,  # (the numpy interface's: as many as its inputs)
}
# Ops with several outputs when a flag is set: (attribute, outputs when it is true).
FLAG_OUTPUTS = {
    "topk": ("ret_typ", 2),  # ret_typ='both'; the other values give one
    "RNN": ("state_outputs", 2),  # 3 for an LSTM: states h and c
    "BatchNorm": ("output_mean_var", 3), "LayerNorm": ("output_mean_var", 3), "SyncBatchNorm": ("output_mean_var", 3),
    "Proposal": ("output_score", 2), "MultiProposal": ("output_score", 2),
    "sample_multinomial": ("get_prob", 2),
    # (mx.sym.random.multinomial defaults to get_prob=True, mx.nd.random.multinomial to False: the
    # eager meaning, one output, is the one the code was written for)
    "multinomial": ("get_prob", 2),
}
# Ops whose outputs are those of code registered elsewhere (a CustomOp's list_outputs).
VARIABLE_OUTPUTS = frozenset({"Custom"})
# Ops with as many outputs as an attribute says (the split family also takes it as the second
# positional argument): `F.split(x, num_outputs=1)` is one tensor.
COUNTED_OUTPUTS = {"split": "num_outputs", "SliceChannel": "num_outputs", "split_v2": "indices_or_sections",
                   "amp_multicast": "num_outputs"}
SPLIT_OPS = frozenset({"split", "SliceChannel", "split_v2"})
GROUP_OPS = frozenset(FIXED_OUTPUTS) | frozenset(FLAG_OUTPUTS) | frozenset(COUNTED_OUTPUTS) | VARIABLE_OUTPUTS
UNKNOWN_COUNT = -1


def output_count(op: str, attribute, positional) -> int:
    """How many outputs `F.<op>(...)` has (1 for an op absent from the tables above), or
    UNKNOWN_COUNT when it depends on a value the code does not spell out. `attribute(name)` and
    `positional(index)` give an argument's literal value (an int, str, bool, tuple...), None when
    absent, and UNKNOWN_COUNT when present but not a literal; the analysis and the screen each
    read their own syntax trees, and share this decision."""
    if op in FIXED_OUTPUTS:
        return FIXED_OUTPUTS[op]
    if op in VARIABLE_OUTPUTS:
        return UNKNOWN_COUNT
    if op in FLAG_OUTPUTS:
        name, many = FLAG_OUTPUTS[op]
        value = attribute(name)
        if value is UNKNOWN_COUNT:
            return UNKNOWN_COUNT
        if op == "topk":
            return many if isinstance(value, str) and value == "both" else 1
        return many if value else 1
    if op in COUNTED_OUTPUTS:
        value = attribute(COUNTED_OUTPUTS[op])
        if value is None and op in SPLIT_OPS:
            value = positional(1)
        if op == "split_v2" and isinstance(value, (tuple, list)):
            return len(value) + 1  # indices to split at
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        return UNKNOWN_COUNT  # absent (an error in MXNet) or computed
    return 1


# The op namespaces, imperative and symbolic, as qualified names: `nd.relu` is an F op.
NAMESPACE_PREFIXES = ("mxnet.ndarray.", "mxnet.nd.", "mxnet.symbol.", "mxnet.sym.")
# Control-flow ops return Python structures of outputs and states (lists inside tuples).
NESTED_OPS = frozenset({"foreach", "while_loop", "cond", "rand_zipfian"})
# Tensor methods whose result is a Python value; those of the output table give groups, any other a tensor.
PYTHON_METHODS = frozenset({"asnumpy", "asscalar", "item", "tolist", "wait_to_read", "list_arguments",
                            "list_outputs", "infer_shape", "infer_type", "attr", "list_attr"})
# Every public attribute of MXNet 1.9.1's NDArray and Symbol (`dir()`, no underscore): a method
# called on a value that is none of these is not a tensor's, so that value is no tensor.
TENSOR_METHODS = frozenset({"T", "abs", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh", "argmax",
                            "argmax_channel", "argmin", "argsort", "as_in_context", "as_nd_ndarray",
                            "as_np_ndarray", "asnumpy", "asscalar", "astype", "attach_grad", "attr",
                            "attr_dict", "backward", "bind", "broadcast_axes", "broadcast_like",
                            "broadcast_to", "cbrt", "ceil", "clip", "context", "copy", "copyto", "cos",
                            "cosh", "ctx", "debug_str", "degrees", "depth_to_space", "detach", "diag",
                            "dtype", "eval", "exp", "expand_dims", "expm1", "fix", "flatten", "flip", "floor",
                            "get_backend_symbol", "get_children", "get_internals", "grad", "gradient",
                            "handle", "infer_shape", "infer_shape_partial", "infer_type",
                            "infer_type_partial", "list_arguments", "list_attr", "list_auxiliary_states",
                            "list_inputs", "list_outputs", "log", "log10", "log1p", "log2", "log_softmax",
                            "max", "mean", "min", "name", "nanprod", "nansum", "ndim", "norm", "one_hot",
                            "ones_like", "optimize_for", "pad", "pick", "prod", "radians", "rcbrt",
                            "reciprocal", "relu", "repeat", "reshape", "reshape_like", "rint", "round",
                            "rsqrt", "save", "shape", "shape_array", "sigmoid", "sign", "simple_bind", "sin",
                            "sinh", "size", "size_array", "slice", "slice_assign", "slice_assign_scalar",
                            "slice_axis", "slice_like", "softmax", "softmin", "sort", "space_to_depth",
                            "split", "split_v2", "sqrt", "square", "squeeze", "stype", "sum", "swapaxes",
                            "take", "tan", "tanh", "tile", "to_dlpack_for_read", "to_dlpack_for_write",
                            "tojson", "topk", "tostype", "transpose", "trunc", "wait_to_read", "writable",
                            "zeros_like"})
# Methods only a list has: a parameter used with one is a list (its usage evidence).
LIST_METHODS = frozenset({"append", "extend", "insert", "pop", "index", "count"})
# A parameter named with one of these (or ending in "list") is a list of tensors.
STATE_WORDS = ("state", "states")
# Parameter names that are tensors in Gluon although they end in "s".
TENSOR_PLURALS = frozenset({"inputs", "labels", "logits", "scores", "preds", "outputs", "weights", "targets",
                            "masks", "boxes", "anchors", "indices", "ids", "tokens", "positions", "bias", "alphas",
                            "betas", "gammas", "probs", "cls_preds", "box_preds", "means", "stds"})

# HYB002: attributes of a tensor that are Python numbers eagerly and absent on a Symbol.
SHAPE_ATTRIBUTES = frozenset({"shape", "size", "ndim"})
# HYB003
DTYPE_ATTRIBUTES = frozenset({"dtype"})
# HYB004
CONTEXT_ATTRIBUTES = frozenset({"context", "ctx"})
# HYB007: methods and functions that copy a tensor into Python or NumPy.
CONVERSION_METHODS = frozenset({"asnumpy", "asscalar", "item", "tolist"})
CONVERSION_BUILTINS = frozenset({"float", "int", "bool", "complex"})
NUMPY_FUNCTIONS = frozenset({"numpy.array", "numpy.asarray", "numpy.asanyarray"})
# HYB009: the imperative namespaces, as qualified names.
IMPERATIVE_PREFIXES = NAMESPACE_PREFIXES[:2]
# HYB013: calls whose value is frozen into the graph when it is traced.
FROZEN_CALLS = frozenset({"mxnet.autograd.is_training", "mxnet.autograd.is_recording"})
# HYB014: ops that clip an index by default -> (keyword of the index argument, its position).
INDEX_ARGUMENT = {"take": ("indices", 1), "pick": ("index", 1)}
# HYB015: builtins that iterate over an argument (zip: all of them; map, filter: the second on).
ITERATING_BUILTINS = frozenset({"enumerate", "zip", "list", "tuple", "sorted", "reversed", "iter", "sum", "min",
                                "max", "map", "filter", "set", "frozenset", "any", "all"})
# HYB016: modules whose functions draw random numbers in Python, once, when the graph is traced.
PYTHON_RANDOM_PREFIXES = ("numpy.random.", "random.")
# HYB019: NumPy names that NumPy 1.24 or 2.0 removed -> (the same object under a name that works on
# every NumPy, or None where no plain name is one, the version that removed it). `np.bool` and
# `np.long` came back in NumPy 2 with other meanings (NumPy's bool_, the C long); legacy code meant
# Python's bool and int.
REMOVED_NUMPY_NAMES = {
    "numpy.int": ("int", "1.24"), "numpy.float": ("float", "1.24"), "numpy.complex": ("complex", "1.24"),
    "numpy.object": ("object", "1.24"), "numpy.str": ("str", "1.24"), "numpy.bool": ("bool", "1.24"),
    "numpy.long": ("int", "1.24"), "numpy.unicode": ("str", "1.24"),
    "numpy.NaN": ("numpy.nan", "2.0"), "numpy.NAN": ("numpy.nan", "2.0"), "numpy.Inf": ("numpy.inf", "2.0"),
    "numpy.Infinity": ("numpy.inf", "2.0"), "numpy.infty": ("numpy.inf", "2.0"), "numpy.PINF": ("numpy.inf", "2.0"),
    "numpy.NINF": (None, "2.0"), "numpy.PZERO": (None, "2.0"), "numpy.NZERO": (None, "2.0"),
    "numpy.float_": ("numpy.float64", "2.0"), "numpy.complex_": ("numpy.complex128", "2.0"),
    "numpy.cfloat": ("numpy.complex128", "2.0"), "numpy.singlecomplex": ("numpy.complex64", "2.0"),
    "numpy.longfloat": ("numpy.longdouble", "2.0"), "numpy.clongfloat": ("numpy.clongdouble", "2.0"),
    "numpy.longcomplex": ("numpy.clongdouble", "2.0"), "numpy.string_": ("numpy.bytes_", "2.0"),
    "numpy.unicode_": ("numpy.str_", "2.0"), "numpy.round_": ("numpy.round", "2.0"),
    "numpy.product": ("numpy.prod", "2.0"), "numpy.cumproduct": ("numpy.cumprod", "2.0"),
    "numpy.sometrue": ("numpy.any", "2.0"), "numpy.alltrue": ("numpy.all", "2.0"),
}
