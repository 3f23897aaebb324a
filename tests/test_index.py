"""The package index: what callers pass and what children return, across the files of a run.

The silent cases are working Gluon code that hyblint reported before the index (each runs eagerly
and hybridized on MXNet 1.9.1); the reported ones are real bugs it missed.
"""
import textwrap
from pathlib import Path

import pytest

from hyblint.cache import Cache
from hyblint.engine import check_source
from hyblint.lint import lint_files
from hyblint.rules.base import hybrid_block
from hyblint.settings import Settings

ALL = Settings(select=("ALL",))
DEFAULT = Settings()


def lint_tree(tmp_path: Path, files, settings=DEFAULT, cache=None):
    for name, text in files.items():
        (tmp_path / name).write_text(textwrap.dedent(text))
    paths = sorted(str(tmp_path / name) for name in files)
    run = lint_files(paths, settings, tmp_path, cache)
    return [(Path(d.filename).name, d.location.row, d.code) for d in run.diagnostics]


CHILDREN = """\
    from mxnet.gluon import nn


    class Head(nn.HybridBlock):
        def hybrid_forward(self, F, x, size):
            return F.contrib.BilinearResize2D(x, height=size[0], width=size[1])


    class Loss(nn.HybridBlock):
        def hybrid_forward(self, F, pred, target):
            return F.abs(pred - target[0]) + F.abs(pred - target[1])


    class Cell(nn.HybridBlock):
        def hybrid_forward(self, F, x, hidden, memo):
            h = hidden[0] + x
            memo["key"] = h
            return h, hidden


    class Pyramid(nn.HybridBlock):
        def hybrid_forward(self, F, x):
            return [F.relu(x), F.sigmoid(x)]


    class Fuse(nn.HybridBlock):
        def hybrid_forward(self, F, feats):
            out = feats[0]
            for j in range(1):
                out = out + feats[j + 1]
            return out
    """

PARENT = """\
    from mxnet.gluon import nn
    from children import Head, Loss, Cell, Pyramid, Fuse


    class Net(nn.HybridBlock):
        def __init__(self):
            super().__init__()
            self.image_size = (224, 224)
            self.head = Head()
            self.loss = Loss()
            self.cell = Cell()
            self.pyramid = Pyramid()
            self.fuse = Fuse()

        def hybrid_forward(self, F, x, lo, hi):
            y = self.head(x, self.image_size)
            out, _ = self.cell(y, [F.zeros_like(y)] * 2, {})
            feats = self.pyramid(out)
            return self.loss(self.fuse(feats), [lo, hi])
    """


def test_parameters_take_what_every_caller_passes(tmp_path):
    # false patterns 1-3: a list from `[...] * n`, a list another child returned, a list display,
    # a tuple of ints feeding op attributes, a dict
    assert lint_tree(tmp_path, {"children.py": CHILDREN, "parent.py": PARENT}) == []


def test_without_the_callers_the_same_blocks_are_reported(tmp_path):
    found = lint_tree(tmp_path, {"children.py": CHILDREN}, ALL)
    assert {code for _, _, code in found} >= {"HYB001", "HYB005"}


def test_a_caller_passing_a_tensor_keeps_the_report(tmp_path):
    parent = PARENT.replace("self.loss(self.fuse(feats), [lo, hi])", "self.loss(self.fuse(feats), lo)")
    found = lint_tree(tmp_path, {"children.py": CHILDREN, "parent.py": parent})
    assert ("children.py", 11, "HYB001") in found


def test_a_caller_the_index_cannot_read_joins_with_the_name_reading(tmp_path):
    parent = PARENT.replace("self.loss(self.fuse(feats), [lo, hi])", "self.loss(self.fuse(feats), *lo)")
    found = lint_tree(tmp_path, {"children.py": CHILDREN, "parent.py": parent})
    assert ("children.py", 11, "HYB001") in found


