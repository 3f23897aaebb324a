"""`hyblint verify` runs real blocks on the runtime: eagerly, then hybridized, in subprocesses."""
import argparse
import json
import textwrap
from pathlib import Path

import pytest

from hyblint.verify import arguments, command

ROOT = Path(__file__).resolve().parents[1]
GOLDEN_BLOCKS = ROOT / "fixtures" / "golden" / "blocks.jsonl"


def run_verify(capsys, *argv):
    parser = argparse.ArgumentParser()
    arguments.add_arguments(parser)
    code = command.run(parser.parse_args([str(a) for a in argv] + ["--format", "json"]))
    out = capsys.readouterr().out
    return code, {(Path(r["path"]).name, r["block"]): r for r in json.loads(out)}


def shape_arg(key, shapes):
    return "--shapes=%s=%s" % (key, ",".join("(%s,)" % ",".join(map(str, s)) for s in shapes))


@pytest.fixture(scope="module")
def golden_dir(tmp_path_factory):
    """Every public golden block as a module of its own, plus a factory for the one with arguments."""
    folder = tmp_path_factory.mktemp("golden_blocks")
    cases = [json.loads(line) for line in GOLDEN_BLOCKS.read_text().splitlines()]
    for case in cases:
        (folder / (case["id"] + ".py")).write_text(case["source"])
    (folder / "residual_factory.py").write_text(
        "from residual import Residual\n\ndef build():\n    return [('Residual(4)', Residual(4))]\n\n"
        "def with_shapes():\n    yield 'Residual(4) with shapes', Residual(4), [(2, 4, 6, 6)]\n")
    (folder / "silent.py").write_text(textwrap.dedent("""\
        from mxnet.gluon import nn

        class FirstRow(nn.HybridBlock):
            def hybrid_forward(self, F, x):
                y = F.relu(x)
                return y[0]
        """))
    return folder, cases


def golden_shape_args(cases):
    args = []
    for case in cases:
        shapes = [c["shape"] for c in case["inputs"]]
        name = case["build"].split("(")[0]
        key = case["id"] + "." + name
        args.append(shape_arg(key, shapes))
    args.append(shape_arg("Residual(4)", [[2, 4, 6, 6]]))
    args.append(shape_arg("silent.FirstRow", [[3, 4]]))
    return args


def test_golden_blocks_fail_exactly_where_mxnet_failed(golden_dir, capsys, monkeypatch):
    folder, cases = golden_dir
    monkeypatch.chdir(folder)
    code, results = run_verify(capsys, folder, "--factory", "residual_factory:build", *golden_shape_args(cases))
    assert code == 1
    for case in cases:
        block = case["build"].split("(")[0]
        if block == "Residual":
            result = results[("residual_factory:build", "Residual(4)")]
        else:
            result = results[(case["id"] + ".py", block if block != "get_net" else "get_net()")]
        if "error" in case["hybridized"]:
            assert result["status"] == "fails", case["id"]
            assert result["detail"].startswith(case["hybridized"]["error"] + ":"), (case["id"], result)
        else:
            assert result["status"] == "agrees", (case["id"], result)
    silent = results[("silent.py", "FirstRow")]
    assert silent["status"] == "disagrees"
    assert "shape (4,) eagerly, (3, 4) hybridized" in silent["detail"]
    # the unconfigured Residual class is listed, not guessed
    assert results[("residual.py", "Residual")]["status"] == "not-built"


def test_factory_may_give_the_input_shapes(golden_dir, capsys, monkeypatch):
    folder, _ = golden_dir
    monkeypatch.chdir(folder)
    code, results = run_verify(capsys, "--factory", "residual_factory:with_shapes")
    assert code == 0
    assert results[("residual_factory:with_shapes", "Residual(4) with shapes")]["status"] == "agrees"


def test_failure_points_at_the_line_in_hybrid_forward(golden_dir, capsys):
    folder, cases = golden_dir
    code, results = run_verify(capsys, folder / "seed_indexing.py", "--shapes", "Net=3x4")
    assert code == 1
    result = results[("seed_indexing.py", "Net")]
    assert result["status"] == "fails"
    assert result["detail"] == "TypeError: Symbol only support integer index to fetch i-th output"
    source_lines = (folder / "seed_indexing.py").read_text().splitlines()
    assert source_lines[result["line"] - 1].strip() == "return x[0, 0]"


# Each of these blocks fails on MXNet 1.9.1, eagerly and hybridized, with these words
MXNET_REJECTS = {
    "FlattenTwice": ("return F.reshape(x, shape=(-1, -1))", "One and only one dim can be inferred"),
    "TakeThirdAxis": ("return F.take(x, F.zeros((1,)), axis=2)", "Axis should be in the range of [-r, r-1]"),
    "TransposeNegative": ("return F.transpose(x, axes=(-1, 0))", "index = -1 must be in range [0, 2)"),
    "MixedPrecision": ('return F.broadcast_add(x, F.cast(x, dtype="float64"))',
                       "Incompatible attr in node  at 1-th input: expected float32, got float64"),
}


