"""`hyblint verify` through the console script: what it proves, what it writes, its exit codes and
its errors for bad options, configuration and interpreters."""
import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# A block with a HYB006 finding whose safe fix (`x += 1` -> `x = x + 1`) gives the same result.
FIXABLE = textwrap.dedent("""\
    class Net(nn.HybridBlock):
        def hybrid_forward(self, F, x):
            x += 1
            return x * 2
    """)
CLEAN = textwrap.dedent("""\
    class Clean(nn.HybridBlock):
        def hybrid_forward(self, F, x):
            return F.relu(x)
    """)


def hyblint(*argv, cwd=None, env=None):
    return subprocess.run([sys.executable, "-m", "hyblint", "verify", *map(str, argv)], cwd=cwd,
                          capture_output=True, text=True, env=env, timeout=300)


def module(path: Path, *blocks: str, tail: str = "") -> Path:
    path.write_text("from mxnet.gluon import nn\n\n\n" + "\n\n".join(blocks) + tail)
    return path


def test_fix_of_a_module_that_fails_to_import_is_not_proved(tmp_path):
    path = module(tmp_path / "broken.py", FIXABLE, tail="\nraise RuntimeError('no config here')\n")
    before = path.read_text()
    done = hyblint(path, "--fix", "--write", "--shapes", "Net=2x3")
    assert done.returncode == 1, done.stdout
    assert "module failed to import" in done.stdout
    assert "broken.py: fixes not proved, not written: the module failed to import" in done.stdout
    assert path.read_text() == before


def test_fix_of_a_module_that_times_out_is_a_failure(tmp_path):
    path = module(tmp_path / "slow.py", FIXABLE, tail="\nimport time\ntime.sleep(60)\n")
    done = hyblint(path, "--fix", "--timeout", "5", "--shapes", "Net=2x3")
    assert done.returncode == 1, done.stdout
    assert "slow.py: fixes not proved: the module timed out" in done.stdout


def test_a_fix_whose_block_never_ran_is_not_written(tmp_path):
    path = module(tmp_path / "unknown.py", FIXABLE)  # no shapes: the fixed block cannot run
    before = path.read_text()
    done = hyblint(path, "--fix", "--write")
    assert done.returncode == 1, done.stdout
    assert "inputs unknown; fix not proved" in done.stdout
    assert "fix not proved: its input shapes are unknown" in done.stdout
    assert path.read_text() == before


def test_blocks_without_a_fix_say_nothing_about_fixes(tmp_path):
    path = module(tmp_path / "mixed.py", FIXABLE, CLEAN)
    done = hyblint(path, "--fix", "--write", "--shapes", "Net=2x3", "--shapes", "Clean=2x3")
    assert done.returncode == 0, done.stdout
    [clean] = [line for line in done.stdout.splitlines() if " Clean " in line]
    [net] = [line for line in done.stdout.splitlines() if " Net " in line]
    assert clean.endswith("Clean  hybridizes and agrees")  # no word on fixes
    assert "fix proved" in net
    assert "Fixes: 1 block proved." in done.stdout
    assert "mixed.py: fixes proved, written" in done.stdout
    assert "x = x + 1" in path.read_text()


def test_a_fix_that_changes_results_by_design_is_reported_as_such(tmp_path):
    path = tmp_path / "wrap.py"
    path.write_text((ROOT / "fixtures" / "fix" / "hyb014_wrap.py").read_text())
    before = path.read_text()
    done = hyblint(path, "--fix", "--unsafe-fixes", "--write", "--shapes", "Net=4x3")  # HYB014's fix is unsafe
    assert done.returncode == 1
    assert "fix changes results by design" in done.stdout
    assert "disproved" not in done.stdout
    assert path.read_text() == before


@pytest.mark.parametrize("value", ["-1", "0", "abc", "nan", "inf"])
def test_timeout_must_be_a_positive_number(tmp_path, value):
    done = hyblint(tmp_path, "--timeout=" + value)
    assert done.returncode == 2
    assert "--timeout" in done.stderr and "Traceback" not in done.stderr


def test_a_block_that_is_not_built_fails_the_run(tmp_path):
    path = module(tmp_path / "needs.py", textwrap.dedent("""\
        class Needs(nn.HybridBlock):
            def __init__(self, units):
                super().__init__()

            def hybrid_forward(self, F, x):
                return x
        """))
    done = hyblint(path)
    assert done.returncode == 1
    assert "not built" in done.stdout
    assert done.stdout.rstrip().endswith("1 block: 1 not built.")


