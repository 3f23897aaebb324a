"""Sparse storage: the storage operators, and which storage (row_sparse, csr or dense) each
operator's result has given its inputs' storage, as MXNet 1.9.1 infers it (recorded in
tests/data/sparse_storage.json by tools/record_sparse_cases.py). An operator without a rule here
gives a dense result, as MXNet's dense fallback does."""
from __future__ import annotations

from runtime.kernels import sparse as k
import numpy as np

from runtime.registry import (Attr, axis_, bool_, choice, declare, gradient_of, int_, optional, storage_of,
                              uniform_types)

SPARSE = ("row_sparse", "csr")

# the operators MXNet 1.9.1 offers in `mx.nd.sparse` and `mx.sym.sparse`, under the names it uses there
NAMESPACE = ("ElementWiseSum", "Embedding", "FullyConnected", "LinearRegressionOutput", "LogisticRegressionOutput",
             "MAERegressionOutput", "abs", "adagrad_update", "adam_update", "add_n", "arccos", "arccosh", "arcsin",
             "arcsinh", "arctan", "arctanh", "broadcast_add", "broadcast_div", "broadcast_minus", "broadcast_mul",
             "broadcast_plus", "broadcast_sub", "cast_storage", "cbrt", "ceil", "clip", "concat", "cos", "cosh",
             "degrees", "dot", "elemwise_add", "elemwise_div", "elemwise_mul", "elemwise_sub", "exp", "expm1", "fix",
             "floor", "ftrl_update", "gamma", "gammaln", "log", "log10", "log1p", "log2", "make_loss", "mean",
             "negative", "norm", "radians", "relu", "rint", "round", "rsqrt", "sgd_mom_update", "sgd_update",
             "sigmoid", "sign", "sin", "sinh", "slice", "sqrt", "square", "stop_gradient", "sum", "tan", "tanh",
             "trunc", "where", "zeros_like")


def namespace_functions(function_for):
    """{name in the sparse namespace: the namespace's function for the operator} (retain is _sparse_retain)."""
    from runtime.registry import REGISTRY
    functions = {name: function_for(name) for name in NAMESPACE if name in REGISTRY}
    functions["retain"] = function_for("_sparse_retain")
    return functions


def _result_stype(in_stypes, attrs):
    return attrs["stype"]


declare("cast_storage", attrs=[Attr("stype", choice("default", "row_sparse", "csr"), required=True)],
        kernel=k.cast_storage, infer=lambda s, a: (s, [s[0]]), storage=_result_stype, makes_sparse=True)
declare("_sparse_retain", inputs=("data", "indices"), kernel=k.retain, aliases=("sparse_retain",),
        infer=lambda s, a: (s, [s[0]]), storage=lambda s, a: "row_sparse", types=uniform_types(free=("indices",)))
declare("_contrib_getnnz", attrs=[Attr("axis", optional(int_), None)], kernel=k.getnnz,
        types=lambda in_dtypes, attrs, names: (in_dtypes, "int64"))
declare("_square_sum", attrs=[Attr("axis", axis_, None), Attr("keepdims", bool_, False),
                              Attr("exclude", bool_, False)], kernel=k.square_sum)


@storage_of("abs", "sign", "round", "rint", "ceil", "floor", "trunc", "fix", "square", "sqrt", "cbrt", "sin", "tan",
            "arcsin", "arctan", "sinh", "tanh", "arcsinh", "arctanh", "expm1", "log1p", "relu", "degrees", "radians",
            "negative", "zeros_like", "stop_gradient", "make_loss", "_mul_scalar", "_div_scalar", "identity")
def _keeps_storage(in_stypes, attrs):
    """f(0) == 0: zeros stay zeros, so the result keeps the input's storage."""
    return in_stypes[0]


def _false_at_zero(compare):
    """A comparison false at zero (`x > 0`, `x == 1`) keeps the input's storage; one true there is dense."""
    def rule(in_stypes, attrs):
        return in_stypes[0] if not compare(0.0, attrs["scalar"]) else "default"
    return rule


for _name, _compare in (("equal", np.equal), ("not_equal", np.not_equal), ("greater", np.greater),
                        ("greater_equal", np.greater_equal), ("lesser", np.less), ("lesser_equal", np.less_equal)):
    storage_of("_%s_scalar" % _name)(_false_at_zero(_compare))


@storage_of("_contrib_quadratic")
def _quadratic(in_stypes, attrs):
    """a x^2 + b x + c keeps a csr input's storage when c is 0 (MXNet has no row_sparse kernel for it)."""
    return "csr" if in_stypes[0] == "csr" and attrs["c"] == 0 else "default"


@storage_of("elemwise_add", "elemwise_sub")
def _same_sparse(in_stypes, attrs):
    """Two arrays of one sparse storage add in it; any other pair falls back to dense."""
    return in_stypes[0] if in_stypes[0] == in_stypes[1] and in_stypes[0] in SPARSE else "default"


@storage_of("add_n")
def _all_row_sparse(in_stypes, attrs):
    return "row_sparse" if all(s == "row_sparse" for s in in_stypes) else "default"


@storage_of("elemwise_mul")
def _product(in_stypes, attrs):
    """A product is zero where either factor is: one sparse factor (times dense or the same
    storage) keeps its storage."""
    sparse = set(in_stypes) - {"default"}
    return sparse.pop() if len(sparse) == 1 else "default"


@storage_of("broadcast_mul", "broadcast_div")
def _csr_scaled(in_stypes, attrs):
    return "csr" if in_stypes == ["csr", "default"] else "default"


@storage_of("dot")
def _dot(in_stypes, attrs):
    lhs, rhs = in_stypes
    if lhs == "default" and rhs == "csr" and not attrs["transpose_a"]:
        return "csr"
    if lhs == "csr" and attrs["transpose_a"] and not attrs["transpose_b"] and rhs in ("default", "row_sparse"):
        return "row_sparse"
    return "default"


@storage_of("slice", "take")
def _csr_rows(in_stypes, attrs):
    return "csr" if in_stypes[0] == "csr" else "default"


@storage_of("concat")
def _concat(in_stypes, attrs):
    return "csr" if attrs.get("dim", 1) == 0 and all(s == "csr" for s in in_stypes) else "default"


@storage_of("_square_sum")
def _square_sum(in_stypes, attrs):
    return "row_sparse" if in_stypes[0] == "row_sparse" and attrs["axis"] == 1 and attrs["keepdims"] else "default"


@gradient_of("cast_storage")
def _cast_storage_gradient(inputs, outputs, out_grads, stype):
    return [out_grads[0]]


@gradient_of("_sparse_retain")
def _retain_gradient(inputs, outputs, out_grads):
    return [k.retain(out_grads[0], inputs[1]), None]


@gradient_of("_square_sum")
def _square_sum_gradient(inputs, outputs, out_grads, axis=None, keepdims=False, exclude=False):
    data = inputs[0]
    grad = out_grads[0]
    if axis is not None and not keepdims:
        axes = (axis,) if isinstance(axis, int) else tuple(axis)
        if exclude:
            axes = tuple(a for a in range(data.ndim) if a not in [x % data.ndim for x in axes])
        grad = np.expand_dims(grad, tuple(a % data.ndim for a in axes))
    return [2 * data * grad]
