"""Invalid operator input recorded from real MXNet 1.9.1 (tests/data/mxnet_rejections.jsonl):
wrong parameter shapes, out-of-range axes, reshape codes misused, mixed dtypes, bad attribute
values, negative and huge sizes, each through `nd` and through `sym` + bind + forward. The runtime
rejects what MXNet rejects, with MXNet's exception type (and MXNet's words where recorded), and
agrees on the values where MXNet accepts."""
import json
import re
from pathlib import Path

import numpy as np
import pytest

from runtime import MXNetError, nd, sym
from test_golden_ops import check, nd_call, sym_call

CASES = [json.loads(line) for line in
         (Path(__file__).resolve().parent / "data" / "mxnet_rejections.jsonl").read_text().splitlines()]


def without_node_names(message: str) -> str:
    """MXNet names the graph node in a symbol's message and leaves it empty for an NDArray call."""
    return re.sub(r"in node \S* ?at", "in node at", message)


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
@pytest.mark.parametrize("mode", ["nd", "sym"])
def test_runtime_agrees_with_mxnet_on_invalid_input(case, mode):
    recorded = case[mode]
    call = nd_call if mode == "nd" else sym_call
    if "runtime_rejects" in case:  # MXNet reads out of bounds here: the runtime refuses instead
        with pytest.raises(MXNetError):
            call(case)
        return
    if isinstance(recorded, dict) and "error" in recorded:
        with pytest.raises(Exception) as raised:  # noqa: B017 - the type is checked by name below
            call(case)
        assert type(raised.value).__name__ == recorded["error"], str(raised.value)
        if "words" in recorded:
            assert recorded["words"] in without_node_names(str(raised.value))
        return
    result = call(case)
    if isinstance(recorded, dict) and recorded["dtype"] == "float16":
        # float16 results: MXNet rounds some intermediate values to float16 where NumPy keeps float32
        np.testing.assert_allclose(result.asnumpy(), np.array(recorded["data"]).reshape(recorded["shape"]),
                                   rtol=2e-3, atol=1e-3)
        assert result.dtype == np.float16
        return
    check(result, recorded, case["op"])


def test_numpy_messages_do_not_leak():
    for call in (lambda: nd.tile(nd.ones((2, 3)), reps=(-1,)), lambda: nd.repeat(nd.ones((2, 3)), repeats=-1),
                 lambda: nd.zeros((-2, 3)), lambda: nd.arange(0, 5, 0)):
        with pytest.raises(MXNetError) as raised:
            call()
        message = str(raised.value)
        assert "negative dimensions are not allowed" not in message and "division" not in message, message
    with pytest.raises(MXNetError, match="incorrect stride size: \\[0,0\\]"):
        out = sym.Convolution(sym.var("x"), kernel=(3, 3), num_filter=2, stride=(0, 0))
        out.infer_shape(x=(1, 3, 5, 5))


def test_huge_allocations_are_mxnet_errors():
    for call in (lambda: nd.zeros((1 << 20, 1 << 20, 1 << 10)), lambda: nd.ones((1 << 40,)),
                 lambda: sym.zeros(shape=(1 << 40,)).eval()[0]):
        with pytest.raises(MXNetError, match="larger than 2\\^31 elements"):
            call()


def test_infer_type_rejects_mixed_dtypes_and_completes_the_rest():
    x, y = sym.var("x"), sym.var("y")
    with pytest.raises(MXNetError, match="Incompatible attr in node .* at 1-th input: expected float32, got float64"):
        (x + y).infer_type(x="float32", y="float64")
    assert (x + y).infer_type(x="float64") == ([np.float64, np.float64], [np.float64], [])
    assert (x + y).infer_type() == (None, None, None)
    assert sym.FullyConnected(x, num_hidden=3, name="fc").infer_type(x="float64") == (
        [np.float64] * 3, [np.float64], [])
    # BatchNorm keeps float32 parameters for float16 data, as MXNet does
    assert sym.BatchNorm(x, name="bn").infer_type(x="float16") == (
        [np.float16, np.float32, np.float32], [np.float16], [np.float32, np.float32])
    assert sym.cast(x, dtype="int32").infer_type(x="float32") == ([np.float32], [np.int32], [])
    assert sym.Embedding(x, input_dim=3, output_dim=2, name="e").infer_type(x="int32") == (
        [np.int32, np.float32], [np.float32], [])


def test_bind_rejects_mixed_dtypes():
    x, y = sym.var("x"), sym.var("y")
    with pytest.raises(MXNetError, match="Incompatible attr in node .* at 1-th input: expected float32, got float64"):
        (x * y).bind(None, {"x": nd.ones((2,)), "y": nd.ones((2,), dtype="float64")})


def test_ndarray_arithmetic_rejects_mixed_dtypes():
    with pytest.raises(MXNetError, match="Incompatible attr in node  at 1-th input: expected float32, got float64"):
        nd.ones((2, 3)) + nd.ones((2, 3), dtype="float64")
    assert (nd.ones((2, 3), dtype="float64") * nd.ones((2, 3), dtype="float64")).dtype == np.float64


# NDArray-level calls, with the exception MXNet 1.9.1 raised (recorded by hand from its output)
_A = (2, 3)
NDARRAY_CALLS = [
    ("an NDArray plus a NumPy array", lambda: nd.ones(_A) + np.ones(_A), TypeError,
     "type <class 'numpy.ndarray'> not supported"),
    ("a NumPy array plus an NDArray", lambda: np.ones(_A, dtype=np.float32) + nd.ones(_A), TypeError,
     "type <class 'numpy.ndarray'> not supported"),
    ("an NDArray plus a list", lambda: nd.ones(_A) + [1, 2, 3], TypeError, "type <class 'list'> not supported"),
    ("an NDArray plus None", lambda: nd.ones(_A) + None, TypeError, "type <class 'NoneType'> not supported"),
    ("float32 greater than int32", lambda: nd.ones(_A) > nd.ones(_A, dtype="int32"), MXNetError,
     "Incompatible attr in node  at 1-th input: expected float32, got int32"),
    ("reshape(-1, -1) on an NDArray", lambda: nd.ones(_A).reshape(-1, -1), MXNetError,
     "One and only one dim can be inferred"),
    ("zeros with an unknown dimension", lambda: nd.zeros((2, -1)), MXNetError, "shape : (2, -1)"),
    ("empty with a negative dimension", lambda: nd.empty((2, -3)), OverflowError,
     "can't convert negative value to unsigned int"),
    ("full with a huge size", lambda: nd.full((1 << 31,), 1.0), Exception,
     "[_new_alloc_handle] Size of tensor you are trying to allocate is larger than 2^31 elements"),
    ("an array of a string", lambda: nd.array("abc"), TypeError, "source_array must be array like object"),
    ("arange counting down with a positive step", lambda: nd.arange(5, 0), MXNetError,
     "Invalid range (start, stop, step) = (5,0,1)"),
    ("symbols of float16 and float32 added", lambda: (sym.var("x") + sym.var("y")).infer_type(x="float16", y="float32"),
     MXNetError, "at 1-th input: expected float16, got float32"),
]


@pytest.mark.parametrize("call, error, words", [c[1:] for c in NDARRAY_CALLS], ids=[c[0] for c in NDARRAY_CALLS])
def test_ndarray_calls_fail_as_in_mxnet(call, error, words):
    with pytest.raises(Exception) as raised:  # noqa: B017 - the exact type is compared below
        call()
    assert type(raised.value) is error and words in str(raised.value), repr(raised.value)
