"""`hyblint verify` over many modules: worker processes at once (--jobs), a progress line on a
terminal, and a cache that makes a second run of an unchanged tree re-verify nothing."""
import argparse
import contextlib
import io
import json
import textwrap

from hyblint.verify import arguments, batch, command, runner

BLOCK = textwrap.dedent("""\
    import os
    import time
    from mxnet.gluon import nn

    with open(os.environ["VERIFY_LOG"], "a") as log:  # when each module's worker imported it
        log.write("start %s %r\\n" % (__name__, time.time()))
    time.sleep({sleep})
    with open(os.environ["VERIFY_LOG"], "a") as log:
        log.write("end %s %r\\n" % (__name__, time.time()))


    class Net{n}(nn.HybridBlock):
        def hybrid_forward(self, F, x):
            return F.relu(x) * {n}
    """)


def tree(folder, count=3, sleep=0.0):
    for n in range(count):
        (folder / ("m%d.py" % n)).write_text(BLOCK.format(n=n, sleep=sleep))
    return ["--shapes=Net%d=2x3" % n for n in range(count)]


def verify(folder, *argv):
    parser = argparse.ArgumentParser()
    arguments.add_arguments(parser)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = command.run(parser.parse_args([str(folder)] + [str(a) for a in argv] + ["--format", "json"]))
    return code, json.loads(out.getvalue())


def counting(monkeypatch):
    calls = []
    real = runner.verify_module

    def verify_module(path, *rest, **kwargs):
        calls.append(path.name)
        return real(path, *rest, **kwargs)
    monkeypatch.setattr(runner, "verify_module", verify_module)
    return calls


def test_a_second_run_of_an_unchanged_tree_verifies_nothing_again(tmp_path, monkeypatch):
    src = tmp_path / "src"
    src.mkdir()
    shapes = tree(src)
    monkeypatch.setenv("VERIFY_LOG", str(tmp_path / "log"))
    cache = ["--cache-dir", tmp_path / "cache"]
    calls = counting(monkeypatch)
    first = verify(src, *shapes, *cache)
    assert sorted(calls) == ["m0.py", "m1.py", "m2.py"]
    assert [r["status"] for r in first[1]] == ["agrees"] * 3
    calls.clear()
    assert verify(src, *shapes, *cache) == first
    assert calls == []
    # one module changed: only it runs again
    (src / "m1.py").write_text((src / "m1.py").read_text().replace("* 1", "* 10"))
    verify(src, *shapes, *cache)
    assert calls == ["m1.py"]
    # other options are another question
    calls.clear()
    verify(src, *shapes, *cache, "--discover")
    assert sorted(calls) == ["m0.py", "m1.py", "m2.py"]
    calls.clear()
    verify(src, *shapes, *cache, "--no-cache")
    assert len(calls) == 3


def test_a_module_that_timed_out_is_not_remembered(tmp_path, monkeypatch):
    src = tmp_path / "src"
    src.mkdir()
    shapes = tree(src, count=1, sleep=30)
    monkeypatch.setenv("VERIFY_LOG", str(tmp_path / "log"))
    calls = counting(monkeypatch)
    for _ in range(2):
        code, results = verify(src, *shapes, "--cache-dir", tmp_path / "cache", "--timeout", "3")
        assert results[0]["status"] == "timeout"
    assert calls == ["m0.py", "m0.py"]


def test_modules_run_in_worker_processes_at_once(tmp_path, monkeypatch):
    src = tmp_path / "src"
    src.mkdir()
    shapes = tree(src, count=3, sleep=2)
    log = tmp_path / "log"
    monkeypatch.setenv("VERIFY_LOG", str(log))
    code, results = verify(src, *shapes, "--no-cache", "--jobs", "3")
    assert code == 0 and [r["block"] for r in results] == ["Net0", "Net1", "Net2"]
    events = [line.split() for line in log.read_text().splitlines()]
    starts = {name: float(t) for what, name, t in events if what == "start"}
    ends = {name: float(t) for what, name, t in events if what == "end"}
    # some module started before another had finished importing: they overlapped
    assert any(starts[a] < ends[b] and starts[b] < ends[a] for a in starts for b in starts if a != b)
    log.write_text("")
    verify(src, *shapes, "--no-cache", "--jobs", "1")
    events = [line.split() for line in log.read_text().splitlines()]
    assert [what for what, _, _ in events] == ["start", "end"] * 3  # one at a time


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_shows_on_a_terminal_only():
    shown = Terminal()
    progress = batch.Progress(3, shown)
    progress.step()
    progress.step()
    progress.close()
    assert shown.getvalue() == "\rverify: 1/3 modules\rverify: 2/3 modules\r\033[K"
    piped = io.StringIO()
    progress = batch.Progress(3, piped)
    progress.step()
    progress.close()
    assert piped.getvalue() == ""


def test_jobs_must_be_a_positive_count(capsys):
    parser = argparse.ArgumentParser()
    arguments.add_arguments(parser)
    for bad in ("0", "two"):
        try:
            parser.parse_args(["--jobs", bad])
        except SystemExit as exc:
            assert exc.code == 2
        else:
            raise AssertionError("--jobs %s was accepted" % bad)


def test_the_cache_key_covers_every_file_the_worker_loads():
    import re
    from pathlib import Path

    from hyblint.verify import batch
    worker = (Path(batch.__file__).parent / "worker.py").read_text()
    loaded = {name + ".py" for name in re.findall(r'_load_sibling\("(\w+)"\)', worker)}
    assert loaded and loaded | {"worker.py"} <= set(batch.WORKER_FILES)


def test_the_cache_key_follows_hyblint_s_own_code(tmp_path, monkeypatch):
    """A change to a rule or the analysis changes the diagnostics verify judges: cached answers
    from before it are not reused."""
    from hyblint.verify import batch, runner
    rule = tmp_path / "rules" / "hyb001.py"
    rule.parent.mkdir()
    rule.write_text("CODE = 'HYB001'\n")
    monkeypatch.setattr(batch, "LINT_FOLDER", tmp_path)
    options = runner.VerifyOptions()
    before = batch.fingerprint(options, "")
    assert batch.fingerprint(options, "") == before
    rule.write_text("CODE = 'HYB001'  # reports more\n")
    assert batch.fingerprint(options, "") != before
