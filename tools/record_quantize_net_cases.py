"""Record, with real MXNet 1.9.1 (oneDNN), what its `contrib.quantization.quantize_net_v2` makes of
small Gluon nets, for tests/test_runtime_quantize_net.py: for each net and option set, the float
parameters, the calibration data, an input, MXNet's quantized symbol (each node's operator, name
and attributes, in order) and the quantized net's output on the input (or the error MXNet
raised), its quantized weights, and whether the recording CPU multiplies int8 exactly
(`int8_dot_product`). The test builds the same nets on the runtime (`build` below, shared by both sides),
sets the same parameters, quantizes with the same options and compares.

Nets: a chain (conv+BN+ReLU, a residual sum with a ReLU after it, max pooling, a depthwise
conv+BN+ReLU, global average pooling, flatten, dense+ReLU, dropout, dense), branches (conv+BN with
F.relu between, concat, pooling, flatten, dense), elementwise (a sum and a product of two
pooled convolutions, Activation, BatchNorm, dense) and residual (ResNet v1's downsampling block:
two convolutions summed).

usage: python tools/record_quantize_net_cases.py tests/data/quantize_net_cases.json   (a venv with mxnet 1.9.1)
"""
import json
import sys

import numpy as np

from recorded_values import encode

# (case name, net, options for quantize_net_v2)
CASES = [
    ("chain_naive_auto", "chain", {"calib_mode": "naive"}),
    ("chain_naive_int8", "chain", {"calib_mode": "naive", "quantized_dtype": "int8"}),
    ("chain_naive_uint8", "chain", {"calib_mode": "naive", "quantized_dtype": "uint8"}),
    ("chain_entropy_auto", "chain", {"calib_mode": "entropy"}),
    ("chain_entropy_int8", "chain", {"calib_mode": "entropy", "quantized_dtype": "int8"}),
    ("chain_naive_channel_wise", "chain", {"calib_mode": "naive", "quantize_granularity": "channel-wise"}),
    ("chain_naive_smart", "chain", {"calib_mode": "naive", "quantize_mode": "smart"}),
    ("chain_excluded_layer", "chain", {"calib_mode": "naive", "exclude_layers": ["chain_conv1_fwd"]}),
    ("chain_excluded_match", "chain", {"calib_mode": "naive", "exclude_layers_match": ["dense0"]}),
    ("chain_none", "chain", {"calib_mode": "none"}),
    ("branches_naive_auto", "branches", {"calib_mode": "naive"}),
    ("branches_entropy_auto", "branches", {"calib_mode": "entropy"}),
    ("branches_smart_channel_wise", "branches", {"calib_mode": "naive", "quantize_mode": "smart",
                                                 "quantize_granularity": "channel-wise"}),
    ("branches_excluded_concat", "branches", {"calib_mode": "naive", "exclude_operators": ["Concat"]}),
    ("elementwise_naive_auto", "elementwise", {"calib_mode": "naive"}),
    ("elementwise_entropy_int8", "elementwise", {"calib_mode": "entropy", "quantized_dtype": "int8"}),
    ("residual_naive_auto", "residual", {"calib_mode": "naive"}),
    ("residual_none", "residual", {"calib_mode": "none"}),
]

SHAPES = {"chain": (4, 3, 10, 10), "branches": (4, 3, 12, 12), "elementwise": (4, 3, 8, 8),
          "residual": (4, 3, 8, 8)}


