"""`--fix` writes only what the user could write in place, never over an edit saved meanwhile, and
reports every file it could not write with its diagnostics and exit code 2; what remains is shown
with the fixed text; the number of fixes agrees with the check's, or the output says why not."""
import os
import pwd
import shutil
import stat
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

from hyblint.diagnostics import Applicability, Diagnostic, Edit, Fix, Location, Severity
from hyblint.fixer import fix_source
from hyblint.settings import Settings

ROOT = Path(__file__).resolve().parent.parent

BROKEN = textwrap.dedent("""\
    from mxnet import nd
    from mxnet.gluon import nn


    class Net(nn.HybridBlock):
        def hybrid_forward(self, F, a, b):
            a += b
            c = nd.relu(a)
            print(c.asnumpy())
            return c
    """)


def run_cli(*args, cwd, user=None):
    """The console script, as this user or (`user="nobody"`) as an unprivileged one."""
    command = [sys.executable, "-m", "hyblint", *args, "--no-cache"]
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONDONTWRITEBYTECODE="1")
    if user is not None and os.geteuid() == 0:
        # An unprivileged user that may still read this interpreter wherever it is installed
        # (under /root, say): the capability to read and search any directory, and nothing more;
        # writes are checked as for any user.
        account = pwd.getpwnam(user)
        command = ["setpriv", "--reuid=%d" % account.pw_uid, "--regid=%d" % account.pw_gid, "--clear-groups",
                   "--inh-caps=+dac_read_search", "--ambient-caps=+dac_read_search"] + command
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)


@pytest.fixture
def unprivileged():
    """A temporary tree that the unprivileged user owns and the name to run as (this user when it
    is not root)."""
    if os.geteuid() != 0:
        folder = Path(tempfile.mkdtemp())
        yield folder, None, os.geteuid()
        shutil.rmtree(folder, ignore_errors=True)
        return
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv(1): no way to run as another user here")
    probe = run_cli("--version", cwd="/", user="nobody")
    if probe.returncode != 0:
        pytest.skip("setpriv cannot run an unprivileged process here: %s" % probe.stderr.strip()[-200:])
    folder = Path(tempfile.mkdtemp())
    account = pwd.getpwnam("nobody")
    os.chown(folder, account.pw_uid, account.pw_gid)
    folder.chmod(0o755)
    yield folder, "nobody", account.pw_uid
    for path in [folder, *folder.rglob("*")]:
        os.chmod(path, 0o755 if path.is_dir() else 0o644)
    shutil.rmtree(folder, ignore_errors=True)


def own(path: Path, uid: int) -> None:
    if os.geteuid() == 0:
        os.chown(path, uid, -1)


def assert_not_written(done, path: Path, text: str, reason: str):
    assert done.returncode == 2, done.stdout + done.stderr
    assert path.read_text() == text
    assert "error: %s: cannot write: %s" % (path.name, reason) in done.stderr, done.stderr
    assert "Fixed" not in done.stderr and "All checks passed" not in done.stdout
    assert "%s:7:9: HYB006" % path.name in done.stdout     # its diagnostics, as they are on disk
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary file left


@pytest.mark.parametrize("as_nobody", [False, True])
def test_a_read_only_file_is_not_replaced(tmp_path, unprivileged, as_nobody):
    folder, user, uid = unprivileged if as_nobody else (tmp_path, None, os.geteuid())
    path = folder / "m.py"
    path.write_text(BROKEN)
    own(path, uid)
    path.chmod(0o444)
    done = run_cli("--fix", "m.py", cwd=folder, user=user)
    assert_not_written(done, path, BROKEN, "read-only file (mode 0444)")
    assert stat.S_IMODE(path.stat().st_mode) == 0o444


def test_a_file_in_a_directory_the_user_cannot_write_is_reported(unprivileged):
    folder, user, uid = unprivileged
    package = folder / "pkg"
    package.mkdir()
    path = package / "m.py"
    path.write_text(BROKEN)
    own(package, uid)
    own(path, uid)
    package.chmod(0o555)
    done = run_cli("--fix", "m.py", cwd=package, user=user)
    assert_not_written(done, path, BROKEN, "Permission denied")


def test_another_users_file_is_not_taken_over(unprivileged):
    """Writable by anyone, but a rename would make it the user's own: refused."""
    folder, user, uid = unprivileged
    if os.geteuid() != 0:
        pytest.skip("only root can make a file owned by another user for this user to find")
    path = folder / "m.py"
    path.write_text(BROKEN)
    path.chmod(0o666)  # owned by root
    done = run_cli("--fix", "m.py", cwd=folder, user=user)
    assert_not_written(done, path, BROKEN, "owned by another user (uid 0)")
    assert path.stat().st_uid == 0


