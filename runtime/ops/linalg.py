"""`linalg.*` operators: batched matrix products, factorizations and triangles.

Shape inference rejects what MXNet 1.9.1's does, in its words; potrf, potri and sumlogdiag check
their matrices only when they run (as MXNet does). Every operator takes float32 or float64 only.
"""
from __future__ import annotations

from runtime.kernels import linalg as k
from runtime.registry import Attr, bool_, declare, float_, int_, shape_inconsistent, uniform_types


def _require(ok, words, left=None, right=None):
    if not ok:
        raise ValueError(words if left is None else "%s (%s vs. %s)" % (words, left, right))


def _float_types(in_dtypes, attrs, names):
    in_dtypes, dtype = uniform_types()(in_dtypes, attrs, names)
    if dtype is not None and dtype not in ("float32", "float64"):
        raise ValueError("This operation only supports 32-bit and 64-bit floating point")
    return in_dtypes, dtype


def _product_shape(a, b, attrs):
    """op(A) op(B) of matrices whose rows lie on `axis` and columns on the last axis; None where the
    shapes do not say (no shape, or operands of different ranks: MXNet then infers nothing)."""
    if a is None or b is None or len(a) < 2 or len(a) != len(b):
        return None
    ndim = len(a)
    axis = attrs["axis"] + ndim if attrs["axis"] < 0 else attrs["axis"]
    _require(0 <= axis < ndim - 1, "Invalid row axis (%d)" % attrs["axis"])
    for i in range(ndim - 1):
        if i != axis:
            _require(a[i] == b[i], "Shapes of inputs 0, 1 must be the same, except on row/col axis", a[i], b[i])
    inner_a = a[axis] if attrs["transpose_a"] else a[-1]
    inner_b = b[-1] if attrs["transpose_b"] else b[axis]
    _require(inner_a == inner_b, "Incompatible matrix dimensions for multiplication", inner_a, inner_b)
    out = list(a)
    out[axis] = a[-1] if attrs["transpose_a"] else a[axis]
    out[-1] = b[axis] if attrs["transpose_b"] else b[-1]
    return tuple(out)


def _gemm_shapes(in_shapes, attrs):
    out = _product_shape(in_shapes[0], in_shapes[1], attrs)
    c = in_shapes[2]
    if out is not None:
        if c is None:
            in_shapes[2] = out
        elif tuple(c) != out:
            raise ValueError(shape_inconsistent(c, out, brackets=True))
    return in_shapes, [in_shapes[2]]


def _gemm2_shapes(in_shapes, attrs):
    return in_shapes, [_product_shape(in_shapes[0], in_shapes[1], attrs)]


def _triangle_product_shapes(in_shapes, attrs):
    a, b = in_shapes
    if a is not None and b is not None and len(a) >= 2 and len(a) == len(b):
        _require(a[-2] == a[-1], "First operand must be a tensor of square matrices", a[-2], a[-1])
        for i in range(len(a) - 2):
            _require(a[i] == b[i], "Shapes of inputs 0, 1 must be the same, except on last two dimensions",
                     a[i], b[i])
        if attrs["rightside"]:
            _require(a[-2] == b[-1], "Incompatible matrix dimensions for multiplication", a[-2], b[-1])
        else:
            _require(b[-2] == a[-1], "Incompatible matrix dimensions for multiplication", b[-2], a[-1])
    return in_shapes, [b]


def _same_shape(in_shapes, attrs):
    return in_shapes, [in_shapes[0]]


def _syrk_shapes(in_shapes, attrs):
    a = in_shapes[0]
    _require(a is not None and len(a) >= 2, "Operator _linalg_syrk inferring shapes failed.")
    n = a[-1] if attrs["transpose"] else a[-2]
    return in_shapes, [tuple(a[:-2]) + (n, n)]


def _matrix_reduce_shapes(in_shapes, attrs):
    """One value per matrix; a single matrix gives shape (1,)."""
    return in_shapes, [tuple(in_shapes[0][:-2]) or (1,)]


def _square_matrices(a):
    _require(len(a) >= 2, "Input A's dimension must be >= 2", len(a), 2)
    _require(a[-2] == a[-1], "Input A's last two dimension must be equal", a[-2], a[-1])


def _inverse_shapes(in_shapes, attrs):
    _square_matrices(in_shapes[0])
    return in_shapes, [in_shapes[0]]


def _det_shapes(in_shapes, attrs):
    _square_matrices(in_shapes[0])
    return _matrix_reduce_shapes(in_shapes, attrs)


def _slogdet_shapes(in_shapes, attrs):
    _square_matrices(in_shapes[0])
    batch = tuple(in_shapes[0][:-2]) or (1,)
    return in_shapes, [batch, batch]


def _extracted_size(a, offset):
    _require(len(a) >= 2, "Input operand must be a tensor of matrices", len(a), 2)
    _require(a[-2] == a[-1], "Input operand must be a tensor of square matrices", a[-2], a[-1])
    n = a[-1] - abs(offset)
    _require(n > 0, "Illegal offset %d for diag/trian extraction of matrix with dimension %d" % (offset, len(a)))
    return n


def _extractdiag_shapes(in_shapes, attrs):
    a = in_shapes[0]
    return in_shapes, [tuple(a[:-2]) + (_extracted_size(a, attrs["offset"]),)]


