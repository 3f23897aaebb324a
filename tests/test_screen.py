"""The `ast` screen that spares libcst the methods where no rule can report: it must never clear a
method that the full check reports in, and it should clear the clean code Gluon is full of."""
import ast
import textwrap

import pytest
from hypothesis import example, given, settings, strategies as st

from hyblint import engine, triage
from hyblint.analysis.kinds import Kind
from hyblint.analysis.module import collect_imports
from hyblint.analysis.screen import SCREENED_CODES, may_report
from hyblint.engine import check_source
from hyblint.rules import ALL_RULES
from hyblint.rules.base import hybrid_block
from hyblint.settings import Settings

IMPORTS = "import numpy as np\nfrom mxnet import autograd\n"


def methods_of(source):
    """Each hybrid_forward of a module, dedented as the engine cuts it out."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef) and node.name == "hybrid_forward":
            yield textwrap.dedent(ast.get_source_segment(source, node, padded=True))


def cleared(body, args="x", children=None):
    source = hybrid_block(body, args=args, imports=IMPORTS)
    (method,) = methods_of(source)
    return not may_report(method, collect_imports(source), children=children)


def forget():
    engine._SNIPPET_CACHE.clear()
    triage._VERDICTS.clear()


def unscreened(monkeypatch):
    monkeypatch.setattr(triage, "may_report", lambda *args, **kwargs: True)
    forget()


def screened_and_full(source, package=None):
    """(the check's diagnostics, those of the same check with every method sent to libcst)."""
    forget()
    screened = check_source(source, "m.py", package=package)
    with pytest.MonkeyPatch.context() as patch:
        unscreened(patch)
        full = check_source(source, "m.py", package=package)
    forget()
    return screened, full


# (HYB018 has no triggers: it judges noqa comments once the other rules ran, whatever the screen cleared)
@pytest.mark.parametrize("code,index", [(code, i) for code, rule in ALL_RULES.items()
                                        if code in SCREENED_CODES and rule.screen_triggers
                                        for i in range(len(rule.INVALID))])
def test_no_invalid_example_is_cleared(code, index):
    source = ALL_RULES[code].INVALID[index].code
    imports = collect_imports(source)
    assert any(may_report(method, imports) for method in methods_of(source))


@pytest.mark.parametrize("body,args", [
    ("y = F.relu(x)\nreturn y", "x"),
    ("if isinstance(x, (list, tuple)):\n    x = F.concat(*x, dim=1)\nreturn x", "x"),
    ("return F.broadcast_add(x, self.weight.shape[0] * F.ones_like(x))", "x"),
    ("n = 0\nfor block in self.blocks:\n    x = block(x)\n    n += 1\nreturn x", "x"),
    ("if self._use_bias and bias is not None:\n    x = F.broadcast_add(x, bias)\nreturn x", "x, bias=None"),
    ("return F.reshape(x, (0, -1))", "x"),
    ("return F.pick(x, index, axis=-1)", "x, index"),
    ("gamma = kwargs['gamma']\nreturn F.broadcast_mul(x, gamma)", "x, **kwargs"),
    ("if not self._layers or x is None:\n    return F.zeros((1,))\nreturn x", "x"),
    ("gates = F.SliceChannel(x, num_outputs=4)\nreturn gates[0] + gates[1]", "x"),
    ("return F.concat(states[0], x, dim=1)", "x, states"),
    ("return F.take(x, F.reshape(index, shape=(-1,)))", "x, index"),
    ("outs = F.contrib.foreach(self._body, x, [])\nreturn outs[0]", "x"),
    ("cx, cy = x.split(axis=-1, num_outputs=2)\nreturn cx * cy", "x"),
    ("self.features = []\nreturn F.relu(x)", "x"),                       # the same on every call
    ("for f in feats:\n    x = x + f\nreturn x", "x, feats"),             # a list by its use
])
def test_clean_gluon_code_is_cleared(body, args):
    assert cleared(body, args)


@pytest.mark.parametrize("body", [
    "acc = 0\nfor i in range(3):\n    acc += F.sum(x)\nreturn acc",   # the second `+=` meets a Symbol
    "y = F.relu(x)\nz = y\nreturn z[0]",                              # through a copy
    "h = F.relu(x)\nreturn h[0] if h[0] else x",
    "y = F.split(x, num_outputs=1)\nreturn y[0]",                      # one output: a tensor
    "gates = F.SliceChannel(x, num_outputs=2)\nreturn gates[0][1]",     # an output of a group
    "if autograd.is_training():\n    x = x * 2\nreturn x",
    "return np.array(x)",
    "return x.reshape(2, -1)",
    "return F.take(x, F.full((1,), -1))",
])
def test_what_a_rule_reports_is_not_cleared(body):
    assert check_source(hybrid_block(body, imports=IMPORTS), "m.py")
    assert not cleared(body)


def test_a_child_result_unpacked_is_cleared_once_the_index_has_read_the_children():
    body = "h, c = self.cell(x)\nreturn h"
    assert not cleared(body)  # the index may yet say that `cell` returns one tensor: HYB015 unpacked
    assert cleared(body, children={})  # it says nothing of `cell`: a tensor or a tuple of them
    assert not cleared(body, children={"cell": Kind.TENSOR})
    assert cleared(body, children={"cell": Kind.SEQUENCE})


def test_a_rule_the_screen_does_not_know_turns_it_off():
    source = hybrid_block("return x + y", args="x, y")
    found = check_source(source, "m.py", Settings(select=("HYB012",)))
    assert [d.code for d in found] == ["HYB012"]


STATEMENTS = [
    "y = F.relu(x)", "y = x[0]", "y = states[0]", "n = 0", "n += 1", "acc = 0", "acc += F.sum(x)", "s = x.shape",
    "w = self.weight.shape", "if isinstance(x, list):\n    x = x[0]", "if x is None:\n    x = F.zeros_like(y)",
    "if self.flag:\n    y = y * 2", "if autograd.is_training():\n    y = y + 1", "z = len(states)", "z = len(x)",
    "y = x.reshape(0, -1)", "y = F.reshape(x, (0, -1))", "y = F.reshape(x, 0, -1)", "y = F.take(x, y, axis=-1)",
    "y = F.take(x, -1)", "y = nd.relu(x)", "print(x)", "print(self.n)", "v = x.asnumpy()", "v = float(x)",
    "v = np.array(x)", "parts = F.split(x, num_outputs=2)", "y = parts[0]", "for s in states:\n    y = y + s",
    "y = [t for t in states][0]", "c = x.context", "d = x.dtype", "y = x if self.flag else y",
    "y = x if x else y", "assert not x", "k = x and y", "x[0] = 1", "t = y", "t = t[1:]",
    "while n < 3:\n    n += 1", "q = kwargs['gamma']", "q = args[0][1]", "y = self.fc(x)[0]",
    "def inner(z):\n    return z[0]", "y = (lambda z: z[0])(x)", "m = (w := x)", "with self.name_scope() as sc:\n    y = x",
    "try:\n    y = x\nexcept Exception as e:\n    y = e", "if F is nd:\n    y = x[0]", "n = len(self.blocks)",
    "if not states:\n    states = [x]", "y = F.where(x > 0, x, y) if n > 0 else y", "y = F.pick(x, y, axis=-1)",
    "g = F.split(x, num_outputs=2)", "g = F.split(x, num_outputs=1)", "y = g[0]", "y = g[0][1]", "y = g[1:][0]",
    "w = F.contrib.foreach(self.body, x, [])", "y = w[0]", "y = w[0][0]", "t = F.topk(x, ret_typ='both')",
    "t = F.topk(x)", "y = t[1]", "a, b = g", "a, b = x, y", "y = a[0]", "for q in g:\n    y = q[0]",
    "y = states[1:]", "y = states[0:1][0]", "y = args[0]", "y = self.fc(*args)[0]", "y = (x if n else states)[0]",
    "y = x.T[0]", "y = x.split(num_outputs=2)[0]", "y = np.zeros(3)[0]", "y = nd.zeros((2,))[0]",
    "y = scale[0]", "states = states + [x]", "y = (states or x)[0]", "y = -x", "y = (not x)",
    "if scale > 1:\n    y = y * scale", "y = F.take(x, F.full((1,), -1))", "y = F.take(x, idx * -1)",
    "y = x.reshape(2, 3)", "y = g.reshape(2, 3)", "print(g)", "z = len(g)", "y = [t[0] for t in g]",
    "if F is not nd:\n    y = x[0]\nelse:\n    y = x[1]", "if isinstance(x, mx.nd.NDArray):\n    n = x.shape[0]",
    "if F is mx.sym:\n    raise ValueError('symbols')", "if not F is nd:\n    z = x.shape",
    "if F == mx.symbol:\n    y = y * 2\nelse:\n    s = x.shape", "nd = F", "if F is nd:\n    return x.asnumpy()",
    "if isinstance(x, mx.sym.Symbol):\n    y = x\nelif F is nd:\n    y = x[0]",
    # rebinding in order, in branches, in loops and closures (what the screen reads in order)
    "x = F.split(x, num_outputs=2)", "x = x[0]", "g = x", "if self.flag:\n    g = F.relu(x)",
    "for q in range(2):\n    y = g[0]\n    g = F.relu(x)", "y = [g[0] for _ in range(2)][0]", "f = lambda: g[0]",
    "g = F.split(x, num_outputs=2)\ny = g[0]", "while n < 2:\n    y = t[0]\n    n += 1",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(STATEMENTS), min_size=1, max_size=8))