def test_blocks_that_mxnet_rejects_do_not_agree(tmp_path, capsys):
    source = ["from mxnet.gluon import nn\n"]
    for name, (line, _) in MXNET_REJECTS.items():
        source.append("class %s(nn.HybridBlock):\n    def hybrid_forward(self, F, x):\n        %s\n" % (name, line))
    source.append(textwrap.dedent("""\
        class WrongBias(nn.HybridBlock):
            def __init__(self, **kwargs):
                super().__init__(**kwargs)
                with self.name_scope():
                    self.weight = self.params.get("weight", shape=(4, 3))
                    self.bias = self.params.get("bias", shape=(5,))

            def hybrid_forward(self, F, x, weight, bias):
                return F.FullyConnected(x, weight, bias, num_hidden=4)
        """))
    (tmp_path / "rejected.py").write_text("\n".join(source))
    expected = dict({name: words for name, (_, words) in MXNET_REJECTS.items()},
                    WrongBias="Unexpected shape for bias [5]")
    code, results = run_verify(capsys, tmp_path, *[shape_arg("rejected." + name, [[2, 3]]) for name in expected])
    for name, words in expected.items():
        result = results[("rejected.py", name)]
        assert result["status"] != "agrees", result
        assert words in result["detail"], result


def test_input_shapes_come_from_the_first_layer(tmp_path, capsys):
    (tmp_path / "mlp.py").write_text(textwrap.dedent("""\
        from mxnet.gluon import nn

        def get_mlp():
            net = nn.HybridSequential()
            net.add(nn.Dense(8, in_units=5, activation='relu'), nn.Dense(2, in_units=8))
            return net

        class NoHint(nn.HybridBlock):
            def hybrid_forward(self, F, x):
                return F.relu(x)
        """))
    code, results = run_verify(capsys, tmp_path)
    assert results[("mlp.py", "get_mlp()")]["status"] == "agrees"
    unknown = results[("mlp.py", "NoHint")]
    assert unknown["status"] == "no-inputs"
    assert "--shapes NoHint=" in unknown["detail"]
    assert code == 0


def test_a_hanging_module_times_out_and_the_rest_go_on(tmp_path, capsys):
    (tmp_path / "hangs.py").write_text("import mxnet\nimport time\ntime.sleep(60)\n")
    (tmp_path / "dies.py").write_text("import mxnet\nimport os\nos._exit(3)\n")
    (tmp_path / "fine.py").write_text(textwrap.dedent("""\
        from mxnet.gluon import nn

        class Double(nn.HybridBlock):
            def hybrid_forward(self, F, x):
                return x * 2
        """))
    code, results = run_verify(capsys, tmp_path, "--timeout", "20", "--shapes", "Double=2x3")
    assert results[("hangs.py", "*")]["status"] == "timeout"
    assert results[("dies.py", "*")]["status"] == "crashed"
    assert results[("fine.py", "Double")]["status"] == "agrees"
    assert code == 1


@pytest.mark.parametrize("bad", ["Net", "Net=", "Net=2xq", "Net=(0,3)"])
def test_bad_shapes_are_a_usage_error(tmp_path, capsys, bad):
    parser = argparse.ArgumentParser()
    arguments.add_arguments(parser)
    code = command.run(parser.parse_args([str(tmp_path), "--shapes", bad]))
    assert code == 2
    assert "--shapes" in capsys.readouterr().err


def test_text_report_lists_the_silent_divergence_first(golden_dir, capsys):
    folder, _ = golden_dir
    parser = argparse.ArgumentParser()
    arguments.add_arguments(parser)
    args = parser.parse_args([str(folder / "silent.py"), str(folder / "seed_dtype.py"),
                              "--shapes", "Net=2x3", "--shapes", "FirstRow=3x4"])
    assert command.run(args) == 1
    lines = capsys.readouterr().out.splitlines()
    assert "DISAGREES" in lines[1] and "FirstRow" in lines[1]
    assert "FAILS when hybridized" in lines[2]
    assert lines[-1].startswith("2 blocks:")


def test_the_runtime_runs_hybridized_blocks_without_its_rounding_rewrites(tmp_path, capsys):
    """Folding BatchNorm into convolutions rounds otherwise than the eager operators (a detector's
    exp() made eager and hybridized 1e27 apart on GluonCV's YOLOv3): verify compares behaviour, as
    MXNet's plain hybridized graph does, so the runtime runs them with those rewrites off."""
    seen = tmp_path / "seen.txt"
    module = tmp_path / "reads_env.py"
    module.write_text(textwrap.dedent("""\
        import os
        from mxnet.gluon import nn
        with open(%r, "w") as out:
            out.write(os.environ.get("HYBLINT_RUNTIME_INFERENCE_FUSION", "unset"))


        class Net(nn.HybridBlock):
            def hybrid_forward(self, F, x):
                return x + 1
        """ % str(seen)))
    run_verify(capsys, str(module), "--no-cache", "--shapes", "Net=2x3")
    assert seen.read_text() == "0"
