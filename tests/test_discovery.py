"""Which files a run checks: ignore files respected as git does, exclusions as gitignore patterns."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hyblint.cli import main
from hyblint.discovery import discover

ROOT = Path(__file__).resolve().parents[1]
BROKEN = "class Net(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x[0]\n"


def make(tmp_path, files):
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def found(tmp_path, exclude=(), respect=True, paths=None, force=False):
    listed = discover([str(p) for p in (paths or [tmp_path])], exclude, tmp_path, force, respect)
    return sorted(Path(p).relative_to(tmp_path).as_posix() for p in listed)


TREE = {".git/info/exclude": "local.py\n", ".gitignore": "generated/\n*_pb2.py\n", "a.py": "", "local.py": "",
        "generated/g.py": "", "m_pb2.py": "", "pkg/.gitignore": "secret.py\n!keep_pb2.py\n", "pkg/secret.py": "",
        "pkg/keep_pb2.py": "", "pkg/b.py": "", "other/secret.py": "", ".ignore": "scratch/\n",
        "scratch/s.py": "", "venv/lib.py": "", "build/x.py": ""}


def test_ignore_files_are_respected_as_git_does(tmp_path):
    make(tmp_path, TREE)
    # nested .gitignore files apply to their directory only; a deeper `!pattern` re-includes
    assert found(tmp_path) == ["a.py", "other/secret.py", "pkg/b.py", "pkg/keep_pb2.py"]


def test_no_respect_gitignore(tmp_path, monkeypatch, capsys):
    make(tmp_path, TREE)
    assert found(tmp_path, respect=False) == ["a.py", "generated/g.py", "local.py", "m_pb2.py", "other/secret.py",
                                              "pkg/b.py", "pkg/keep_pb2.py", "pkg/secret.py", "scratch/s.py"]
    monkeypatch.chdir(tmp_path)
    (tmp_path / "generated" / "g.py").write_text(BROKEN)
    assert main(["check", "--no-cache", "."]) == 0
    assert main(["check", "--no-cache", "--no-respect-gitignore", "."]) == 1
    (tmp_path / "pyproject.toml").write_text("[tool.hyblint]\nrespect-gitignore = false\n")
    assert main(["check", "--no-cache", "."]) == 1
    capsys.readouterr()


def test_a_subdirectory_sees_the_ignore_files_above_it(tmp_path):
    make(tmp_path, TREE)
    assert found(tmp_path, paths=[tmp_path / "pkg"]) == ["pkg/b.py", "pkg/keep_pb2.py"]
    assert found(tmp_path, paths=[tmp_path / "generated"]) == []


def test_ignored_files_named_explicitly_are_checked_unless_forced(tmp_path):
    make(tmp_path, TREE)
    assert found(tmp_path, paths=[tmp_path / "m_pb2.py"]) == ["m_pb2.py"]
    assert found(tmp_path, paths=[tmp_path / "m_pb2.py", tmp_path / "a.py"], force=True) == ["a.py"]


@pytest.mark.parametrize("pattern, expected", [
    ("gen", ["a.py"]),                        # a name, anywhere
    ("**/gen", ["a.py"]),
    ("/gen", ["a.py", "sub/gen/c.py"]),       # anchored: the top-level gen/ only
    ("gen/", ["a.py"]),
    ("sub/gen/*.py", ["a.py", "gen/b.py"]),
    ("*.py", []),
])
def test_exclude_patterns_are_gitignore_style(tmp_path, pattern, expected):
    make(tmp_path, {"a.py": "", "gen/b.py": "", "sub/gen/c.py": ""})
    assert found(tmp_path, exclude=[pattern]) == expected


def test_extend_exclude_from_the_configuration(tmp_path, monkeypatch, capsys):
    make(tmp_path, {"gen/b.py": BROKEN, "sub/gen/c.py": "", "pyproject.toml": "[tool.hyblint]\n"
                    "extend-exclude = [\"/gen\"]\n"})
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--no-cache", "."]) == 0
    (tmp_path / "pyproject.toml").write_text("[tool.hyblint]\n")
    assert main(["check", "--no-cache", "."]) == 1
    capsys.readouterr()


def run_check(*argv, cwd):
    return subprocess.run([sys.executable, "-m", "hyblint", "check", "--no-cache", *argv], cwd=cwd,
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)


NESTED = {"a.py": BROKEN, "gen/g.py": BROKEN, "sub/pyproject.toml": "[tool.hyblint]\nexclude = [\"gen\", \"/local\"]\n",
          "sub/s.py": BROKEN, "sub/gen/g.py": BROKEN, "sub/local/l.py": BROKEN, "sub/deeper/local/l.py": BROKEN,
          "sub/deeper/gen/g.py": BROKEN}


def test_a_nested_pyproject_excludes_below_it_while_walking(tmp_path):
    make(tmp_path, NESTED)
    done = run_check("--show-files", ".", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    listed = sorted(Path(line).as_posix() for line in done.stdout.split())
    assert listed == ["a.py", "gen/g.py", "sub/deeper/local/l.py", "sub/s.py"]
    assert run_check("sub", cwd=tmp_path).stdout.count("HYB001") == 2  # from above: the same files


def test_patterns_of_an_extended_configuration_are_relative_to_it(tmp_path):
    make(tmp_path, {"shared/pyproject.toml": "[tool.hyblint]\nextend-exclude = [\"/proj/gen\", \"scratch\"]\n"
                    "per-file-ignores = { \"proj/tests/*\" = [\"HYB001\"] }\n",
                    "shared/proj/pyproject.toml": "[tool.hyblint]\nextend = \"../pyproject.toml\"\n",
                    "shared/proj/m.py": BROKEN, "shared/proj/gen/g.py": BROKEN, "shared/proj/x/scratch/s.py": BROKEN,
                    "shared/proj/tests/t.py": BROKEN,
                    "app/pyproject.toml": "[tool.hyblint]\nextend = \"../shared/proj/pyproject.toml\"\n",
                    "app/gen/g.py": BROKEN, "app/proj/gen/g.py": BROKEN, "app/tests/t.py": BROKEN})
    done = run_check("--show-files", "shared/proj", cwd=tmp_path)
    assert sorted(Path(p).as_posix() for p in done.stdout.split()) == ["shared/proj/m.py", "shared/proj/tests/t.py"]
    done = run_check("shared/proj", cwd=tmp_path)
    assert done.stdout.count("HYB001") == 1 and "tests" not in done.stdout, done.stdout  # per-file-ignores apply
    # an extension elsewhere: patterns anchored in shared/ speak of nothing in app/
    done = run_check("--show-files", "app", cwd=tmp_path)
    assert sorted(Path(p).as_posix() for p in done.stdout.split()) == ["app/gen/g.py", "app/proj/gen/g.py",
                                                                       "app/tests/t.py"]


@pytest.mark.parametrize("pattern, declared, root, expected", [
    ("/gen", "a", "a", "/gen"),
    ("/gen", "a/b", "a", "/b/gen"),
    ("gen", "a/b", "a", "/b/**/gen"),
    ("!keep.py", "a/b", "a", "!/b/**/keep.py"),
    ("gen/", "a", "a/b", "gen/"),
    ("/b/gen", "a", "a/b", "/gen"),
    ("/*/gen", "a", "a/b", "/gen"),
    ("/c/gen", "a", "a/b", None),
    ("**/gen", "a", "a/b", "**/gen"),
    ("/gen", "x", "a", None),
])
def test_rebasing_an_exclude_pattern(tmp_path, pattern, declared, root, expected):
    from hyblint.rebase import exclude_pattern
    assert exclude_pattern(pattern, tmp_path / declared, tmp_path / root) == expected
