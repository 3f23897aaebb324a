"""Every rule's own VALID and INVALID examples, and the shape of every rule's documentation."""
import pytest

from hyblint.engine import check_source
from hyblint.fixer import fix_source
from hyblint.analysis.screen import SCREEN_TRIGGERS
from hyblint.rules import ALL_RULES, get_rule
from hyblint.selection import OFF_BY_DEFAULT, RULE_CODES, selected_codes
from hyblint.settings import Settings

CASES_VALID = [(code, i, src) for code, rule in ALL_RULES.items() for i, src in enumerate(rule.VALID)]
CASES_INVALID = [(code, i, inv) for code, rule in ALL_RULES.items() for i, inv in enumerate(rule.INVALID)]


def only(code):
    return Settings(select=(code,))


@pytest.mark.parametrize("code,index,source", CASES_VALID, ids=[f"{c}-valid-{i}" for c, i, _ in CASES_VALID])
def test_valid_examples_are_silent(code, index, source):
    assert [d for d in check_source(source, "example.py", only(code))] == []


@pytest.mark.parametrize("code,index,invalid", CASES_INVALID, ids=[f"{c}-invalid-{i}" for c, i, _ in CASES_INVALID])
def test_invalid_examples_are_flagged(code, index, invalid):
    found = check_source(invalid.code, "example.py", only(code))
    assert [d.code for d in found] == [code] * invalid.expected, found
    rule = ALL_RULES[code]
    assert all(d.severity == rule.severity and d.url == rule.url() for d in found)


@pytest.mark.parametrize("code,index,invalid", [c for c in CASES_INVALID if c[2].fixed is not None],
                         ids=[f"{c}-fix-{i}" for c, i, inv in CASES_INVALID if inv.fixed is not None])
def test_invalid_examples_fix_to_their_expected_text(code, index, invalid):
    result = fix_source(invalid.code, "example.py", only(code), unsafe=invalid.unsafe)
    assert result.source == invalid.fixed
    assert [d for d in result.remaining if d.code == code] == []
    again = fix_source(result.source, "example.py", only(code), unsafe=invalid.unsafe)
    assert again.source == result.source  # idempotent


@pytest.mark.parametrize("code", list(ALL_RULES))
def test_rule_docs_follow_the_house_layout(code):
    rule = ALL_RULES[code]
    docs = rule.render_docs()
    for heading in ("## What it does", "## Why is this bad?", "## Example", "## Fix safety"):
        assert heading in docs, (code, heading)
    assert rule.VALID and rule.INVALID
    assert get_rule(code) is rule and get_rule(rule.name) is rule


def test_codes_are_the_specified_table():
    table = {code: (rule.name, rule.severity.value, rule.default_selected) for code, rule in ALL_RULES.items()}
    assert table == {
        "HYB001": ("tensor-indexing", "error", True), "HYB002": ("shape-access", "error", True),
        "HYB003": ("dtype-access", "error", True), "HYB004": ("context-access", "error", True),
        "HYB005": ("item-assignment", "error", True), "HYB006": ("inplace-operator", "error", True),
        "HYB007": ("numpy-conversion", "error", True), "HYB008": ("tensor-control-flow", "error", True),
        "HYB009": ("imperative-namespace", "error", True), "HYB010": ("print-tensor", "warning", True),
        "HYB011": ("reshape-positional", "error", True), "HYB012": ("implicit-broadcast", "error", False),
        "HYB013": ("trace-time-branch", "warning", True), "HYB014": ("clipped-index", "error", True),
        "HYB015": ("tensor-iteration", "error", True), "HYB016": ("trace-time-random", "error", True),
        "HYB017": ("trace-time-state", "warning", True), "HYB018": ("unused-noqa", "warning", False),
        "HYB019": ("removed-numpy-name", "error", True),
    }


def test_the_selection_table_matches_the_rule_classes():
    # the processes that only screen files select rules from this table, without importing them
    assert RULE_CODES == tuple(ALL_RULES)
    assert OFF_BY_DEFAULT == {code for code, rule in ALL_RULES.items() if not rule.default_selected}


def test_the_screen_knows_what_every_rule_reports_on():
    # a rule the screen does not know turns it off (libcst for every method): only HYB012, which
    # reports on nearly every binary operation, goes without
    assert {code: rule.screen_triggers for code, rule in ALL_RULES.items() if rule.screen_triggers is not None} \
        == SCREEN_TRIGGERS
    assert [code for code, rule in ALL_RULES.items() if rule.screen_triggers is None] == ["HYB012"]


def test_a_rule_module_is_registered_by_its_file_alone(tmp_path, monkeypatch):
    import hyblint.selection as selection
    rules_dir = tmp_path / "rules"
    rules_dir.mkdir()
    for name in ("hyb001_tensor_indexing.py", "hyb020_new_rule.py", "base.py", "__init__.py", "notes.txt"):
        (rules_dir / name).write_text("")
    monkeypatch.setattr(selection.os.path, "dirname", lambda path: str(tmp_path))
    assert selection._rule_modules() == (("HYB001", "hyb001_tensor_indexing"), ("HYB020", "hyb020_new_rule"))


@pytest.mark.parametrize("settings,expected", [
    (Settings(), [c for c in RULE_CODES if c not in ("HYB012", "HYB018")]),
    (Settings(select=("ALL",)), list(RULE_CODES)),
    (Settings(select=("HYB00",), ignore=("HYB001",)), ["HYB%03d" % n for n in range(2, 10)]),
    (Settings(ignore=("HYB",), extend_select=("HYB012",)), ["HYB012"]),
    (Settings(select=("HYB001",), ignore=("HYB0",)), ["HYB001"]),
])
def test_selection_prefers_the_more_specific_pattern(settings, expected):
    assert list(selected_codes(settings)) == expected


def test_the_readme_table_is_the_rule_classes():
    from pathlib import Path
    from hyblint.rules import rule_table
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    assert rule_table() in readme
