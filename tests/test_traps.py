"""Working Gluon code that must stay silent (SPEC's traps), and the one pattern that must not."""
import textwrap

import pytest

from hyblint.engine import check_source
from hyblint.rules.base import hybrid_block
from hyblint.settings import Settings

ALL = Settings(select=("ALL",))

SILENT = {
    "split outputs are a group": hybrid_block("return F.split(x, num_outputs=2)[0]"),
    "rnn states list argument": hybrid_block("h = states[0]\nc = states[1]\nreturn x + h, [h, c]", args="x, states"),
    "parameter shape is a tuple": hybrid_block("n = self.weight.shape[0]\nreturn x * n"),
    "length of child blocks": hybrid_block("for i in range(len(self.blocks)):\n    x = self.blocks[i](x)\nreturn x"),
    "python counter": hybrid_block("n = 0\nfor i in range(4):\n    n += 1\nreturn x * n"),
    "imperative guard": hybrid_block("if F is mx.nd:\n    print(x.shape, x[0])\nreturn F.relu(x)"),
    "isinstance guard": hybrid_block("if isinstance(x, mx.nd.NDArray):\n    x[0] = 1\nreturn x"),
    "list extended with +=": hybrid_block("outs = []\nfor i in range(2):\n    outs += [F.relu(x)]\nreturn outs[0]"),
    "list items assigned": hybrid_block("layers = [x, x]\nlayers[0] = F.relu(x)\nreturn layers[1]"),
    "truthiness of a list": hybrid_block("if not states:\n    states = [x]\nreturn x, states", args="x, states=None"),
    "list argument rebuilt in a loop": hybrid_block(
        "for i in range(1, 3):\n    layers[i] = self.up(layers[i])\nreturn layers", args="layers"),
    "list argument by length": hybrid_block("out = [layers[-1]]\nfor i in range(len(layers) - 1):\n    "
                                            "out.append(layers[i])\nreturn out", args="layers"),
    "optional tensor checked for None": hybrid_block(
        "if mask is not None:\n    x = F.broadcast_mul(x, mask)\nreturn x", args="x, mask=None"),
    "symbolic early exit": hybrid_block("if F is mx.sym:\n    raise NotImplementedError('eager only')\n"
                                        "return x[0]"),
    "while_loop outputs are python structures": hybrid_block(
        "outs, states = F.contrib.while_loop(cond, func, [x], max_iterations=3)\nreturn states[0][:2]"),
    "child result indexed by an integer": hybrid_block("out = self.encoder(x)\nreturn out[0]"),
    # GluonTS's DeepState: a helper builds a distribution object, whose method returns a tuple
    "tuple from a method no tensor has": hybrid_block(
        "lds, _ = self.compute_lds(F, x)\nll, mean, cov = lds.log_prob(x)\nreturn ll", args="x"),
    "mapping argument iterated by items": hybrid_block(
        "return [F.relu(v) for k, v in data.items()]", args="data"),
    # Sockeye's factored embedding: the split's other outputs, starred, are a list
    "starred target of a split": hybrid_block(
        "x, *factors = F.split(x, num_outputs=self.n, axis=2)\nfor f, c in zip(factors, self.configs):\n"
        "    x = F.broadcast_add(x, F.Embedding(f, input_dim=c))\nreturn F.broadcast_add(x, factors[0])"),
    # gluon-nlp's BERT SQuAD loss, called with `loss(out, [start, end])` from a training script
    "list parameter declared in a numpydoc docstring": hybrid_block(
        '"""Loss.\n\nParameters\n----------\nlabel : list, length is 2\n"""\nreturn x - label[0] - label[1]',
        args="x, label"),
    # osmr/imgclsmob's DIA attention: the `(h, c)` it returns is what the next unit passes back in
    "recurrent state unpacked and returned packed": hybrid_block(
        "w = F.mean(x, axis=(2, 3))\nif hc is None:\n    h = [F.zeros_like(w)]\n    c = [F.zeros_like(w)]\n"
        "else:\n    h, c = hc\nh = [F.tanh(w + h[0])]\nreturn F.broadcast_mul(x, F.reshape(h[0], (0, 0, 1, 1))), (h, c)",
        args="x, hc=None"),
    "list parameter declared in a Google docstring": hybrid_block(
        '"""Args:\n    targets (tuple of NDArray): the two targets\n"""\nreturn x - targets[1]', args="x, targets"),
}

