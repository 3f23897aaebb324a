"""Record, with real MXNet 1.9.1 (oneDNN), what its quantization operators give, for
tests/test_runtime_quantization.py: quantize_v2 (calibrated or not, each out_type), quantized
pooling, dequantize, and `_sg_mkldnn_conv`, the fused convolution of int8 symbol files, over
every fusion MXNet's quantization flow writes (BatchNorm, ReLU, clip, the sum with an int8 or a
uint8 summand, a ReLU after the sum, a bias, groups), signed and unsigned data, 1x1 to 7x7
windows, strides 1 and 2, and weights from tiny to large; then a small chain of them as one graph.

Each case is a symbol file's JSON (the form GluonCV's int8 models ship), its inputs and MXNet's
outputs; the test loads the same JSON on the runtime and must give the same values bit for bit.

usage: python tools/record_quantization_cases.py tests/data/quantization_cases.json   (a venv with mxnet 1.9.1)
       python tools/record_quantization_cases.py --outputs-only tests/data/quantization_cases.json OUT
the second form runs the graphs already recorded on this CPU and writes only their outputs and
whether this CPU has int8 dot-product instructions: oneDNN's int8 results depend on it
(runtime.kernels.fused_conv.WITHOUT_INT8_DOT_PRODUCT), tests/data/quantization_outputs_avx2.json
holds those of a CPU without them.
"""
import json
import sys

import numpy as np

from recorded_values import encode


class Graph:
    """A symbol file's nodes, written one by one."""

    def __init__(self):
        self.nodes = []

    def add(self, op, name, inputs=(), attrs=None, **extra):
        node = {"op": op, "name": name, "inputs": [[i, out, 0] for i, out in inputs]}
        if attrs:
            node["attrs"] = {k: str(v) for k, v in attrs.items()}
        node.update(extra)
        self.nodes.append(node)
        return len(self.nodes) - 1

    def json(self, heads):
        return json.dumps({"nodes": self.nodes, "arg_nodes": [i for i, n in enumerate(self.nodes) if n["op"] == "null"],
                           "heads": [[i, out, 0] for i, out in heads], "attrs": {"mxnet_version": ["int", 10901]}})


def quantize(graph, source, name, calib):
    return graph.add("_contrib_quantize_v2", name, [(source, 0)],
                     {"min_calib_range": calib[0], "max_calib_range": calib[1], "out_type": "auto"})


def fused_conv(graph, name, data, conv, prefix, with_bn=True, act=None, summand=None, postsum_relu=False,
               calib=None, quantized=True):
    """An `_sg_mkldnn_conv` node over `data` (a quantize node, or any node whose outputs 0-2 are
    the data and its range; a float node when not quantized), its subgraph written as MXNet's
    quantization flow writes it. `act`: ("Activation", {...}) or ("clip", {...})."""
    sub = Graph()
    sub_data = sub.add("null", prefix + "data0")
    sub_weight = sub.add("null", prefix + "weight0")
    inputs = [(data, 0), (graph.add("null", prefix + "weight"), 0)]
    conv_inputs = [(sub_data, 0), (sub_weight, 0)]
    if not conv["no_bias"]:
        inputs.append((graph.add("null", prefix + "bias"), 0))
        conv_inputs.append((sub.add("null", prefix + "bias0"), 0))
    last = sub.add("Convolution", prefix + "conv", conv_inputs, conv)
    attrs = {"quantized": str(quantized).lower()}
    if with_bn:
        names = ("gamma", "beta", "running_mean", "running_var")
        inputs += [(graph.add("null", prefix + n), 0) for n in names]
        stats = [sub.add("null", prefix + n + "0") for n in names]
        last = sub.add("BatchNorm", prefix + "bn", [(last, 0)] + [(s, 0) for s in stats],
                       {"eps": 1e-5, "fix_gamma": False, "use_global_stats": False})
        attrs["with_bn"] = "true"
    if act is not None:
        last = sub.add(act[0], prefix + "act", [(last, 0)], act[1])
        attrs["with_act"] = "true"
    if summand is not None:
        inputs.append((summand, 0))
        added = sub.add("null", prefix + "summand0")
        last = sub.add("elemwise_add", prefix + "add", [(last, 0), (added, 0)])
        attrs["with_sum"] = "true"
        if postsum_relu:
            last = sub.add("Activation", prefix + "post", [(last, 0)], {"act_type": "relu"})
            attrs["with_postsum_act"] = "true"
    if quantized:
        inputs += [(data, 1), (data, 2)]
        if summand is not None:
            inputs += [(summand, 1), (summand, 2)]
    if calib is not None:
        attrs["min_calib_range"], attrs["max_calib_range"] = calib
    subgraph = {"nodes": sub.nodes, "arg_nodes": [i for i, n in enumerate(sub.nodes) if n["op"] == "null"],
                "heads": [[last, 0, 0]]}
    return graph.add("_sg_mkldnn_conv", name, inputs, attrs, subgraphs=[subgraph])


