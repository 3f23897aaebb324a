"""Checking many files in worker processes (screeners and checkers) reports what checking them one
by one in this process reports."""
import pathlib

import sys

import pytest

from hyblint import lint
from hyblint.engine import check_source
from hyblint.rules.base import hybrid_block
from hyblint.settings import Settings
from hyblint.workers import STARTING, Worker, WorkerError, start_context

DEMO = pathlib.Path(__file__).resolve().parent.parent / "fixtures" / "demo"
BODIES = [
    "return F.relu(x)",                                   # cleared by the screen
    "y = x[0]\nreturn y",                                 # HYB001, left to a checker
    "if F.sum(x) > 0:\n    x = x * 2\nreturn x",          # HYB008
    "return x.reshape(2, -1)",                            # HYB011
    "n = x.shape[0]  # noqa: HYB002\nreturn x",           # suppressed
]


def corpus(tmp_path):
    paths = []
    for number in range(40):
        path = tmp_path / ("model_%02d.py" % number)
        path.write_text(hybrid_block(BODIES[number % len(BODIES)], name="Net%d" % number))
        paths.append(path)
    broken = tmp_path / "broken.py"
    broken.write_text("class Net(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x[\n")
    # a method continued less indented than itself: checked by parsing the whole module
    whole = tmp_path / "whole.py"
    whole.write_text("class Net(HybridBlock):\n    def hybrid_forward(self, F, x):\n        y = (x +\n"
                     "1)\n        return y[0]\n")
    plain = tmp_path / "plain.py"
    plain.write_text("def f(x):\n    return x[0]\n")
    return [str(p) for p in paths + [broken, whole, plain] + sorted(DEMO.glob("*.py"))]


def one_by_one(paths):
    found = []
    for path in paths:
        found.extend(check_source(pathlib.Path(path).read_text(), path, Settings()))
    return sorted(found, key=lambda d: d.sort_key())


@pytest.mark.parametrize("steal", [False, True], ids=["checkers-finish", "screeners-help"])
def test_workers_report_what_one_process_reports(tmp_path, monkeypatch, steal):
    paths = corpus(tmp_path)
    monkeypatch.setattr(lint, "PARALLEL_THRESHOLD", 2)
    monkeypatch.setattr(lint.os, "cpu_count", lambda: 2)  # one screener, one checker, on any machine
    if steal:
        monkeypatch.setattr(lint, "STEAL_THRESHOLD", 0)
    run = lint.lint_files(paths, Settings(), tmp_path)
    expected = one_by_one(paths)
    assert {d.code for d in expected} >= {"HYB001", "HYB008", "HYB011", "HYB900"}
    assert run.diagnostics == expected


def _nothing():
    pass


def _fail(argument):
    raise ValueError("bad job %s" % argument)


def _square(argument):
    return argument * argument


def test_a_failing_job_raises_with_the_workers_traceback():
    worker = Worker(start_context(), _nothing, "screen")
    try:
        assert worker.receive() == (STARTING, None)
        worker.send(_square, 7, "first")
        assert worker.receive() == ("first", 49)
        worker.send(_fail, 3, "second")
        with pytest.raises(WorkerError, match="ValueError: bad job 3"):
            worker.receive()
        worker.send(_square, 2, "third")  # the worker lives on
        assert worker.receive() == ("third", 4)
    finally:
        worker.stop()
    assert not worker.process.is_alive()


def _hold(count):
    return sum(range(count))  # (one call in C: the interpreter is not let go meanwhile)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pipe sizes are Linux's")
