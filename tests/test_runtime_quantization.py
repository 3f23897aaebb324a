"""MXNet 1.9.1's quantization operators, as recorded on real MXNet with oneDNN
(tools/record_quantization_cases.py): quantize_v2, quantized pooling, dequantize, and the fused
`_sg_mkldnn_conv` of int8 symbol files (GluonCV's `*_int8` models), loaded from the same JSON
and compared bit for bit."""
import json
import sys
from pathlib import Path

import numpy as np
import pytest

import runtime
from runtime import nd

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from record_quantization_cases import run  # noqa: E402  (the binding the recording used)

CASES = json.loads((Path(__file__).parent / "data" / "quantization_cases.json").read_text())


@pytest.fixture(autouse=True)
def recording_cpu(monkeypatch):
    """The cases were recorded on a CPU with int8 dot-product instructions (VNNI): its exact
    products, whichever CPU runs the tests (the runtime takes the running CPU's by default)."""
    from runtime.kernels import fused_conv
    monkeypatch.setattr(fused_conv, "WITHOUT_INT8_DOT_PRODUCT", False)


def array(record):
    return np.array(record["data"], dtype=record["dtype"]).reshape(record["shape"])


def assert_same(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("case", CASES["ops"]["quantize_v2"], ids=lambda c: str(c["kwargs"]))
def test_quantize_v2(case):
    outputs = nd.contrib.quantize_v2(nd.array(array(CASES["ops"]["x"])), **case["kwargs"])
    for got, want in zip(outputs, case["outputs"]):
        assert_same(got.asnumpy(), array(want))


@pytest.mark.parametrize("case", CASES["ops"]["pooling"], ids=lambda c: "%s-%s" % (c["input"][0]["dtype"], c["kwargs"]))
def test_quantized_pooling(case):
    data, low, high = (nd.array(array(r), dtype=r["dtype"]) for r in case["input"])
    outputs = nd.contrib.quantized_pooling(data, low, high, **case["kwargs"])
    for got, want in zip(outputs, case["outputs"]):
        assert_same(got.asnumpy(), array(want))


@pytest.mark.parametrize("case", CASES["ops"]["dequantize"], ids=lambda c: c["input"][0]["dtype"])
def test_dequantize(case):
    data, low, high = (nd.array(array(r), dtype=r["dtype"]) for r in case["input"])
    assert_same(nd.contrib.dequantize(data, low, high).asnumpy(), array(case["outputs"]))


@pytest.mark.parametrize("case", CASES["graphs"], ids=lambda c: c["name"])
def test_symbol_file_equals_mxnet(case):
    arrays = {name: array(record) for name, record in case["arrays"].items()}
    with runtime.as_mxnet() as mx:
        outputs = run(mx, case["graph"], arrays)
    for got, want in zip(outputs, case["outputs"]):
        if want["dtype"] == "float32" and case["name"] == "chain" and got is outputs[-1]:
            # the float fusion: BatchNorm folded as MXNet folds it, summed in another order
            np.testing.assert_allclose(got, array(want), rtol=1e-5, atol=1e-5)
        else:
            assert_same(got, array(want))


def test_fused_convolution_keeps_batch_norm_statistics_as_auxiliary_states():
    case = next(c for c in CASES["graphs"] if c["name"] == "chain")
    with runtime.as_mxnet() as mx:
        sym = mx.sym.load_json(case["graph"])
        assert set(sym.list_auxiliary_states()) == {p + s for p in ("a_", "b_", "f_")
                                                     for s in ("running_mean", "running_var")}
        assert "a_gamma" in sym.list_arguments()
        # shapes of the parameters come from the subgraph's convolution and BatchNorm
        args, outs, _ = sym.infer_shape(data=(2, 3, 12, 10), float_data=(2, 3, 12, 10))
        named = dict(zip(sym.list_arguments(), args))
        assert named["a_weight"] == (8, 3, 3, 3) and named["b_gamma"] == (8,) and named["c_bias"] == (4,)
        assert outs == [(2, 4, 6, 5), (2, 8, 6, 5), (2, 6, 6, 5)]
        _, out_types, _ = sym.infer_type(data="float32", float_data="float32")
        assert out_types == [np.float32, np.uint8, np.float32]
        # the file writes back with its subgraphs, and loads again
        assert mx.sym.load_json(sym.tojson()).list_outputs() == sym.list_outputs()


def test_quantized_convolution_without_calibration_gives_int32():
    """Uncalibrated, the fused convolution gives int32 with the range MXNet states (one data step
    times one weight step times 2**31); its values are compared with MXNet's through
    quantize_net(calib_mode='none') in tests/test_runtime_quantize_net.py."""
    case = next(c for c in CASES["graphs"] if c["name"].startswith("0_"))
    graph = json.loads(case["graph"])
    fused = next(n for n in graph["nodes"] if n["op"] == "_sg_mkldnn_conv")
    del fused["attrs"]["min_calib_range"], fused["attrs"]["max_calib_range"]
    arrays = {name: array(record) for name, record in case["arrays"].items()}
    with runtime.as_mxnet() as mx:
        out, low, high = run(mx, json.dumps(graph), arrays)[:3]
    assert out.dtype == np.int32 and low == -high
    from runtime.kernels import fused_conv
    weight = fused_conv.fold_batch_norm(arrays["c_weight"], None, arrays["c_gamma"], arrays["c_beta"],
                                        arrays["c_running_mean"], arrays["c_running_var"], 1e-5, False)[0]
    weight_step = np.float32(np.abs(weight).max() / np.float32(127))
    data_step = np.float32(np.float32(2.5) / np.float32(127))  # the case's int8 data: (-1.5, 2.5)
    assert high[0] == np.float32(np.float32(weight_step * data_step) * np.float32(2 ** 31))


@pytest.mark.parametrize("dtype", ["uint8", "int8"])
def test_integer_products_are_exact_over_long_sums(dtype):
    """Sums of more terms than float32 holds exactly (K = 9 * 300 of magnitude up to 255 * 128)
    equal the int64 convolution, extremes and random values alike."""
    from runtime.kernels import fused_conv
    rng = np.random.default_rng(0)
    low, high = (0, 255) if dtype == "uint8" else (-128, 127)
    data = rng.integers(low, high + 1, (2, 300, 5, 4)).astype(dtype)
    data[0] = high
    weight = rng.integers(-128, 128, (6, 300, 3, 3)).astype(np.int8)
    weight[0] = -128
    weight[1] = 127
    conv = {"kernel": (3, 3), "stride": (1, 1), "dilate": (1, 1), "pad": (1, 1), "num_group": 1}
    got = fused_conv._integer_products(data, weight, conv)
    padded = np.pad(data.astype(np.int64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    want = np.zeros(got.shape, np.int64)
    for i in range(3):
        for j in range(3):
            want += np.einsum("nchw,fc->nfhw", padded[:, :, i:i + 5, j:j + 4], weight[:, :, i, j].astype(np.int64))
    assert np.abs(want).max() > 2 ** 24  # past what float32 holds exactly
    np.testing.assert_array_equal(got, want)


def _elementwise_id(case):
    return "%s-%s-%s" % (case["op"], "-".join(i["dtype"] for i in case["inputs"][:2]), case["kwargs"])


@pytest.mark.parametrize("case", CASES["ops"]["elementwise"], ids=_elementwise_id)
def test_quantized_elementwise_operators(case):
    inputs = [nd.array(array(r), dtype=r["dtype"]) for r in case["inputs"]]
    outputs = getattr(nd.contrib, case["op"])(*inputs, **case["kwargs"])
    for got, want in zip(outputs, case["outputs"]):
        assert_same(got.asnumpy(), array(want))


def test_output_names_are_mxnets():
    """As MXNet 1.9.1 lists them (quantize and quantize_v2 declare no names: output0, 1, 2)."""
    from runtime import sym
    data, low, high = sym.var("d"), sym.var("lo"), sym.var("hi")
    assert sym.contrib.quantize(data, low, high, name="q").list_outputs() == ["q_output0", "q_output1", "q_output2"]
    assert sym.contrib.quantize_v2(data, name="q").list_outputs() == ["q_output0", "q_output1", "q_output2"]
    assert sym.contrib.quantized_pooling(data, low, high, kernel=(2, 2), name="p").list_outputs() == \
        ["p_output", "p_min_output", "p_max_output"]
    assert sym.contrib.quantized_elemwise_mul(data, data, low, high, low, high, enable_float_output=True,
                                              name="m").list_outputs() == ["m_output"]


AVX2 = json.loads((Path(__file__).parent / "data" / "quantization_outputs_avx2.json").read_text())


@pytest.mark.parametrize("case", CASES["graphs"], ids=lambda c: c["name"])
def test_symbol_file_equals_mxnet_on_a_cpu_without_int8_dot_products(case, monkeypatch):
    """The same graphs as MXNet computes them on a CPU without VNNI (recorded there): oneDNN's
    16-bit pair sums and half-scale weights, as runtime.kernels.fused_conv.WITHOUT_INT8_DOT_PRODUCT
    models them."""
    from runtime.kernels import fused_conv
    assert not AVX2["int8_dot_product"]
    monkeypatch.setattr(fused_conv, "WITHOUT_INT8_DOT_PRODUCT", True)
    arrays = {name: array(record) for name, record in case["arrays"].items()}
    with runtime.as_mxnet() as mx:
        outputs = run(mx, case["graph"], arrays)
    for got, want in zip(outputs, AVX2["outputs"][case["name"]]):
        if want["dtype"] == "float32" and case["name"] == "chain" and got is outputs[-1]:
            np.testing.assert_allclose(got, array(want), rtol=1e-5, atol=1e-5)  # the float fusion, as above
        else:
            assert_same(got, array(want))


def test_the_int8_arithmetic_follows_the_cpus_dot_product_instructions(tmp_path, monkeypatch):
    from runtime.kernels.fused_conv import int8_dot_product
    info = tmp_path / "cpuinfo"
    monkeypatch.delenv("HYBLINT_RUNTIME_INT8_DOT_PRODUCT", raising=False)
    info.write_text("processor\t: 0\nflags\t\t: fpu sse2 avx2 fma\n")
    assert not int8_dot_product(str(info))
    info.write_text("processor\t: 0\nflags\t\t: fpu avx2 avx512f avx512_vnni\n")
    assert int8_dot_product(str(info))
    info.write_text("processor\t: 0\nflags\t\t: fpu avx2 avx_vnni\n")
    assert int8_dot_product(str(info))
    monkeypatch.setenv("HYBLINT_RUNTIME_INT8_DOT_PRODUCT", "0")
    assert not int8_dot_product(str(tmp_path / "absent"))
    monkeypatch.setenv("HYBLINT_RUNTIME_INT8_DOT_PRODUCT", "1")
    assert int8_dot_product(str(info.with_name("absent")))
