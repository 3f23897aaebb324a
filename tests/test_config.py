"""`[tool.hyblint]` and selection flags: every mistake is exit 2 naming the file and the key."""
import pytest

from hyblint.cli import main


def check(tmp_path, monkeypatch, capsys, *argv):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.py").write_text("x = 1\n")
    code = main(["check", "--no-cache", *argv, "m.py"])
    return code, capsys.readouterr().err


@pytest.mark.parametrize("option", ["--select", "--ignore", "--extend-select"])
@pytest.mark.parametrize("code", ["HBY001", "HYB999", "HYB0010"])
def test_unknown_selectors_on_the_command_line(tmp_path, monkeypatch, capsys, option, code):
    status, err = check(tmp_path, monkeypatch, capsys, option, "HYB001," + code)
    assert status == 2 and option in err and code in err and "HYB001," not in err, err


@pytest.mark.parametrize("selector", ["ALL", "HYB", "HYB00", "HYB001", "HYB9", "hyb012"])
def test_known_selectors_and_prefixes(tmp_path, monkeypatch, capsys, selector):
    assert check(tmp_path, monkeypatch, capsys, "--select", selector)[0] == 0


@pytest.mark.parametrize("table, named", [
    ('select = ["HBY001"]', "select: unknown rule code(s): HBY001"),
    ('extend-select = ["HYB999"]', "extend-select: unknown rule code(s): HYB999"),
    ('ignore = ["HYB999"]', "ignore: unknown rule code(s): HYB999"),
    ('selct = ["HYB001"]', "unknown [tool.hyblint] option(s): selct"),
    ('respect-gitignore = "yes"', "respect-gitignore must be true or false"),
    ('exclude = "gen"', "exclude must be a list"),
    ('hybrid-bases = [1]', "hybrid-bases must be a list"),
    ('per-file-ignores = ["a"]', "per-file-ignores must be a table"),
])
def test_bad_configuration_names_the_key(tmp_path, monkeypatch, capsys, table, named):
    (tmp_path / "pyproject.toml").write_text("[tool.hyblint]\n%s\n" % table)
    status, err = check(tmp_path, monkeypatch, capsys)
    assert status == 2 and "pyproject.toml" in err and named in err, err


BROKEN = "class Net(HybridBlock):\n    def hybrid_forward(self, F, x):\n        x += 1\n        return x[0]\n"


def test_extend_reads_another_configuration_under_its_own_keys(tmp_path, monkeypatch, capsys):
    (tmp_path / "pyproject.toml").write_text('[tool.hyblint]\nignore = ["HYB006"]\nextend-exclude = ["gen/"]\n')
    project = tmp_path / "project"
    (project / "gen").mkdir(parents=True)
    (project / "gen" / "g.py").write_text(BROKEN)
    (project / "m.py").write_text(BROKEN)
    (project / "pyproject.toml").write_text('[tool.hyblint]\nextend = "../pyproject.toml"\n')
    monkeypatch.chdir(project)
    assert main(["check", "--no-cache", "--format", "concise", "."]) == 1
    out = capsys.readouterr().out
    assert "HYB001" in out and "HYB006" not in out and "g.py" not in out, out
    # its own keys win
    (project / "pyproject.toml").write_text('[tool.hyblint]\nextend = "../pyproject.toml"\nignore = ["HYB001"]\n')
    assert main(["check", "--no-cache", "--format", "concise", "m.py"]) == 1
    out = capsys.readouterr().out
    assert "HYB006" in out and "HYB001" not in out, out


@pytest.mark.parametrize("base, complaint", [("missing.toml", "missing.toml: no such file"),
                                             ("pyproject.toml", "extends itself")])
def test_a_bad_extend_is_an_error(tmp_path, monkeypatch, capsys, base, complaint):
    (tmp_path / "pyproject.toml").write_text('[tool.hyblint]\nextend = "%s"\n' % base)
    status, err = check(tmp_path, monkeypatch, capsys)
    assert status == 2 and complaint in err, err


@pytest.mark.parametrize("cache", [["--no-cache"], []])
def test_each_file_takes_its_closest_configuration(tmp_path, monkeypatch, capsys, cache):
    for folder, table in (("a", 'ignore = ["HYB001"]\nextend-exclude = ["gen/"]'), ("b", 'ignore = ["HYB006"]')):
        (tmp_path / folder / "gen").mkdir(parents=True)
        (tmp_path / folder / "pyproject.toml").write_text("[tool.hyblint]\n%s\n" % table)
        (tmp_path / folder / "m.py").write_text(BROKEN)
        (tmp_path / folder / "gen" / "g.py").write_text(BROKEN)
    monkeypatch.chdir(tmp_path)

    def codes(*paths):
        assert main(["check", *cache, "--format", "concise", *paths]) == 1
        return sorted(line.split()[1] + " " + line.split(":")[0] for line in capsys.readouterr().out.splitlines()
                      if line.startswith(("a", "b")))
    both = codes("a", "b")
    assert codes("b", "a") == both
    assert both == ["HYB001 b/gen/g.py", "HYB001 b/m.py", "HYB006 a/m.py"]
    assert codes("b/m.py", "a/m.py") == ["HYB001 b/m.py", "HYB006 a/m.py"]
    # --config names one configuration for all
    assert codes("--config", "b/pyproject.toml", "a/m.py", "b/m.py") == ["HYB001 a/m.py", "HYB001 b/m.py"]
