"""`mx.rnn`, MXNet 1.x's legacy symbolic RNN API, against what MXNet 1.9.1 builds and computes
(tests/data/legacy_rnn.json, written by tools/record_legacy_rnn.py)."""
import json
import random
import re
from pathlib import Path

import numpy as np
import pytest

import runtime
from runtime import initializer, nd, sym
from runtime import rnn as legacy
from runtime.io import DataBatch
from runtime.module import Module

RECORD = json.loads((Path(__file__).parent / "data" / "legacy_rnn.json").read_text())


def build(spec):
    """The recorder's cell specs: [class, args, kwargs] or a wrapper of specs."""
    kind = spec[0]
    if kind == "Sequential":
        stack = legacy.SequentialRNNCell()
        for child in spec[1]:
            stack.add(build(child))
        return stack
    if kind == "Bidirectional":
        return legacy.BidirectionalCell(build(spec[1]), build(spec[2]), **spec[3])
    if kind == "Residual":
        return legacy.ResidualCell(build(spec[1]))
    if kind == "Zoneout":
        return legacy.ZoneoutCell(build(spec[1]), **spec[2])
    if kind == "Unfused":
        return build(spec[1]).unfuse()
    kwargs = {k: tuple(v) if isinstance(v, list) else v for k, v in spec[2].items()}
    return getattr(legacy, kind)(*spec[1], **kwargs)


def _stable(name):
    # names MXNet draws from its global counters (concat0, split4, where2) depend on what ran before
    return re.sub(r"^(concat|split|where|swapaxes)\d+", r"\1#", name)


@pytest.mark.parametrize("case", RECORD["graphs"], ids=lambda c: c["spec"][0] + "-" + c["layout"])
def test_unrolled_graph_matches_mxnet(case):
    cell = build(case["spec"])
    if case["as_list"]:
        inputs = [sym.Variable("x%d" % i) for i in range(case["steps"])]
    else:
        inputs = sym.Variable("data")
    outputs, states = cell.unroll(case["steps"], inputs, layout=case["layout"], merge_outputs=case["merge"])
    assert isinstance(outputs, sym.Symbol) == case["merged"]
    group = outputs if case["merged"] else sym.Group(outputs)
    assert sorted(group.list_arguments()) == sorted(case["arguments"])
    assert [_stable(n) for n in group.list_outputs()] == [_stable(n) for n in case["outputs"]]
    assert sorted(cell.params._params) == case["params"]
    assert len(states) == case["num_states"]
    assert [{"shape": list(i["shape"]), "layout": i["__layout__"]} for i in cell.state_info] == case["state_info"]
    _, out_shapes, _ = group.infer_shape(**{k: tuple(v) for k, v in case["shapes"].items()})
    assert [list(s) for s in out_shapes] == case["out_shapes"]


def _fused(case):
    return legacy.FusedRNNCell(case["hidden"], num_layers=case["layers"], mode=case["mode"],
                               bidirectional=case["bidirectional"], get_next_state=True, forget_bias=1.5,
                               prefix="fz_")


@pytest.mark.parametrize("case", RECORD["fused"],
                         ids=lambda c: "%s-%d-%s" % (c["mode"], c["layers"], c["bidirectional"]))