def _extracttrian_shapes(in_shapes, attrs):
    a = in_shapes[0]
    n = _extracted_size(a, attrs["offset"])
    return in_shapes, [tuple(a[:-2]) + (n * (n + 1) // 2,)]


def _makediag_shapes(in_shapes, attrs):
    a = in_shapes[0]
    n = a[-1] + abs(attrs["offset"])
    return in_shapes, [tuple(a[:-1]) + (n, n)]


def _maketrian_shapes(in_shapes, attrs):
    a = in_shapes[0]
    count = a[-1]
    inner = int(0.5 + ((8 * count + 1) ** 0.5 - 1) * 0.5)
    _require(inner * (inner + 1) // 2 == count,
             "Input tensor of maketrian has an invalid dimension for the last axis.", inner * (inner + 1) // 2, count)
    n = inner + abs(attrs["offset"])
    return in_shapes, [tuple(a[:-1]) + (n, n)]


def _syevd_shapes(in_shapes, attrs):
    a = in_shapes[0]
    _require(len(a) >= 2 and a[-2] == a[-1], "Input A shape wrong: Last two dimensions must be equal",
             a[-2] if len(a) > 1 else 1, a[-1])
    return in_shapes, [a, tuple(a[:-1])]


def _gelqf_shapes(in_shapes, attrs):
    a = in_shapes[0]
    _require(len(a) >= 2, "Operator _linalg_gelqf inferring shapes failed.")
    _require(a[-2] <= a[-1], "Input A shape wrong: Last dimension must be >= than second to last", a[-2], a[-1])
    return in_shapes, [a, tuple(a[:-1]) + (a[-2],)]


def _linalg(name, infer, num_outputs=1, inputs=("A",), aliases=(), **options):
    def known_input(in_shapes, attrs):
        if len(in_shapes) == 1 and in_shapes[0] is None:  # one operand of unknown shape: nothing to infer yet
            return in_shapes, [None] * num_outputs
        return infer(in_shapes, attrs)

    def check(in_shapes, attrs):
        known_input(in_shapes, attrs)
    # a one-operand operator's eager call skips shape inference unless it has a check: it needs one
    # to reject bad shapes (and dtypes) in MXNet's words rather than fail inside the kernel
    if len(inputs) == 1:
        options["check"] = check
    return declare("_linalg_" + name, inputs=inputs, aliases=("linalg_" + name,) + aliases, types=_float_types,
                   bracket_shapes=True, infer=known_input, num_outputs=num_outputs, **options)


_TRANSPOSES = [Attr("transpose_a", bool_, False), Attr("transpose_b", bool_, False), Attr("alpha", float_, 1.0)]
_TRIANGLE = [Attr("transpose", bool_, False), Attr("rightside", bool_, False), Attr("lower", bool_, True),
             Attr("alpha", float_, 1.0)]

_linalg("gemm", inputs=("A", "B", "C"), attrs=_TRANSPOSES + [Attr("beta", float_, 1.0), Attr("axis", int_, -2)],
        kernel=k.gemm, infer=_gemm_shapes)
_linalg("gemm2", inputs=("A", "B"), attrs=_TRANSPOSES + [Attr("axis", int_, -2)], kernel=k.gemm2,
        infer=_gemm2_shapes, aliases=("linalg.gemm2",))
_linalg("potrf", attrs=[Attr("lower", bool_, True)], kernel=k.potrf, infer=_same_shape)
_linalg("potri", attrs=[Attr("lower", bool_, True)], kernel=k.potri, infer=_same_shape)
_linalg("trmm", inputs=("A", "B"), attrs=_TRIANGLE, kernel=k.trmm, infer=_triangle_product_shapes)
_linalg("trsm", inputs=("A", "B"), attrs=_TRIANGLE, kernel=k.trsm, infer=_triangle_product_shapes)
_linalg("syrk", attrs=[Attr("transpose", bool_, False), Attr("alpha", float_, 1.0)], kernel=k.syrk,
        infer=_syrk_shapes)
_linalg("sumlogdiag", kernel=k.sumlogdiag, infer=_matrix_reduce_shapes)
_linalg("extractdiag", attrs=[Attr("offset", int_, 0)], kernel=k.extractdiag,
        infer=_extractdiag_shapes)
_linalg("makediag", attrs=[Attr("offset", int_, 0)], kernel=k.makediag, infer=_makediag_shapes)
_linalg("extracttrian", attrs=[Attr("offset", int_, 0), Attr("lower", bool_, True)],
        kernel=k.extracttrian, infer=_extracttrian_shapes)
_linalg("maketrian", attrs=[Attr("offset", int_, 0), Attr("lower", bool_, True)],
        kernel=k.maketrian, infer=_maketrian_shapes)
_linalg("inverse", kernel=k.inverse, infer=_inverse_shapes)
_linalg("det", kernel=k.det, infer=_det_shapes)
_linalg("slogdet", kernel=k.slogdet, infer=_slogdet_shapes, num_outputs=2)
_linalg("syevd", kernel=k.syevd, infer=_syevd_shapes, num_outputs=2)
_linalg("gelqf", kernel=k.gelqf, infer=_gelqf_shapes, num_outputs=2)
