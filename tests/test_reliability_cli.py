"""Defects of the reliability audit that a user meets through the console script, exercised
there (their logic has unit tests beside the code that fixes them)."""
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def hyblint(*argv, cwd):
    return subprocess.run([sys.executable, "-m", "hyblint", "--no-cache", *map(str, argv)], cwd=cwd,
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300)


def block(body: str, header: str = "from mxnet import nd\nfrom mxnet.gluon import nn\n") -> str:
    return header + "\n\nclass Net(nn.HybridBlock):\n    def hybrid_forward(self, F, x):\n%s\n" % textwrap.indent(
        textwrap.dedent(body).strip("\n"), " " * 8)


def test_a_store_through_a_subscript_is_left_as_it_is(tmp_path):
    """Defect 6: `y[0][1] = 2` writes into y through the view y[0]; no fix may rewrite y[0]."""
    source = block("y = F.relu(x)\ny[0][1] = 2\nz = x[0]\nreturn y + z")
    (tmp_path / "m.py").write_text(source)
    done = hyblint("--fix", "--unsafe-fixes", "m.py", cwd=tmp_path)
    fixed = (tmp_path / "m.py").read_text()
    assert "        y[0][1] = 2\n" in fixed, done.stdout + done.stderr
    assert "z = x[0]" not in fixed  # the read through a subscript was fixed


@pytest.mark.parametrize("tail, import_line", [
    ("", "from mxnet import nd  # noqa: F401\n"),
    ("\n\ndef get(name):\n    return globals()[name]\n", "from mxnet import nd\n"),
    ("\n\ndef helper(a: 'nd.NDArray'):\n    return a\n", "from mxnet import nd\n"),
    ("", "from mxnet import nd as nd\n"),
])
def test_fix_keeps_an_import_that_may_still_be_needed(tmp_path, tail, import_line):
    """Defect 5, through `--fix`: the HYB009 fix rewrites the call and keeps the import."""
    path = tmp_path / "model.py"
    path.write_text(block("return nd.relu(x)", "from mxnet.gluon import nn\n" + import_line) + tail)
    done = hyblint("--fix", path.name, cwd=tmp_path)
    text = path.read_text()
    assert "return F.relu(x)" in text and import_line in text, done.stdout + done.stderr
    init = tmp_path / "pkg" / "__init__.py"  # a package's imports are its API
    init.parent.mkdir()
    init.write_text(block("return nd.relu(x)"))
    hyblint("--fix", "pkg", cwd=tmp_path)
    assert "from mxnet import nd\n" in init.read_text() and "F.relu" in init.read_text()


def test_the_summary_counts_errors_and_warnings_apart(tmp_path):
    """Defect 17: "Found N errors" counted warnings (HYB010 is a warning)."""
    (tmp_path / "m.py").write_text(block("y = x[0]\nprint(y)\nreturn y"))
    done = hyblint("m.py", cwd=tmp_path)
    assert done.returncode == 1
    assert "Found 2 diagnostics: 1 error, 1 warning." in done.stdout, done.stdout
    (tmp_path / "w.py").write_text(block("print(x)\nreturn x"))
    done = hyblint("w.py", cwd=tmp_path)
    assert "Found 1 warning." in done.stdout and "error" not in done.stdout, done.stdout


def test_sarif_uris_are_percent_encoded(tmp_path):
    """Defect 17: SARIF artifactLocation.uri of a file named with `#`, `%` and a space."""
    folder = tmp_path / "dir with space"
    folder.mkdir()
    (folder / "a#b%c.py").write_text(block("return x[0]"))
    done = hyblint("--format", "sarif", ".", cwd=tmp_path)
    log = json.loads(done.stdout)
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in log["runs"][0]["results"]}
    assert uris == {"dir%20with%20space/a%23b%25c.py"}


def test_a_block_deriving_from_a_plain_user_base_is_not_linted(tmp_path):
    """Defect 17: a user base that is itself an nn.Block is never hybridized."""
    (tmp_path / "base.py").write_text("from mxnet.gluon import nn\n\n\nclass Base(nn.Block):\n    pass\n")
    (tmp_path / "child.py").write_text("from base import Base\n\n\nclass Child(Base):\n"
                                       "    def hybrid_forward(self, F, x):\n        return x[0]\n")
    done = hyblint(".", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
