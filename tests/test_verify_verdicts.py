"""`hyblint verify` joins each static diagnostic with what running its block showed: blocks whose
problems only show after several calls (a value frozen at trace time) confirm the rule on that
line; a flagged line that ran and did no harm is refuted."""
import argparse
import json
import os
import textwrap
from pathlib import Path

import jsonschema
import pytest

from hyblint.verify import arguments, command

FROZEN = textwrap.dedent("""\
    import numpy as np
    from mxnet import autograd
    from mxnet.gluon import nn


    class Branch(nn.HybridBlock):
        def hybrid_forward(self, F, x):
            if autograd.is_training():
                x = x * 0.5
            return x


    class Draw(nn.HybridBlock):
        def hybrid_forward(self, F, x):
            return x * np.random.uniform()


    class Counter(nn.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.step = 0

        def hybrid_forward(self, F, x):
            self.step += 1
            return x * self.step


    class Rows(nn.HybridBlock):
        def hybrid_forward(self, F, x):
            return F.reshape(x, shape=(len(x), -1))


    class Bias(nn.HybridBlock):
        def hybrid_forward(self, F, x):
            return x + F.ones((1, 3))


    class Guarded(nn.HybridBlock):
        def hybrid_forward(self, F, x):
            if len(x) == 0:
                return x
            return F.relu(x)


    class Idle(nn.HybridBlock):
        def hybrid_forward(self, F, x):
            if autograd.is_recording():
                return F.relu(x) * (x.shape[0] > 0)
            return F.relu(x)
    """)
SHAPES = ["--shapes=%s=1x3" % name for name in ("Branch", "Draw", "Counter", "Rows", "Bias", "Guarded", "Idle")]


def run(capsys, *argv):
    parser = argparse.ArgumentParser()
    arguments.add_arguments(parser)
    code = command.run(parser.parse_args([str(a) for a in argv]))
    return code, capsys.readouterr().out


@pytest.fixture(scope="module")
def frozen(tmp_path_factory):
    path = tmp_path_factory.mktemp("frozen") / "frozen.py"
    path.write_text(FROZEN)
    return path


@pytest.fixture(scope="module")
def blocks(frozen):
    import contextlib  # capsys is for one test; this fixture serves the module
    import io
    parser = argparse.ArgumentParser()
    arguments.add_arguments(parser)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = command.run(parser.parse_args([str(frozen), "--extend-select", "HYB012", "--format", "json"] + SHAPES))
    assert code == 1
    return {b["block"]: b for b in json.loads(out.getvalue())}


def line_of(text, source=FROZEN):
    [number] = [i for i, line in enumerate(source.splitlines(), 1) if text in line]
    return number


def verdict(block, code):
    [found] = [d for d in block["diagnostics"] if d["code"] == code]
    return found["verify"]


@pytest.mark.parametrize("name, kind, code, text", [
    ("Branch", "frozen-branch", "HYB013", "if autograd.is_training():"),
    ("Draw", "frozen-random", "HYB016", "np.random.uniform()"),
    ("Counter", "frozen-state", "HYB017", "self.step += 1"),
    ("Rows", "signature", "HYB002", "(len(x), -1)"),
    ("Bias", "signature", "HYB012", "x + F.ones"),
])
def test_a_value_frozen_at_trace_time_confirms_the_rule_on_its_line(blocks, name, kind, code, text):
    block = blocks[name]
    assert block["status"] in ("disagrees", "fails"), block
    assert [f["kind"] for f in block["findings"]][0] == kind, block["findings"]
    found = verdict(block, code)
    assert found["verdict"] == "confirmed", found
    assert name in found["blocks"]
    [diagnostic] = [d for d in block["diagnostics"] if d["code"] == code]
    assert diagnostic["location"]["row"] == line_of(text)


