"""The command line as users run it: formats, selection, configuration, exit codes, fixing."""
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import jsonschema
import pytest

from hyblint.cli import main

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "fixtures" / "demo"
SNAPSHOTS = ROOT / "fixtures" / "snapshots"
UPDATE = os.environ.get("HYBLINT_UPDATE_SNAPSHOTS") == "1"

BROKEN = textwrap.dedent("""\
    from mxnet.gluon import nn


    class Net(nn.HybridBlock):
        def hybrid_forward(self, F, a, b):
            a += b
            return a[0]
    """)


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def snapshot(name: str, text: str) -> None:
    path = SNAPSHOTS / name
    if UPDATE:
        path.write_text(text)
    assert text == path.read_text(), "run with HYBLINT_UPDATE_SNAPSHOTS=1 to accept the new output"


@pytest.fixture
def in_root(monkeypatch):
    monkeypatch.chdir(ROOT)


def test_demo_text_output_matches_snapshot(capsys, in_root):
    code, out, _ = run(capsys, "check", "--no-cache", "fixtures/demo")
    assert code == 1
    snapshot("demo.txt", out)
    assert {line.split()[1] for line in out.splitlines() if line.startswith("fixtures/demo")} == \
        {"HYB%03d" % i for i in range(1, 15)}


def test_demo_json_output_matches_snapshot(capsys, in_root):
    code, out, _ = run(capsys, "--no-cache", "--format", "json", "fixtures/demo")
    assert code == 1
    snapshot("demo.json", out)
    first = json.loads(out)[0]
    assert set(first) == {"code", "message", "filename", "location", "end_location", "fix", "url", "noqa_row",
                          "severity"}


def test_sarif_output_is_valid_sarif_2_1_0(capsys, in_root):
    code, out, _ = run(capsys, "--no-cache", "--format", "sarif", "fixtures/demo")
    log = json.loads(out)
    schema = json.loads((ROOT / "tests" / "data" / "sarif-schema-2.1.0.json").read_text())
    jsonschema.validate(log, schema)
    results = log["runs"][0]["results"]
    assert code == 1 and len(results) == 15
    assert any("fixes" in r for r in results)


def test_github_annotations(capsys, in_root):
    _, out, _ = run(capsys, "--no-cache", "--format", "github", "fixtures/demo/layers.py")
    lines = out.splitlines()
    assert lines[0].startswith("::error title=hyblint (HYB005),file=fixtures/demo/layers.py,line=18,col=9,")
    assert lines[0].endswith("::HYB005 A Symbol does not support item assignment: build the new tensor with F.where instead")


def test_statistics_counts_per_rule(capsys, in_root):
    _, out, _ = run(capsys, "--no-cache", "--statistics", "fixtures/demo")
    assert out.splitlines()[0].split("\t")[:2] == ["    2", "HYB002"]


def test_select_ignore_and_exit_zero(capsys, tmp_path):
    (tmp_path / "net.py").write_text(BROKEN)
    assert run(capsys, "--no-cache", "--select", "HYB006", "--format", "concise", tmp_path)[1].count("HYB") == 1
    assert run(capsys, "--no-cache", "--ignore", "HYB0", tmp_path)[0] == 0
    assert run(capsys, "--no-cache", "--exit-zero", tmp_path)[0] == 0
    code, out, _ = run(capsys, "--no-cache", "--quiet", "--format", "concise", tmp_path)
    assert code == 1 and "Found" not in out and out.count("HYB") == 2


def test_configuration_from_pyproject(capsys, tmp_path):
    (tmp_path / "pyproject.toml").write_text(textwrap.dedent("""\
        [tool.hyblint]
        ignore = ["HYB001"]
        per-file-ignores = { "legacy/*.py" = ["HYB006"] }
        extend-exclude = ["generated"]
        """))
    for folder in ("src", "legacy", "generated"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "net.py").write_text(BROKEN)
    code, out, _ = run(capsys, "--no-cache", "--format", "concise", tmp_path)
    flagged = [line for line in out.splitlines() if "HYB" in line and ":" in line and not line.startswith("Found")]
    assert code == 1
    assert len(flagged) == 1 and "src" in flagged[0] and "HYB006" in flagged[0]


