"""contrib.box_decode and contrib.box_encode against values recorded from real MXNet 1.9.1
(tools/record_box_coder.py -> tests/data/box_coder_cases.json): bit for bit in float32 (GluonCV's
R-CNNs sort and suppress the decoded boxes, so an ulp decides which of two boxes comes first),
eagerly and through a bound Symbol, and the shapes MXNet rejects, in its words."""
import json
from pathlib import Path

import numpy as np
import pytest

import runtime
from runtime import MXNetError, autograd, nd, sym

CASES = json.loads((Path(__file__).resolve().parent / "data" / "box_coder_cases.json").read_text())


def array(record):
    return np.array(record["data"], dtype=record["dtype"]).reshape(record["shape"])


@pytest.mark.parametrize("case", CASES["decode"], ids=lambda c: "%s-%s" % (c["data"]["shape"], c["kwargs"]))
def test_box_decode_equals_mxnet_bit_for_bit(case):
    data, anchors, expected = array(case["data"]), array(case["anchors"]), array(case["output"])
    out = nd.contrib.box_decode(nd.array(data, dtype=data.dtype), nd.array(anchors, dtype=data.dtype), **case["kwargs"])
    assert out.dtype == expected.dtype
    np.testing.assert_array_equal(out.asnumpy(), expected)
    graph = sym.contrib.box_decode(sym.var("data"), sym.var("anchors"), **case["kwargs"])
    bound = graph.bind(runtime.cpu(), {"data": nd.array(data, dtype=data.dtype),
                                       "anchors": nd.array(anchors, dtype=data.dtype)})
    np.testing.assert_array_equal(bound.forward()[0].asnumpy(), expected)


@pytest.mark.parametrize("case", CASES["encode"], ids=lambda c: str(c["inputs"][2]["shape"]))
def test_box_encode_equals_mxnet_bit_for_bit(case):
    inputs = [array(r) for r in case["inputs"]]
    targets, masks = nd.contrib.box_encode(*[nd.array(a, dtype=a.dtype) for a in inputs])
    np.testing.assert_array_equal(targets.asnumpy(), array(case["targets"]))
    np.testing.assert_array_equal(masks.asnumpy(), array(case["masks"]))
    names = ["samples", "matches", "anchors", "refs", "means", "stds"]
    graph = sym.contrib.box_encode(*[sym.var(n) for n in names])
    assert [name.split("_")[-1] for name in graph.list_outputs()] == ["output0", "output1"]  # as MXNet names them
    bound = graph.bind(runtime.cpu(), {n: nd.array(a, dtype=a.dtype) for n, a in zip(names, inputs)})
    outputs = bound.forward()
    np.testing.assert_array_equal(outputs[0].asnumpy(), array(case["targets"]))
    np.testing.assert_array_equal(outputs[1].asnumpy(), array(case["masks"]))


@pytest.mark.parametrize("case", CASES["rejections"], ids=lambda c: "%s-%s" % (c["op"], c["words"]))
def test_shapes_mxnet_rejects(case):
    graph = getattr(sym.contrib, case["op"])(*[sym.var(name) for name in case["shapes"]])
    with pytest.raises(MXNetError, match=case["words"].replace("(", r"\(").replace(")", r"\)")):
        graph.infer_shape(**{k: tuple(v) for k, v in case["shapes"].items()})


def test_the_box_coders_are_in_contrib_as_gluoncv_looks_for_them():
    # GluonCV decodes with these when `'box_decode' in F.contrib.__dict__` (as on MXNet), and its
    # FPN R-CNNs pool their regions another way then
    for module in (nd.contrib, sym.contrib):
        assert "box_decode" in module.__dict__ and "box_encode" in module.__dict__


def test_anchors_of_another_size_are_refused():
    with pytest.raises(MXNetError, match="new and old shape do not match total elements"):
        nd.contrib.box_decode(nd.ones((2, 5, 4)), nd.ones((2, 5, 4)))


def test_the_gradients_are_zero():
    data, anchors = nd.ones((1, 3, 4)), nd.array([[[0, 0, 2, 2], [1, 1, 4, 5], [2, 0, 3, 9]]])
    data.attach_grad()
    anchors.attach_grad()
    with autograd.record():
        out = nd.contrib.box_decode(data, anchors, format="corner")
    out.backward()
    assert not data.grad.asnumpy().any() and not anchors.grad.asnumpy().any()


@pytest.mark.parametrize("case", CASES["multicast"], ids=lambda c: "%s-narrow=%s" % ("-".join(c["dtypes"]), c["cast_narrow"]))
def test_amp_multicast_gives_mxnets_dtypes(case):
    # GluonCV's box decoder casts its offsets and anchors with it before contrib.box_decode
    count = len(case["dtypes"])
    graph = sym.amp_multicast(*[sym.var("v%d" % i) for i in range(count)], num_outputs=count,
                              cast_narrow=case["cast_narrow"])
    out_types = graph.infer_type(**{"v%d" % i: d for i, d in enumerate(case["dtypes"])})[1]
    assert [np.dtype(t).name for t in out_types] == case["out_dtypes"]
    if "values" in case:
        values = [np.arange(3, dtype="float32") + np.float32(0.3 * i) for i in range(count)]
        results = nd.amp_multicast(*[nd.array(v) for v in values], num_outputs=count, cast_narrow=case["cast_narrow"])
        for result, expected in zip(results, case["values"]):
            np.testing.assert_array_equal(result.asnumpy(), array(expected))


def test_amp_multicast_counts_its_inputs():
    with pytest.raises(MXNetError, match="expects 2 inputs, but got 1 instead"):
        nd.amp_multicast(nd.ones((2,)), num_outputs=2)


@pytest.mark.parametrize("case", CASES["iou"], ids=lambda c: "%s-%s-%s" % (c["lhs"]["shape"], c["rhs"]["shape"], c["format"]))
def test_box_iou_of_boxes_with_several_axes(case):
    # every box of lhs with every box of rhs, whatever the leading axes of either (the runtime
    # added one axis for rhs's boxes, so rhs of more than one leading axis compared the wrong boxes)
    out = nd.contrib.box_iou(nd.array(array(case["lhs"])), nd.array(array(case["rhs"])), format=case["format"])
    np.testing.assert_allclose(out.asnumpy(), array(case["output"]), rtol=1e-6, atol=1e-7)
