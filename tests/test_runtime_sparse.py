"""Sparse storage (row_sparse, csr) against MXNet 1.9.1's recorded results
(tests/data/sparse_cases.jsonl, from tools/record_sparse_cases.py): each case's expression runs on
the runtime and must give the same storage type, shape, dtype, values and stored indices."""
import json
from pathlib import Path

import numpy as np
import pytest

import runtime
from runtime.base import MXNetError

CASES = [json.loads(line) for line in
         (Path(__file__).resolve().parent / "data" / "sparse_cases.jsonl").read_text().splitlines()]
D = np.array([[0.5, 0, 1.5, -2, 0], [0, 0, 0, 0, 0], [3, -1, 0, 0.25, 4], [0, 2, 0, 0, -1]], dtype=np.float32)
W = np.array([[1, 2, 3], [0, 0, 0], [-1, 0.5, 2], [4, 1, -3], [0.5, 0.5, 0.5]], dtype=np.float32)
G = np.array([[0, 0, 0], [1, -2, 0.5], [0, 0, 0], [0.25, 3, -1], [0, 0, 0]], dtype=np.float32)


def check(got, expected, where):
    if not isinstance(expected, (list, dict)):  # a plain value (an attribute's text)
        assert got == expected, where
        return
    if isinstance(expected, list):
        assert len(got) == len(expected), where
        for g, e in zip(got, expected):
            check(g, e, where)
        return
    assert got.stype == expected["stype"], where
    assert list(got.shape) == expected["shape"], where
    assert np.dtype(got.dtype).name == expected["dtype"], where
    np.testing.assert_allclose(got.asnumpy().reshape(-1), np.array(expected["data"], dtype=np.float64),
                               rtol=1e-5, atol=1e-6, err_msg=where)
    if expected["stype"] == "row_sparse":
        assert got.indices.asnumpy().tolist() == expected["indices"], where
        np.testing.assert_allclose(got.data.asnumpy().reshape(-1), expected["values"], rtol=1e-5, err_msg=where)
    elif expected["stype"] == "csr":
        # csr * csr leaves each row's columns in descending order in MXNet: compare each row's
        # stored elements
        indptr = expected["indptr"]
        assert got.indptr.asnumpy().tolist() == indptr, where
        indices, values = got.indices.asnumpy(), got.data.asnumpy()
        for row in range(len(indptr) - 1):
            part = slice(indptr[row], indptr[row + 1])
            stored = sorted(zip(expected["indices"][part], expected["values"][part]))
            assert [c for c, _ in stored] == sorted(indices[part].tolist()), where
            np.testing.assert_allclose(values[part][np.argsort(indices[part])], [v for _, v in stored], rtol=1e-5,
                                       err_msg=where)


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_sparse_case_matches_mxnet(case):
    with runtime.as_mxnet():
        import mxnet as mx
        scope = {"mx": mx, "np": np, "D": D, "W": W, "G": G}
        expected = case["result"]
        if isinstance(expected, dict) and "error" in expected:
            import builtins
            error = MXNetError if expected["error"] == "MXNetError" else getattr(builtins, expected["error"])
            with pytest.raises(error):
                run(case["code"], scope)
            return
        check(run(case["code"], scope), expected, case["id"])


def run(code, scope):
    """A case is an expression, or statements that set `result`."""
    if "result = " in code:
        exec(code, scope)
        return scope["result"]
    return eval(code, scope)
