"""The fixer's guarantees: edits land exactly, everything else stays byte-identical, fixes that
would not parse are dropped, nested fixes all apply, fixing twice changes nothing more."""
import codecs
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from hyblint.diagnostics import Applicability, Diagnostic, Edit, Fix, Location, Severity
from hyblint.fixer import apply_edits, fix_source

ROOT = Path(__file__).resolve().parent.parent


def edit(content, r1, c1, r2, c2):
    return Edit(content, Location(r1, c1), Location(r2, c2))


def test_apply_edits_counts_rows_and_columns_from_one_with_exclusive_ends():
    text = "ab\ncdé\r\nfg"
    assert apply_edits(text, [edit("X", 2, 2, 2, 4)]) == "ab\ncX\r\nfg"
    assert apply_edits(text, [edit("Y", 3, 1, 3, 1), edit("", 1, 1, 1, 2)]) == "b\ncdé\r\nYfg"
    assert apply_edits(text, [edit("Z", 1, 3, 2, 1)]) == "abZcdé\r\nfg"


def test_apply_edits_rejects_overlaps():
    with pytest.raises(ValueError):
        apply_edits("abcdef", [edit("1", 1, 1, 1, 4), edit("2", 1, 3, 1, 5)])


MODULE = '''\
import mxnet as mx
from mxnet import nd  # used below
from mxnet.gluon import nn


class Net(nn.HybridBlock):
    """Docs stay."""

    def hybrid_forward(self, F, x, y):
        # a comment before
        a = x[0]   # trailing comment, odd  spacing
        b = nd.relu(x[:, 1:3])
        c = F.relu(y)
        c += a  # add
        return   b, c[0][1]
'''

FIXED = '''\
import mxnet as mx
from mxnet.gluon import nn


class Net(nn.HybridBlock):
    """Docs stay."""

    def hybrid_forward(self, F, x, y):
        # a comment before
        a = F.squeeze(F.slice_axis(x, axis=0, begin=0, end=1), axis=0)   # trailing comment, odd  spacing
        b = F.relu(F.slice_axis(x, axis=1, begin=1, end=3))
        c = F.relu(y)
        c = c + a  # add
        return   b, F.squeeze(F.slice_axis(F.squeeze(F.slice_axis(c, axis=0, begin=0, end=1), axis=0), axis=0, begin=1, end=2), axis=0)
'''


def test_fix_rewrites_only_the_flagged_expressions_and_nested_ones():
    result = fix_source(MODULE, "m.py")
    assert result.source == FIXED
    assert sorted({d.code for d in result.applied}) == ["HYB001", "HYB006", "HYB009"]
    assert result.remaining == [] and result.dropped == []


def test_fixing_twice_changes_nothing_more():
    once = fix_source(MODULE, "m.py").source
    again = fix_source(once, "m.py")
    assert again.source == once and again.applied == []


def test_syntax_error_leaves_the_text_untouched():
    broken = MODULE.replace("c = F.relu(y)", "c = F.relu(y")
    result = fix_source(broken, "m.py")
    assert result.source == broken and result.applied == []
    assert [d.code for d in result.remaining] == ["HYB900"]


def _fake_checker(fixes):
    def check(source, filename):
        return [d for d in fixes if d.fix.edits[0].content not in source]
    return check


def _diagnostic(content, r1, c1, r2, c2, applicability=Applicability.SAFE):
    return Diagnostic("HYB001", "m", "f.py", Location(r1, c1), Location(r2, c2), Severity.ERROR,
                      Fix(applicability, "fix", (edit(content, r1, c1, r2, c2),)))


def test_a_fix_that_would_not_parse_is_dropped_and_reported_the_rest_applies():
    source = "x = 1\ny = 2\n"
    good = _diagnostic("3", 2, 5, 2, 6)
    bad = _diagnostic("(", 1, 5, 1, 6)
    result = fix_source(source, "f.py", checker=_fake_checker([good, bad]))
    assert result.source == "x = 1\ny = 3\n"
    assert result.applied == [good]
    assert [(d, reason) for d, reason in result.dropped] == [(bad, "the fixed code would not parse")]


def test_unsafe_fixes_need_the_flag():
    source = "x = 1\n"
    unsafe = _diagnostic("2", 1, 5, 1, 6, Applicability.UNSAFE)
    assert fix_source(source, "f.py", checker=_fake_checker([unsafe])).source == source
    assert fix_source(source, "f.py", unsafe=True, checker=_fake_checker([unsafe])).source == "x = 2\n"


def test_rounds_are_bounded_when_fixes_never_settle():
    counter = {"n": 0}

    def check(source, filename):
        counter["n"] += 1
        return [_diagnostic(str(counter["n"]), 1, 5, 1, 5 + len(source.split("= ")[1].strip()))]
    result = fix_source("x = 0\n", "f.py", checker=check)
    assert counter["n"] <= 12 and len(result.applied) == 10


# ---- through the command line: files on disk

def run_cli(*args, cwd):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "hyblint", *args, "--no-cache"], cwd=cwd, env=env,
                          capture_output=True, text=True)


