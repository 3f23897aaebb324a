"""The indexing rewrite reproduces MXNet 1.x legacy NDArray indexing: NumPy's result, never 0-d
(the rewritten code runs on the project's runtime, eagerly and as a bound symbol)."""
import libcst as cst
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from hyblint.fixes._code import code
from hyblint.fixes.indexing import rewrite_index
import runtime


def rewrite(src: str, **kwargs):
    node = cst.parse_expression(src)
    new = rewrite_index(node.value, node.slice, "F", **kwargs)
    return None if new is None else code(new)


@pytest.mark.parametrize("src, expected", [
    ("x[0]", "F.squeeze(F.slice_axis(x, axis=0, begin=0, end=1), axis=0)"),
    ("x[-1]", "F.squeeze(F.slice_axis(x, axis=0, begin=-1, end=None), axis=0)"),
    ("x[-2]", "F.squeeze(F.slice_axis(x, axis=0, begin=-2, end=-1), axis=0)"),
    ("x[0, 0]", "F.squeeze(F.slice(x, begin=(0, 0), end=(1, 1)), axis=(0, 1))"),
    ("x[(0, 1)]", "F.squeeze(F.slice(x, begin=(0, 1), end=(1, 2)), axis=(0, 1))"),
    ("x[:, 1:3]", "F.slice_axis(x, axis=1, begin=1, end=3)"),
    ("x[:, :-1]", "F.slice_axis(x, axis=1, begin=0, end=-1)"),
    ("x[1:, 0]", "F.squeeze(F.slice(x, begin=(1, 0), end=(None, 1)), axis=1)"),
    ("x[..., 0]", "F.squeeze(F.slice_axis(x, axis=-1, begin=0, end=1), axis=-1)"),
    ("x[..., -1]", "F.squeeze(F.slice_axis(x, axis=-1, begin=-1, end=None), axis=-1)"),
    ("x[:, None]", "F.expand_dims(x, axis=1)"),
    ("x[None, ..., None]", "F.expand_dims(F.expand_dims(x, axis=0), axis=-1)"),
    ("x[::-1]", "F.reverse(x, axis=0)"),
    ("x[2::-1]", "F.slice(x, begin=(2,), end=(None,), step=(-1,))"),
    ("x[0, ::2]", "F.squeeze(F.slice(x, begin=(0, None), end=(1, None), step=(None, 2)), axis=0)"),
    ("x[self.k]",
     "F.squeeze(F.slice_axis(x, axis=0, begin=self.k, end=self.k + 1 or None), axis=0)"),
    ("x[:, self.a:self.b]", "F.slice_axis(x, axis=1, begin=self.a, end=self.b)"),
    ("x[0][1]", "F.squeeze(F.slice_axis(x[0], axis=0, begin=1, end=2), axis=0)"),
    ("x[:]", "x"),
])
def test_canonical_rewrites(src, expected):
    assert rewrite(src) == expected


def test_local_int_names_are_used_when_the_caller_knows_them():
    assert rewrite("x[i]") is None  # unknown: could be an index array
    assert rewrite("x[i]", is_int=lambda n: isinstance(n, cst.Name)) == (
        "F.squeeze(F.slice_axis(x, axis=0, begin=i, end=i + 1 or None), axis=0)")
    assert rewrite("x[n - 1]", is_int=lambda n: True) == (
        "F.squeeze(F.slice_axis(x, axis=0, begin=(n - 1), end=(n - 1) + 1 or None), axis=0)")


def test_index_array_becomes_take_with_wrap():
    assert rewrite("x[idx]", is_index_array=lambda n: True) == "F.take(x, idx, mode='wrap')"
    assert rewrite("x[idx, 0]", is_index_array=lambda n: isinstance(n, cst.Name)) is None
    assert rewrite("x[rows, cols]", is_index_array=lambda n: True) == "F.gather_nd(x, F.stack(rows, cols))"