def run(mx, text, arrays):
    """Bind the symbol file's JSON to the arrays (by name; auxiliary states among them) and run it
    for inference: the outputs as NumPy arrays. `mx`: MXNet or the runtime as mxnet."""
    sym = mx.sym.load_json(text)
    aux_names = set(sym.list_auxiliary_states())
    given = {k: mx.nd.array(v, dtype=v.dtype) for k, v in arrays.items()}
    args = {k: v for k, v in given.items() if k not in aux_names}
    aux = {k: v for k, v in given.items() if k in aux_names}
    executor = sym.bind(mx.cpu(), args, aux_states=aux, grad_req="null")
    return [o.asnumpy() for o in executor.forward(is_train=False)]


def conv_params(rng, prefix, filters, channels, kernel, groups=1, with_bn=True, bias=False, weight_scale=1.0):
    weight = rng.normal(0, 1, (filters, channels // groups) + kernel) * weight_scale
    params = {prefix + "weight": weight.astype("float32")}
    if bias:
        params[prefix + "bias"] = rng.normal(0, 1, filters).astype("float32")
    if with_bn:
        params[prefix + "gamma"] = rng.uniform(0.5, 1.5, filters).astype("float32")
        params[prefix + "beta"] = rng.normal(0, 1, filters).astype("float32")
        params[prefix + "running_mean"] = rng.normal(0, 1, filters).astype("float32")
        params[prefix + "running_var"] = rng.uniform(0.5, 2, filters).astype("float32")
    return params


def conv_attrs(kernel, filters, stride, groups=1, no_bias=True):
    pad = tuple(k // 2 for k in kernel)
    return {"kernel": kernel, "num_filter": filters, "pad": pad, "stride": (stride, stride), "dilate": (1, 1),
            "num_group": groups, "no_bias": no_bias, "layout": "NCHW"}


def single_conv_cases(rng):
    """One fused convolution per case, over the fusions and geometries listed in the docstring."""
    kinds = ["relu", "none", "sum_relu", "sum", "bias_only", "clip", "groups", "sum_after_relu"]
    cases = []
    for trial in range(32):
        kind = kinds[trial % len(kinds)]
        kernel = [(1, 1), (3, 3), (7, 7)][trial % 3]
        stride = 1 + (trial // 3) % 2
        channels = {(7, 7): 3}.get(kernel, [4, 16, 5][trial % 3])
        groups = 1
        if kind == "groups":
            channels, groups = 8, [2, 8][trial % 2]
        filters = [8, 16][trial % 2] if kind != "groups" else 8
        signed = trial % 7 < 3
        data_calib = (-1.5, 2.5) if signed else (0.0, float(np.float32(rng.uniform(1, 4))))
        with_bn = kind != "bias_only"
        conv = conv_attrs(kernel, filters, stride, groups, no_bias=with_bn)
        arrays = {"data": (rng.uniform(-1, 3, (1, channels, 6, 5)) * 1.5).astype("float32")}
        arrays.update(conv_params(rng, "c_", filters, channels, kernel, groups, with_bn, bias=not with_bn,
                                  weight_scale=float(rng.choice([0.05, 1.0, 20.0]))))
        act = {"relu": ("Activation", {"act_type": "relu"}), "groups": ("Activation", {"act_type": "relu"}),
               "clip": ("clip", {"a_min": 0.0, "a_max": 6.0}),
               "sum_after_relu": ("Activation", {"act_type": "relu"})}.get(kind)
        unsigned_out = kind in ("relu", "groups", "clip", "sum_relu")
        calib = (0.0, float(np.float32(rng.uniform(2, 50)))) if unsigned_out else \
            (-float(np.float32(rng.uniform(2, 50))), float(np.float32(rng.uniform(2, 50))))
        graph = Graph()
        data = quantize(graph, graph.add("null", "data"), "data_quantize", data_calib)
        summand = None
        heads = []
        if kind.startswith("sum"):
            out_h, out_w = [(size + 2 * p - k) // stride + 1 for size, p, k in zip((6, 5), conv["pad"], kernel)]
            arrays["summand"] = rng.uniform(-3, 3, (1, filters, out_h, out_w)).astype("float32")
            sum_calib = (-3.0, 2.0) if trial % 2 == 0 else (0.0, 3.0)
            summand = quantize(graph, graph.add("null", "summand"), "summand_quantize", sum_calib)
            heads = [(summand, 0)]
        node = fused_conv(graph, "fused", data, conv, "c_", with_bn=with_bn, act=act, summand=summand,
                          postsum_relu=kind == "sum_relu", calib=calib)
        cases.append({"name": "%d_%s_k%d_s%d_%s" % (trial, kind, kernel[0], stride, "s8" if signed else "u8"),
                      "graph": graph.json([(node, 0), (node, 1), (node, 2), (data, 0)] + heads), "arrays": arrays})
    return cases


def chain_case(rng):
    """quantize -> conv+BN+ReLU -> quantized max pooling -> conv+BN (+ the pooled data) + ReLU
    -> conv with a bias, int8 out -> dequantize; one float fused convolution beside it."""
    graph = Graph()
    arrays = {"data": rng.uniform(-2, 2, (2, 3, 12, 10)).astype("float32")}
    data = quantize(graph, graph.add("null", "data"), "data_quantize", (-2.0, 2.0))
    arrays.update(conv_params(rng, "a_", 8, 3, (3, 3)))
    first = fused_conv(graph, "a", data, conv_attrs((3, 3), 8, 1), "a_", act=("Activation", {"act_type": "relu"}),
                       calib=(0.0, 6.0))
    pooled = graph.add("_contrib_quantized_pooling", "pool", [(first, 0), (first, 1), (first, 2)],
                       {"kernel": (3, 3), "stride": (2, 2), "pad": (1, 1), "pool_type": "max"})
    arrays.update(conv_params(rng, "b_", 8, 8, (3, 3), weight_scale=0.3))
    second = fused_conv(graph, "b", pooled, conv_attrs((3, 3), 8, 1), "b_", summand=pooled, postsum_relu=True,
                        calib=(0.0, 9.0))
    arrays.update(conv_params(rng, "c_", 4, 8, (1, 1), with_bn=False, bias=True))
    third = fused_conv(graph, "c", second, conv_attrs((1, 1), 4, 1, no_bias=False), "c_", with_bn=False,
                       calib=(-3.0, 4.0))
    out = graph.add("_contrib_dequantize", "dequantize", [(third, 0), (third, 1), (third, 2)])
    arrays.update(conv_params(rng, "f_", 6, 3, (3, 3), bias=True))
    floating = fused_conv(graph, "f", graph.add("null", "float_data"), conv_attrs((3, 3), 6, 2, no_bias=False),
                          "f_", act=("Activation", {"act_type": "relu"}), quantized=False)
    arrays["float_data"] = rng.uniform(-2, 2, (2, 3, 12, 10)).astype("float32")
    return {"name": "chain", "graph": graph.json([(out, 0), (second, 0), (floating, 0)]), "arrays": arrays}


def quantized_nets(mx):
    """Small Gluon nets quantized by MXNet's own flow (`contrib.quantization.quantize_net_v2`,
    naive calibration): the symbol files it writes use, besides the fused convolution, quantized
    concat and flatten and `_sg_mkldnn_fully_connected` (int8 weights and bias with their ranges,
    or, channel-wise, float ones; a float output, a requantized one, a fused ReLU), quantized
    elementwise addition and multiplication, ReLU and BatchNorm."""
    import tempfile
    from mxnet.contrib import quantization
    from mxnet.gluon import nn

    class Dense(nn.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.fc1 = nn.Dense(16, activation="relu")
                self.fc2 = nn.Dense(12)
                self.fc3 = nn.Dense(6, use_bias=False)

        def hybrid_forward(self, F, x):
            return self.fc3(self.fc2(self.fc1(x)))

    class Elementwise(nn.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.c1, self.c2 = nn.Conv2D(8, 3, padding=1), nn.Conv2D(8, 3, padding=1)
                self.p1, self.p2 = nn.MaxPool2D(2), nn.AvgPool2D(2)
                self.act, self.bn, self.fc = nn.Activation("relu"), nn.BatchNorm(), nn.Dense(5)

        def hybrid_forward(self, F, x):
            a, b = self.p1(self.c1(x)), self.p2(self.c2(x))
            return self.fc(self.bn(self.act(a + b) * b))

    cases = []
    rng = np.random.default_rng(11)
    from record_quantize_net_cases import net_class  # the net both recordings quantize
    for net, shape, granularity in ((net_class("branches")(prefix="branches_"), (4, 3, 12, 12), "tensor-wise"),
                                    (Dense(prefix="dense_"), (6, 20), "tensor-wise"),
                                    (Dense(prefix="dense_"), (6, 20), "channel-wise"),
                                    (Elementwise(prefix="elementwise_"), (4, 3, 8, 8), "tensor-wise")):
        net.initialize(mx.init.Xavier(magnitude=3))
        x = mx.nd.array(rng.uniform(-1, 1, shape).astype("float32"))
        net(x)
        for name, param in net.collect_params().items():
            if name.endswith("bias"):
                param.set_data(mx.nd.array(rng.uniform(-0.5, 0.5, param.shape)))
        if hasattr(net, "fc3"):
            # tiny weights under a large bias: its int32 bias would pass half the int32 range, so
            # MXNet caps the bias's rescale and rescales the int8 weights
            net.fc2.weight.set_data(net.fc2.weight.data() * 1e-3)
            net.fc2.bias.set_data(mx.nd.array(rng.uniform(-3000, 3000, net.fc2.bias.shape)))
        net.hybridize()
        calibration = mx.gluon.data.DataLoader(mx.gluon.data.ArrayDataset(x, mx.nd.zeros(shape[0])),
                                               batch_size=shape[0])
        quantized = quantization.quantize_net_v2(net, quantized_dtype="auto", quantize_granularity=granularity,
                                                 calib_mode="naive", calib_data=calibration,
                                                 num_calib_examples=shape[0], ctx=mx.cpu())
        with tempfile.TemporaryDirectory() as folder:
            quantized.export(folder + "/net")
            text = open(folder + "/net-symbol.json").read()
        arrays = {name: param.data().asnumpy() for name, param in quantized.collect_params().items()}
        arrays["data"] = rng.uniform(-1.2, 1.2, shape).astype("float32")  # past the calibrated range too
        cases.append({"name": "quantize_net_%s_%s" % (net.prefix.rstrip("_"), granularity), "graph": text,
                      "arrays": arrays})
    return cases


def elementwise_cases(mx, rng):
    """quantized_elemwise_add, quantized_act and quantized_batch_norm called as operators: int8
    and uint8 operands, calibrated and not (an int32 output). (quantized_elemwise_mul fails when
    called so on MXNet 1.9.1; the quantized net of quantized_nets holds one.)"""
    def quantized(shape, dtype, low, high):
        data = rng.uniform(low * 1.2, high * 1.2, shape).astype("float32")
        return list(mx.nd.contrib.quantize_v2(mx.nd.array(data), out_type=dtype, min_calib_range=low,
                                              max_calib_range=high))

    cases = []
    shape = (2, 3, 4, 5)
    operands = {"int8": (-2.0, 1.5), "uint8": (0.0, 3.0)}
    width = 3
    for a_type, b_type in (("int8", "int8"), ("uint8", "uint8"), ("int8", "uint8"), ("uint8", "int8")):
        for kwargs in ({}, {"min_calib_range": -4.0, "max_calib_range": 3.0},
                       {"min_calib_range": 0.0, "max_calib_range": 2.5}):
            # a shape of its own per call: MXNet keeps the oneDNN sum of a call by its shapes and
            # types, and reuses it, scales and all, for the next call of the same ones
            width += 1
            a = quantized((2, 3, 4, width), a_type, *operands[a_type])
            b = quantized((2, 3, 4, width), b_type, *operands[b_type])
            cases.append(("quantized_elemwise_add", [a[0], b[0], a[1], a[2], b[1], b[2]], kwargs))
    for dtype in ("int8", "uint8"):
        data = quantized(shape, dtype, *operands[dtype])
        cases.append(("quantized_act", data, {"act_type": "relu"}))
        channels = shape[1]
        statistics = [mx.nd.array(rng.uniform(0.5, 1.5, channels)), mx.nd.array(rng.uniform(-0.5, 0.5, channels)),
                      mx.nd.array(rng.uniform(-0.5, 0.5, channels)), mx.nd.array(rng.uniform(0.3, 2.0, channels))]
        inputs = [data[0]] + statistics + [data[1], data[2]]
        cases.append(("quantized_batch_norm", inputs, {"min_calib_range": -3.0, "max_calib_range": 3.5, "eps": 1e-3}))
    recorded = []
    for name, inputs, kwargs in cases:
        outputs = getattr(mx.nd.contrib, name)(*inputs, **kwargs)
        outputs = outputs if isinstance(outputs, (list, tuple)) else [outputs]
        recorded.append({"op": name, "inputs": encode(list(inputs)), "kwargs": kwargs,
                         "outputs": encode(list(outputs))})
    return recorded


def op_cases(mx, rng):
    """quantize_v2, quantized_pooling and dequantize called as operators."""
    x = (rng.uniform(-2, 3, (2, 3, 7, 6))).astype("float32")
    cases = {"x": encode(mx.nd.array(x)), "quantize_v2": [], "pooling": [], "dequantize": []}
    for out_type, calib in [("auto", None), ("int8", None), ("uint8", None), ("auto", (0.0, 2.0)),
                            ("auto", (-1.0, 2.0)), ("int8", (0.0, 2.0)), ("uint8", (-1.0, 2.0))]:
        kwargs = {} if calib is None else {"min_calib_range": calib[0], "max_calib_range": calib[1]}
        cases["quantize_v2"].append({"kwargs": dict(kwargs, out_type=out_type),
                                     "outputs": encode(list(mx.nd.contrib.quantize_v2(mx.nd.array(x), out_type=out_type,
                                                                                      **kwargs)))})
    for dtype, calib in [("uint8", (0.0, 3.0)), ("int8", (-2.0, 3.0))]:
        q, low, high = mx.nd.contrib.quantize_v2(mx.nd.array(x), out_type=dtype, min_calib_range=calib[0],
                                                 max_calib_range=calib[1])
        windows = [("max", "valid", (1, 1), (3, 3)), ("avg", "valid", (1, 1), (3, 3)), ("avg", "full", (0, 0), (2, 2)),
                   ("max", "full", (0, 0), (3, 3))]
        for pool_type, convention, pad, kernel in windows:
            for include_pad in (True, False):
                kwargs = {"kernel": kernel, "pool_type": pool_type, "stride": (2, 2), "pad": pad,
                          "pooling_convention": convention, "count_include_pad": include_pad}
                out = mx.nd.contrib.quantized_pooling(q, low, high, **kwargs)
                cases["pooling"].append({"input": encode([q, low, high]), "kwargs": kwargs,
                                         "outputs": encode(list(out))})
        out = mx.nd.contrib.quantized_pooling(q, low, high, kernel=(1, 1), pool_type="avg", global_pool=True)
        cases["pooling"].append({"input": encode([q, low, high]), "kwargs": {"kernel": (1, 1), "pool_type": "avg",
                                                                            "global_pool": True},
                                 "outputs": encode(list(out))})
        cases["dequantize"].append({"input": encode([q, low, high]),
                                    "outputs": encode(mx.nd.contrib.dequantize(q, low, high))})
    return cases


def shortest(record):
    """The encoded values of float32 arrays written with the fewest digits that read back as the
    same float32 (the file is a third of its size)."""
    if isinstance(record, list):
        return [shortest(r) for r in record]
    if isinstance(record, dict):
        if record.get("dtype") == "float32":
            return dict(record, data=[float(str(np.float32(v))) for v in record["data"]])
        return {k: shortest(v) for k, v in record.items()}
    return record


def main(out_path):
    import mxnet as mx
    rng = np.random.default_rng(7)
    graphs = single_conv_cases(rng) + [chain_case(rng)] + quantized_nets(mx)
    for case in graphs:
        case["outputs"] = [encode(mx.nd.array(o, dtype=o.dtype)) for o in run(mx, case["graph"], case["arrays"])]
        case["arrays"] = {k: encode(mx.nd.array(v, dtype=v.dtype)) for k, v in case["arrays"].items()}
    record = shortest({"ops": dict(op_cases(mx, rng), elementwise=elementwise_cases(mx, rng)), "graphs": graphs})
    with open(out_path, "w") as f:
        json.dump(record, f)


def outputs_only(cases_path, out_path):
    import mxnet as mx
    from record_quantize_net_cases import int8_dot_product
    with open(cases_path) as f:
        graphs = json.load(f)["graphs"]
    outputs = {}
    for case in graphs:
        arrays = {k: np.array(v["data"], dtype=v["dtype"]).reshape(v["shape"]) for k, v in case["arrays"].items()}
        outputs[case["name"]] = [encode(mx.nd.array(o, dtype=o.dtype)) for o in run(mx, case["graph"], arrays)]
    with open(out_path, "w") as f:
        json.dump(shortest({"int8_dot_product": int8_dot_product(), "outputs": outputs}), f)


if __name__ == "__main__":
    if sys.argv[1] == "--outputs-only":
        outputs_only(sys.argv[2], sys.argv[3])
    else:
        main(sys.argv[1])