MISSES = {
    "a Dense child's result updated in place": (
        "h = self.proj(x)\nh += x\nreturn h", "HYB006"),
    "a container's result indexed": (
        "y = self.stem(x)\nreturn y[0]", "HYB001"),
    "an output of a user block's tuple updated in place": (
        "a, _ = self.pair(x)\na += x\nreturn a", "HYB006"),
}


@pytest.mark.parametrize("name", sorted(MISSES))
def test_child_results_are_what_the_child_returns(name):
    body, code = MISSES[name]
    source = textwrap.dedent("""\
        from mxnet.gluon import nn


        class Pair(nn.HybridBlock):
            def hybrid_forward(self, F, x):
                return F.relu(x), F.sigmoid(x)


        class Net(nn.HybridBlock):
            def __init__(self):
                super().__init__()
                self.proj = nn.Dense(4)
                self.stem = nn.HybridSequential()
                self.stem.add(nn.Conv2D(8, 3), nn.Activation("relu"))
                self.pair = Pair()

            def hybrid_forward(self, F, x):
        """) + textwrap.indent(body, " " * 8) + "\n"
    from hyblint.analysis.index import Package
    found = check_source(source, "net.py", DEFAULT, package=Package({"net.py": source}))
    assert [d.code for d in found] == [code]
    assert check_source(source, "net.py", DEFAULT) == []  # without the index: a child's result may be a tuple


def test_block_parameters_passed_as_keywords_are_tensors():
    found = check_source(hybrid_block("return x * kwargs['gamma'].shape[0]", args="x, **kwargs"), "t.py")
    assert [d.code for d in found] == ["HYB002"]


SILENT = {
    "type() guard": hybrid_block("y = y[-1] if type(y) in (list, tuple) else y\nreturn F.relu(y)", args="y"),
    "isinstance guard": hybrid_block("if isinstance(y, (list, tuple)):\n    y = y[0]\nreturn F.relu(y)", args="y"),
    "negated isinstance guard": hybrid_block("if not isinstance(y, list):\n    return F.relu(y)\nreturn F.relu(y[0])",
                                             args="y"),
    "not a Symbol": hybrid_block("if not isinstance(w, Symbol):\n    n = w.shape[0]\nreturn F.relu(w)", args="w",
                                 imports="from mxnet.symbol import Symbol\n"),
    "annotated dict": hybrid_block("memo['k'] = x\nreturn memo['k']", args="x, memo: Optional[Dict[str, int]]"),
    "annotated list": hybrid_block("return hidden[0] + x", args="x, hidden: List"),
    "parameter data": hybrid_block("w = self.weight.data()\nreturn F.relu(x) * w.shape[0]"),
}


@pytest.mark.parametrize("name", sorted(SILENT))
def test_guards_and_annotations_are_evidence(name):
    assert check_source(SILENT[name], "t.py", ALL) == []


def test_editing_a_childs_file_rechecks_its_parent(tmp_path):
    child = """\
        from mxnet.gluon import nn


        class Stem(nn.HybridBlock):
            def hybrid_forward(self, F, x):
                return F.relu(x)
        """
    parent = """\
        from mxnet.gluon import nn
        from child import Stem


        class Net(nn.HybridBlock):
            def __init__(self):
                super().__init__()
                self.stem = Stem()

            def hybrid_forward(self, F, x):
                y = self.stem(x)
                return y[0]
        """
    cache = Cache(tmp_path / "cache", DEFAULT)
    assert lint_tree(tmp_path, {"child.py": child, "parent.py": parent}, cache=cache) == [
        ("parent.py", 12, "HYB001")]
    # the child now returns two outputs: `y[0]` selects one of them
    changed = child.replace("return F.relu(x)", "return F.relu(x), F.sigmoid(x)")
    assert lint_tree(tmp_path, {"child.py": changed}, cache=cache) == []
    assert lint_tree(tmp_path, {"child.py": changed, "parent.py": parent}, cache=cache) == []