# a group indexed in a loop whose last statement rebinds it to a tensor: the rebinding ends where
# the loop ends, and still reaches the next iteration's read
@example(["g = F.split(x, num_outputs=2)\ny = g[0]", "for q in range(2):\n    y = g[0]\n    g = F.relu(x)"])
def test_screening_never_changes_what_is_reported(statements):
    source = hybrid_block("\n".join(statements) + "\nreturn y", args="x, y, states, *args, scale=2.0, **kwargs",
                          imports=IMPORTS)
    screened, full = screened_and_full(source)
    assert screened == full


HELPER_BODIES = [
    "return a", "return a[0]", "return a.shape[0]", "return F.relu(a)", "return nd.relu(a)", "a += 1\nreturn a",
    "return F.sum(a).asscalar()", "return a.reshape(2, -1)", "if a:\n    return a\nreturn b", "return len(a)",
    "return [p for p in a][0]", "n = a.context\nreturn b", "if F is nd:\n    return a[0]\nreturn a",
]
HELPER_CALLS = [
    "y = self._help(F, x)", "y = self._help(F, x, y)", "y = self._help(x, y)", "y = pair(F, x)", "y = pair(x, 3)",
    "y = self._help(F, states)", "y = pair(F, [x, y])", "y = self._help(F, self.size)", "y = pair(F, y)",
]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(STATEMENTS[:12] + HELPER_CALLS), min_size=1, max_size=5),
       st.sampled_from(HELPER_BODIES), st.sampled_from(HELPER_BODIES))
