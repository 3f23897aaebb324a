"""Bad input through the console script: each is a clear error naming the file or option, and
the run goes on or ends with exit 2, never with a traceback or a hang."""
import json
import os
import subprocess
import sys
import textwrap

import pytest

from hyblint.engine import check_source
from hyblint.report.sarif import render as sarif
from hyblint.report.text import found
from hyblint.diagnostics import Diagnostic, Location, Severity
from hyblint.triage import triage

GOOD = textwrap.dedent("""\
    from mxnet.gluon import nn


    class Net(nn.HybridBlock):
        def hybrid_forward(self, F, x):
            return x[0]
    """)


def hyblint(*args, cwd=None, timeout=60):
    done = subprocess.run([sys.executable, "-m", "hyblint", "--no-cache", "--format", "concise", *map(str, args)],
                          capture_output=True, text=True, timeout=timeout, cwd=cwd)
    assert "Traceback" not in done.stderr + done.stdout, done.stderr
    return done.returncode, done.stdout, done.stderr


def test_a_fifo_in_the_tree_and_as_an_argument(tmp_path):
    (tmp_path / "good.py").write_text(GOOD)
    os.mkfifo(tmp_path / "pipe.py")
    code, out, _ = hyblint(tmp_path, tmp_path / "pipe.py", timeout=30)
    assert code == 2
    assert "pipe.py:1:1: HYB907 not a regular file (a FIFO)" in out
    assert "good.py:6:16: HYB001" in out


def test_a_device_is_not_read(tmp_path):
    code, out, _ = hyblint("/dev/zero", timeout=30)
    assert code == 2 and "/dev/zero:1:1: HYB907 not a regular file (a character device)" in out


def test_a_file_over_the_size_limit(tmp_path):
    (tmp_path / "huge.py").write_bytes(b"#" * (10 * 1024 * 1024 + 1))
    code, out, _ = hyblint(tmp_path)
    assert code == 2 and "huge.py:1:1: HYB907 too large: 10485761 bytes, over the limit of 10 MB" in out


def test_a_symlink_loop_as_the_first_path(tmp_path):
    os.symlink("loop.py", tmp_path / "loop.py")
    code, out, _ = hyblint("loop.py", cwd=tmp_path)
    assert code == 2 and "loop.py:1:1: HYB904 symbolic link loop" in out


@pytest.mark.parametrize("content, reason", [
    (b'[tool.hyblint]\nselect = ["HYB\xff"]\n', "pyproject.toml: not valid UTF-8 (byte 0xff on line 2)"),
    (b"[tool.hyblint]\nselect = " + b"[" * 3000 + b"]" * 3000 + b"\n",
     "pyproject.toml: invalid TOML: arrays or tables nested too deeply"),
    (b'[tool.hyblint]\nexclude = [1]\n', "exclude must be a list of glob patterns (strings)"),
    (b'[tool.hyblint]\nhybrid-bases = "Base"\n', "hybrid-bases must be a list of class names (strings)"),
    (b'[tool.hyblint]\nselect = "HYB"\n', "select must be a list of rule codes"),
], ids=["not-utf8", "deep-array", "exclude", "hybrid-bases", "select"])
def test_a_bad_pyproject(tmp_path, content, reason):
    (tmp_path / "pyproject.toml").write_bytes(content)
    (tmp_path / "good.py").write_text(GOOD)
    code, out, err = hyblint(tmp_path)
    assert code == 2 and out == ""
    assert err.startswith("hyblint: error: ") and reason in err, err


def test_config_that_is_not_a_regular_file(tmp_path):
    (tmp_path / "good.py").write_text(GOOD)
    code, _, err = hyblint("--config", "/dev/null", tmp_path)
    assert code == 2 and "hyblint: error: /dev/null: not a regular file (a character device)" in err
    code, _, err = hyblint("--config", tmp_path / "missing.toml", tmp_path)
    assert code == 2 and "missing.toml: no such file" in err


@pytest.mark.parametrize("data, name", [
    (b"\xff\xfe" + GOOD.encode("utf-16-le"), "UTF-16"),
    (GOOD.encode("utf-16-be"), "UTF-16"),
    (b"\xff\xfe\x00\x00" + GOOD.encode("utf-32-le"), "UTF-32"),
])
def test_wide_unicode_files_are_not_called_binary(tmp_path, data, name):
    (tmp_path / "wide.py").write_bytes(data)
    code, out, _ = hyblint(tmp_path)
    assert code == 2 and "wide.py:1:1: HYB901 not UTF-8 (looks like %s)" % name in out


def test_summary_counts_errors_and_warnings_apart():
    def diagnostic(severity):
        return Diagnostic("HYB010", "m", "a.py", Location(1, 1), Location(1, 2), severity)
    assert found([diagnostic(Severity.ERROR)] * 2) == "Found 2 errors."
    assert found([diagnostic(Severity.WARNING)]) == "Found 1 warning."
    assert found([diagnostic(Severity.ERROR), diagnostic(Severity.WARNING)] * 2) == \
        "Found 4 diagnostics: 2 errors, 2 warnings."


def test_sarif_uris_are_percent_encoded():
    names = ["dir with space/a#b%c.py", "x:y.py"]
    log = json.loads(sarif([Diagnostic("HYB001", "m", name, Location(1, 1), Location(1, 2), Severity.ERROR)
                            for name in names], {}))
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in log["runs"][0]["results"]]
    assert uris == ["dir%20with%20space/a%23b%25c.py", "x%3Ay.py"]


def test_cannot_parse_always_names_a_reason():
    from hyblint.triage import cannot_parse
    assert cannot_parse("a.py", ValueError()).message == "cannot parse: ValueError"


# Triage reads classes and methods from the text; where the text misleads it, Python's tree decides.
MISLEADING = {
    "lone-cr": GOOD.replace("\n", "\r"),
    "class-line-in-docstring": GOOD.replace('nn.HybridBlock):\n', 'nn.HybridBlock):\n    """Doc\nclass Other(nn.Block):\n    """\n'),
    "form-feed": GOOD.replace("class Net", "\fclass Net"),
    "class-continued": GOOD.replace("class Net", "class \\\nNet"),
    "def-continued": GOOD.replace("def hybrid_forward", "def \\\n        hybrid_forward"),
    "method-in-docstring": GOOD.replace("return x[0]", '"""\n    def hybrid_forward(self, F, x):\n        return x[0]\n    """\n        return x'),
}


@pytest.mark.parametrize("name", sorted(MISLEADING))
def test_triage_agrees_with_pythons_tree(name):
    source = MISLEADING[name]
    found_ = [(d.code, d.location.row) for d in check_source(source, name + ".py")]
    exact = triage(source, name + ".py", exact=True)
    from hyblint.engine import finish
    assert found_ == [(d.code, d.location.row) for d in finish(exact)]
    expected = [] if name == "method-in-docstring" else [("HYB001", source.replace("\r", "\n").count("\n"))]
    assert found_ == expected


def test_misleading_files_through_the_console_script(tmp_path):
    for name, source in MISLEADING.items():
        (tmp_path / (name + ".py")).write_bytes(source.encode())
    code, out, _ = hyblint(tmp_path)
    assert code == 1
    assert sorted(line.split(":")[0].rsplit("/", 1)[-1] for line in out.splitlines() if "HYB001" in line) == \
        sorted(name + ".py" for name in MISLEADING if name != "method-in-docstring")