SILENT_MODULES = {
    "plain Block forward": textwrap.dedent("""\
        from mxnet.gluon import nn

        class Net(nn.Block):
            def forward(self, x):
                return x[0] + x.shape[0]
        """),
    "numpy-style block": textwrap.dedent("""\
        from mxnet.gluon import nn
        from mxnet.util import use_np

        @use_np
        class Net(nn.HybridBlock):
            def hybrid_forward(self, F, x):
                return x[:, 0]
        """),
    "module-level F alias shadowed by the parameter": textwrap.dedent("""\
        from mxnet import nd as F
        from mxnet.gluon import nn

        class Net(nn.HybridBlock):
            def hybrid_forward(self, F, x):
                return F.relu(x)
        """),
    "hybrid_forward of a plain Block is never traced": textwrap.dedent("""\
        from mxnet.gluon import nn

        class Helper(nn.Block):
            def hybrid_forward(self, F, x):
                return x[0]
        """),
}


@pytest.mark.parametrize("name", sorted(SILENT))
def test_trap_stays_silent(name):
    assert check_source(SILENT[name], "trap.py", ALL) == []


@pytest.mark.parametrize("name", sorted(SILENT_MODULES))
def test_module_trap_stays_silent(name):
    assert check_source(SILENT_MODULES[name], "trap.py", ALL) == []


def test_docstring_that_allows_a_tensor_does_not_make_a_list():
    # `NDArray or list` may be a tensor, and a parameter passed to an operator is one
    for doc, body in (("label : NDArray or list", "return x - label[0]"),
                      ("label : list", "return F.relu(label) + label[0]")):
        source = hybrid_block('"""%s"""\n%s' % (doc, body), args="x, label")
        assert [d.code for d in check_source(source, "trap.py")] == ["HYB001"]


def test_a_tensor_unpacked_into_names_returned_otherwise_is_flagged():
    # only the same names packed again make a state: rows of a tensor returned as two outputs are not
    source = hybrid_block("a, b = x\nreturn a + b, a", args="x")
    assert [d.code for d in check_source(source, "trap.py")] == ["HYB015"]


def test_accumulator_that_becomes_a_tensor_in_a_loop_is_flagged():
    source = hybrid_block("acc = 0\nfor i in range(3):\n    acc += F.sum(x, axis=i)\nreturn acc")
    assert [d.code for d in check_source(source, "trap.py")] == ["HYB006"]


def test_class_deriving_from_a_hybrid_base_in_another_file_is_checked():
    source = textwrap.dedent("""\
        from base import MyBase

        class Net(MyBase):
            def hybrid_forward(self, F, x):
                return x[0]
        """)
    assert [d.code for d in check_source(source, "net.py", extra_hybrid_classes=frozenset({"MyBase"}))] == ["HYB001"]


def test_guard_else_branch_is_checked():
    source = hybrid_block("if F is mx.nd:\n    y = x[0]\nelse:\n    y = x[1]\nreturn y")
    found = check_source(source, "trap.py")
    assert [(d.code, d.location.row) for d in found] == [("HYB001", 11)]


def test_noqa_suppresses_all_or_listed_codes():
    source = hybrid_block("a = x[0]  # noqa\nb = x.shape  # noqa: HYB001\nc = x[1]  # NOQA: HYB001, HYB002\nreturn a")
    assert [d.code for d in check_source(source, "noqa.py")] == ["HYB002"]


def test_syntax_error_is_one_diagnostic_with_a_position():
    found = check_source("class Net(nn.HybridBlock):\n    def hybrid_forward(self, F, x)\n        return x\n", "bad.py")
    assert [(d.code, d.location.row) for d in found] == [("HYB900", 2)]
    assert "syntax error" in found[0].message


STORES_THROUGH_A_VIEW = {
    # eagerly `y[0]` is a view: these write into y itself (measured on MXNet 1.9.1). HYB001 must
    # not touch the inner subscript: rewritten, the store would land in a temporary.
    "item of a row assigned": ("y[0][1] = 2", ["HYB005"]),
    "item of a row updated": ("y[0][1] += 2", ["HYB005"]),
    "slice of a row assigned": ("y[0][1:3] = 2", ["HYB005"]),
    "item of a row deleted": ("del y[0][1]", []),
    "item of a row as a loop target": ("for y[0][1] in range(3):\n    pass", []),
}


@pytest.mark.parametrize("name", sorted(STORES_THROUGH_A_VIEW))
def test_a_store_through_a_view_is_not_hyb001s(name):
    body, codes = STORES_THROUGH_A_VIEW[name]
    source = hybrid_block("y = F.relu(x)\n" + body + "\nreturn y")
    assert [d.code for d in check_source(source, "trap.py", ALL)] == codes