def test_unknown_configuration_key_is_a_usage_error(capsys, tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.hyblint]\nselekt = ['HYB001']\n")
    (tmp_path / "net.py").write_text(BROKEN)
    code, _, err = run(capsys, "--no-cache", tmp_path)
    assert code == 2 and "unknown [tool.hyblint] option(s): selekt" in err


def test_missing_path_is_a_usage_error(capsys, tmp_path):
    code, _, err = run(capsys, tmp_path / "nope.py")
    assert code == 2 and "no such file or directory" in err


def test_rule_command_prints_docs_and_lists_rules(capsys):
    code, out, _ = run(capsys, "rule", "HYB011")
    assert code == 0 and out.startswith("# reshape-positional (HYB011)") and "## Fix safety" in out
    code, out, _ = run(capsys, "rule", "--all")
    from hyblint.rules import ALL_RULES
    assert code == 0 and len(out.splitlines()) == len(ALL_RULES) + 1 == 20
    assert [line.split()[0] for line in out.splitlines()[1:]] == list(ALL_RULES)
    assert run(capsys, "rule", "HYB999")[0] == 2


def test_fix_diff_and_show_fixes(capsys, tmp_path):
    target = tmp_path / "net.py"
    target.write_text(BROKEN)
    code, out, _ = run(capsys, "--diff", target)
    assert code == 1 and "-        a += b\n" in out and "+        a = a + b\n" in out
    assert target.read_text() == BROKEN  # --diff changes nothing
    code, out, _ = run(capsys, "--fix", "--show-fixes", target)
    assert code == 0, out
    assert "a = a + b" in target.read_text() and "F.squeeze(F.slice_axis(a, axis=0, begin=0, end=1), axis=0)" \
        in target.read_text()
    assert "Fixed" in out
    assert run(capsys, "--fix", target)[0] == 0  # nothing left


def test_version_and_module_entry_point():
    done = subprocess.run([sys.executable, "-m", "hyblint", "--version"], capture_output=True, text=True,
                          cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 0 and done.stdout.startswith("hyblint 0.")


def test_the_entry_point_writes_everything_before_it_exits(capsys, tmp_path):
    # the console script ends without tearing the interpreter down: its output must be complete
    demo = ROOT / "fixtures" / "demo"
    done = subprocess.run([sys.executable, "-m", "hyblint", "check", "--no-cache", "--format", "json", str(demo)],
                          capture_output=True, text=True, cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 1, done.stderr
    in_process = json.loads(run(capsys, "--no-cache", "--format", "json", demo)[1])
    assert json.loads(done.stdout) == in_process and len(in_process) >= 14


def test_warm_cache_gives_the_same_diagnostics(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # with no configuration, the cache lives in the current directory
    (tmp_path / "net.py").write_text(BROKEN)
    first = run(capsys, "--format", "json", tmp_path)[1]
    assert (tmp_path / ".hyblint_cache").is_dir()
    assert run(capsys, "--format", "json", tmp_path)[1] == first
    cache = next((tmp_path / ".hyblint_cache").glob("diagnostics-*.json"))
    cache.write_text("{ not json")
    assert run(capsys, "--format", "json", tmp_path)[1] == first  # a corrupt cache is ignored


@pytest.mark.parametrize("ending", ["\n", ""])
def test_diff_is_a_patch_git_applies(capsys, tmp_path, ending):
    # the last line of the file is changed by a fix; without a trailing newline the diff must say so
    text = BROKEN.rstrip("\n").replace("return a[0]", "a += b") + ending
    (tmp_path / "a.py").write_text(text)
    (tmp_path / "b.py").write_text(BROKEN)  # two files in one patch
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        code, out, _ = run(capsys, "--diff", "a.py", "b.py")
    finally:
        os.chdir(cwd)
    assert code == 1
    assert ("\\ No newline at end of file\n" in out) == (ending == "")
    (tmp_path / "fix.patch").write_text(out)
    done = subprocess.run(["git", "apply", "-p0", "fix.patch"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr + out
    assert (tmp_path / "a.py").read_text().endswith("a = a + b" + ending)
    assert "a = a + b" in (tmp_path / "b.py").read_text()
