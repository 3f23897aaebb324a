"""Snapshot fixtures of the fixer: each before/after pair under fixtures/fix/.

For every pair: `--fix` turns the before text into the after text exactly; the after text
parses and fixing it again changes nothing; and on the project's runtime the original run
eagerly gives what the fixed code gives hybridized, while the original fails or differs
hybridized. (tools/check_fixes_on_mxnet.py checks the same pairs on real MXNet.) Set HYBLINT_UPDATE_SNAPSHOTS=1 to rewrite the after files.
"""
import ast
import os

import numpy as np
import pytest

from hyblint.fixer import fix_source
from hyblint.settings import Settings
from tests.fix_support.blocks import run
from tests.fix_support.cases import cases

CASES = cases()


def settings_for(case):
    select = case.options.get("select")
    return Settings(extend_select=tuple(select)) if select else Settings()


def fixed(case, text):
    return fix_source(text, case.before.name, settings_for(case), unsafe=case.options.get("unsafe", False))


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_fix_matches_the_snapshot_and_is_idempotent(case):
    result = fixed(case, case.before.read_text())
    if os.environ.get("HYBLINT_UPDATE_SNAPSHOTS"):
        case.after.write_text(result.source)
    assert result.applied and not result.dropped
    assert result.source == case.after.read_text()
    ast.parse(result.source)
    again = fixed(case, result.source)
    assert again.source == result.source and again.applied == []
    fixable = [d for d in again.remaining if d.fix is not None]
    assert fixable == []


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_fixed_code_traces_and_returns_the_eager_result(case):
    original = case.before.read_text()
    after = case.after.read_text()
    for seed in range(2):
        eager = run(original, case.make_inputs(seed), hybridized=False)
        hybridized = run(after, case.make_inputs(seed), hybridized=True)
        assert len(eager) == len(hybridized)
        for e, h in zip(eager, hybridized):
            assert e.shape == h.shape
            if case.options.get("equivalent", True):
                np.testing.assert_allclose(h, e, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("case", [c for c in CASES if c.options.get("equivalent", True)],
                         ids=[c.name for c in CASES if c.options.get("equivalent", True)])
def test_the_original_breaks_when_hybridized(case):
    inputs = case.make_inputs(0)
    eager = run(case.before.read_text(), inputs, hybridized=False)
    try:
        hybridized = run(case.before.read_text(), inputs, hybridized=True)
    except Exception:
        return  # raises, as MXNet does
    same = len(eager) == len(hybridized) and all(
        e.shape == h.shape and np.allclose(e, h) for e, h in zip(eager, hybridized))
    assert not same, "the fixture shows nothing that hybridize() breaks"


def test_fixtures_cover_every_rule_with_a_fix_and_the_tricky_cases():
    names = {c.name for c in CASES}
    for code in ("hyb001", "hyb002", "hyb005", "hyb006", "hyb008", "hyb009", "hyb011", "hyb012", "hyb014"):
        assert any(n.startswith(code) for n in names), code
    for tricky in ("negative_index", "index_on_1d", "two_ints", "steps", "ellipsis", "none", "self_bounds",
                   "chained", "fix_inside_fix"):
        assert any(tricky in n for n in names), tricky
