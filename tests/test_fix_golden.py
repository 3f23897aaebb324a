"""The fixer turns the broken golden blocks (recorded from MXNet 1.9.1) into code that, run
hybridized on the project's runtime, computes what the original computed eagerly, and what the
recorded `_fixed` twins compute."""
import json
from pathlib import Path

import numpy as np
import pytest

from hyblint.fixer import fix_source
from tests.fix_support.blocks import run

GOLDEN = Path(__file__).resolve().parent.parent / "fixtures" / "golden" / "blocks.jsonl"
BLOCKS = {b["id"]: b for b in map(json.loads, GOLDEN.read_text().splitlines())}
BROKEN = ["seed_indexing", "seed_shape_reshape", "seed_item_assignment", "seed_inplace_add",
          "seed_slice_assign"]


def array(record):
    return np.array(record["data"], dtype=record["dtype"]).reshape(record["shape"])


def inputs(block):
    return [array(i) for i in block["inputs"]]


def assert_same(outputs, recorded):
    assert len(outputs) == 1
    expected = array(recorded)
    assert outputs[0].shape == expected.shape
    np.testing.assert_allclose(outputs[0], expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("block_id", BROKEN)
def test_the_original_fails_hybridized_as_recorded(block_id):
    block = BLOCKS[block_id]
    with pytest.raises(Exception) as caught:
        run(block["source"], inputs(block), hybridized=True)
    assert type(caught.value).__name__ == block["hybridized"]["error"]


@pytest.mark.parametrize("block_id", BROKEN)
def test_fixed_block_hybridizes_and_returns_the_eager_result(block_id):
    block = BLOCKS[block_id]
    result = fix_source(block["source"], block_id + ".py", unsafe=True)
    assert result.applied and not result.dropped
    assert [d.code for d in result.remaining] == []
    assert_same(run(result.source, inputs(block), hybridized=True), block["imperative"])
    twin = BLOCKS.get(block_id + "_fixed")
    if twin is not None:  # the same results as the hand-fixed twin, on the twin's inputs
        assert_same(run(result.source, inputs(twin), hybridized=True), twin["hybridized"])


def test_safe_fixes_alone_repair_the_blocks_whose_arrays_the_caller_does_not_see():
    for block_id in ("seed_indexing", "seed_shape_reshape", "seed_inplace_add"):
        block = BLOCKS[block_id]
        result = fix_source(block["source"], block_id + ".py")
        assert [d.code for d in result.remaining] == [], block_id
    for block_id in ("seed_item_assignment", "seed_slice_assign"):  # writes into the argument
        block = BLOCKS[block_id]
        result = fix_source(block["source"], block_id + ".py")
        assert [d.code for d in result.remaining] == ["HYB005"], block_id
