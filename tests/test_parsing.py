"""libcst's parse without the nodes' own checks: the same trees and errors, and checks back after."""
from pathlib import Path

import libcst as cst
import pytest

from hyblint.parsing import parse_module

SAMPLES = sorted((Path(__file__).resolve().parents[1] / "fixtures").rglob("*.py"))


@pytest.mark.parametrize("path", SAMPLES[:40], ids=lambda p: p.name)
def test_the_same_tree_as_libcst(path):
    text = path.read_text(encoding="utf-8")
    try:
        expected = cst.parse_module(text)
    except cst.ParserSyntaxError as exc:
        with pytest.raises(cst.ParserSyntaxError) as caught:
            parse_module(text)
        assert str(caught.value) == str(exc)
        return
    found = parse_module(text)
    assert found.deep_equals(expected) and found.code == text


def test_nodes_built_by_hand_are_checked_again_afterwards():
    parse_module("x = (a + b)\n")
    with pytest.raises(cst.CSTValidationError):
        cst.Name("x", lpar=[cst.LeftParen()])  # unbalanced parentheses
    with pytest.raises(cst.ParserSyntaxError):
        parse_module("def f(:\n")
    with pytest.raises(cst.CSTValidationError):
        cst.Name("x", lpar=[cst.LeftParen()])