def test_fused_cell_matches_mxnet(case):
    cell = _fused(case)
    outputs, states = cell.unroll(case["steps"], sym.Variable("data"), layout="NTC", merge_outputs=True)
    module = Module(sym.Group([outputs] + list(states)), data_names=["data"], label_names=None)
    module.bind(data_shapes=[("data", (case["batch"], case["steps"], case["features"]))], inputs_need_grad=True)
    # mx.init.FusedRNN (the vector's own initializer) fills each gate's weight with the global one
    module.init_params(initializer=initializer.Constant(0.25))
    np.testing.assert_allclose(module.get_params()[0]["fz_parameters"].asnumpy(), case["initialized"], rtol=1e-6)

    flat = nd.array(case["parameters"])
    pieces = cell.unpack_weights({"fz_parameters": flat})
    assert [[k, list(v.shape)] for k, v in pieces.items() if k != "fz_parameters"] == case["pieces"]
    np.testing.assert_array_equal(cell.pack_weights(pieces)["fz_parameters"].asnumpy(), flat.asnumpy())

    module.set_params({"fz_parameters": flat}, {})
    data = nd.array(case["data"])
    module.forward(DataBatch([data]), is_train=True)
    results = module.get_outputs()
    assert len(results) == len(case["outputs"])
    for got, want in zip(results, case["outputs"]):
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-4, atol=1e-5)
    module.backward([nd.array(case["head"])] + [nd.zeros(r.shape) for r in results[1:]])
    np.testing.assert_allclose(module.get_input_grads()[0].asnumpy(), case["data_grad"], rtol=1e-4, atol=1e-5)

    stack = cell.unfuse()
    stack_out, _ = stack.unroll(case["steps"], sym.Variable("data"), layout="NTC", merge_outputs=True)
    stack_args = stack.pack_weights(pieces)
    assert sorted(stack_args) == case["stack_args"]
    unfused = stack_out.bind(runtime.cpu(), dict(stack_args, data=data)).forward()[0]
    np.testing.assert_allclose(unfused.asnumpy(), case["unfused"], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("case", RECORD["encode"], ids=lambda c: str(sorted(c["kwargs"])))
def test_encode_sentences_matches_mxnet(case):
    kwargs = dict(case["kwargs"])
    if "vocab" in kwargs:
        kwargs["vocab"] = dict(kwargs["vocab"])
    encoded, vocab = legacy.encode_sentences(case["sentences"], **kwargs)
    assert [encoded, vocab] == case["result"]


def test_encode_sentences_rejects_unknown_words_of_a_given_vocabulary():
    with pytest.raises(AssertionError, match="Unknown token z"):
        legacy.encode_sentences([["a", "z"]], vocab={"a": 0})


@pytest.mark.parametrize("case", RECORD["bucket"], ids=lambda c: c["layout"])
def test_bucket_sentence_iter_matches_mxnet(case):
    # the same seeds give the same shuffles: Python's random for the batch order, NumPy's for rows
    random.seed(3)
    np.random.seed(3)
    it = legacy.BucketSentenceIter(case["sentences"], 3, buckets=[4, 6, 8], invalid_label=0, layout=case["layout"])
    assert it.buckets == case["buckets"] and it.default_bucket_key == case["default_bucket_key"]
    assert list(it.provide_data[0].shape) == case["provide_data"] and it.major_axis == case["layout_axis"]
    batches = list(it)
    assert sorted(b.bucket_key for b in batches) == case["batch_keys"]
    for got, want in zip(batches, case["first_batches"]):
        assert got.bucket_key == want["bucket_key"]
        assert got.data[0].asnumpy().tolist() == want["data"]
        assert got.label[0].asnumpy().tolist() == want["label"]
        assert [list(got.provide_data[0].shape)] == want["provide_data"]


def test_rnn_checkpoint_saves_unpacked_weights_and_loads_them_packed(tmp_path):
    cell = legacy.FusedRNNCell(3, num_layers=1, mode="gru", prefix="g_")
    outputs, _ = cell.unroll(2, sym.Variable("data"), layout="TNC", merge_outputs=True)
    size = sum(int(np.prod(shape)) for _, shape in cell._layout(4))
    flat = nd.array(np.arange(size, dtype=np.float32))
    prefix = str(tmp_path / "model")
    legacy.save_rnn_checkpoint(cell, prefix, 1, outputs, {"g_parameters": flat}, {})
    saved = nd.load(prefix + "-0001.params")
    assert "arg:g_l0_i2h_r_weight" in saved and "arg:g_parameters" not in saved
    _, args, _ = legacy.load_rnn_checkpoint([cell], prefix, 1)
    np.testing.assert_array_equal(args["g_parameters"].asnumpy(), flat.asnumpy())
    callback = legacy.do_rnn_checkpoint(cell, prefix, period=2)
    callback(1, outputs, {"g_parameters": flat}, {})
    assert (tmp_path / "model-0002.params").exists()


def test_mxnet_paths_resolve():
    with runtime.as_mxnet() as mx:
        from mxnet.rnn import FusedRNNCell, LSTMCell  # noqa: F401
        from mxnet.rnn.io import BucketSentenceIter  # noqa: F401
        assert mx.rnn.LSTMCell is legacy.LSTMCell
        assert mx.rnn.rnn_cell.FusedRNNCell is legacy.FusedRNNCell
        assert mx.init.FusedRNN is initializer.FusedRNN
        assert mx.rnn.save_rnn_checkpoint is legacy.save_rnn_checkpoint
        from runtime.bucketing_module import BucketingModule
        assert mx.mod.BucketingModule is BucketingModule


def test_fused_initializer_round_trips_through_its_description():
    init = initializer.FusedRNN(initializer.Constant(0.5), 4, 2, "lstm", bidirectional=True, forget_bias=2.0)
    again = initializer.create(init.dumps())
    assert isinstance(again, initializer.FusedRNN) and again == init


def test_modified_cell_cannot_be_used_directly():
    base = legacy.RNNCell(3, prefix="m_")
    legacy.ResidualCell(base)
    with pytest.raises(AssertionError, match="modifier"):
        base.begin_state()


@pytest.mark.parametrize("make", [lambda: legacy.LSTMCell(4, prefix="a_"),
                                  lambda: legacy.FusedRNNCell(4, num_layers=2, mode="gru", prefix="f_"),
                                  lambda: legacy.BidirectionalCell(legacy.GRUCell(4, prefix="l_"),
                                                                   legacy.GRUCell(4, prefix="r_"))],
                         ids=["lstm", "fused", "bidirectional"])
def test_begin_state_of_unknown_batch_takes_the_inputs_batch(make):
    # begin_state() leaves the batch 0 as MXNet does; unroll sizes those zeros from its inputs
    cell = make()
    states = cell.begin_state()
    outputs, _ = cell.unroll(3, sym.Variable("data"), begin_state=states, layout="NTC", merge_outputs=True)
    with_default, _ = make().unroll(3, sym.Variable("data"), layout="NTC", merge_outputs=True)
    shapes = {"data": (2, 3, 5)}
    assert outputs.infer_shape(**shapes)[1] == with_default.infer_shape(**shapes)[1]
    args = {name: nd.ones(shape) * 0.1 for name, shape in zip(outputs.list_arguments(),
                                                                outputs.infer_shape(**shapes)[0])}
    np.testing.assert_allclose(outputs.eval(**args)[0].asnumpy(), with_default.eval(**args)[0].asnumpy())


def test_bucketing_module_trains_a_legacy_lstm_language_model():
    # sentences count up from a random start (ids 1..10, 0 pads); on MXNet 1.9.1 the same script's
    # perplexity after each of 6 epochs is 3.71, 1.44, 1.086, 1.031, 1.017, 1.012
    from runtime import metric
    from runtime.bucketing_module import BucketingModule
    random.seed(1)
    np.random.seed(1)
    runtime.random.seed(1)
    rng = np.random.RandomState(0)
    sentences = []
    for _ in range(120):
        length, start = rng.choice([4, 6, 8]), rng.randint(0, 10)
        sentences.append([1 + (start + i) % 10 for i in range(length)])
    data_iter = legacy.BucketSentenceIter(sentences, 8, buckets=[4, 6, 8], invalid_label=0)
    stack = legacy.SequentialRNNCell()
    stack.add(legacy.LSTMCell(16, prefix="lstm_l0_"))

    def sym_gen(seq_len):
        embed = sym.Embedding(data=sym.Variable("data"), input_dim=11, output_dim=8, name="embed")
        stack.reset()
        outputs, _ = stack.unroll(seq_len, inputs=embed, merge_outputs=True)
        pred = sym.FullyConnected(sym.Reshape(outputs, shape=(-1, 16)), num_hidden=11, name="pred")
        label = sym.Reshape(sym.Variable("softmax_label"), shape=(-1,))
        loss = sym.SoftmaxOutput(pred, label, name="softmax", use_ignore=True, ignore_label=0)
        return loss, ("data",), ("softmax_label",)

    model = BucketingModule(sym_gen, default_bucket_key=data_iter.default_bucket_key)
    scores = []
    model.fit(data_iter, eval_metric=metric.Perplexity(0), optimizer="adam", optimizer_params={"learning_rate": 0.02},
              initializer=initializer.Xavier(factor_type="in", magnitude=2.34), num_epoch=6,
              epoch_end_callback=lambda *_: scores.append(model.score(data_iter, metric.Perplexity(0))[0][1]))
    assert sorted(model._buckets) == [4, 6, 8]
    # one set of parameters: every bucket's executor reads the default bucket's arrays
    shared = model._buckets[8]._exec.arg_dict["lstm_l0_i2h_weight"]
    assert all(m._exec.arg_dict["lstm_l0_i2h_weight"] is shared for m in model._buckets.values())
    assert scores[0] > 2.0 and scores[-1] < 1.05