def test_shapes_come_from_the_first_layer_of_custom_blocks(tmp_path):
    path = module(tmp_path / "custom.py", textwrap.dedent("""\
        class Stem(nn.HybridBlock):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv2D(4, 3, in_channels=3)
                self.pool = nn.MaxPool2D()

            def hybrid_forward(self, F, x):
                return self.pool(self.conv(x))


        class ConvNet(nn.HybridBlock):
            def __init__(self):
                super().__init__()
                self.stem = Stem()
                self.out = nn.Dense(2)

            def hybrid_forward(self, F, x):
                return self.out(self.stem(x))


        class Mlp(nn.HybridBlock):
            def __init__(self):
                super().__init__()
                self.body = nn.HybridSequential()
                self.body.add(nn.HybridSequential())
                self.body[0].add(nn.Dense(8, in_units=5))
                self.head = nn.Dense(2)

            def hybrid_forward(self, F, x):
                return self.head(self.body(x))
        """))
    done = hyblint(path)
    assert done.returncode == 0, done.stdout
    for name in ("ConvNet", "Mlp", "Stem"):
        [line] = [line for line in done.stdout.splitlines() if " %s " % name in line + " "]
        assert "hybridizes and agrees" in line, line


def test_a_wrong_guess_from_the_first_layer_asks_for_shapes(tmp_path):
    # the first registered layer is not the first one applied: the guess does not fit
    path = module(tmp_path / "order.py", textwrap.dedent("""\
        class Backwards(nn.HybridBlock):
            def __init__(self):
                super().__init__()
                self.second = nn.Dense(2, in_units=8)
                self.first = nn.Dense(8, in_units=5)

            def hybrid_forward(self, F, x):
                return self.second(self.first(x))
        """))
    done = hyblint(path)
    assert "inputs unknown" in done.stdout
    assert "inferred from the first layer Dense(in_units=8)" in done.stdout
    assert "--shapes Backwards=" in done.stdout


@pytest.mark.parametrize("table, complaint", [
    ("shapes = 5", "shapes must be a table"),
    ("shapes = { Net = [[2, 0]] }", "shapes.Net must be a list of input shapes"),
    ("shapes = { Net = [2, 3] }", "shapes.Net must be a list of input shapes"),
    ("factories = 'm:f'", "factories must be a list"),
    ("factories = ['nocolon']", "factories must be a list"),
    ("timeout = -1", "timeout must be a positive number"),
    ("timeout = 'soon'", "timeout must be a positive number"),
    ("shape = { Net = [[2, 3]] }", "unknown option(s): shape"),
])
def test_bad_verify_configuration_is_a_usage_error(tmp_path, table, complaint):
    (tmp_path / "pyproject.toml").write_text("[tool.hyblint.verify]\n%s\n" % table)
    module(tmp_path / "m.py", CLEAN)
    done = hyblint(tmp_path)
    assert done.returncode == 2, done.stdout
    assert "pyproject.toml: [tool.hyblint.verify]" in done.stderr
    assert complaint in done.stderr
    assert "Traceback" not in done.stderr


def test_a_bad_python_is_a_usage_error(tmp_path):
    module(tmp_path / "m.py", CLEAN)
    plain = tmp_path / "plain.txt"
    plain.write_text("not a program")
    # an interpreter that runs, but without site-packages: it has no mxnet
    bare = tmp_path / "bare-python"
    bare.write_text("#!/bin/sh\nexec %s -S \"$@\"\n" % sys.executable)
    bare.chmod(0o755)
    for python, complaint in [(tmp_path / "nonexistent", "no such file"), (plain, "not executable"),
                              (tmp_path, "is a directory"), (bare, "this interpreter has no `mxnet` module")]:
        done = hyblint(tmp_path / "m.py", "--python", python)
        assert done.returncode == 2, (python, done.stdout, done.stderr)
        assert "--python %s: %s" % (python, complaint) in done.stderr
        assert "Traceback" not in done.stderr


MXNET_TRACEBACK = ("Traceback (most recent call last):\n"
                   '  File "../src/operator/tensor/./dot-inl.h", line 1241\n'
                   "MXNetError: Check failed: L[!Ta].Size() == R[Tb].Size() (3 vs. 2) : dot shape error: "
                   "[2,3] X [2,3]")
