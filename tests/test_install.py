"""The two installs: `pip install .` lints (check, --fix, rule, lsp, hooks) without the runtime's
dependencies; `pip install ".[runtime]"` adds what `hyblint verify` runs on."""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from hyblint.verify.setup import RUNTIME_INSTALL, RUNTIME_MODULES

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "fixtures" / "demo"
HEAVY = ("numpy", "numba", "scipy", "llvmlite", "threadpoolctl", "runtime")


def project():
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def names(requirements):
    return {r.split(";")[0].split("[")[0].split(">")[0].split("<")[0].split("=")[0].strip().lower()
            for r in requirements}


def test_the_plain_install_leaves_the_runtime_out_and_the_extras_bring_it():
    meta = project()
    plain = names(meta["dependencies"])
    assert {"libcst", "pygls", "lsprotocol", "pathspec", "tomli"} <= plain
    assert not plain & set(HEAVY)
    assert names(meta["optional-dependencies"]["runtime"]) == set(RUNTIME_MODULES)
    # the README's test command installs [test]: it must run the runtime's tests too
    assert "hyblint[runtime]" in meta["optional-dependencies"]["test"]
    assert any(r.replace(" ", "") == "pygls>=2,<3" for r in meta["dependencies"])


def imported_by(*argv, cwd=ROOT):
    """The heavy modules a hyblint command imports, its worker processes included."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "hyblint", *argv], capture_output=True,
                          text=True, cwd=cwd, env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=300)
    modules = {line.rsplit("|", 1)[1].strip().split(".")[0] for line in done.stderr.splitlines()
               if line.startswith("import time:") and line.count("|") == 2}
    return done, modules & set(HEAVY)


@pytest.mark.parametrize("argv", [["check", "--no-cache", str(DEMO)],
                                  ["check", "--no-cache", "--diff", str(DEMO)],
                                  ["rule", "HYB001"], ["verify", "--help"]])
def test_the_lint_path_imports_no_runtime(argv):
    done, heavy = imported_by(*argv)
    assert "libcst" in done.stderr or argv[0] != "check", done.stderr[-2000:]  # the measure works
    assert heavy == set(), heavy


def test_the_language_server_imports_no_runtime():
    code = "import sys, hyblint.lsp; print(sorted(m for m in %r if m in sys.modules))" % (HEAVY,)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.stdout.strip() == "[]", done.stderr


BLOCK_NUMBA = textwrap.dedent("""\
    import sys

    class Uninstalled:
        # as if numba and scipy were not installed: their import fails as a missing module's does
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in ("numba", "scipy"):
                raise ModuleNotFoundError("No module named %r" % name, name=name)

    sys.meta_path.insert(0, Uninstalled())
    from hyblint.cli import main
    sys.exit(main(["verify", sys.argv[1]]))
    """)


def test_verify_without_the_runtime_says_what_to_install(tmp_path):
    (tmp_path / "net.py").write_text("from mxnet.gluon import nn\n")
    done = subprocess.run([sys.executable, "-c", BLOCK_NUMBA, str(tmp_path / "net.py")], capture_output=True,
                          text=True, cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 2, done.stdout + done.stderr
    assert "numba, scipy" in done.stderr and RUNTIME_INSTALL in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