def test_a_block_deriving_from_a_plain_user_base_in_another_file_is_not_checked(tmp_path):
    base = """\
        from mxnet.gluon import nn


        class Base(nn.Block):
            pass
        """
    child = """\
        from base import Base


        class Child(Base):
            def hybrid_forward(self, F, x):
                return x[0] + x.shape[0]
        """
    assert lint_tree(tmp_path, {"base.py": base, "child.py": child}) == []
    hybrid = base.replace("nn.Block", "nn.HybridBlock")
    assert {code for _, _, code in lint_tree(tmp_path, {"base.py": hybrid, "child.py": child})} == {"HYB001", "HYB002"}


HELPERS = """\
    from mxnet import nd
    from mxnet.gluon import nn


    def pairwise(F, x):
        n = x.shape[0]
        return F.dot(x, x, transpose_b=True) / n


    class Base(nn.HybridBlock):
        def statistic(self, F, data):
            return F.mean(data)

        def hybrid_forward(self, F, x):
            return self.statistic(F, x)


    class Sub(Base):
        def statistic(self, F, data):
            return nd.mean(data)


    class Net(nn.HybridBlock):
        def _target_size(self, x):
            return x.shape[2]

        def _merge(self, F, branches):
            return F.concat(*branches, dim=1) * branches[0].context.device_id

        def hybrid_forward(self, F, x):
            s = self._target_size(x)
            y = pairwise(F, x)
            return self._merge(F, [x, y]) * s
    """


def test_helpers_are_checked_with_what_hybrid_forward_passes(tmp_path):
    # miss 1: a module function and helper methods reading shapes, a context, an nd op in an override
    found = lint_tree(tmp_path, {"m.py": HELPERS})
    assert found == [("m.py", 6, "HYB002"), ("m.py", 20, "HYB009"), ("m.py", 25, "HYB002"), ("m.py", 28, "HYB004")]


def test_a_helper_diagnostic_names_the_call_in_every_format(tmp_path):
    import json

    from hyblint.report import FORMATS

    (tmp_path / "m.py").write_text(textwrap.dedent(HELPERS))
    run = lint_files([str(tmp_path / "m.py")], DEFAULT, tmp_path)
    first = run.diagnostics[0]
    assert [(r.location.row, r.message) for r in first.related] == [(32, "called from hybrid_forward")]
    assert "  called from hybrid_forward %s:32" % first.filename in FORMATS["concise"](run.diagnostics, run.sources)
    assert "called from hybrid_forward" in FORMATS["full"](run.diagnostics, run.sources)
    assert json.loads(FORMATS["json"](run.diagnostics, run.sources))[0]["related"][0]["location"]["row"] == 32
    sarif = json.loads(FORMATS["sarif"](run.diagnostics, run.sources))
    related = sarif["runs"][0]["results"][0]["relatedLocations"][0]
    assert related["physicalLocation"]["region"]["startLine"] == 32
    # and through the cache
    cache = Cache(tmp_path / "cache", DEFAULT)
    lint_files([str(tmp_path / "m.py")], DEFAULT, tmp_path, cache)
    cache.save()
    again = lint_files([str(tmp_path / "m.py")], DEFAULT, tmp_path, Cache(tmp_path / "cache", DEFAULT))
    assert again.diagnostics == run.diagnostics and again.diagnostics[0].related == first.related


def test_helpers_called_with_python_values_stay_silent(tmp_path):
    source = HELPERS.replace("s = self._target_size(x)", "s = self._target_size(self.shape)")
    assert ("m.py", 25, "HYB002") not in lint_tree(tmp_path, {"m.py": source})


BUMP = """

    class Bump(nn.HybridBlock):
        def hybrid_forward(self, F, x):
            y = F.relu(x)
            y += 1
            return y
"""


