"""The precision audit's verdicts (tools/audit_precision.py; its runs need MXNet, its judging does not)."""
import importlib.util
from pathlib import Path

spec = importlib.util.spec_from_file_location("audit_precision",
                                              Path(__file__).parent.parent / "tools" / "audit_precision.py")
audit = importlib.util.module_from_spec(spec)
spec.loader.exec_module(audit)


def diagnostic(code="HYB002", row=10):
    return {"code": code, "filename": "/src/m.py", "location": {"row": row, "column": 1}}


def test_a_raise_at_the_line_is_real():
    run = {"raised": "AttributeError", "raised_at": ["/src/m.py", 10], "ran": [["/src/m.py", 10]]}
    assert audit.judge(diagnostic(), run, "n = x.shape[0]") == "real"


def test_a_line_that_ran_in_a_run_that_agrees_is_false():
    run = {"agrees": True, "ran": [["/src/m.py", 10]]}
    assert audit.judge(diagnostic(), run, "n = x.shape[0]") == "false"


def test_a_line_that_ran_in_a_run_that_differs_is_real():
    run = {"agrees": False, "ran": [["/src/m.py", 10]]}
    assert audit.judge(diagnostic("HYB001"), run, "y = x[0]") == "real"


def test_what_one_run_cannot_show_is_unresolved():
    agrees = {"agrees": True, "ran": [["/src/m.py", 10]]}
    assert audit.judge(diagnostic(row=11), agrees, "n = x.shape[0]") == "unresolved"  # never ran
    assert audit.judge(diagnostic(), agrees, "s = self.s if self.s else x.shape[2:]") == "unresolved"
    assert audit.judge(diagnostic("HYB017"), agrees, "self.step += 1") == "unresolved"
    failed_elsewhere = {"raised": "TypeError", "raised_at": ["/src/m.py", 20], "ran": [["/src/m.py", 10]]}
    assert audit.judge(diagnostic(), failed_elsewhere, "n = x.shape[0]") == "unresolved"


def test_a_case_imports_from_the_folders_given_beside_the_root(monkeypatch, tmp_path):
    """A script's own library (GluonNLP's `src/` for its `scripts/`) is importable without being audited."""
    seen = {}

    class Done:
        stdout = '{"build": "m:B", "agrees": true, "ran": []}\n'
        stderr = ""

    def fake_run(args, **kwargs):
        seen["args"] = args
        return Done()

    monkeypatch.setattr(audit.subprocess, "run", fake_run)
    library = tmp_path / "src"
    library.mkdir()
    run = audit.run_case("python", "/root/", {"build": "m:B", "shape": [1]}, 5, [str(library)])
    assert run["agrees"]
    assert seen["args"][3:] == ["/root/", "m:B", "{}", "[[1]]", '["%s"]' % library.resolve()]


def test_an_unresolved_verdict_says_what_kept_it_open():
    failed_elsewhere = {"raised": "TypeError", "raised_at": ["/src/m.py", 20], "ran": [["/src/m.py", 10]]}
    assert audit.judge_why(diagnostic(), failed_elsewhere, "n = x.shape[0]") == \
        ("unresolved", "ran, then the call raised at m.py:20")
    assert audit.judge_why(diagnostic(row=11), failed_elsewhere, "n = x.shape[0]") == ("unresolved", "never ran")
    agrees = {"agrees": True, "ran": [["/src/m.py", 10]]}
    assert audit.judge_why(diagnostic(), agrees, "n = x.shape[0] if a else 1") == ("unresolved", "conditional line")