# a helper's parameter that its body uses as a list is still what the call passes (a tensor here)
@example(["y = self._help(F, x)"], "return len(a)", "return a")
def test_screening_helpers_never_changes_what_is_reported(statements, method_body, function_body):
    from hyblint.analysis.index import Package

    source = hybrid_block("\n".join(statements) + "\nreturn y", args="x, y, states", imports=IMPORTS)
    source += "\n    def _help(self, F, a, b=None):\n" + textwrap.indent(method_body, " " * 8) + "\n"
    source += "\n\ndef pair(F, a):\n" + textwrap.indent(function_body.replace("b", "a"), " " * 4) + "\n"
    screened, full = screened_and_full(source, Package({"m.py": source}))
    assert screened == full


def test_a_parameter_used_as_a_list_that_callers_pass_a_tensor_is_unknown_to_both():
    # the body uses `hidden` as a list, its caller passes a tensor: the evidence disagrees, so the
    # analysis reports nothing on it, as the screen (which sees no callers) assumes
    from hyblint.analysis.index import Package
    child = textwrap.dedent("""\
        from mxnet.gluon import nn


        class Child(nn.HybridBlock):
            def hybrid_forward(self, F, x, hidden):
                for h in hidden:
                    x = x + h
                return x * len(hidden)


        class Parent(nn.HybridBlock):
            def __init__(self):
                super().__init__()
                self.child = Child()

            def hybrid_forward(self, F, x):
                return self.child(x, F.relu(x))
        """)
    package = Package({"m.py": child})
    screened, full = screened_and_full(child, package)
    assert screened == full == []