@pytest.mark.parametrize("others", [0, 6])  # fixed in this process, and in worker processes
def test_the_checks_between_fixes_read_the_index_too(tmp_path, others):
    # fixing Bump re-checks children.py: without the callers' evidence, `hidden[0]` and `target[0]`
    # would be reported again and "fixed" into slices of what is a Python list
    import subprocess
    import sys
    files = {"children.py": CHILDREN + BUMP, "parent.py": PARENT}
    files.update({"other%d.py" % n: "    from mxnet.gluon import nn\n" + BUMP for n in range(others)})
    for name, text in files.items():
        (tmp_path / name).write_text(textwrap.dedent(text))
    done = subprocess.run([sys.executable, "-m", "hyblint", "--fix", "--no-cache", "--unsafe-fixes", "."],
                          cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    fixed = (tmp_path / "children.py").read_text()
    assert "y = y + 1" in fixed
    assert "hidden[0] + x" in fixed and "pred - target[0]" in fixed and "height=size[0]" in fixed
    assert " in %d file" % (others + 1) in done.stderr  # every Bump, and nothing else


RECURRENT = """\
    from mxnet.gluon import nn


    class Stack(nn.HybridBlock):
        def __init__(self, depth):
            super().__init__()
            self.depth = depth
            self.proj = nn.Dense(8)

        def hybrid_forward(self, F, x, h, c):
            outs = []
            for k in range(self.depth):
                outs.append(self.proj(x) + h[k] + c[k])
            return outs, outs


    class Gate(nn.HybridBlock):
        def __init__(self):
            super().__init__()
            self.depth = 2
            self.stack = Stack(2)

        def hybrid_forward(self, F, x, state=None):
            if state is None:
                h = [F.zeros_like(x)] * self.depth
                c = [F.zeros_like(x)] * self.depth
            else:
                h, c = state
            h, c = self.stack(x, h, c)
            return x, (h, c)
    """


def test_a_list_from_one_branch_is_not_outvoted_by_the_name(tmp_path):
    # `h` is a list where the caller builds it and unknown where it unpacks its own argument: the
    # parameter may be a list, so the name's reading (a tensor) must not report `h[k]`
    assert lint_tree(tmp_path, {"recurrent.py": RECURRENT}) == []


def test_a_tensor_from_every_branch_is_still_indexed(tmp_path):
    tensors = RECURRENT.replace("[F.zeros_like(x)] * self.depth", "F.zeros_like(x)")
    assert ("recurrent.py", 13, "HYB001") in lint_tree(tmp_path, {"recurrent.py": tensors})


CHAINED = """\
    from mxnet.gluon import nn


    class PairChain(nn.HybridSequential):
        def hybrid_forward(self, F, a, b):
            for block in self._children.values():
                a, b = block(a, b)
            return a, b


    class Branches(nn.HybridBlock):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2D(4, 1)

        def hybrid_forward(self, F, a, b):
            return a, [self.conv(b), F.Pooling(b, kernel=(2, 2), stride=(2, 2), pool_type="max")]


    class Merge(nn.HybridBlock):
        def __init__(self):
            super().__init__()
            self.down = nn.Conv2D(8, 3, strides=2, padding=1)

        def hybrid_forward(self, F, a, b):
            return a, self.down(b[0]) + b[1]


    class Net(nn.HybridBlock):
        def __init__(self):
            super().__init__()
            self.body = PairChain()
            for _ in range(1):
                self.body.add(Branches())
            self.body.add(Merge())

        def hybrid_forward(self, F, x):
            _, y = self.body(x, x)
            return y
    """


def test_a_multi_input_block_in_a_container_takes_what_the_previous_block_gives(tmp_path):
    # `Merge` is never called by name: the container passes it the outputs of the block before it
    assert lint_tree(tmp_path, {"chained.py": CHAINED}) == []


RESIZED = """\
    from mxnet.gluon import nn


    class Upsample(nn.HybridBlock):
        def hybrid_forward(self, F, x, target_hw):
            return F.contrib.BilinearResize2D(x, height=target_hw[0], width=target_hw[1])


    class Net(nn.HybridBlock):
        def __init__(self, known_hw=None):
            super().__init__()
            self.known_hw = known_hw
            self.up = Upsample()

        def hybrid_forward(self, F, x):
            hw = self.known_hw if self.known_hw is not None else x.shape[2:]
            return self.up(F.Pooling(x, kernel=(2, 2), stride=(2, 2), pool_type="avg"), hw)
    """


def test_a_slice_of_a_shape_passed_to_a_child_is_python(tmp_path):
    # the child's parameter is a tuple of ints on both paths; only `x.shape` itself is reported
    found = lint_tree(tmp_path, {"resized.py": RESIZED})
    assert [code for _, _, code in found] == ["HYB002"]


def test_the_shape_of_a_name_bound_on_several_paths_is_python(tmp_path):
    # `x` is the argument and what a factory-built child returns: unknown, but its shape is sizes
    rebound = RESIZED.replace("self.up = Upsample()", "self.up = Upsample()\n            self.body = make_body()")
    rebound = rebound.replace("        def hybrid_forward(self, F, x):\n",
                              "        def hybrid_forward(self, F, x):\n            x = self.body(x)\n")
    rebound = rebound.replace("from mxnet.gluon import nn\n", "from mxnet.gluon import nn\n\n\n"
                              "    def make_body():\n        return nn.Conv2D(2, 1)\n", 1)
    found = lint_tree(tmp_path, {"resized.py": rebound})
    assert [code for _, _, code in found] == ["HYB002"]


def test_a_multi_input_block_in_a_stock_container_keeps_the_name_reading(tmp_path):
    # a `HybridSequential` passes one input: whoever iterates it calls `Merge`, with tensors here
    stock = CHAINED.replace("self.body = PairChain()", "self.body = nn.HybridSequential()")
    stock = stock.replace("_, y = self.body(x, x)", "y = x\n            for block in self.body:\n"
                                                    "                x, y = block(x, y)")
    assert ("chained.py", 26, "HYB001") in lint_tree(tmp_path, {"chained.py": stock})


# MXNet's embedding_learning example: a plain Block rebinds one name to a child's tensor and then
# to a sampler's tuple. Read as the join of every binding (here, in a loop), what each child is
# passed leans on what the sampler returns, which leans on what the sampler is passed: a cycle,
# read from whichever block is asked about first
CYCLE = """\
from mxnet.gluon import Block, HybridBlock, nn


class Normalize(HybridBlock):
    def hybrid_forward(self, F, x):
        return F.L2Normalization(x, mode="instance")


class Sampler(HybridBlock):
    def hybrid_forward(self, F, x):
        n = x.shape[0]
        return [n], x[0], x


class Net(Block):
    def __init__(self, base):
        super().__init__()
        self.base = base
        self.normalize = Normalize()
        self.sampled = Sampler()

    def forward(self, x):
        z = self.base(x)
        for _ in range(1):
            z = self.normalize(z)
            z = self.sampled(z)
        return z
"""


def test_what_a_cycle_gives_does_not_depend_on_the_block_asked_first():
    from hyblint.analysis.index import Package

    answers = []
    for order in (["Normalize", "Sampler"], ["Sampler", "Normalize"]):
        package = Package({"cycle.py": CYCLE})
        info = package._info("cycle.py")
        found = {name: package.parameter_kinds(info.cls(name)) for name in order}
        answers.append({name: found[name] for name in sorted(found)})
    assert answers[0] == answers[1]


def test_a_name_rebound_in_straight_code_passes_what_its_last_binding_gave(tmp_path):
    # in the example itself the rebinding is straight: the sampler is passed the normalized
    # tensor, whose shape it reads (MXNet 1.9.1: 'Symbol' object has no attribute 'shape')
    straight = CYCLE.replace("        for _ in range(1):\n            z = self.normalize(z)\n"
                             "            z = self.sampled(z)\n",
                             "        z = self.normalize(z)\n        z = self.sampled(z)\n")
    assert ("cycle.py", 11, "HYB002") in lint_tree(tmp_path, {"cycle.py": straight})
    # rebound in a loop, no one binding reaches the call: nothing is known, nothing reported
    assert lint_tree(tmp_path, {"cycle.py": CYCLE}) == []
