"""`mxnet.contrib.quantization.quantize_net_v2` on the runtime against MXNet 1.9.1 (oneDNN), as
recorded by tools/record_quantize_net_cases.py: the same small nets with the same parameters and
calibration data, quantized with the same options, must give MXNet's quantized symbol (the same
operators, names and inputs in the same order, the same attributes), MXNet's quantized weights
bit for bit, and MXNet's output, or the error MXNet gave.

Two things MXNet computes in a machine-dependent way, and how they are checked:
  - calibrated ranges are the float model's min / max (or entropy thresholds over its
    histograms), which oneDNN's float convolution and BatchNorm sum in an order that depends on
    the CPU and differs from the runtime's: they agree to about 1e-7 relative, and MXNet writes
    them with six decimals, so the last written digit may differ by one (RANGE_TOLERANCE). The
    outputs are compared with MXNet's ranges written into the runtime's quantized symbol;
  - int8 products: on a CPU without int8 dot-product instructions (AVX512-VNNI / AVX-VNNI)
    oneDNN's are not exact; the recording says which CPU it ran on, and the runtime computes as
    that CPU did (runtime.kernels.fused_conv.WITHOUT_INT8_DOT_PRODUCT)."""
import json
import os
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

import runtime
from runtime.base import MXNetError

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from record_quantize_net_cases import SHAPES, attribute_value, build, graph_nodes, quantize  # noqa: E402

RECORD = json.loads((Path(__file__).parent / "data" / "quantize_net_cases.json").read_text())
RANGE_TOLERANCE = 2e-6  # relative to max(1, |range|): one unit of the sixth decimal, and rounding
RANGES = ("min_calib_range", "max_calib_range")


def array(record):
    return np.array(record["data"], dtype=record["dtype"]).reshape(record["shape"])


def _quantized(mx, case):
    net = RECORD["nets"][case["net"]]
    params = {k: array(v) for k, v in net["params"].items()}
    return quantize(mx, case["net"], params, array(net["calib"]), case["options"]), array(net["input"])


def _assert_same_graph(nodes, recorded):
    assert [n[:2] for n in nodes] == [n[:2] for n in recorded]
    for got, want in zip(nodes, recorded):
        assert got[3] == want[3], "inputs of %s" % got[1]
        # MXNet writes every attribute it was given, the runtime leaves out defaults
        shared = (set(got[2]) & set(want[2])) - set(RANGES)
        assert {k: attribute_value(got[2][k]) for k in shared} == {k: attribute_value(want[2][k]) for k in shared}, \
            got[1]
        for key in RANGES + ("enable_float_output", "channel_wise_quantize", "with_act", "with_bn", "with_sum",
                             "with_postsum_act", "with_eltwise", "quantized"):
            assert (key in got[2]) == (key in want[2]), (got[1], key)
        for key in RANGES:
            if key in want[2]:
                ours, theirs = float(got[2][key]), float(want[2][key])
                assert abs(ours - theirs) <= RANGE_TOLERANCE * max(1.0, abs(theirs)), (got[1], key, ours, theirs)


def _with_mxnet_ranges(mx, block, recorded):
    """The block's symbol with the calibrated ranges MXNet wrote, bound to the block's parameters."""
    graph = json.loads(block._outputs.tojson())
    ranges = {n[1]: {k: n[2][k] for k in RANGES if k in n[2]} for n in recorded}
    for node in graph["nodes"]:
        node.setdefault("attrs", {}).update(ranges.get(node["name"], {}))
    return mx.sym.load_json(json.dumps(graph))


def _run(mx, sym, params, x):
    aux = set(sym.list_auxiliary_states())
    args = {k: v for k, v in params.items() if k not in aux}
    args["data"] = mx.nd.array(x)
    executor = sym.bind(mx.cpu(), args, aux_states={k: params[k] for k in aux}, grad_req="null")
    return executor.forward(is_train=False)[0].asnumpy()


