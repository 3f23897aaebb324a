"""Comparing a value encoded as the recorders encode it ({shape, dtype, data} for arrays, lists of
them, plain values) with what MXNet 1.9.1 gave, and an exception with the error MXNet raised: shared
by the tests that replay recorded cases."""
import numpy as np

import runtime


def compare(got, want, where, scaled=False):
    """Arrays within rtol 1e-5, atol 1e-6; `scaled`: atol 1e-5 of the largest magnitude (whole networks,
    whose float32 sums run in another order than MXNet's)."""
    if isinstance(want, dict) and "shape" in want:
        assert isinstance(got, dict) and "shape" in got, where
        assert (got["shape"], got["dtype"]) == (want["shape"], want["dtype"]), where
        expected = np.array(want["data"], dtype=np.float64)
        atol = 1e-5 * np.abs(expected).max() if scaled and expected.size else 1e-6
        assert np.allclose(np.array(got["data"], dtype=np.float64), expected, rtol=1e-5, atol=atol,
                           equal_nan=True), where
    elif isinstance(want, list) and isinstance(got, (list, tuple)):
        assert len(got) == len(want), where
        for g, w in zip(got, want):
            compare(g, w, where, scaled)
    else:
        assert got == want, where


def raised_as_recorded(exc: BaseException, want: dict) -> bool:
    """The exception is the one MXNet raised: the same type, or any MXNetError for MXNet's."""
    return type(exc).__name__ == want["error"] or (want["error"] == "MXNetError" and isinstance(exc, runtime.MXNetError))