@pytest.mark.parametrize("src", ["x[..., ::2]", "x[..., ::-1]", "x[0, ..., ...]", "x[*a]", "x[1:2:0]", "x[::0]", "x[0, ::-0]",
                                 "x[t]", "x[0.5]", "x[:, t:3]"])
def test_no_rewrite_without_an_equivalent(src):
    assert rewrite(src) is None


def test_end_is_never_zero_for_negative_one():
    for src in ("x[-1]", "x[0, -1]", "x[..., -1]", "x[-1, :, -1]"):
        assert "end=0" not in rewrite(src) and ", 0)" not in rewrite(src).split("end=")[1]


def legacy_index(a, index):
    """What MXNet 1.x legacy NDArray indexing returns: NumPy's result, never 0-d."""
    out = a[index]
    return out.reshape(1) if out.ndim == 0 else out


@st.composite
def shapes_and_indices(draw):
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=4)))
    kinds = draw(st.lists(st.sampled_from(["int", "slice", "full", "none", "ellipsis"]),
                          min_size=1, max_size=5))
    if kinds.count("ellipsis") > 1:
        first = kinds.index("ellipsis")
        kinds = [k for i, k in enumerate(kinds) if k != "ellipsis" or i == first]
    consumed = sum(k in ("int", "slice", "full") for k in kinds)
    if consumed > len(shape):
        kinds = [k for k in kinds if k not in ("int", "slice", "full")] or ["none"]
    split = kinds.index("ellipsis") if "ellipsis" in kinds else len(kinds)
    front = [k for k in kinds[:split] if k in ("int", "slice", "full")]
    back = [k for k in kinds[split + 1:] if k in ("int", "slice", "full")]
    axes = iter(list(range(len(front))) + list(range(len(shape) - len(back), len(shape))))
    items, texts = [], []
    for kind in kinds:
        if kind == "none":
            items.append(None); texts.append("None"); continue
        if kind == "ellipsis":
            items.append(Ellipsis); texts.append("..."); continue
        n = shape[next(axes)]
        if kind == "full":
            items.append(slice(None)); texts.append(":"); continue
        if kind == "int":
            i = draw(st.integers(-n, n - 1))
            items.append(i); texts.append(str(i)); continue
        bound = st.one_of(st.none(), st.integers(-n, n))
        lo, hi = draw(bound), draw(bound)
        step = draw(st.sampled_from([None, 1, 2, -1, -2]))
        items.append(slice(lo, hi, step))
        texts.append(":".join("" if v is None else str(v) for v in (lo, hi, step)))
    return shape, tuple(items), "x[" + ", ".join(texts) + "]"


@settings(max_examples=300, deadline=None)
@given(shapes_and_indices())
def test_rewrite_matches_legacy_indexing(case):
    shape, index, src = case
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    expected = legacy_index(x, index)
    if 0 in expected.shape:
        return  # empty selections: MXNet rejects most of them either way
    text = rewrite(src)
    if text is None:
        # only steps on axes counted from the end have no rewrite
        assert "..." in src
        return
    got = eval(text, {"F": runtime.nd, "x": runtime.nd.array(x)}).asnumpy()
    assert got.shape == expected.shape, (src, text)
    np.testing.assert_array_equal(got, expected)
    symbol = eval(text, {"F": runtime.sym, "x": runtime.sym.var("x")})
    bound = symbol.bind(runtime.cpu(), {"x": runtime.nd.array(x)}).forward()[0].asnumpy()
    np.testing.assert_array_equal(bound, expected)


def test_only_ints_by_construction_become_positions():
    from hyblint.engine import check_source
    from hyblint.rules.base import hybrid_block
    from hyblint.settings import Settings

    def fix_of(body):
        found = check_source(hybrid_block(body), "e.py", Settings(select=("HYB001",)))
        assert [d.code for d in found] == ["HYB001"]
        return found[0].fix.edits[0].content if found[0].fix else None

    assert fix_of("idx = [0, 2]\nreturn x[idx]") is None  # a list index: advanced indexing
    assert fix_of("n = 1\nn = [n]\nreturn x[n]") is None
    assert fix_of("i = len(self.layers) - 1\nreturn x[i]") == (
        "F.squeeze(F.slice_axis(x, axis=0, begin=i, end=i + 1 or None), axis=0)")
    assert fix_of("for i, _ in enumerate(self.layers):\n    x = x[:, i:]\nreturn x") == (
        "F.slice_axis(x, axis=1, begin=i, end=None)")
    assert fix_of("b, c, h, w = self.shape_of(x)\nreturn x[:, :c]") is None
    assert fix_of("i = F.argmax(x, axis=0)\nreturn x[i]") == "F.take(x, i, mode='wrap')"