def test_cli_fix_keeps_bom_crlf_and_mode_bits(tmp_path):
    path = tmp_path / "m.py"
    path.write_bytes(codecs.BOM_UTF8 + MODULE.replace("\n", "\r\n").encode("utf-8"))
    path.chmod(0o751)
    done = run_cli("--fix", "m.py", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert path.read_bytes() == codecs.BOM_UTF8 + FIXED.replace("\n", "\r\n").encode("utf-8")
    assert stat.S_IMODE(path.stat().st_mode) == 0o751
    assert [p.name for p in tmp_path.iterdir()] == ["m.py"]  # no temporary file left


def test_cli_diff_changes_nothing_and_exits_1(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(MODULE)
    done = run_cli("--diff", "m.py", cwd=tmp_path)
    assert done.returncode == 1
    assert "-        a = x[0]" in done.stdout and "+        c = c + a  # add" in done.stdout
    assert path.read_text() == MODULE


def test_cli_show_fixes_lists_them_and_reports_what_remains(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(MODULE.replace("return   b,", "print(x.asnumpy())\n        return   b,"))
    done = run_cli("--fix", "--show-fixes", "m.py", cwd=tmp_path)
    assert done.returncode == 1  # HYB007 has no fix and remains
    assert "Fixed m.py:" in done.stdout and "HYB006" in done.stdout
    assert "HYB007" in done.stdout


def test_cli_fix_leaves_a_file_with_a_syntax_error_untouched(tmp_path):
    path = tmp_path / "m.py"
    broken = MODULE.replace("c = F.relu(y)", "c = F.relu(y")
    path.write_text(broken)
    before = path.stat().st_mtime_ns
    done = run_cli("--fix", "m.py", cwd=tmp_path)
    assert done.returncode == 2
    assert path.read_text() == broken and path.stat().st_mtime_ns == before


CONTINUED = '''\
from mxnet.gluon import nn


class Net(nn.HybridBlock):
    def hybrid_forward(self, F, x):
        if True:
            out = F.concat(x,
                           x, dim=1)[0]
            return out + F.broadcast_add(F.relu(out),
                                         out)[1:]
'''


def test_lines_continued_in_brackets_keep_their_indentation():
    result = fix_source(CONTINUED, "m.py")
    assert [d.code for d in result.applied] == ["HYB001", "HYB001"]
    assert result.source == CONTINUED.replace(
        "F.concat(x,\n                           x, dim=1)[0]",
        "F.squeeze(F.slice_axis(F.concat(x,\n                           x, dim=1), axis=0, begin=0, end=1), axis=0)"
    ).replace("F.broadcast_add(F.relu(out),\n                                         out)[1:]",
              "F.slice_axis(F.broadcast_add(F.relu(out),\n                                         out), axis=0, begin=1, end=None)")


@pytest.mark.parametrize("body, args", [
    ("y = F.relu(x)\ny[:] = F.sum(x)\nreturn y", "x"),       # may broadcast into y's shape
    ("x[0] = 2\nreturn x", "x"),                            # writes into the caller's array
    ("y = F.relu(x)\nz = y\ny[:] = x\nreturn z", "x"),      # another name sees the write
    ("if x.sum() > 0:\n    y = x\nelse:\n    y = -x\nreturn y", "x"),  # both branches run
    ("return F.zeros(x.shape)", "x"),                       # dtype follows x, not float32
    ("y = F.relu(x)\nz = y\ny += 1\nreturn z", "x"),       # z saw the in-place add
])
def test_unsafe_fixes_are_left_alone_without_the_flag(body, args):
    from hyblint.rules.base import hybrid_block
    source = hybrid_block(body, args=args)
    safe = fix_source(source, "m.py")
    assert safe.source == source and safe.applied == []
    assert any(d.fix is not None and d.fix.applicability == Applicability.UNSAFE for d in safe.remaining)
    assert fix_source(source, "m.py", unsafe=True).source != source


def test_crlf_files_get_crlf_inside_rewritten_multiline_expressions():
    source = CONTINUED.replace("\n", "\r\n")
    result = fix_source(source, "m.py")
    assert result.source == fix_source(CONTINUED, "m.py").source.replace("\n", "\r\n")
    where = hybrid_block_crlf("if x.sum() > 0:\n    y = x\nelse:\n    y = -x\nreturn y")
    fixed = fix_source(where, "m.py", unsafe=True).source
    assert "\r\n" in fixed and "\n" not in fixed.replace("\r\n", "")


def hybrid_block_crlf(body):
    from hyblint.rules.base import hybrid_block
    return hybrid_block(body).replace("\n", "\r\n")


def test_cli_fix_keeps_a_declared_encoding(tmp_path):
    path = tmp_path / "m.py"
    text = "# -*- coding: latin-1 -*-\n# d\u00e9j\u00e0 vu\n" + MODULE
    path.write_bytes(text.encode("latin-1"))
    done = run_cli("--fix", "m.py", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    expected = "# -*- coding: latin-1 -*-\n# d\u00e9j\u00e0 vu\n" + FIXED
    assert path.read_bytes() == expected.encode("latin-1")
