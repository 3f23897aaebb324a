"""Files that cannot be checked: each is reported with its path and reason, and the run goes on."""
import os
import textwrap

import pytest

from hyblint import files
from hyblint.cli import main

GOOD = textwrap.dedent("""\
    from mxnet.gluon import nn


    class Net(nn.HybridBlock):
        def hybrid_forward(self, F, x):
            return x[0]
    """)


def check(capsys, *paths):
    code = main(["--no-cache", "--format", "concise"] + [str(p) for p in paths])
    return code, capsys.readouterr().out


@pytest.fixture
def project(tmp_path):
    (tmp_path / "good.py").write_text(GOOD)
    return tmp_path


def assert_reported(out, code, name, reason):
    lines = [line for line in out.splitlines() if code in line]
    assert len(lines) == 1, out
    assert name in lines[0] and reason in lines[0], lines[0]
    assert "good.py:6:16: HYB001" in out  # the other file is still checked


def test_syntax_error(capsys, project):
    (project / "broken.py").write_text(GOOD.replace("def hybrid_forward(self, F, x):", "def hybrid_forward(self, F, x)"))
    code, out = check(capsys, project)
    assert code == 2
    assert_reported(out, "HYB900", "broken.py:5:", "syntax error: expected ':'")


def test_syntax_error_outside_hybrid_forward(capsys, project):
    (project / "broken.py").write_text(GOOD + "\ndef helper(:\n    pass\n")
    code, out = check(capsys, project)
    assert code == 2
    assert_reported(out, "HYB900", "broken.py:8:12:", "syntax error")


def test_not_utf8(capsys, project):
    (project / "latin.py").write_bytes(GOOD.encode() + b"# caf\xe9\n")
    code, out = check(capsys, project)
    assert code == 2
    assert_reported(out, "HYB901", "latin.py", "not valid UTF-8 (byte 0xe9 on line 7)")


def test_declared_encoding_is_honoured(capsys, project):
    (project / "latin.py").write_bytes(b"# -*- coding: latin-1 -*-\n" + GOOD.encode() + b"# caf\xe9\n")
    code, out = check(capsys, project)
    assert code == 1 and "HYB901" not in out and "latin.py:7:16: HYB001" in out


def test_binary_file(capsys, project):
    (project / "blob.py").write_bytes(b"\x00\x01\x02hybrid_forward")
    code, out = check(capsys, project)
    assert code == 2
    assert_reported(out, "HYB902", "blob.py", "binary file")


def test_unreadable_file(capsys, project, monkeypatch):
    (project / "secret.py").write_text(GOOD)
    real = files._open

    def refuse(path):
        if str(path).endswith("secret.py"):  # tests run as root, where chmod 000 does not stop reading
            raise PermissionError(13, "Permission denied")
        return real(path)
    monkeypatch.setattr(files, "_open", refuse)
    code, out = check(capsys, project)
    assert code == 2
    assert_reported(out, "HYB903", "secret.py", "cannot read: Permission denied")


def test_symlink_loop(capsys, project):
    os.symlink(project / "loop.py", project / "loop.py")
    code, out = check(capsys, project)
    assert code == 2
    assert_reported(out, "HYB904", "loop.py", "symbolic link loop")


def test_file_vanishing_mid_run(capsys, project, monkeypatch):
    (project / "ghost.py").write_text(GOOD)
    real = files.read_source

    def vanish_then_read(path):
        if str(path).endswith("ghost.py"):
            os.unlink(path)  # deleted after discovery listed it, before it was read
        return real(path)
    monkeypatch.setattr("hyblint.lint.read_source", vanish_then_read)
    code, out = check(capsys, project)
    assert code == 2
    assert_reported(out, "HYB905", "ghost.py", "vanished")


def test_fix_leaves_a_file_with_a_syntax_error_untouched(capsys, project):
    broken = GOOD + "\ndef helper(:\n    pass\n"
    (project / "broken.py").write_text(broken)
    assert main(["--fix", str(project)]) == 2
    assert (project / "broken.py").read_text() == broken
    assert "x[0]" not in (project / "good.py").read_text()  # the good file was still fixed