def _diagnostics(body, code="HYB001", args="x"):
    from hyblint.engine import check_source
    from hyblint.rules.base import hybrid_block
    from hyblint.settings import Settings
    return [d for d in check_source(hybrid_block(body, args=args), "e.py", Settings(select=(code,)))]


def test_a_zero_step_is_flagged_without_a_fix():
    # `x[1:2:0]` raises ValueError eagerly; rewritten to `x` it would return the whole tensor
    found = _diagnostics("return x[1:2:0]")
    assert [d.code for d in found] == ["HYB001"] and found[0].fix is None


def test_the_take_rewrite_of_an_index_array_is_unsafe():
    # x[idx] raises IndexError for an index past either end; mode='wrap' wraps it silently
    from hyblint.fixer import fix_source
    from hyblint.rules.base import hybrid_block
    found = _diagnostics("return x[idx]", args="x, idx")
    assert found[0].fix.applicability.value == "unsafe"
    source = hybrid_block("return x[idx]", args="x, idx")
    assert fix_source(source, "e.py").source == source
    # one index array per axis: gather_nd raises on those indices as the original does
    found = _diagnostics("return x[idx, col]", args="x, idx, col")
    assert found[0].fix.applicability.value == "safe"


def test_comments_inside_a_subscript_keep_it_unfixed():
    found = _diagnostics("return x[\n    0,  # first row\n    1:3,  # columns\n]")
    assert [d.code for d in found] == ["HYB001"] and found[0].fix is None
    # a comment inside a part that the rewrite copies through is kept, so the fix is offered
    found = _diagnostics("return x[(self.k  # the row\n         )]")
    assert "# the row" in found[0].fix.edits[0].content
    # HYB005's rewrite of a store into a subscript drops nothing either
    found = _diagnostics("y = F.relu(x)\ny[\n    0  # the first row\n] = 2\nreturn y", code="HYB005")
    assert [d.code for d in found] == ["HYB005"] and found[0].fix is None


@pytest.mark.parametrize("body", [
    "y = F.relu(x)\ny[0][1] = 2\nreturn y",
    "y = F.relu(x)\ny[0][1:3] = 2\nreturn y",
    "y = F.relu(x)\ny[0][1] += 2\nreturn y",
    "y = F.relu(x)\ny[0][1]: int = 2\nreturn y",
    "y = F.relu(x)\ny[0][0][1] = 2\nreturn y",
    "y = F.relu(x)\ny[0].data[1] = 2\nreturn y",
    "y = F.relu(x)\n(y[0][1], z) = 2, 3\nreturn y",
    "y = F.relu(x)\na, *y[0][1:] = 2, 3\nreturn y",
    "y = F.relu(x)\ndel y[0][1]\nreturn y",
    "y = F.relu(x)\nfor y[0][1] in range(3):\n    pass\nreturn y",
    "y = F.relu(x)\nz = [0 for y[0][1] in range(3)]\nreturn y",
])
def test_a_store_through_a_subscript_is_never_hyb001s(body):
    # `y[0][1] = 2` writes into y through the view y[0] (measured on MXNet 1.9.1): rewriting
    # `y[0]` would make the store land in a temporary and leave y unchanged
    assert _diagnostics(body) == []
    from hyblint.fixer import fix_source
    from hyblint.rules.base import hybrid_block
    from hyblint.settings import Settings
    source = hybrid_block(body)
    assert fix_source(source, "e.py", Settings(select=("HYB001",)), unsafe=True).source == source