def net_class(kind):
    """The block class of that kind of net (of whichever mxnet is imported: MXNet or the runtime)."""
    from mxnet.gluon import nn

    class Chain(nn.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.c0, self.b0, self.a0 = nn.Conv2D(8, 3, padding=1), nn.BatchNorm(), nn.Activation("relu")
                self.c1, self.b1, self.a1 = nn.Conv2D(8, 3, padding=1), nn.BatchNorm(), nn.Activation("relu")
                self.pool = nn.MaxPool2D(2)
                self.c2, self.b2 = nn.Conv2D(8, 3, padding=1, groups=8, use_bias=False), nn.BatchNorm()
                self.a2 = nn.Activation("relu")
                self.gap, self.flat = nn.GlobalAvgPool2D(), nn.Flatten()
                self.fc0, self.drop, self.fc1 = nn.Dense(12, activation="relu"), nn.Dropout(0.5), nn.Dense(5)

        def hybrid_forward(self, F, x):
            y = self.a0(self.b0(self.c0(x)))
            y = self.a1(self.b1(self.c1(y)) + y)
            y = self.a2(self.b2(self.c2(self.pool(y))))
            return self.fc1(self.drop(self.fc0(self.flat(self.gap(y)))))

    class Branches(nn.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.c1, self.b1 = nn.Conv2D(8, 3, padding=1), nn.BatchNorm()
                self.c2, self.b2 = nn.Conv2D(8, 3, padding=1), nn.BatchNorm()
                self.c3 = nn.Conv2D(4, 1)
                self.pool, self.avg = nn.MaxPool2D(2), nn.AvgPool2D(2)
                self.fc1, self.fc2 = nn.Dense(10), nn.Dense(5)

        def hybrid_forward(self, F, x):
            y = F.relu(self.b1(self.c1(x)))
            z = F.relu(self.b2(self.c2(y)) + y)
            w = F.relu(self.pool(F.concat(self.c3(z), z, dim=1)))
            return self.fc2(F.relu(self.fc1(F.flatten(self.avg(w)))))

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

    class Residual(nn.HybridBlock):
        """ResNet v1's downsampling block: two convolutions summed, the shortcut's first."""
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.c1, self.b1, self.a1 = nn.Conv2D(8, 3, strides=2, padding=1), nn.BatchNorm(), nn.Activation("relu")
                self.c2, self.b2 = nn.Conv2D(8, 3, padding=1), nn.BatchNorm()
                self.c3, self.b3 = nn.Conv2D(8, 1, strides=2), nn.BatchNorm()
                self.fc = nn.Dense(4)

        def hybrid_forward(self, F, x):
            body = self.b2(self.c2(self.a1(self.b1(self.c1(x)))))
            return self.fc(F.Activation(self.b3(self.c3(x)) + body, act_type="relu"))

    return {"chain": Chain, "branches": Branches, "elementwise": Elementwise, "residual": Residual}[kind]


def build(mx, kind):
    """The net of that kind, built and initialized with `mx` (MXNet or the runtime as mxnet)."""
    net = net_class(kind)(prefix=kind + "_")
    net.initialize()
    net(mx.nd.zeros(SHAPES[kind]))
    return net


def float_params(net, rng):
    """Seeded parameters for a built net: weights of unit variance over their fan-in, biases and
    BatchNorm's statistics in usual ranges."""
    params = {}
    for name, param in net.collect_params().items():
        shape = param.shape
        if name.endswith("weight"):
            fan_in = int(np.prod(shape[1:]))
            value = rng.normal(0, 1.5 / np.sqrt(fan_in), shape)
        elif name.endswith("gamma") or name.endswith("running_var"):
            value = rng.uniform(0.5, 1.5, shape)
        else:
            value = rng.uniform(-0.5, 0.5, shape)
        params[name] = value.astype("float32")
    return params


def set_params(mx, net, params):
    for name, param in net.collect_params().items():
        param.set_data(mx.nd.array(params[name]))


def calibration(mx, data):
    """MXNet's usual calibration source: a DataLoader of (data, label) batches."""
    dataset = mx.gluon.data.ArrayDataset(mx.nd.array(data), mx.nd.zeros(data.shape[0]))
    return mx.gluon.data.DataLoader(dataset, batch_size=data.shape[0] // 2)


def quantize(mx, kind, params, calib, options):
    """MXNet's (or the runtime's) quantized SymbolBlock of a net."""
    from mxnet.contrib.quantization import quantize_net_v2
    net = build(mx, kind)
    set_params(mx, net, params)
    net.hybridize()
    extra = {}
    if options.get("calib_mode", "none") != "none":
        extra = {"calib_data": calibration(mx, calib), "num_calib_examples": calib.shape[0]}
    else:
        extra = {"data_shapes": [mx.io.DataDesc("data", SHAPES[kind])]}
    return quantize_net_v2(net, ctx=mx.cpu(), **dict(options, **extra), **_defaults(options))


def _defaults(options):
    return {} if "quantized_dtype" in options else {"quantized_dtype": "auto"}


def graph_nodes(block):
    """The quantized symbol's nodes as its file holds them: [operator, name, attributes] (the
    attributes of operators only: variables carry Gluon's bookkeeping)."""
    cached = getattr(block, "_cached_graph", None)  # MXNet's SymbolBlock keeps its symbol there
    symbol = cached[1] if cached else block._outputs
    return nodes_of(symbol.tojson())


def nodes_of(text):
    """A symbol file's nodes: [operator, name, attributes, inputs] (the attributes of operators
    only: variables carry Gluon's bookkeeping)."""
    return [[n["op"], n["name"], n.get("attrs", {}) if n["op"] != "null" else {}, [i[:2] for i in n["inputs"]]]
            for n in json.loads(text)["nodes"]]


def attribute_value(text):
    """An attribute as a value, to compare MXNet's spelling with the runtime's, which writes parsed
    attributes back its own way ('True', '0.0', '(3, 3)')."""
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    try:
        return np.float32(text)
    except ValueError:
        return text.replace(" ", "").replace("L", "")


def int8_dot_product() -> bool:
    """Whether this CPU has int8 dot-product instructions (AVX512-VNNI / AVX-VNNI). Without them
    oneDNN's int8 convolutions and inner products are not exact: with int8 data it quantizes
    the weights at half their scale (and doubles the output scale), so that pairs of products
    fit in 16 bits; MXNet's int8 outputs then differ from the exact products. (The runtime's
    runtime.kernels.fused_conv.int8_dot_product reads the same flags; this script runs where
    only MXNet is installed.)"""
    try:
        with open("/proc/cpuinfo") as f:
            flags = f.read()
    except OSError:
        return False
    return "avx512_vnni" in flags or "avx_vnni" in flags


def entropy_sample(seed):
    """Seeded data for the entropy calibration's threshold: shapes of layer outputs (normal,
    ReLU'd, heavy-tailed, skewed, sparse); the test draws the same."""
    rng = np.random.default_rng(seed)
    kind = seed % 5
    if kind == 0:
        return rng.normal(0, 1, 20000).astype("float32")
    if kind == 1:
        return np.maximum(rng.normal(0.2, 1, 20000), 0).astype("float32")
    if kind == 2:
        return rng.standard_t(2, 20000).astype("float32")
    if kind == 3:
        return (rng.exponential(1, 20000) - 0.3).astype("float32")
    return (rng.normal(0, 1, 20000) * (rng.uniform(0, 1, 20000) < 0.1)).astype("float32")


def entropy_cases(mx):
    """MXNet's `_contrib_calibrate_entropy` over histograms of entropy_sample (8001 bins over
    the sample's largest magnitude, as its calibration collects them), 255 and 511 quantized bins."""
    cases = []
    for seed in range(10):
        data = entropy_sample(seed)
        th = max(abs(data.min()), abs(data.max()))
        counts, edges = np.histogram(data, bins=8001, range=(-th, th))
        for bins in (255, 511):
            threshold, divergence = mx.nd.contrib.calibrate_entropy(
                hist=mx.nd.array(counts), hist_edges=mx.nd.array(edges), num_quantized_bins=bins)
            cases.append({"seed": seed, "num_quantized_bins": bins, "counts_sum": int(counts.sum()),
                          "threshold": float(threshold.asnumpy()[0]), "divergence": float(divergence.asnumpy()[0])})
    return cases


def main(out_path):
    import mxnet as mx
    rng = np.random.default_rng(5)
    recorded = []
    nets = {}
    for kind in SHAPES:
        params = float_params(build(mx, kind), rng)
        calib = rng.uniform(-1, 1, (8,) + SHAPES[kind][1:]).astype("float32")
        x = rng.uniform(-1.2, 1.2, (2,) + SHAPES[kind][1:]).astype("float32")
        nets[kind] = (params, calib, x)
    for name, kind, options in CASES:
        params, calib, x = nets[kind]
        case = {"name": name, "net": kind, "options": options}
        try:
            block = quantize(mx, kind, params, calib, options)
            case["nodes"] = graph_nodes(block)
            case["params"] = {k: encode(v.data()) for k, v in block.collect_params().items()
                              if k.endswith(("_quantize", "_quantize_min", "_quantize_max"))}
            case["output"] = encode(block(mx.nd.array(x)))
        except Exception as exc:  # MXNet refuses some option sets: the runtime must refuse them too
            lines = [line for line in str(exc).splitlines() if line.strip() and "Traceback" not in line
                     and not line.lstrip().startswith(("File ", "[bt]"))]
            case["error"] = "%s: %s" % (type(exc).__name__, (lines[-1] if lines else "")[:300])
        recorded.append(case)
        print(name, "error" if "error" in case else "ok", flush=True)
    data = {kind: {"params": {k: encode(mx.nd.array(v)) for k, v in params.items()},
                   "calib": encode(mx.nd.array(calib)), "input": encode(mx.nd.array(x))}
            for kind, (params, calib, x) in nets.items()}
    with open(out_path, "w") as f:
        json.dump({"int8_dot_product": int8_dot_product(), "nets": data, "cases": recorded,
                   "entropy": entropy_cases(mx)}, f)


if __name__ == "__main__":
    main(sys.argv[1])
