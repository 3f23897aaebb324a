"""The flags ruff users type, run through the installed console script as users run them."""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = Path(sys.executable).with_name("hyblint")
BROKEN = textwrap.dedent("""\
    from mxnet.gluon import nn


    class Net(nn.HybridBlock):
        def hybrid_forward(self, F, a, b):
            a += b
            print(a)
            return a[0]
    """)
CLEAN = textwrap.dedent("""\
    from mxnet.gluon import nn


    class Net(nn.HybridBlock):
        def hybrid_forward(self, F, a, b):
            return a + b
    """)


def hyblint(*argv, cwd, stdin=None, env=None):
    command = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "hyblint"]
    environ = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    environ.update(env or {})
    return subprocess.run(command + [str(a) for a in argv], cwd=cwd, input=stdin, capture_output=True, text=True,
                          env=environ, timeout=300)


@pytest.fixture
def project(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.hyblint]\n")
    (tmp_path / "net.py").write_text(BROKEN)
    return tmp_path


def test_stdin_reports_under_the_filename_with_that_files_configuration(project):
    sub = project / "sub"
    sub.mkdir()
    (sub / "pyproject.toml").write_text('[tool.hyblint]\nignore = ["HYB010"]\n')
    done = hyblint("check", "--stdin-filename", "sub/piped.py", "--format", "concise", cwd=project, stdin=BROKEN)
    assert done.returncode == 1, done.stderr
    assert "sub/piped.py:6:9: HYB006" in done.stdout
    assert "HYB010" not in done.stdout  # the configuration of sub/, where the file would be
    dash = hyblint("check", "-", "--format", "concise", cwd=project, stdin=BROKEN)
    assert dash.returncode == 1 and "-:6:9: HYB006" in dash.stdout and "HYB010" in dash.stdout
    assert hyblint("check", "-", cwd=project, stdin=CLEAN).returncode == 0


def test_stdin_fix_writes_the_fixed_text_to_stdout_and_what_remains_to_stderr(project):
    done = hyblint("check", "--stdin-filename", "net.py", "--fix", cwd=project, stdin=BROKEN)
    assert "a = a + b" in done.stdout and "a += b" not in done.stdout
    compile(done.stdout, "fixed", "exec")
    assert "HYB010" in done.stderr and "HYB006" not in done.stderr
    assert done.returncode == 1  # the print remains
    assert (project / "net.py").read_text() == BROKEN  # the file on disk is not touched
    clean = hyblint("check", "-", "--fix", cwd=project, stdin=CLEAN)
    assert clean.stdout == CLEAN and clean.returncode == 0
    unparsable = BROKEN + "def hybrid_forward(:\n"
    broken = hyblint("check", "-", "--fix", cwd=project, stdin=unparsable)
    assert broken.stdout == unparsable and broken.returncode == 2 and "HYB900" in broken.stderr


def test_add_noqa_silences_every_diagnostic_and_a_second_run_changes_nothing(project):
    (project / "net.py").write_text(BROKEN.replace("print(a)", "print(a)  # noqa: E999"))
    done = hyblint("check", "--add-noqa", ".", cwd=project)
    assert done.returncode == 0, done.stderr
    assert "Added 3 noqa directives." in done.stderr
    text = (project / "net.py").read_text()
    assert "a += b  # noqa: HYB006" in text
    assert "print(a)  # noqa: E999, HYB010" in text  # merged into the existing comment
    assert "return a[0]  # noqa: HYB001" in text
    assert hyblint("check", ".", "--no-cache", cwd=project).returncode == 0
    again = hyblint("check", "--add-noqa", ".", cwd=project)
    assert "Added 0 noqa directives." in again.stderr and (project / "net.py").read_text() == text
    # the comments it added are all in use
    assert hyblint("check", ".", "--extend-select", "HYB018", "-n", cwd=project).returncode == 0