def test_each_kind_says_where_it_showed(blocks):
    assert blocks["Rows"]["findings"][0]["inputs"] == "batch 3"  # right at batch 1, wrong at 3
    assert "shape (3, 3) eagerly, (1, 9) hybridized" in blocks["Rows"]["detail"]
    assert blocks["Bias"]["findings"][0]["inputs"] == "batch 3"
    assert "Incompatible attr" in blocks["Bias"]["detail"]
    assert blocks["Branch"]["findings"][0]["mode"] == "train"
    assert blocks["Counter"]["findings"][0]["call"] == "second call"
    assert blocks["Branch"]["inputs"] == ["(1, 3)", "(3, 3)"]


def test_a_harmless_flagged_line_that_ran_is_refuted(blocks):
    block = blocks["Guarded"]
    assert block["status"] == "agrees" and block["findings"] == []
    found = verdict(block, "HYB002")
    assert found["verdict"] == "refuted", found


def test_a_line_no_hybridized_call_ran_is_not_reached(blocks):
    found = verdict(blocks["Idle"], "HYB002")
    assert found["verdict"] == "not reached", found
    # the HYB013 line itself ran, and the block agreed in both modes (its branches give the same)
    assert verdict(blocks["Idle"], "HYB013")["verdict"] == "refuted"


