"""Quantize models of GluonCV's zoo with `quantize_net` on real MXNet 1.9.1 and on the runtime and
compare, as GluonCV's own test_calib_models quantizes them (quantized_dtype='auto', naive
calibration unless --calib-mode says otherwise, layers matching 'flatten' excluded), with seeded
parameters (pretrained=False).

    python tools/quantize_zoo_check.py --mxnet PYTHON --gluoncv SRC --work DIR [--calib-mode MODE] [NAME ...]

PYTHON: a virtual environment with mxnet==1.9.1; SRC: GluonCV's sources. For each model MXNet
records its float parameters, calibration data, input, quantized symbol, quantized weights and
output into DIR; then the runtime quantizes the same model and reports, per model: whether the
quantized graph is MXNet's (operators, names, inputs and attributes, calibrated ranges within
one unit of their sixth decimal), whether the quantized weights are, and whether the outputs
are equal bit for bit with MXNet's ranges written in and with the runtime's own (the runtime
computing as the recording CPU did: runtime.kernels.fused_conv.WITHOUT_INT8_DOT_PRODUCT).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

TOOLS = Path(__file__).resolve().parent
DEFAULT_MODELS = ["resnet18_v1", "mobilenet1.0", "mobilenetv2_1.0", "squeezenet1.1"]
RANGES = ("min_calib_range", "max_calib_range")


def _build(name, source, fill_mxnet):
    sys.path.insert(0, str(TOOLS))
    from zoo_source import import_gluoncv_zoo, input_shapes
    zoo, _ = import_gluoncv_zoo(source, fill_mxnet)
    net = zoo.get_model(name, pretrained=False)
    net.initialize()
    shape = input_shapes(net, name)[0]
    return net, shape


def _seeded(net, rng):
    params = {}
    for key, param in sorted(net.collect_params().items()):
        if key.endswith("weight"):
            value = rng.normal(0, 1.5 / np.sqrt(max(1, int(np.prod(param.shape[1:])))), param.shape)
        elif key.endswith(("gamma", "running_var")):
            value = rng.uniform(0.5, 1.5, param.shape)
        else:
            value = rng.uniform(-0.2, 0.2, param.shape)
        params[key] = value.astype("float32")
    return params


def _quantize(mx, net, params, calib, calib_mode):
    from mxnet.contrib.quantization import quantize_net
    for key, param in net.collect_params().items():
        param.set_data(mx.nd.array(params[key]))
    dataset = mx.gluon.data.ArrayDataset(mx.nd.array(calib), mx.nd.zeros((calib.shape[0], 1)))
    return quantize_net(net, quantized_dtype="auto", exclude_layers=None, exclude_layers_match=["flatten"],
                        calib_data=mx.gluon.data.DataLoader(dataset, batch_size=1), calib_mode=calib_mode,
                        num_calib_examples=calib.shape[0], ctx=mx.cpu())


def _symbol(block):
    cached = getattr(block, "_cached_graph", None)
    return (cached[1] if cached else block._outputs).tojson()


def record(name, source, work: Path, calib_mode: str):
    import mxnet as mx
    sys.path.insert(0, str(TOOLS))
    from record_quantize_net_cases import int8_dot_product
    net, shape = _build(name, source, fill_mxnet=False)
    net(mx.nd.zeros(shape))
    rng = np.random.default_rng(3)
    params = _seeded(net, rng)
    calib = rng.uniform(0, 1, (2,) + tuple(shape[1:])).astype("float32")
    x = rng.uniform(0, 1, shape).astype("float32")
    block = _quantize(mx, net, params, calib, calib_mode)
    out = block(mx.nd.array(x)).asnumpy()
    quantized = {k: v.data().asnumpy() for k, v in block.collect_params().items()}
    np.savez(work / (name + ".npz"), x=x, calib=calib, out=out, **{"float:" + k: v for k, v in params.items()},
             **{"quantized:" + k: v for k, v in quantized.items()})
    (work / (name + ".json")).write_text(json.dumps({"symbol": _symbol(block), "calib_mode": calib_mode,
                                                     "int8_dot_product": int8_dot_product()}))


def _same_attrs(got, want) -> bool:
    from record_quantize_net_cases import attribute_value as value
    shared = (set(got) & set(want)) - set(RANGES)
    if any(value(got[k]) != value(want[k]) for k in shared):
        return False
    for key in RANGES:
        if (key in got) != (key in want):
            return False
        if key in want and abs(float(got[key]) - float(want[key])) > 2e-6 * max(1.0, abs(float(want[key]))):
            return False
    return True


def compare(name, source, work: Path) -> dict:
    import runtime
    recorded = json.loads((work / (name + ".json")).read_text())
    data = np.load(work / (name + ".npz"))
    from runtime.kernels import fused_conv
    fused_conv.WITHOUT_INT8_DOT_PRODUCT = not recorded["int8_dot_product"]
    with runtime.as_mxnet() as mx:
        net, shape = _build(name, source, fill_mxnet=True)
        net(mx.nd.zeros(shape))
        params = {k[6:]: data[k] for k in data.files if k.startswith("float:")}
        block = _quantize(mx, net, params, data["calib"], recorded["calib_mode"])
        from record_quantize_net_cases import nodes_of
        ours, theirs = nodes_of(_symbol(block)), nodes_of(recorded["symbol"])
        same_attrs = len(ours) == len(theirs) and all(_same_attrs(a[2], b[2]) for a, b in zip(ours, theirs))
        result = {"graph": [n[:2] + [n[3]] for n in ours] == [n[:2] + [n[3]] for n in theirs],
                  "attributes": same_attrs, "nodes": len(ours),
                  "quantized_nodes": sum(n[0].startswith(("_sg_", "_contrib_quantized")) for n in ours)}
        qparams = {k: v.data() for k, v in block.collect_params().items()}
        result["weights"] = all(np.array_equal(v.asnumpy(), data["quantized:" + k]) and
                                v.asnumpy().dtype == data["quantized:" + k].dtype for k, v in qparams.items())
        x, want = data["x"], data["out"]
        own = block(mx.nd.array(x)).asnumpy()
        result["own_ranges_equal"] = bool(np.array_equal(own, want))
        result["own_ranges_max_difference"] = float(np.abs(own - want).max())
        result["output_magnitude"] = float(np.abs(want).max())
        if result["graph"]:
            graph = json.loads(_symbol(block))
            ranges = {n[1]: {k: n[2][k] for k in RANGES if k in n[2]} for n in theirs}
            for node in graph["nodes"]:
                node.setdefault("attrs", {}).update(ranges.get(node["name"], {}))
            sym = mx.sym.load_json(json.dumps(graph))
            aux = set(sym.list_auxiliary_states())
            args = {k: v for k, v in qparams.items() if k not in aux}
            args["data"] = mx.nd.array(x)
            got = sym.bind(mx.cpu(), args, aux_states={k: qparams[k] for k in aux},
                           grad_req="null").forward(is_train=False)[0].asnumpy()
            result["mxnet_ranges_equal"] = bool(np.array_equal(got, want))
            result["mxnet_ranges_max_difference"] = float(np.abs(got - want).max())
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mxnet", required=True)
    parser.add_argument("--gluoncv", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--side", choices=("record", "compare"))
    parser.add_argument("--calib-mode", default="naive", choices=("none", "naive", "entropy"))
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    names = args.names or DEFAULT_MODELS
    if args.side == "record":
        for name in names:
            record(name, args.gluoncv, work, args.calib_mode)
        return
    if args.side == "compare":
        for name in names:
            print(json.dumps({"model": name, **compare(name, args.gluoncv, work)}), flush=True)
        return
    for name in names:
        if not (work / (name + ".json")).exists():
            subprocess.run([args.mxnet, __file__, "--side", "record", "--mxnet", args.mxnet, "--gluoncv",
                            args.gluoncv, "--work", str(work), "--calib-mode", args.calib_mode, name], check=True)
    subprocess.run([sys.executable, __file__, "--side", "compare", "--mxnet", args.mxnet, "--gluoncv",
                    args.gluoncv, "--work", str(work)] + names, check=True, env=dict(os.environ))


if __name__ == "__main__":
    main()