def test_add_noqa_leaves_lines_inside_strings_and_read_only_files_alone(project):
    continued = BROKEN.replace("return a[0]", "b = a[1] + \\\n            b\n        return a[0] + F.foo('''x\n''')")
    (project / "net.py").write_text(continued)
    done = hyblint("check", "--add-noqa", ".", cwd=project)
    assert done.stderr.count("no `# noqa` comment can end this line") == 2, done.stderr
    compile((project / "net.py").read_text(), "net.py", "exec")
    other = project / "other.py"
    other.write_text(BROKEN)
    other.chmod(0o444)
    done = hyblint("check", "--add-noqa", "other.py", cwd=project)
    assert done.returncode == 2 and "other.py" in done.stderr and "read-only" in done.stderr
    assert other.read_text() == BROKEN


def test_output_file_gets_the_report(project):
    done = hyblint("check", ".", "-o", "reports/out.json", "--format", "json", cwd=project)
    assert done.returncode == 1 and done.stdout == ""
    assert '"code": "HYB006"' in (project / "reports" / "out.json").read_text()
    bad = hyblint("check", ".", "--output-file", "net.py/x", cwd=project)
    assert bad.returncode == 2 and "net.py/x" in bad.stderr


def test_color_follows_the_flag_then_no_color_and_force_color(project):
    escape = "\x1b["
    assert escape not in hyblint("check", ".", cwd=project).stdout  # not a terminal
    assert escape in hyblint("check", ".", "--color", "always", cwd=project).stdout
    assert escape in hyblint("check", ".", cwd=project, env={"FORCE_COLOR": "1"}).stdout
    assert escape not in hyblint("check", ".", cwd=project, env={"FORCE_COLOR": "1", "NO_COLOR": "1"}).stdout
    assert escape not in hyblint("check", ".", "--color", "never", cwd=project, env={"FORCE_COLOR": "1"}).stdout
    assert escape in hyblint("check", ".", "--color", "always", cwd=project, env={"NO_COLOR": "1"}).stdout
    assert escape not in hyblint("check", ".", "--color", "always", "--format", "json", cwd=project).stdout


def test_fix_exit_codes_follow_ruff(project):
    # --fix with a diagnostic left: 1; --fix-only: 0, nothing reported; with --exit-non-zero-on-fix: 1
    fixed = hyblint("check", ".", "--fix-only", cwd=project)
    assert fixed.returncode == 0 and fixed.stdout == "" and "Fixed" in fixed.stderr
    assert "a = a + b" in (project / "net.py").read_text()
    (project / "net.py").write_text(BROKEN)
    assert hyblint("check", ".", "--fix-only", "--exit-non-zero-on-fix", cwd=project).returncode == 1
    assert hyblint("check", ".", "--fix-only", "--exit-non-zero-on-fix", cwd=project).returncode == 0  # none left
    (project / "net.py").write_text(BROKEN.replace("        print(a)\n", ""))
    all_fixed = hyblint("check", ".", "--fix", cwd=project)
    assert all_fixed.returncode == 0  # everything was fixed
    (project / "net.py").write_text(BROKEN.replace("        print(a)\n", ""))
    assert hyblint("check", ".", "--fix", "--exit-non-zero-on-fix", cwd=project).returncode == 1
    assert hyblint("check", ".", "-e", cwd=project).returncode == 0
    (project / "net.py").write_text(BROKEN)
    assert hyblint("check", ".", "--exit-zero", cwd=project).returncode == 0


def test_no_cache_short_flag_writes_no_cache(project):
    assert hyblint("check", ".", "-n", cwd=project).returncode == 1
    assert not (project / ".hyblint_cache").exists()
    hyblint("check", ".", cwd=project)
    assert (project / ".hyblint_cache").exists()


