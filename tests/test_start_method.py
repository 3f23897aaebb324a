"""Workers started with spawn (macOS's and Windows's way) report what fork's workers report: every
function, job and the package index reach them pickled."""
import pathlib
import textwrap

import pytest

from hyblint import fixing, lint, workers
from hyblint.settings import Settings

from test_parallel import corpus

STEM = textwrap.dedent("""\
    from mxnet.gluon import nn


    class Stem(nn.HybridBlock):
        def hybrid_forward(self, F, x):
            return F.relu(x)
    """)
# `y[0]` is an error only because the index knows, from the other file, that Stem returns one tensor
NET = textwrap.dedent("""\
    from mxnet.gluon import nn
    from stem import Stem


    class Net%d(nn.HybridBlock):
        def __init__(self):
            super().__init__()
            self.stem = Stem()

        def hybrid_forward(self, F, x):
            y = self.stem(x)
            return y[0]
    """)


def tree(tmp_path):
    (tmp_path / "stem.py").write_text(STEM)
    nets = []
    for number in range(8):
        path = tmp_path / ("net_%d.py" % number)
        path.write_text(NET % number)
        nets.append(str(path))
    return corpus(tmp_path) + [str(tmp_path / "stem.py")] + nets


def run_with(method, paths, monkeypatch):
    monkeypatch.setenv(workers.START_METHOD_VARIABLE, method)
    monkeypatch.setattr(lint, "PARALLEL_THRESHOLD", 2)
    monkeypatch.setattr(lint.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(fixing.os, "cpu_count", lambda: 2)
    run = lint.lint_files(paths, Settings(), pathlib.Path(paths[0]).parent)
    extra = lint.hierarchy_of(run.sources, Settings())
    jobs = [(path, run.sources[path], Settings(), extra, False,
             [d for d in run.diagnostics if d.filename == path], False)
            for path in paths if path in run.sources and "net_" in path]
    fixed = fixing.fix_all(jobs, lint.package_of(run.sources))
    return run.diagnostics, [(f.path, f.source, f.remaining) for f in fixed]


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_the_start_method_is_taken_from_the_environment(monkeypatch, method):
    monkeypatch.setenv(workers.START_METHOD_VARIABLE, method)
    assert workers.start_context().get_start_method() == method


def test_fork_only_on_linux(monkeypatch):
    monkeypatch.delenv(workers.START_METHOD_VARIABLE, raising=False)
    for platform, expected in (("linux", "fork"), ("darwin", "spawn"), ("win32", "spawn")):
        monkeypatch.setattr(workers.sys, "platform", platform)
        assert workers.start_method() == expected


def test_a_tree_checked_and_fixed_with_spawn_matches_fork(tmp_path, monkeypatch):
    paths = tree(tmp_path)
    forked = run_with("fork", paths, monkeypatch)
    spawned = run_with("spawn", paths, monkeypatch)
    assert sum(d.code == "HYB001" and "net_" in d.filename for d in forked[0]) == 8
    # the index reached the fix workers: each file's `y[0]` is fixed as an indexing of one tensor
    assert all("F.slice_axis" in text for _, text, _ in forked[1]) and len(forked[1]) == 8
    assert spawned == forked


def indexed_files(_job):
    return sorted(fixing._PACKAGE.texts) if fixing._PACKAGE is not None else None


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_fix_workers_receive_the_package_index(tmp_path, monkeypatch, method):
    import functools
    monkeypatch.setenv(workers.START_METHOD_VARIABLE, method)
    (tmp_path / "stem.py").write_text(STEM)
    package = lint.package_of(lint.read_all([str(tmp_path / "stem.py")])[0])
    fixing.use_package(None)  # what fork would otherwise inherit
    with lint._Crew(2, functools.partial(fixing.use_package, package)) as crew:
        seen = crew.map(indexed_files, [0, 1, 2, 3], size=lambda job: 1)
    assert [files for _, files in seen] == [[str(tmp_path / "stem.py")]] * 4
