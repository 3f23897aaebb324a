"""Node positions computed by counting characters agree with libcst's PositionProvider."""
import pathlib

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from hyblint.positions import positions_of
from hyblint.rules import ALL_RULES

DEMO = sorted(pathlib.Path(__file__).resolve().parent.parent.joinpath("fixtures", "demo").rglob("*.py"))
SOURCES = [path.read_text() for path in DEMO] + [invalid.code for rule in ALL_RULES.values() for invalid in rule.INVALID]


def assert_same_positions(source):
    module = cst.parse_module(source)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    found = positions_of(module)
    assert expected  # the comparison covers every node
    for node, span in expected.items():
        assert found[node] == span, (type(node).__name__, module.code_for_node(node))


@pytest.mark.parametrize("source", SOURCES)
def test_positions_match_the_provider(source):
    assert_same_positions(source)


@pytest.mark.parametrize("newline", ["\r\n", "\r"])
def test_positions_match_with_other_line_endings(newline):
    assert_same_positions(SOURCES[0].replace("\n", newline))


@pytest.mark.parametrize("source", ["x = 1", "def f():\n\tif x:  # c\n\t\treturn y[0]", "", "\n\n# only a comment"])
def test_positions_match_on_odd_modules(source):
    assert_same_positions(source)


@pytest.mark.parametrize("source", SOURCES[:12])
def test_the_nodes_asked_for_get_their_positions_though_the_rest_is_not_generated(source):
    module = cst.parse_module(source)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    nodes = list(expected)
    for wanted in (nodes[:1], nodes[len(nodes) // 2:len(nodes) // 2 + 3], nodes[-2:], []):
        found = positions_of(module, wanted)
        assert [found[node] for node in wanted] == [expected[node] for node in wanted]
