"""The names rules look for, kept apart from the rules so that the screen (which runs before libcst
is even imported) reads the very same sets."""
from __future__ import annotations

# Python builtins whose result the analysis takes for a plain Python value.
PYTHON_BUILTINS = frozenset({"len", "range", "int", "float", "bool", "str", "isinstance", "hasattr", "getattr",
                             "enumerate", "zip", "list", "tuple", "dict", "set", "min", "max", "sum", "abs",
                             "round", "sorted", "reversed", "type", "id", "repr", "format", "any", "all",
                             "super"})

# What the analysis takes a value for (the screen mirrors it, over-approximating).
# F ops whose result is several outputs (integer indexing legal); the split family gives one
# tensor when asked for one output.
SPLIT_OPS = frozenset({"split", "SliceChannel", "split_v2"})
GROUP_OPS = SPLIT_OPS | {"bipartite_matching", "MultiBoxTarget", "box_encode", "gelqf", "syevd", "amp_multicast",
                         "meshgrid"}
# The op namespaces, imperative and symbolic, as qualified names: `nd.relu` is an F op.
NAMESPACE_PREFIXES = ("mxnet.ndarray.", "mxnet.nd.", "mxnet.symbol.", "mxnet.sym.")
# Control-flow ops return Python structures of outputs and states (lists inside tuples).
NESTED_OPS = frozenset({"foreach", "while_loop", "cond"})
# Tensor methods whose result is a group, or a Python value; any other gives a tensor.
GROUP_METHODS = frozenset({"split", "split_v2"})
PYTHON_METHODS = frozenset({"asnumpy", "asscalar", "item", "tolist", "wait_to_read", "list_arguments",
                            "list_outputs", "infer_shape", "infer_type", "attr", "list_attr"})
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
