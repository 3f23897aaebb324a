"""Record what MXNet 1.9.1's legacy symbolic RNN API (`mx.rnn`) builds and computes.

Run with a Python that has MXNet 1.9.1:  python tools/record_legacy_rnn.py tests/data/legacy_rnn.json
  - "graphs": cells described by small specs (built the same way by tests/test_runtime_legacy_rnn.py),
    unrolled: their arguments, outputs, parameter names and inferred output shapes;
  - "fused": FusedRNNCell configurations: the per-gate names and shapes of unpack_weights, the flat
    vector that mx.init.FusedRNN gives under a constant global initializer, and one forward (outputs
    and final states) and backward (the data's gradient) with seeded parameters and data, through
    Module; the same through the cell's unfused stack;
  - "encode": encode_sentences cases; "bucket": BucketSentenceIter batches under fixed seeds.
"""
import json
import random
import sys

import numpy as np

import mxnet as mx


def build(spec):
    """A cell from a spec: [class, args, kwargs] or a wrapper ["Sequential", [specs]],
    ["Bidirectional", left, right, kwargs], ["Residual", spec], ["Zoneout", spec, kwargs]."""
    kind = spec[0]
    if kind == "Sequential":
        stack = mx.rnn.SequentialRNNCell()
        for child in spec[1]:
            stack.add(build(child))
        return stack
    if kind == "Bidirectional":
        return mx.rnn.BidirectionalCell(build(spec[1]), build(spec[2]), **spec[3])
    if kind == "Residual":
        return mx.rnn.ResidualCell(build(spec[1]))
    if kind == "Zoneout":
        return mx.rnn.ZoneoutCell(build(spec[1]), **spec[2])
    if kind == "Unfused":
        return build(spec[1]).unfuse()
    return getattr(mx.rnn, kind)(*spec[1], **spec[2])


GRAPHS = [
    # (spec, steps, batch, input size, layout, merge_outputs, inputs given as a list of steps)
    (["RNNCell", [4], {"prefix": "r_", "activation": "relu"}], 3, 2, 5, "NTC", None, True),
    (["LSTMCell", [4], {"prefix": "l_"}], 2, 2, 5, "NTC", True, True),
    (["GRUCell", [3], {"prefix": "g_"}], 3, 2, 5, "TNC", True, False),
    (["Sequential", [["LSTMCell", [4], {"prefix": "s0_"}], ["DropoutCell", [0.5], {"prefix": "d_"}],
                     ["GRUCell", [4], {"prefix": "s1_"}]]], 3, 2, 5, "NTC", False, False),
    (["Bidirectional", ["LSTMCell", [3], {"prefix": "bl_"}], ["LSTMCell", [3], {"prefix": "br_"}],
      {"output_prefix": "bo_"}], 3, 2, 5, "NTC", True, False),
    (["Bidirectional", ["GRUCell", [3], {"prefix": "bl_"}], ["GRUCell", [3], {"prefix": "br_"}], {}],
     2, 2, 5, "NTC", None, True),
    (["Residual", ["GRUCell", [5], {"prefix": "res_"}]], 2, 2, 5, "NTC", True, False),
    (["Zoneout", ["RNNCell", [4], {"prefix": "z_"}], {"zoneout_outputs": 0.3, "zoneout_states": 0.2}],
     2, 2, 5, "NTC", None, True),
    (["FusedRNNCell", [4], {"num_layers": 2, "mode": "gru", "prefix": "f_", "get_next_state": True}],
     3, 2, 5, "TNC", True, False),
    (["FusedRNNCell", [4], {"mode": "lstm", "bidirectional": True}], 3, 2, 5, "NTC", False, False),
    (["Unfused", ["FusedRNNCell", [4], {"num_layers": 2, "mode": "rnn_tanh", "prefix": "u_", "dropout": 0.2}]],
     2, 2, 5, "NTC", True, False),
    (["ConvLSTMCell", [], {"input_shape": (2, 3, 6, 5), "num_hidden": 4, "prefix": "cl_"}], 2, 2, None, "NTC",
     None, True),
]


def record_graph(spec, steps, batch, features, layout, merge, as_list):
    cell = build(spec)
    step_shape = (batch, features) if features else (batch, 3, 6, 5)
    if as_list:
        inputs = [mx.sym.Variable("x%d" % i) for i in range(steps)]
        shapes = {"x%d" % i: step_shape for i in range(steps)}
    else:
        inputs = mx.sym.Variable("data")
        shape = (batch, steps, features) if layout == "NTC" else (steps, batch, features)
        shapes = {"data": shape}
    outputs, states = cell.unroll(steps, inputs, layout=layout, merge_outputs=merge)
    merged = isinstance(outputs, mx.sym.Symbol)
    group = outputs if merged else mx.sym.Group(outputs)
    _, out_shapes, _ = group.infer_shape(**shapes)
    return {"spec": spec, "steps": steps, "shapes": {k: list(v) for k, v in shapes.items()}, "layout": layout,
            "merge": merge, "as_list": as_list, "merged": merged, "arguments": group.list_arguments(),
            "outputs": group.list_outputs(), "out_shapes": [list(s) for s in out_shapes],
            "params": sorted(cell.params._params.keys()), "num_states": len(states),
            "state_info": [{"shape": list(i["shape"]), "layout": i["__layout__"]} for i in cell.state_info]}