@pytest.mark.parametrize("passed,reported", [("[x, F.relu(x)]", []), ("(1, 2)", []), ("F.relu(x)", ["HYB001"])])
def test_the_screen_clears_a_method_once_the_index_says_its_callers_pass_no_tensor(passed, reported):
    # alone, the screen keeps `pair[0]` (a tensor's first row, for all it knows); told that every
    # caller passes a list or Python values, it clears the method, which then never reaches libcst
    from hyblint.analysis.index import Package
    source = textwrap.dedent("""\
        from mxnet.gluon import nn


        class Head(nn.HybridBlock):
            def hybrid_forward(self, F, x, pair):
                return x + pair[0]


        class Net(nn.HybridBlock):
            def __init__(self):
                super().__init__()
                self.head = Head()

            def hybrid_forward(self, F, x):
                return self.head(x, %s)
        """) % passed
    package = Package({"m.py": source})
    forget()
    first = triage.triage(source, "m.py")
    assert [s.owner for s in first.snippets] == ["Head"]
    assert triage.with_context(first, package).settled == (not reported)
    screened, full = screened_and_full(source, package)
    assert [d.code for d in screened] == [d.code for d in full] == reported


CHILD_RETURNS = ["x", "F.relu(x)", "F.split(x, num_outputs=2)", "[x, F.relu(x)]", "(x, F.relu(x))", "3", "x.shape",
                 "self.inner(x)", "x if self.flag else [x]"]
CHILD_USES = [
    "y = self.child(x)", "y = self.child(x)[0]", "y = self.child(x)[:, 0]", "y = self.child(x)[None]",
    "y = self.child(x)[1:]", "for q in self.child(x):\n    y = q", "if self.child(x):\n    y = x",
    "a, b = self.child(x)", "y = self.child(x) * 2", "n = self.child(x).shape", "y = self.dense(x)[0, 1]",
    "y = self.dense(x)[0]", "y = self.child(F.relu(x))[0]", "y = (self.child(x) or x)[0]", "y = -self.child(x)",
    "y = self.child(x).T[0]", "v = self.child(x).asnumpy()", "y = [t for t in self.child(x)][0]",
    "y = self.child(x).reshape(2, 3)", "assert self.child(x)", "y = self.child(3)[0]", "y = y[0]",
]


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(CHILD_RETURNS), st.lists(st.sampled_from(CHILD_USES + STATEMENTS[:20]), min_size=1, max_size=5))
def test_screening_with_what_children_return_never_changes_what_is_reported(returned, statements):
    # once the index has read the children, a child's result is what its hybrid_forward returns,
    # or (a child it cannot read) a tensor or a tuple of them: the screen must read it so too
    from hyblint.analysis.index import Package
    source = textwrap.dedent("""\
        from mxnet.gluon import nn
        import numpy as np


        class Child(nn.HybridBlock):
            def hybrid_forward(self, F, x):
                return %s


        class Net(nn.HybridBlock):
            def __init__(self):
                super().__init__()
                self.child = Child()
                self.dense = nn.Dense(2)

            def hybrid_forward(self, F, x, y, states):
        """) % returned + textwrap.indent("\n".join(statements) + "\nreturn y", " " * 8) + "\n"
    screened, full = screened_and_full(source, Package({"m.py": source}))
    assert screened == full


def test_a_child_result_indexed_as_a_tuple_can_be_is_cleared_once_the_index_is_read():
    from hyblint.analysis.index import Package
    source = textwrap.dedent("""\
        from mxnet.gluon import nn


        class Net(nn.HybridBlock):
            def __init__(self):
                super().__init__()
                self.body = nn.HybridSequential()

            def hybrid_forward(self, F, x):
                out = self.body(x)
                return out[0] + out[1:][0]
        """)
    forget()
    first = triage.triage(source, "m.py")
    assert [s.owner for s in first.snippets] == ["Net"]  # alone, a child may return a tensor
    assert triage.with_context(first, Package({"m.py": source})).settled