@pytest.mark.parametrize("case", RECORD["cases"], ids=lambda c: c["name"])
def test_quantize_net_equals_mxnet(case, monkeypatch):
    from runtime.kernels import fused_conv
    monkeypatch.setattr(fused_conv, "WITHOUT_INT8_DOT_PRODUCT", not RECORD["int8_dot_product"])
    with runtime.as_mxnet() as mx:
        block, x = _quantized(mx, case)
        _assert_same_graph(graph_nodes(block), case["nodes"])
        params = {k: v.data() for k, v in block.collect_params().items()}
        floats = RECORD["nets"][case["net"]]["params"]
        for name, value in params.items():
            want = array(case.get("params", {}).get(name) or floats[name])
            got = value.asnumpy()
            assert got.dtype == want.dtype and np.array_equal(got, want), name
        if "error" in case:
            message = case["error"].rsplit(": ", 1)[-1]
            with pytest.raises(MXNetError, match=message.split(",")[0]):
                block(mx.nd.array(x)).asnumpy()
            return
        sym = _with_mxnet_ranges(mx, block, case["nodes"])
        got = _run(mx, sym, params, x)
        ours = block(mx.nd.array(x)).asnumpy()
    want = array(case["output"])
    assert got.shape == want.shape and got.dtype == want.dtype and ours.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    # with its own calibration: ranges a unit of the sixth decimal apart scale the float output by
    # under 1e-5 (measured: 7 of 16 recorded nets equal bit for bit, the rest within 1e-6)
    np.testing.assert_allclose(ours, want, rtol=1e-5, atol=1e-5)


def test_module_paths():
    with runtime.as_mxnet() as mx:
        from mxnet.contrib import quantization
        from mxnet.contrib.quantization import quantize_net
        assert mx.contrib.quantization is quantization and quantization.quantize_net is quantize_net


@pytest.mark.parametrize("options, message", [
    ({"quantized_dtype": "int4"}, "quantized_dtype"),
    ({"quantize_granularity": "row-wise"}, "quantize_granularity"),
    ({"quantize_mode": "partial"}, "quantize_mode"),
    ({"calib_mode": "naive"}, "calib_data must be provided"),
    ({"calib_mode": "histogram", "calib_data": "x"}, "calibration mode"),
])
def test_bad_options_are_refused_clearly(options, message):
    with runtime.as_mxnet() as mx:
        from mxnet.contrib.quantization import quantize_net_v2
        net = build(mx, "elementwise")
        options = dict(options)
        if options.get("calib_data") == "x":
            options["calib_data"] = [mx.nd.zeros(SHAPES["elementwise"])]
        with pytest.raises(ValueError, match=message):
            quantize_net_v2(net, data_shapes=[mx.io.DataDesc("data", SHAPES["elementwise"])], **options)


def test_symbol_api_gives_what_quantize_net_gives():
    """quantize_model_mkldnn (a symbol, its parameters and a DataIter) makes the quantized symbol
    and weights that quantize_net makes of the same net, calibrated on the same data."""
    case = next(c for c in RECORD["cases"] if c["name"] == "chain_naive_auto")
    net = RECORD["nets"]["chain"]
    params = {k: array(v) for k, v in net["params"].items()}
    calib = array(net["calib"])
    with runtime.as_mxnet() as mx:
        from mxnet.contrib.quantization import quantize_model_mkldnn
        block, _ = _quantized(mx, case)
        float_net = build(mx, "chain")
        float_net.hybridize()
        for key, param in float_net.collect_params().items():
            param.set_data(mx.nd.array(params[key]))
        float_net(mx.nd.zeros(SHAPES["chain"]))
        with tempfile.TemporaryDirectory() as folder:
            float_net.export(os.path.join(folder, "net"))
            sym, args, auxs = mx.model.load_checkpoint(os.path.join(folder, "net"), 0)
        data = mx.io.NDArrayIter(mx.nd.array(calib), batch_size=calib.shape[0] // 2)
        qsym, qargs, _ = quantize_model_mkldnn(sym, args, auxs, calib_mode="naive", calib_data=data,
                                               quantized_dtype="auto", quantize_mode="full")
        from mxnet.gluon import SymbolBlock
        symbol_block = SymbolBlock(qsym, [mx.sym.var("data")])
        assert graph_nodes(symbol_block) == graph_nodes(block)
        for name, value in qargs.items():
            np.testing.assert_array_equal(value.asnumpy(), block.collect_params()[name].data().asnumpy())


@pytest.mark.parametrize("case", RECORD["entropy"], ids=lambda c: "seed%d-%d" % (c["seed"], c["num_quantized_bins"]))
def test_entropy_threshold_equals_mxnet(case):
    """The KL-divergence threshold of a histogram, as MXNet's calibrate_entropy picks it."""
    from record_quantize_net_cases import entropy_sample
    from runtime.contrib.calibration import histogram
    from runtime.kernels.calibrate_entropy import threshold
    data = entropy_sample(case["seed"])
    th = max(abs(data.min()), abs(data.max()))
    counts, edges = histogram(data, 8001, th)
    assert int(counts.sum()) == case["counts_sum"]
    got, divergence = threshold(counts.astype(np.float32), edges.astype(np.float32), case["num_quantized_bins"])
    assert np.float32(got) == np.float32(case["threshold"])
    assert np.float32(divergence) == np.float32(case["divergence"])