FUSED = [("lstm", 2, False, 5, 4), ("gru", 1, True, 3, 4), ("rnn_tanh", 2, True, 4, 3), ("rnn_relu", 1, False, 4, 2),
         ("lstm", 1, True, 3, 2)]


def record_fused(mode, layers, bidirectional, features, hidden):
    name = "%s_%d%s" % (mode, layers, "b" if bidirectional else "")
    rng = np.random.RandomState(sum(map(ord, name)))
    steps, batch = 3, 2
    cell = mx.rnn.FusedRNNCell(hidden, num_layers=layers, mode=mode, bidirectional=bidirectional,
                               get_next_state=True, forget_bias=1.5, prefix="fz_")
    # batch-major data: Module splits output gradients along each output's batch axis ('N' of its
    # __layout__, the first axis without one)
    outputs, states = cell.unroll(steps, mx.sym.Variable("data"), layout="NTC", merge_outputs=True)
    net = mx.sym.Group([outputs] + list(states))
    module = mx.mod.Module(net, data_names=["data"], label_names=None, context=mx.cpu())
    module.bind(data_shapes=[("data", (batch, steps, features))], inputs_need_grad=True)
    module.init_params(initializer=mx.init.Constant(0.25))
    initialized = module.get_params()[0]["fz_parameters"].asnumpy()
    size = initialized.size
    flat = rng.uniform(-0.5, 0.5, (size,)).astype(np.float32)
    pieces = cell.unpack_weights({"fz_parameters": mx.nd.array(flat)})
    module.set_params({"fz_parameters": mx.nd.array(flat)}, {})
    data = rng.uniform(-1, 1, (batch, steps, features)).astype(np.float32)
    module.forward(mx.io.DataBatch([mx.nd.array(data)]), is_train=True)
    results = [o.asnumpy() for o in module.get_outputs()]
    head = rng.uniform(-1, 1, results[0].shape).astype(np.float32)
    module.backward([mx.nd.array(head)] + [mx.nd.zeros(r.shape) for r in results[1:]])
    data_grad = module.get_input_grads()[0].asnumpy()
    # the unfused stack, its weights packed from the fused cell's
    stack = cell.unfuse()
    stack_out, _ = stack.unroll(steps, mx.sym.Variable("data"), layout="NTC", merge_outputs=True)
    stack_args = stack.pack_weights(pieces)
    executor = stack_out.bind(mx.cpu(), dict(stack_args, data=mx.nd.array(data)))
    unfused = executor.forward()[0].asnumpy()
    return {"mode": mode, "layers": layers, "bidirectional": bidirectional, "features": features, "hidden": hidden,
            "steps": steps, "batch": batch, "size": size, "initialized": initialized.tolist(),
            "pieces": [[k, list(v.shape)] for k, v in pieces.items() if k != "fz_parameters"],
            "stack_args": sorted(stack_args), "parameters": flat.tolist(), "data": data.tolist(),
            "head": head.tolist(), "outputs": [r.tolist() for r in results], "data_grad": data_grad.tolist(),
            "unfused": unfused.tolist()}


ENCODE = [
    ([["a", "b", "c"], ["b", "c", "d"]], {"vocab": {"a": 1, "b": 2, "c": 3}, "unknown_token": "UNK"}),
    ([["x", "y"], ["y", "z", "x"]], {}),
    ([["x", "y"], ["y", "z"]], {"invalid_label": 1, "start_label": 0}),
    ([["p", "q"], ["q", "r"]], {"start_label": 5, "invalid_key": "<pad>", "invalid_label": 0}),
]


def record_bucket(layout):
    random.seed(3)
    np.random.seed(3)
    rng = np.random.RandomState(7)
    sentences = [list(rng.randint(1, 20, size=rng.randint(2, 9))) for _ in range(30)]
    sentences = [[int(w) for w in s] for s in sentences]
    it = mx.rnn.BucketSentenceIter(sentences, 3, buckets=[4, 6, 8], invalid_label=0, layout=layout)
    batches = [{"bucket_key": b.bucket_key, "data": b.data[0].asnumpy().tolist(),
                "label": b.label[0].asnumpy().tolist(), "provide_data": [list(b.provide_data[0].shape)]}
               for b in it]
    return {"layout": layout, "sentences": sentences, "buckets": it.buckets,
            "default_bucket_key": it.default_bucket_key, "provide_data": list(it.provide_data[0].shape),
            "batch_keys": sorted(b["bucket_key"] for b in batches), "first_batches": batches,
            "layout_axis": it.major_axis}


def main(path):
    record = {"graphs": [record_graph(*case) for case in GRAPHS],
              "fused": [record_fused(*case) for case in FUSED],
              "encode": [{"sentences": s, "kwargs": k, "result": list(mx.rnn.encode_sentences(s, **dict(
                  k, vocab=dict(k["vocab"]) if "vocab" in k else None)))} for s, k in ENCODE],
              "bucket": [record_bucket("NT"), record_bucket("TN")]}
    with open(path, "w") as f:
        json.dump(record, f)


if __name__ == "__main__":
    main(sys.argv[1])
