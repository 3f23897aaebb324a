import hyblint
from hyblint.diagnostics import INPUT_ERROR_CODES


def test_version_is_a_release_string():
    assert hyblint.__version__.count(".") == 2


def test_input_error_codes_are_distinct_and_outside_rule_range():
    assert len(set(INPUT_ERROR_CODES.values())) == len(INPUT_ERROR_CODES)
    assert all(code.startswith("HYB9") for code in INPUT_ERROR_CODES)
