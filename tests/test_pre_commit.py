"""The pre-commit hooks, run by real `pre-commit try-repo` against a repository with a broken block."""
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BROKEN = textwrap.dedent("""\
    from mxnet.gluon import nn


    class Net(nn.HybridBlock):
        def hybrid_forward(self, F, a, b):
            a += b
            return a
    """)


def git(cwd, *args):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env=dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com",
                            GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com"))


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory):
    """This project as a git repository of its own (try-repo installs the hooks from a commit)."""
    repo = tmp_path_factory.mktemp("hook_repo")
    for name in ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml"):
        shutil.copy(ROOT / name, repo / name)
    for package in ("hyblint", "runtime"):
        shutil.copytree(ROOT / package, repo / package, ignore=shutil.ignore_patterns("__pycache__"))
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "hooks")
    return repo


def try_repo(hook_repo, project, hook, home):
    return subprocess.run([sys.executable, "-m", "pre_commit", "try-repo", str(hook_repo), hook, "--all-files",
                           "--color", "never"], cwd=project, capture_output=True, text=True, timeout=900,
                          env=dict(os.environ, PRE_COMMIT_HOME=str(home)))


def test_check_fails_fix_rewrites_then_check_passes(hook_repo, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "net.py").write_text(BROKEN)
    git(project, "init", "-q")
    git(project, "add", "-A")
    home = tmp_path / "pre-commit-home"

    first = try_repo(hook_repo, project, "hyblint", home)
    assert first.returncode == 1, first.stdout + first.stderr
    assert "HYB006" in first.stdout

    fixed = try_repo(hook_repo, project, "hyblint-fix", home)
    assert fixed.returncode == 1, fixed.stdout + fixed.stderr  # files were modified by this hook
    assert "files were modified by this hook" in fixed.stdout
    assert "a = a + b" in (project / "net.py").read_text()

    git(project, "add", "-A")
    again = try_repo(hook_repo, project, "hyblint", home)
    assert again.returncode == 0, again.stdout + again.stderr


def readme_config() -> str:
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## pre-commit"):readme.index("## Editors")]
    return section.split("```yaml\n", 1)[1].split("```", 1)[0]


def test_the_readme_snippet_declares_the_shipped_hooks():
    import yaml
    local = yaml.safe_load(readme_config())["repos"][0]
    shipped = {hook["id"]: hook for hook in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    assert local["repo"] == "local"
    for hook in local["hooks"]:
        assert hook["id"] in shipped
        for key in ("name", "entry", "types_or", "require_serial"):
            assert hook[key] == shipped[hook["id"]][key], (hook["id"], key)


def test_the_readme_snippet_runs(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "net.py").write_text(BROKEN)
    (project / ".pre-commit-config.yaml").write_text(readme_config())
    git(project, "init", "-q")
    git(project, "add", "-A")
    # `language: system` runs the hyblint on PATH: this interpreter's
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path / "home"),
               PATH=str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""))

    def run():
        return subprocess.run([sys.executable, "-m", "pre_commit", "run", "--all-files", "--color", "never"],
                              cwd=project, capture_output=True, text=True, timeout=600, env=env)

    first = run()
    assert first.returncode == 1 and "files were modified by this hook" in first.stdout, first.stdout + first.stderr
    assert "a = a + b" in (project / "net.py").read_text()
    git(project, "add", "-A")
    second = run()
    assert second.returncode == 0, second.stdout + second.stderr