def test_root_fixes_another_users_file_and_keeps_its_owner_group_and_mode(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("only root can give a file to another user")
    account = pwd.getpwnam("nobody")
    path = tmp_path / "m.py"
    path.write_text(BROKEN)
    os.chown(path, account.pw_uid, account.pw_gid)
    path.chmod(0o640)
    done = run_cli("--fix", "m.py", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr  # HYB007 remains
    assert "a = a + b" in path.read_text()
    status = path.stat()
    assert (status.st_uid, status.st_gid, stat.S_IMODE(status.st_mode)) == (account.pw_uid, account.pw_gid, 0o640)


# An edit while the fix is computed: the console script's main, with the fix slowed down by an
# editor's save (or a deletion) between reading the file and writing it.
DURING_FIX = """
import sys
from pathlib import Path
import hyblint.fixer
from hyblint.cli import main

computed = hyblint.fixer.fix_source

def fix_source(source, filename, *args, **kwargs):
    result = computed(source, filename, *args, **kwargs)
    {action}
    return result

hyblint.fixer.fix_source = fix_source
sys.exit(main(["--fix", "--no-cache", "m.py"]))
"""


def run_with_edit(cwd, action):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-c", DURING_FIX.format(action=action)], cwd=cwd, env=env,
                          capture_output=True, text=True)


def test_an_edit_saved_while_fixing_is_kept_and_the_file_reported(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(BROKEN)
    saved = BROKEN + "# saved meanwhile\n"
    done = run_with_edit(tmp_path, "Path(filename).write_text(%r)" % saved)
    assert_not_written(done, path, saved, "the file changed after it was read")


def test_a_file_deleted_while_fixing_is_reported(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(BROKEN)
    done = run_with_edit(tmp_path, "Path(filename).unlink()")
    assert done.returncode == 2
    assert "error: m.py: cannot write: the file vanished after it was read" in done.stderr
    assert "m.py:7:9: HYB006" in done.stdout and "Fixed" not in done.stderr
    assert not path.exists()


def test_one_unwritable_file_does_not_stop_the_others(tmp_path):
    for name in ("a.py", "b.py"):
        (tmp_path / name).write_text(BROKEN)
    (tmp_path / "a.py").chmod(0o444)
    done = run_cli("--fix", ".", cwd=tmp_path)
    assert done.returncode == 2
    assert "a = a + b" in (tmp_path / "b.py").read_text() and (tmp_path / "a.py").read_text() == BROKEN
    assert "Fixed 2 errors in 1 file." in done.stderr


def test_what_remains_is_shown_with_the_fixed_text(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(BROKEN)
    done = run_cli("--fix", "m.py", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    fixed = path.read_text().splitlines()
    shown = done.stdout.splitlines()
    rows = [(int(line.split(":")[1]), shown[index + 1]) for index, line in enumerate(shown)
            if line.startswith("m.py:") and "HYB007" in line]
    assert rows, done.stdout
    for row, text in rows:
        assert text == "%d | %s" % (row, fixed[row - 1])
        assert fixed[row - 1] != BROKEN.splitlines()[row - 1]  # the rows moved: the import went


NESTED = textwrap.dedent("""\
    from mxnet.gluon import nn


    class Net(nn.HybridBlock):
        def hybrid_forward(self, F, x):
            y = x[0][1].reshape(2, 3)
            return x.reshape(x.shape[0], -1) + y
    """)


def test_diff_counts_what_the_check_counts(tmp_path):
    """One failure is one diagnostic (the innermost of nested ones), so the check counts 3; the
    outer ones are found once the inner fixes apply, and --diff says so."""
    (tmp_path / "m.py").write_text(NESTED)
    check = run_cli("m.py", cwd=tmp_path)
    assert "[*] 3 fixable with the `--fix` option." in check.stdout, check.stdout
    diff = run_cli("--diff", "m.py", cwd=tmp_path)
    assert diff.returncode == 1
    assert "Would fix 5 errors (the check counted 3 fixable: 2 more appeared after applying fixes)." \
        in diff.stderr, diff.stderr


def _diagnostic(content, column, code="HYB001"):
    return Diagnostic(code, "m", "f.py", Location(1, column), Location(1, column + 1), Severity.ERROR,
                      Fix(Applicability.SAFE, "fix", (Edit(content, Location(1, column), Location(1, column + 1)),)))


def test_fixes_that_appear_only_after_others_are_counted_apart():
    """The first fix makes the second appear; the count says one was not announced."""
    first, second = _diagnostic("2", 5), _diagnostic("3", 9, "HYB011")

    def check(source, filename):
        if "1" in source[:6]:
            return [first]
        return [second] if "0" in source else []
    result = fix_source("x = 1 + 0\n", "f.py", checker=check)
    assert result.source == "x = 2 + 3\n"
    assert (result.announced, len(result.applied), result.revealed) == (1, 2, 1)


def test_files_fixed_in_worker_processes_are_fixed_as_in_this_one(tmp_path, monkeypatch):
    from hyblint import fixing
    from hyblint.files import read_source
    from hyblint.lint import lint_files
    from hyblint.rules.base import hybrid_block
    bodies = ["y = x[0]\nreturn y", "x += 1\nreturn x.reshape(2, -1)", "return nd.relu(x[1:3])", "return x"]
    for number in range(12):
        body = bodies[number % len(bodies)]
        (tmp_path / ("m%02d.py" % number)).write_text("from mxnet import nd\n" + hybrid_block(body))
    paths = sorted(str(p) for p in tmp_path.glob("*.py"))
    run = lint_files(paths, Settings(), tmp_path)
    jobs = [(path, read_source(path), Settings(), frozenset(), False,
             [d for d in run.diagnostics if d.filename == path], False) for path in paths]
    monkeypatch.setattr(fixing.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(fixing, "PARALLEL_THRESHOLD", 10 ** 6)
    alone = fixing.fix_all(jobs)
    monkeypatch.setattr(fixing, "PARALLEL_THRESHOLD", 2)
    parallel = fixing.fix_all(jobs)
    assert [(f.path, f.source, f.applied, f.remaining) for f in parallel] == \
           [(f.path, f.source, f.applied, f.remaining) for f in alone]
    assert sum(f.changed for f in alone) == 9