def test_sending_a_large_job_does_not_wait_for_a_busy_worker():
    """The job pipe holds what a worker is given ahead: this process goes on while the worker's
    own thread keeps the interpreter (a long parse), before its reading thread has run."""
    import time
    from hyblint.workers import JOB_PIPE_BYTES
    worker = Worker(start_context(), _nothing, "check")
    try:
        assert worker.receive() == (STARTING, None)
        count = 40_000_000
        worker.send(_hold, count, "busy")
        text = "x" * (JOB_PIPE_BYTES * 3 // 4)  # several times the default pipe's 64 KiB
        started = time.perf_counter()
        worker.send(len, text, "large")
        assert time.perf_counter() - started < 0.2
        assert worker.receive() == ("busy", count * (count - 1) // 2)
        assert worker.receive() == ("large", len(text))
    finally:
        worker.stop()


def test_workers_started_early_are_stopped_when_no_file_needs_them(tmp_path, monkeypatch):
    import multiprocessing
    monkeypatch.setattr(lint, "EARLY_START_THRESHOLD", 2)
    monkeypatch.setattr(lint.os, "cpu_count", lambda: 2)
    paths = []
    for number in range(5):
        path = tmp_path / ("plain_%d.py" % number)
        path.write_text("def f(x):\n    return x[0]\n")
        paths.append(str(path))
    run = lint.lint_files(paths, Settings(), tmp_path)
    assert run.diagnostics == [] and run.files_checked == 5
    assert multiprocessing.active_children() == []


def _boom(job):
    raise RuntimeError("boom in %s" % pathlib.Path(job[0]).name)


def _boom_finishing(first):
    raise RuntimeError("boom in %s" % pathlib.Path(first.filename).name)


def test_a_job_failing_in_a_worker_ends_the_run_with_its_traceback(tmp_path, monkeypatch, capsys):
    from hyblint.cli import main
    paths = corpus(tmp_path)
    monkeypatch.setattr(lint, "PARALLEL_THRESHOLD", 2)
    monkeypatch.setattr(lint.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(lint, "_triage_one", _boom)
    monkeypatch.setattr(lint, "_check_one", _boom)
    monkeypatch.setattr(lint, "_finish_one", _boom_finishing)  # (what this process triages, a checker finishes)
    assert main(["check", "--no-cache", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "a check failed in a worker process" in err and "RuntimeError: boom in" in err
    assert len(paths) > 2


CHILD = '''\
from mxnet.gluon import nn


class Stem{n}(nn.HybridBlock):
    def hybrid_forward(self, F, x):
        return {returned}


class Head{n}(nn.HybridBlock):
    def hybrid_forward(self, F, x, hidden):
        return x + hidden[0]
'''

PARENT = '''\
from mxnet.gluon import nn
from child_{n} import Stem{n}, Head{n}


def pairwise(F, x):
    return F.ones((x.shape[0], 1))


class Net{n}(nn.HybridBlock):
    def __init__(self):
        super().__init__()
        self.stem = Stem{n}()
        self.head = Head{n}()

    def hybrid_forward(self, F, x):
        y = self.stem(x)
        z = self.head(x, [F.zeros_like(x)] * 2)
        return y[0] + z + pairwise(F, x)
'''


def package_tree(tmp_path):
    """Parents whose reports depend on their children's files (a child returning one tensor or
    two, a child called with a list) and on a helper function, spread over many files."""
    paths = []
    for n in range(30):
        returned = "F.relu(x)" if n % 2 else "F.relu(x), F.sigmoid(x)"
        for name, text in (("child_%d.py" % n, CHILD), ("parent_%d.py" % n, PARENT)):
            (tmp_path / name).write_text(text.format(n=n, returned=returned))
            paths.append(str(tmp_path / name))
    return sorted(paths)


@pytest.mark.parametrize("mode", ["serial", "parallel", "started-early", "screeners-help", "cached"])
def test_the_index_reads_the_same_in_workers_and_through_the_cache(tmp_path, monkeypatch, mode):
    from hyblint.cache import Cache
    paths = package_tree(tmp_path)
    monkeypatch.setattr(lint, "PARALLEL_THRESHOLD", 10 ** 6)
    serial = lint.lint_files(paths, Settings(), tmp_path).diagnostics
    # a child returning one tensor: `y[0]` reported, in the parent; the helper's `x.shape` in
    # every parent, with the call as related information; the list passed to the head silent
    assert sorted({(d.code, pathlib.Path(d.filename).name[:6]) for d in serial}) == [
        ("HYB001", "parent"), ("HYB002", "parent")]
    assert len([d for d in serial if d.code == "HYB001"]) == 15
    assert all(d.related for d in serial if d.code == "HYB002")
    monkeypatch.setattr(lint, "PARALLEL_THRESHOLD", 2)
    monkeypatch.setattr(lint.os, "cpu_count", lambda: 2)  # one screener, one checker, on any machine
    if mode == "started-early":
        monkeypatch.setattr(lint, "EARLY_START_THRESHOLD", 2)
    if mode == "screeners-help":
        monkeypatch.setattr(lint, "STEAL_THRESHOLD", 0)
    cache = None
    if mode == "cached":
        first = Cache(tmp_path / "cache", Settings())
        assert lint.lint_files(paths, Settings(), tmp_path, first).diagnostics == serial
        first.save()
        cache = Cache(tmp_path / "cache", Settings())
    if mode == "serial":
        monkeypatch.setattr(lint, "PARALLEL_THRESHOLD", 10 ** 6)
    assert lint.lint_files(paths, Settings(), tmp_path, cache).diagnostics == serial


def test_checkers_started_with_the_command_line_are_used_by_a_cold_check_or_stopped(tmp_path, monkeypatch):
    import multiprocessing
    from hyblint import early
    monkeypatch.setattr(lint.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(early.os, "cpu_count", lambda: 2)
    paths = corpus(tmp_path)
    monkeypatch.setattr(lint, "EARLY_START_THRESHOLD", 2)
    early.start_checkers()
    started = list(early._CHECKERS)
    assert len(started) == 1 and multiprocessing.active_children()
    used = []
    monkeypatch.setattr(lint._Crew, "run", lambda self, jobs, package, run=lint._Crew.run: (
        used.extend(self.members), run(self, jobs, package))[1])
    run = lint.lint_files(paths, Settings(), tmp_path)
    assert run.diagnostics == one_by_one(paths) and early._CHECKERS == [] and used[0] is started[0]
    assert multiprocessing.active_children() == []
    monkeypatch.setattr(lint, "EARLY_START_THRESHOLD", 10 ** 6)  # too few files: stopped unused
    early.start_checkers()
    assert lint.lint_files(paths[:3], Settings(), tmp_path).files_checked == 3
    assert early._CHECKERS == [] and multiprocessing.active_children() == []


def test_workers_start_with_the_command_line_only_for_a_check_of_a_folder_no_cache_answers(tmp_path, monkeypatch):
    from hyblint.early import workers_pay as _early_workers_pay
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("HYBLINT_CACHE_DIR", raising=False)
    (tmp_path / "src").mkdir()
    (tmp_path / "a.py").write_text("x = 1\n")
    assert _early_workers_pay(["check", "src"]) and _early_workers_pay([]) and _early_workers_pay(["src", "-q"])
    for argv in (["rule", "HYB001"], ["verify", "src"], ["check", "a.py"], ["check", "-", "src"],
                 ["check", "--stdin-filename", "a.py"], ["check", "--show-files", "src"], ["--version"]):
        assert not _early_workers_pay(argv), argv
    (tmp_path / ".hyblint_cache").mkdir()  # a cache that may answer: a warm run needs no worker
    assert not _early_workers_pay(["check", "src"])
    assert _early_workers_pay(["check", "--no-cache", "src"]) and _early_workers_pay(["check", "--fix", "src"])
