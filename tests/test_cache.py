"""The diagnostics cache: one entry per file, pruned on save, and where it lives."""
import json
import os

import pytest

from hyblint.cache import CACHE_DIR_VARIABLE, Cache
from hyblint.cli import main
from hyblint.settings import Settings

NET = """\
from mxnet.gluon import nn


class Net(nn.HybridBlock):
    def hybrid_forward(self, F, x):
        return x[%d]
"""


def entries(folder):
    files = list(folder.glob("diagnostics-*.json"))
    assert len(files) == 1, files
    return json.loads(files[0].read_text())


def test_twenty_edits_of_one_file_leave_one_entry(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(CACHE_DIR_VARIABLE, raising=False)
    for edit in range(20):
        (tmp_path / "net.py").write_text(NET % edit)
        assert main(["check", "net.py"]) == 1
    capsys.readouterr()
    assert list(entries(tmp_path / ".hyblint_cache")) == [str(tmp_path / "net.py")]


def test_entries_of_deleted_files_are_pruned_on_save(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(CACHE_DIR_VARIABLE, raising=False)
    for name in ("a.py", "b.py"):
        (tmp_path / name).write_text(NET % 0)
    main(["check", "."])
    assert len(entries(tmp_path / ".hyblint_cache")) == 2
    (tmp_path / "b.py").unlink()
    main(["check", "."])
    capsys.readouterr()
    assert list(entries(tmp_path / ".hyblint_cache")) == [str(tmp_path / "a.py")]


def test_an_entry_is_used_only_for_the_text_it_was_computed_from(tmp_path):
    path = str(tmp_path / "net.py")
    cache = Cache(tmp_path / "cache", Settings())
    cache.put(path, "one", frozenset(), Settings(), [])
    assert cache.get(path, "one", frozenset(), Settings()) == []
    assert cache.get(path, "two", frozenset(), Settings()) is None
    assert cache.get(str(tmp_path / "other.py"), "one", frozenset(), Settings()) is None


@pytest.mark.parametrize("how", ["flag", "environment"])
def test_cache_dir_and_clean(tmp_path, monkeypatch, capsys, how):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(CACHE_DIR_VARIABLE, raising=False)
    (tmp_path / "net.py").write_text(NET % 0)
    elsewhere = tmp_path / "elsewhere"
    option = []
    if how == "flag":
        option = ["--cache-dir", str(elsewhere)]
    else:
        monkeypatch.setenv(CACHE_DIR_VARIABLE, str(elsewhere))
    assert main(["check", "net.py", *option]) == 1
    assert len(entries(elsewhere)) == 1 and not (tmp_path / ".hyblint_cache").exists()
    assert main(["clean", *option]) == 0
    assert not elsewhere.exists()
    assert main(["clean", *option]) == 0 and "No cache" in capsys.readouterr().err


def test_clean_removes_the_project_cache_only(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(CACHE_DIR_VARIABLE, raising=False)
    (tmp_path / "net.py").write_text(NET % 0)
    main(["check", "net.py"])
    folder = tmp_path / ".hyblint_cache"
    (folder / "notes.txt").write_text("not hyblint's")
    assert main(["clean"]) == 0
    assert [p.name for p in folder.iterdir()] == ["notes.txt"]
    assert (tmp_path / "net.py").exists()
