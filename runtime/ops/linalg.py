"""`linalg.*` operators: batched matrix products, factorizations and triangles (gemm2 is in tensor.py)."""
from __future__ import annotations

from runtime.kernels import linalg as k
from runtime.registry import Attr, bool_, declare, float_, int_


def _square(shape, name="A"):
    if shape is None:
        return
    if len(shape) < 2:
        raise ValueError("%s must have at least 2 dimensions, got %d" % (name, len(shape)))
    if shape[-1] != shape[-2]:
        raise ValueError("%s must hold square matrices, got (%s)" % (name, ",".join(map(str, shape))))


def _same_as_input(in_shapes, attrs):
    _square(in_shapes[0])
    return in_shapes, [in_shapes[0]]


def _gemm_shapes(in_shapes, attrs):
    a, b, c = in_shapes
    if a is not None and b is not None:
        axis = attrs["axis"] % len(a)
        rows_a, cols_a = (a[-1], a[axis]) if attrs["transpose_a"] else (a[axis], a[-1])
        rows_b, cols_b = (b[-1], b[axis]) if attrs["transpose_b"] else (b[axis], b[-1])
        if cols_a != rows_b:
            raise ValueError("Incompatible matrix dimensions for gemm: %s x %s" % (a, b))
        out = list(a)
        out[axis], out[-1] = rows_a, cols_b
        if c is None:
            in_shapes[2] = c = tuple(out)
        elif tuple(c) != tuple(out):
            raise ValueError("Shape inconsistent, Provided = [%s], inferred shape=(%s)"
                             % (",".join(map(str, c)), ",".join(map(str, out))))
    return in_shapes, [in_shapes[2]]


def _triangle_product_shapes(in_shapes, attrs):
    _square(in_shapes[0])
    return in_shapes, [in_shapes[1]]


def _syrk_shapes(in_shapes, attrs):
    a = in_shapes[0]
    n = a[-1] if attrs["transpose"] else a[-2]
    return in_shapes, [tuple(a[:-2]) + (n, n)]


def _reduce_matrix_shapes(in_shapes, attrs):
    _square(in_shapes[0])
    return in_shapes, [tuple(in_shapes[0][:-2]) or (1,)]


def _extractdiag_shapes(in_shapes, attrs):
    a = in_shapes[0]
    offset = attrs["offset"]
    n = min(a[-2], a[-1] - offset) if offset >= 0 else min(a[-2] + offset, a[-1])
    return in_shapes, [tuple(a[:-2]) + (max(n, 0),)]


def _makediag_shapes(in_shapes, attrs):
    a = in_shapes[0]
    n = a[-1] + abs(attrs["offset"])
    return in_shapes, [tuple(a[:-1]) + (n, n)]


def _extracttrian_shapes(in_shapes, attrs):
    a = in_shapes[0]
    _square(a)
    inner = a[-1] - abs(attrs["offset"])
    return in_shapes, [tuple(a[:-2]) + (inner * (inner + 1) // 2,)]


def _maketrian_shapes(in_shapes, attrs):
    a = in_shapes[0]
    inner = int(round(((8 * a[-1] + 1) ** 0.5 - 1) / 2))
    n = inner + abs(attrs["offset"])
    return in_shapes, [tuple(a[:-1]) + (n, n)]


def _pair_shapes(in_shapes, attrs):
    _square(in_shapes[0])
    batch = tuple(in_shapes[0][:-2])
    return in_shapes, [batch or (1,), batch or (1,)]


def _syevd_shapes(in_shapes, attrs):
    _square(in_shapes[0])
    return in_shapes, [in_shapes[0], tuple(in_shapes[0][:-1])]


def _gelqf_shapes(in_shapes, attrs):
    a = in_shapes[0]
    if a[-2] > a[-1]:
        raise ValueError("gelqf needs a matrix with no more rows than columns, got (%s)" % ",".join(map(str, a)))
    return in_shapes, [a, tuple(a[:-1]) + (a[-2],)]


def _linalg(name, **options):
    return declare("_linalg_" + name, aliases=("linalg_" + name,), **options)


_TRIANGLE = [Attr("transpose", bool_, False), Attr("rightside", bool_, False), Attr("lower", bool_, True),
             Attr("alpha", float_, 1.0)]

_linalg("gemm", inputs=("A", "B", "C"), attrs=[Attr("transpose_a", bool_, False), Attr("transpose_b", bool_, False),
                                               Attr("alpha", float_, 1.0), Attr("beta", float_, 1.0),
                                               Attr("axis", int_, -2)], kernel=k.gemm, infer=_gemm_shapes)
_linalg("potrf", inputs=("A",), attrs=[Attr("lower", bool_, True)], kernel=k.potrf, infer=_same_as_input)
_linalg("potri", inputs=("A",), attrs=[Attr("lower", bool_, True)], kernel=k.potri, infer=_same_as_input)
_linalg("trmm", inputs=("A", "B"), attrs=_TRIANGLE, kernel=k.trmm, infer=_triangle_product_shapes)
_linalg("trsm", inputs=("A", "B"), attrs=_TRIANGLE, kernel=k.trsm, infer=_triangle_product_shapes)
_linalg("syrk", inputs=("A",), attrs=[Attr("transpose", bool_, False), Attr("alpha", float_, 1.0)], kernel=k.syrk,
        infer=_syrk_shapes)
_linalg("sumlogdiag", inputs=("A",), kernel=k.sumlogdiag, infer=_reduce_matrix_shapes)
_linalg("extractdiag", inputs=("A",), attrs=[Attr("offset", int_, 0)], kernel=k.extractdiag,
        infer=_extractdiag_shapes)
_linalg("makediag", inputs=("A",), attrs=[Attr("offset", int_, 0)], kernel=k.makediag, infer=_makediag_shapes)
_linalg("extracttrian", inputs=("A",), attrs=[Attr("offset", int_, 0), Attr("lower", bool_, True)],
        kernel=k.extracttrian, infer=_extracttrian_shapes)
_linalg("maketrian", inputs=("A",), attrs=[Attr("offset", int_, 0), Attr("lower", bool_, True)],
        kernel=k.maketrian, infer=_maketrian_shapes)
_linalg("inverse", inputs=("A",), kernel=k.inverse, infer=_same_as_input)
_linalg("det", inputs=("A",), kernel=k.det, infer=_reduce_matrix_shapes)
_linalg("slogdet", inputs=("A",), kernel=k.slogdet, infer=_pair_shapes, num_outputs=2)
_linalg("syevd", inputs=("A",), kernel=k.syevd, infer=_syevd_shapes, num_outputs=2)
_linalg("gelqf", inputs=("A",), kernel=k.gelqf, infer=_gelqf_shapes, num_outputs=2)
