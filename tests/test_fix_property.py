"""Property: for generated hybrid_forward bodies mixing every fixable pattern (nested in one
another, several per statement, with comments), the fixed module parses, keeps every comment,
leaves no applicable fix behind, and a second fix changes nothing."""
import ast
import io
import tokenize

from hypothesis import HealthCheck, given, settings, strategies as st

from hyblint.fixer import fix_source
from hyblint.settings import Settings

NAMES = ["x", "y", "h"]
INDEX_ITEMS = ["0", "-1", "1", ":", "1:", ":-1", "::2", "::-1", "None", "self.k", "n"]


@st.composite
def tensor(draw, depth=0):
    """A tensor expression, possibly built from other fixable expressions."""
    name = draw(st.sampled_from(NAMES))
    if depth >= 2:
        return name
    inner = draw(tensor(depth=depth + 1))
    choice = draw(st.integers(0, 11))
    if choice == 0:
        items = draw(st.lists(st.sampled_from(INDEX_ITEMS), min_size=1, max_size=3))
        if draw(st.booleans()):
            items.insert(draw(st.integers(0, len(items))), "...")
        return "%s[%s]" % (inner if inner.isidentifier() else "(%s)" % inner, ", ".join(items))
    if choice == 1:
        return "nd.relu(%s)" % inner
    if choice == 2:
        return "mx.nd.concat(%s, %s, dim=1)" % (inner, name)
    if choice == 3:
        return "%s.reshape(-1, %d)" % (name, draw(st.integers(1, 4)))
    if choice == 4:
        return "%s.reshape((%s.shape[0], -1))" % (name, name)
    if choice == 5:
        return "F.take(%s, F.full((1,), -1))" % inner
    if choice == 6:
        return "F.zeros(%s.shape)" % name
    if choice == 7:
        return "(%s + %s)" % (inner, name)
    if choice == 8:
        return "(%s if F.sum(%s) > 0 else %s)" % (inner, name, name)
    if choice == 9:
        return "%s.reshape(%s.shape[:1] + (-1,))" % (name, name)
    if choice == 10:
        return "%s[F.argmax(%s, axis=1)]" % (name, inner)
    return "F.relu(%s)" % inner


@st.composite
def statement(draw):
    target = draw(st.sampled_from(["a", "b"]))
    value = draw(tensor())
    kind = draw(st.integers(0, 5))
    comment = draw(st.sampled_from(["", "  # note", "  # noqa: HYB010"]))
    if kind == 0:
        return ["%s = %s%s" % (target, value, comment)]
    if kind == 1:
        return ["%s = F.relu(x)" % target, "%s += %s%s" % (target, value, comment)]
    if kind == 2:
        return ["%s = F.relu(x)" % target,
                "%s[%s] = %s%s" % (target, draw(st.sampled_from(["0", "-1", "1:3", ":"])),
                                   draw(st.sampled_from(["2", "-0.5", "x"])), comment)]
    if kind == 3:
        # the unsafe F.where fix replaces the whole if/else, its comments included
        return ["if F.sum(x) > 0:%s" % ("  # cond" if comment else ""), "    %s = %s" % (target, value), "else:",
                "    %s = -x" % target]
    if kind == 4:
        return ["b_, c_, h_, w_ = x.shape", "%s = x.reshape((b_, c_, h_ * w_))%s" % (target, comment)]
    return ["%s = F.broadcast_add(%s, y)%s" % (target, value, comment)]


@st.composite
def module(draw):
    body = ["n = 2"]
    for _ in range(draw(st.integers(1, 5))):
        body.extend(draw(statement()))
    body.append("return a if False else x  # end")
    lines = "\n".join("        " + line for line in body)
    return ("import mxnet as mx\nfrom mxnet import nd\nfrom mxnet.gluon import nn\n\n\n"
            "class Net(nn.HybridBlock):\n    k = 1\n\n    def hybrid_forward(self, F, x, y, h):\n"
            "        # body\n" + lines + "\n")


def comments(text):
    return [t.string for t in tokenize.generate_tokens(io.StringIO(text).readline)
            if t.type == tokenize.COMMENT]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(module(), st.booleans())
def test_fixed_module_parses_and_fixing_again_changes_nothing(source, unsafe):
    ast.parse(source)
    config = Settings(extend_select=("HYB012",)) if unsafe else Settings()
    result = fix_source(source, "gen.py", config, unsafe=unsafe)
    ast.parse(result.source)
    assert result.dropped == []
    before = [c for c in comments(source) if c != "# cond"]
    after = [c for c in comments(result.source) if c != "# cond"]
    assert after == before  # every comment outside a rewritten if/else stays, in order
    applicable = [d for d in result.remaining if d.fix is not None
                  and (unsafe or d.fix.applicability.value == "safe")]
    assert applicable == []
    again = fix_source(result.source, "gen.py", config, unsafe=unsafe)
    assert again.source == result.source
    assert again.applied == []
