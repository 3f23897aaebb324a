"""MXNet's file formats: the runtime reads what MXNet 1.9.1 wrote, and reads back what it writes."""
import json
from pathlib import Path

import numpy as np

from runtime import nd
from runtime.gluon import SymbolBlock, nn

FILES = Path(__file__).resolve().parents[1] / "fixtures" / "mxnet_files"
EXPECTED = json.loads((FILES / "expected.json").read_text())


def mlp():
    net = nn.HybridSequential()
    net.add(nn.Dense(8, activation="relu"), nn.BatchNorm(), nn.Dense(3))
    return net


def test_symbol_block_imports_an_mxnet_export():
    block = SymbolBlock.imports(str(FILES / "mlp-symbol.json"), ["data"], str(FILES / "mlp-0000.params"))
    out = block(nd.array(EXPECTED["input"]))
    np.testing.assert_allclose(out.asnumpy(), EXPECTED["output"], rtol=1e-5, atol=1e-6)


def test_load_parameters_from_mxnet_save_parameters():
    net = mlp()
    net.load_parameters(str(FILES / "mlp.params"))
    np.testing.assert_allclose(net(nd.array(EXPECTED["input"])).asnumpy(), EXPECTED["output"], rtol=1e-5, atol=1e-6)
    net.hybridize()
    np.testing.assert_allclose(net(nd.array(EXPECTED["input"])).asnumpy(), EXPECTED["output"], rtol=1e-5, atol=1e-6)


def test_nd_load_reads_mxnet_arrays_with_their_dtypes():
    arrays = nd.load(str(FILES / "arrays.nd"))
    assert arrays["ints"].dtype == np.int32 and arrays["ints"].asnumpy().tolist() == [1, 2, 3]
    assert arrays["matrix"].asnumpy().tolist() == [[1.5, -2.0], [0.25, 4.0]]


def test_export_then_imports_round_trip(tmp_path):
    net = mlp()
    net.load_parameters(str(FILES / "mlp.params"))
    net.hybridize()
    x = nd.array(EXPECTED["input"])
    expected = net(x).asnumpy()
    net.export(str(tmp_path / "model"), epoch=3)
    graph = json.loads((tmp_path / "model-symbol.json").read_text())
    assert {"nodes", "arg_nodes", "node_row_ptr", "heads", "attrs"} <= set(graph)
    assert graph["attrs"]["mxnet_version"] == ["int", 10901]
    saved = nd.load(str(tmp_path / "model-0003.params"))
    assert any(k.startswith("aux:") and k.endswith("running_var") for k in saved)
    loaded = SymbolBlock.imports(str(tmp_path / "model-symbol.json"), ["data"], str(tmp_path / "model-0003.params"))
    np.testing.assert_allclose(loaded(x).asnumpy(), expected, rtol=1e-6)


def test_save_and_load_parameters_round_trip(tmp_path):
    net = mlp()
    net.initialize()
    x = nd.array(EXPECTED["input"])
    before = net(x).asnumpy()
    net.save_parameters(str(tmp_path / "p.params"))
    other = mlp()
    other.load_parameters(str(tmp_path / "p.params"))
    np.testing.assert_allclose(other(x).asnumpy(), before)


def test_symbol_block_of_several_outputs_gives_a_list_of_symbols():
    # MXNet 1.9.1: called with a Symbol, a SymbolBlock of a grouped symbol gives its outputs as a
    # list, as it gives arrays eagerly (GluonCV's FPN features reach the RPN one by one); one
    # output stays a Symbol
    from runtime import sym
    data = sym.var("data")
    a, b = sym.relu(data, name="a"), sym.sigmoid(data, name="b")
    out = SymbolBlock(sym.Group([a, b]), [data])(sym.var("x"))
    assert isinstance(out, list) and [o.list_outputs() for o in out] == [["a_output"], ["b_output"]]
    one = SymbolBlock(a, [data])(sym.var("x"))
    assert one.list_outputs() == ["a_output"]
    assert isinstance(SymbolBlock(sym.Group([a, b]), [data])(nd.ones((1, 2))), list)
