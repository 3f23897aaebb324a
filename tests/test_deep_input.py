"""Deeply nested code and failing checks: every failure is the file's diagnostic, never the run's."""
import json
import subprocess
import sys
import textwrap

import pytest

from hyblint import guard, lint
from hyblint.cli import main
from hyblint.engine import check_source

GOOD = textwrap.dedent("""\
    from mxnet.gluon import nn


    class Net(nn.HybridBlock):
        def hybrid_forward(self, F, x):
            return x[0]
    """)


def block(expression: str) -> str:
    return GOOD.replace("return x[0]", "return " + expression)


DEEP = {
    "binary": "x[0] + " + " + ".join("x" for _ in range(500)),
    "unary": "-" * 500 + "x[0]",
    "attribute": "x[0]" + ".T" * 500,
}


def run_cli(*args):
    done = subprocess.run([sys.executable, "-m", "hyblint", "--no-cache", "--format", "json", *map(str, args)],
                          capture_output=True, text=True, timeout=300)
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, json.loads(done.stdout), done.stderr


@pytest.mark.parametrize("kind", sorted(DEEP))
def test_a_deep_expression_is_checked(tmp_path, kind):
    (tmp_path / "deep.py").write_text(block(DEEP[kind]))
    (tmp_path / "good.py").write_text(GOOD)
    code, found, _ = run_cli(tmp_path)
    assert code == 1
    codes = {(d["filename"].rsplit("/", 1)[-1], d["code"]) for d in found}
    assert ("good.py", "HYB001") in codes and ("deep.py", "HYB001") in codes
    assert not any(c.startswith("HYB9") for _, c in codes)


@pytest.fixture
def shallow_limit(monkeypatch):
    # nesting beyond what even the larger stack is allowed: the file gets HYB906
    monkeypatch.setattr(guard, "DEEP_RECURSION_LIMIT", 1100)


def test_too_deep_for_the_larger_stack_is_the_files_diagnostic(tmp_path, shallow_limit, capsys):
    (tmp_path / "deep.py").write_text(block("-" * 3000 + "x[0]"))
    (tmp_path / "good.py").write_text(GOOD)
    assert main(["--no-cache", "--format", "concise", str(tmp_path)]) == 2
    out = capsys.readouterr().out
    assert "deep.py:1:1: HYB906 too deeply nested to check" in out
    assert "good.py:6:16: HYB001" in out


def test_too_deep_in_worker_processes(tmp_path, shallow_limit, monkeypatch, capsys):
    monkeypatch.setattr(lint, "PARALLEL_THRESHOLD", 2)
    monkeypatch.setattr(lint.os, "cpu_count", lambda: 2)
    (tmp_path / "deep.py").write_text(block("-" * 3000 + "x[0]"))
    for number in range(6):
        (tmp_path / ("good%d.py" % number)).write_text(GOOD)
    assert main(["--no-cache", "--format", "concise", str(tmp_path)]) == 2
    captured = capsys.readouterr()
    assert "worker" not in captured.err
    assert "deep.py:1:1: HYB906" in captured.out
    assert captured.out.count("HYB001") == 6


def test_an_internal_error_is_the_files_diagnostic(monkeypatch):
    from hyblint import engine

    def broken(*args):
        raise KeyError("boom")
    monkeypatch.setattr(engine, "run_rules", broken)
    engine._SNIPPET_CACHE.clear()
    found = check_source(GOOD, "net.py")
    assert [d.code for d in found] == ["HYB906"]
    assert found[0].message.startswith("internal error: KeyError: 'boom' at test_deep_input.py:")


def test_the_recursion_limit_is_restored():
    limit = sys.getrecursionlimit()
    check_source(block(DEEP["binary"]), "deep.py")
    assert sys.getrecursionlimit() == limit