MXNET_OPERATOR = ("MXNetError: Error in operator net0_plus0: [22:50:02] ../src/operator/tensor/"
                  "../elemwise_op_common.h:134: Check failed: assign(&dattr, vec.at(i)): Incompatible attr "
                  "in node net0_plus0 at 1-th input: expected [2,3], got [1,3]\n\nStack trace:\n"
                  "  [bt] (0) /lib/libmxnet.so(+0x1234) [0x7f00]")


def test_mxnet_errors_show_their_message_line(tmp_path):
    """An interpreter whose `mxnet` raises errors worded as MXNet 1.9.1's C++ backend words them."""
    fake = tmp_path / "fake_mxnet"
    (fake / "mxnet").mkdir(parents=True)
    (fake / "mxnet" / "__init__.py").write_text("import runtime\nruntime.as_mxnet()\n")
    python = tmp_path / "python-with-mxnet"
    python.write_text("#!/bin/sh\nPYTHONPATH=%s%s%s exec %s \"$@\"\n" % (fake, os.pathsep, ROOT, sys.executable))
    python.chmod(python.stat().st_mode | stat.S_IXUSR)
    path = module(tmp_path / "errors.py", textwrap.dedent("""\
        class MXNetError(Exception):
            pass


        class Dot(nn.HybridBlock):
            def hybrid_forward(self, F, x):
                if F is not mx.nd:
                    raise MXNetError(%r)
                return x


        class Plus(nn.HybridBlock):
            def hybrid_forward(self, F, x):
                if F is not mx.nd:
                    raise MXNetError(%r)
                return x
        """ % (MXNET_TRACEBACK, MXNET_OPERATOR)), tail="\nimport mxnet as mx\n")
    done = hyblint(path, "--python", python, "--shapes", "Dot=2x3", "--shapes", "Plus=2x3")
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    [dot] = [line for line in lines if " Dot " in line]
    [plus] = [line for line in lines if " Plus " in line]
    assert dot.endswith("MXNetError: Check failed: L[!Ta].Size() == R[Tb].Size() (3 vs. 2) : dot shape "
                        "error: [2,3] X [2,3]")
    assert plus.endswith("MXNetError: Error in operator net0_plus0: Check failed: assign(&dattr, vec.at(i)): "
                         "Incompatible attr in node net0_plus0 at 1-th input: expected [2,3], got [1,3]")
    assert "Traceback" not in done.stdout


def test_verify_skips_what_check_skips(tmp_path):
    module(tmp_path / "m.py", CLEAN)
    for skipped in ("venv/lib.py", "build/lib.py", "ignored/lib.py", "gen/lib.py"):
        (tmp_path / skipped).parent.mkdir()
        module(tmp_path / skipped, FIXABLE.replace("Net", "Skipped"))
    (tmp_path / ".gitignore").write_text("ignored/\n")
    (tmp_path / "pyproject.toml").write_text("[tool.hyblint]\nextend-exclude = [\"/gen\"]\n")
    done = hyblint(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Clean" in done.stdout and "Skipped" not in done.stdout


def test_verify_walks_as_check_walks(tmp_path):
    """The same files as `hyblint check`: a nested pyproject.toml's exclusions hold below it, and
    each path is walked with its own project's."""
    module(tmp_path / "m.py", CLEAN)
    (tmp_path / "sub" / "gen").mkdir(parents=True)
    (tmp_path / "sub" / "pyproject.toml").write_text("[tool.hyblint]\nexclude = [\"gen\"]\n")
    module(tmp_path / "sub" / "s.py", CLEAN.replace("Clean", "Kept"))
    module(tmp_path / "sub" / "gen" / "g.py", FIXABLE.replace("Net", "Skipped"))
    checked = subprocess.run([sys.executable, "-m", "hyblint", "check", "--show-files", "."], cwd=tmp_path,
                             capture_output=True, text=True, timeout=120)
    assert sorted(Path(p).name for p in checked.stdout.split()) == ["m.py", "s.py"]
    for paths in ([tmp_path], [tmp_path / "sub", tmp_path / "m.py"]):
        done = hyblint(*paths)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "Clean" in done.stdout and "Kept" in done.stdout and "Skipped" not in done.stdout