def test_show_files_and_show_settings(project):
    (project / "pyproject.toml").write_text('[tool.hyblint]\nignore = ["HYB010"]\nunfixable = ["HYB006"]\n')
    (project / "b.py").write_text("x = 1\n")
    files = hyblint("check", "--show-files", cwd=project)
    assert files.returncode == 0 and files.stdout.split() == ["b.py", "net.py"]
    settings = hyblint("check", "--show-settings", cwd=project)
    assert settings.returncode == 0
    assert 'ignore = ["HYB010"]' in settings.stdout and 'unfixable = ["HYB006"]' in settings.stdout
    assert "pyproject.toml" in settings.stdout and '"HYB010"' not in settings.stdout.split("selected rules")[1]


def test_fixable_and_unfixable_in_config_and_flags(project):
    (project / "pyproject.toml").write_text('[tool.hyblint]\nunfixable = ["HYB006"]\n')
    shown = hyblint("check", ".", "--format", "concise", cwd=project)
    assert "HYB006 A" in shown.stdout or "HYB006 In" in shown.stdout  # no [*]: its fix is refused
    assert "HYB001 [*]" in shown.stdout
    hyblint("check", ".", "--fix", cwd=project)
    text = (project / "net.py").read_text()
    assert "a += b" in text and "a[0]" not in text
    (project / "net.py").write_text(BROKEN)
    hyblint("check", ".", "--fix", "--fixable", "HYB006", "--unfixable", "HYB00", cwd=project)
    text = (project / "net.py").read_text()
    assert "a = a + b" in text and "a[0]" in text  # the more specific pattern wins, as in select/ignore
    (project / "pyproject.toml").write_text('[tool.hyblint]\nfixable = "HYB001"\n')
    bad = hyblint("check", ".", cwd=project)
    assert bad.returncode == 2 and "fixable must be a list" in bad.stderr


def test_unused_noqa_is_reported_and_fixed(project):
    (project / "net.py").write_text(BROKEN.replace("print(a)", "print(a)  # noqa: HYB001, E501")
                                    .replace("a += b", "a += b  # noqa: HYB006"))
    done = hyblint("check", ".", "--select", "HYB018", "--format", "concise", cwd=project)
    assert done.returncode == 1
    assert "net.py:7:19: HYB018 [*] unused `noqa` code: HYB001" in done.stdout
    assert "net.py:6" not in done.stdout  # HYB006 is in use there
    assert hyblint("check", ".", cwd=project).stdout.count("HYB018") == 0  # off by default
    hyblint("check", ".", "--select", "HYB018", "--fix", cwd=project)
    assert "print(a)  # noqa: E501\n" in (project / "net.py").read_text()


def test_stdin_diff_shows_the_fix_and_changes_nothing(project):
    done = hyblint("check", "--stdin-filename", "net.py", "--diff", cwd=project, stdin=BROKEN)
    assert done.returncode == 1 and "-        a += b\n+        a = a + b\n" in done.stdout
    assert done.stdout.startswith("--- net.py\n+++ net.py\n")
    assert hyblint("check", "-", "--diff", cwd=project, stdin=CLEAN).returncode == 0


def test_stdin_that_is_not_utf8_is_named(project):
    command = [str(SCRIPT), "check", "--stdin-filename", "bad.py"]
    done = subprocess.run(command, cwd=project, input=b"x = '\xff'\n", capture_output=True, timeout=60)
    assert done.returncode == 2 and b"bad.py" in done.stderr and b"HYB901" in done.stderr


def test_stdin_filename_excluded_with_force_exclude_is_passed_through(project):
    (project / "pyproject.toml").write_text('[tool.hyblint]\nextend-exclude = ["gen"]\n')
    done = hyblint("check", "--stdin-filename", "gen/net.py", "--force-exclude", cwd=project, stdin=BROKEN)
    assert done.returncode == 0 and done.stdout == ""
    fixed = hyblint("check", "--stdin-filename", "gen/net.py", "--force-exclude", "--fix", cwd=project, stdin=BROKEN)
    assert fixed.returncode == 0 and fixed.stdout == BROKEN
    # named without --force-exclude, as for a file on the command line, it is checked
    assert hyblint("check", "--stdin-filename", "gen/net.py", cwd=project, stdin=BROKEN).returncode == 1
