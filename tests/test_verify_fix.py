"""`hyblint verify` on the demo agrees with real MXNet; `verify --fix` proves the fix snapshots."""
import argparse
import json
from pathlib import Path

import pytest

from hyblint.verify import arguments, command

ROOT = Path(__file__).resolve().parents[1]
FIXES = sorted(p for p in (ROOT / "fixtures" / "fix").glob("*.py") if not p.name.endswith(".fixed.py"))


def verify(capsys, *argv):
    parser = argparse.ArgumentParser()
    arguments.add_arguments(parser)
    code = command.run(parser.parse_args([str(a) for a in argv] + ["--format", "json"]))
    return code, json.loads(capsys.readouterr().out)


def test_demo_verdicts_are_mxnets(capsys):
    recorded = json.loads((ROOT / "fixtures" / "verify" / "demo_mxnet.json").read_text())
    code, results = verify(capsys, ROOT / "fixtures" / "demo")
    assert code == 1
    assert {r["block"]: r["status"] for r in results} == {k: v["status"] for k, v in recorded.items()}
    for r in results:
        expected = recorded[r["block"]]
        if expected["status"] != "fails":
            continue
        error, _, message = r["detail"].partition(": ")
        assert error == expected["error"], r
        if error == "MXNetError":  # MXNet's message has a timestamp and a path of its sources
            assert message.split("Incompatible attr in node ")[1] in expected["message"]
        else:
            assert message == expected["message"]
            assert r["line"] == expected["line"]


def header(path: Path):
    lines = path.read_text().splitlines()
    inputs = json.loads(lines[0].split(":", 1)[1])
    options = json.loads(lines[1].split(":", 1)[1])
    return inputs, options


@pytest.mark.parametrize("path", FIXES, ids=[p.stem for p in FIXES])
def test_fix_snapshot_is_proved_by_running_it(capsys, path):
    inputs, options = header(path)
    argv = [path, "--fix", "--shapes", "Net=" + json.dumps(inputs)]
    if options.get("unsafe"):
        argv.append("--unsafe-fixes")
    if options.get("select"):
        argv += ["--extend-select", ",".join(options["select"])]
    code, results = verify(capsys, *argv)
    [result] = [r for r in results if r["block"] == "Net"]
    if options.get("equivalent") is False:
        # the fix changes results on purpose: not judged by equality, never counted as proved
        assert result["fix"] == "changes-results", result
        assert "by design" in result["fix_detail"]
        assert code == 1
    else:
        assert result["fix"] == "proved", result
        assert code == 0


def test_write_saves_a_module_only_when_its_fixes_are_proved(capsys, tmp_path):
    proved = tmp_path / "proved.py"
    proved.write_text((ROOT / "fixtures" / "fix" / "hyb006_inplace.py").read_text())
    disproved = tmp_path / "clipped.py"
    disproved.write_text((ROOT / "fixtures" / "fix" / "hyb014_wrap.py").read_text())
    shapes_proved, _ = header(proved)
    shapes_disproved, _ = header(disproved)
    before = disproved.read_text()
    verify(capsys, proved, "--fix", "--write", "--shapes", "Net=" + json.dumps(shapes_proved))
    verify(capsys, disproved, "--fix", "--write", "--shapes", "Net=" + json.dumps(shapes_disproved))
    assert proved.read_text() == (ROOT / "fixtures" / "fix" / "hyb006_inplace.fixed.py").read_text()
    assert disproved.read_text() == before