def test_text_and_sarif_carry_the_verdicts(frozen, capsys):
    code, text = run(capsys, frozen, "--extend-select", "HYB012", *SHAPES)
    assert code == 1
    lines = text.splitlines()
    assert any(":%d:" % line_of("self.step += 1") in line and "HYB017 confirmed" in line for line in lines)
    assert lines[-2].startswith("8 diagnostics: 5 confirmed, 2 refuted, 1 not reached."), lines[-2]
    assert "lead for a false positive" in lines[-2]
    assert lines[-1].startswith("7 blocks:")
    code, sarif = run(capsys, frozen, "--extend-select", "HYB012", "--format", "sarif", *SHAPES)
    results = json.loads(sarif)["runs"][0]["results"]
    by_line = {(r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"]): r for r in results}
    assert by_line[("HYB016", line_of("np.random.uniform()"))]["properties"]["verify"]["verdict"] == "confirmed"
    assert by_line[("HYB002", line_of("len(x) == 0"))]["properties"]["verify"]["verdict"] == "refuted"
    # and as SARIF's result kind, which viewers filter on
    assert by_line[("HYB016", line_of("np.random.uniform()"))]["kind"] == "fail"
    assert by_line[("HYB002", line_of("len(x) == 0"))]["kind"] == "review"
    assert {r["kind"] for r in results} <= {"fail", "review", "open"}
    schema = json.loads((Path(__file__).parent / "data" / "sarif-schema-2.1.0.json").read_text())
    jsonschema.validate(json.loads(sarif), schema)


def test_an_expression_under_a_condition_in_a_line_that_ran_is_not_refuted():
    # imgclsmob's EfficientNet: `in_size = self.in_size if self.in_size is not None else x.shape[2:]`
    # ran hybridized with in_size given, so x.shape never did: the line running proves nothing
    from types import SimpleNamespace

    from hyblint.diagnostics import Diagnostic, Location, Severity
    from hyblint.verify.verdicts import judge
    source = textwrap.dedent("""\
        def hybrid_forward(self, F, x):
            size = self.size if self.size is not None else x.shape[2:]
            flag = self.ready or x.shape[0] > 1
            return F.relu(x)
        """)
    block = SimpleNamespace(name="Net", lines=[2, 3, 4], first_call="agrees", status="agrees", findings=[],
                            inputs=[(1, 3)], line=None, detail="")

    def shape_at(row, text):
        column = source.splitlines()[row - 1].index(text) + 1
        return Diagnostic("HYB002", "shape", "m.py", Location(row, column), Location(row, column + 7), Severity.ERROR)
    plain = Diagnostic("HYB002", "shape", "m.py", Location(2, 5), Location(2, 9), Severity.ERROR)
    verdicts = judge([shape_at(2, "x.shape"), shape_at(3, "x.shape"), plain], source, [block])
    assert [v.verdict for v in verdicts] == ["inconclusive", "inconclusive", "refuted"]
    assert "under a condition" in verdicts[0].reason


PARTS = textwrap.dedent("""\
    from mxnet import autograd
    from mxnet.gluon import nn


    class Head(nn.HybridBlock):
        def __init__(self, units, **kwargs):
            super().__init__(**kwargs)
            self.dense = nn.Dense(units)

        def hybrid_forward(self, F, x):
            if autograd.is_training():
                x = x * 0.5
            return self.dense(x)


    class Pick(nn.HybridBlock):
        def __init__(self, parts, **kwargs):
            super().__init__(**kwargs)
            self.parts = parts

        def hybrid_forward(self, F, x, hidden):
            return x + hidden[0]


    class Stack(nn.HybridBlock):
        def __init__(self, units, **kwargs):
            super().__init__(**kwargs)
            self.head = Head(units)

        def hybrid_forward(self, F, x):
            return self.head(x)


    class Picker(nn.HybridBlock):
        def __init__(self, units, **kwargs):
            super().__init__(**kwargs)
            self.pick = Pick(2)
            self.dense = nn.Dense(units)

        def hybrid_forward(self, F, x):
            # a list made by a helper: `hyblint check` cannot tell (it would not flag Pick's index for a
            # list written at the call), so the flagged index is harmless, as running shows
            return self.dense(self.pick(x, self.both(F, x)))

        def both(self, F, x):
            return [F.zeros_like(x), F.ones_like(x)]
    """)

ZOO = textwrap.dedent("""\
    from .parts import Picker, Stack


    def stack_small(pretrained=False, pretrained_base=True, **kwargs):
        if pretrained or pretrained_base:
            raise RuntimeError("no weights to download here")
        return Stack(4)


    def picker_small(pretrained=False, **kwargs):
        return Picker(4)
    """)


def test_blocks_built_in_another_module_judge_the_diagnostics_of_the_classes_they_ran(tmp_path, capsys):
    """GluonCV's detectors are classes in one module built by model functions in another: the
    lines those models run in the first module are judged by them."""
    package = tmp_path / "zoo_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "parts.py").write_text(PARTS)
    (package / "presets.py").write_text(ZOO)
    _, out = run(capsys, package, "--discover", "--no-cache", "--format", "sarif",
                 "--shapes", "stack_small=2x3", "--shapes", "picker_small=2x3")
    sarif = json.loads(out)
    results = {(r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"]): r
               for r in sarif["runs"][0]["results"]}
    frozen = results[("HYB013", line_of("if autograd.is_training():", PARTS))]["properties"]["verify"]
    assert frozen["verdict"] == "confirmed", frozen
    assert "stack_small(pretrained=False, pretrained_base=False) (presets.py)" in frozen["blocks"]
    harmless = results[("HYB001", line_of("hidden[0]", PARTS))]["properties"]["verify"]
    assert harmless["verdict"] == "refuted", harmless  # `hidden` is a list: the line ran and agreed
    assert harmless["blocks"] == ["picker_small(pretrained=False) (presets.py)"]


UNTRIED = textwrap.dedent("""\
    from mxnet import autograd
    from mxnet.gluon import nn


    class Trains(nn.HybridBlock):
        def hybrid_forward(self, F, x):
            if autograd.is_training():
                raise ValueError("training needs the targets")  # as a detector without its labels
            return x * 2
    """)


def test_a_branch_whose_calls_fail_eagerly_is_not_refuted(tmp_path, capsys):
    """Train mode raised eagerly, so the frozen branch was never compared: no refutation."""
    path = tmp_path / "untried.py"
    path.write_text(UNTRIED)
    _, out = run(capsys, path, "--no-cache", "--format", "json", "--shapes", "Trains=2x3")
    [block] = json.loads(out)
    assert block["status"] == "agrees" and block["findings"] == []
    found = verdict(block, "HYB013")
    assert found["verdict"] == "inconclusive", found
    assert "train mode and train mode again raise eagerly" in found["reason"]


DRAWS = textwrap.dedent("""\
    import mxnet as mx
    from mxnet import autograd
    from mxnet.gluon import nn


    class WeightDrop(nn.HybridBlock):
        # as GluonNLP's weight drop: the eager calls draw one more number before the dropout mask
        # (a dropped weight fetched as the layer runs), the hybridized graph does not
        def hybrid_forward(self, F, x):
            if autograd.is_training() and F is mx.nd:
                F.random.uniform(shape=(7,))
            return F.Dropout(x, p=0.5)


    class Scaled(nn.HybridBlock):
        # no random draws: a train-mode difference is the block's own
        def hybrid_forward(self, F, x):
            if autograd.is_training() and F is mx.nd:
                return x * 3
            return x * 2
    """)


# MXNet 1.9.1 draws the eager uniform numbers and the dropout mask from one generator, so there the
# hybridized mask differs from the eager one (the runtime's operators draw from streams of their own)
BACKENDS = [[]] + ([["--python", os.environ["HYBLINT_MXNET_PYTHON"]]] if os.environ.get("HYBLINT_MXNET_PYTHON") else [])


@pytest.mark.parametrize("backend", BACKENDS)
def test_train_mode_values_that_random_draws_decide_are_not_compared(tmp_path, capsys, backend):
    path = tmp_path / "draws.py"
    path.write_text(DRAWS)
    _, out = run(capsys, path, "--no-cache", "--format", "json", "--shapes", "WeightDrop=4x30",
                 "--shapes", "Scaled=2x3", *backend)
    blocks = {b["block"]: b for b in json.loads(out)}
    assert blocks["WeightDrop"]["status"] == "agrees", blocks["WeightDrop"]
    assert blocks["WeightDrop"]["findings"] == []
    assert blocks["Scaled"]["status"] == "disagrees", blocks["Scaled"]
    assert [f["kind"] for f in blocks["Scaled"]["findings"]] in (["frozen-branch"], ["train-mode"])


RESNET_V2 = textwrap.dedent("""\
    from mxnet.gluon.model_zoo import vision


    def resnet(pretrained=False):
        # at 32x32 its last BatchNorm sees 1x1 maps of two images: in train mode it divides by the
        # spread of two numbers, and rounding in front of it decides the result
        return vision.resnet18_v2()
    """)


@pytest.mark.parametrize("backend", BACKENDS)
def test_train_mode_values_that_rounding_decides_are_not_compared(tmp_path, capsys, backend):
    path = tmp_path / "zoo.py"
    path.write_text(RESNET_V2)
    _, out = run(capsys, path, "--no-cache", "--discover", "--format", "json", *backend)
    [block] = json.loads(out)
    assert block["inputs"][0] == "(2, 3, 32, 32)"
    assert block["status"] == "agrees" and block["findings"] == [], block


HELPED = textwrap.dedent("""\
    from mxnet.gluon import nn


    class Helped(nn.HybridBlock):
        def hybrid_forward(self, F, x):
            return self.flat(F, x)

        def flat(self, F, x):
            # as GluonCV's SiamRPNLoss.cross_entropy_loss, called with F from hybrid_forward
            return x.reshape(-1, 3)
    """)


def test_diagnostics_in_helpers_called_with_F_are_judged(tmp_path, capsys):
    """verify judges what `hyblint check` reports, helpers that hybrid_forward calls with F included."""
    path = tmp_path / "helped.py"
    path.write_text(HELPED)
    code, out = run(capsys, path, "--no-cache", "--format", "sarif", "--shapes", "Helped=2x3")
    assert code == 1, out  # x.reshape(-1, 3) binds 3 to `reverse` on a Symbol: it fails hybridized
    [result] = json.loads(out)["runs"][0]["results"]
    assert (result["ruleId"], result["locations"][0]["physicalLocation"]["region"]["startLine"]) == \
        ("HYB011", line_of("x.reshape(-1, 3)", HELPED))
    assert result["properties"]["verify"]["verdict"] == "confirmed", result
