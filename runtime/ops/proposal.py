"""contrib.Proposal (one image) and contrib.MultiProposal (a batch): region proposals from an RPN's
scores and box deltas (runtime/kernels/proposal.py). MXNet gives them zero gradients."""
from __future__ import annotations


from runtime.kernels import proposal as k
from runtime.ops.grad_math import zero_gradient
from runtime.registry import Attr, bool_, declare, float_, floats_, gradient_of, int_




_ATTRS = [Attr("rpn_pre_nms_top_n", int_, 6000), Attr("rpn_post_nms_top_n", int_, 300),
          Attr("threshold", float_, 0.7), Attr("rpn_min_size", int_, 16),
          Attr("scales", floats_, (4.0, 8.0, 16.0, 32.0)), Attr("ratios", floats_, (0.5, 1.0, 2.0)),
          Attr("feature_stride", int_, 16), Attr("output_score", bool_, False), Attr("iou_loss", bool_, False)]


def _shapes(multi):
    def infer(in_shapes, attrs):
        cls_prob = in_shapes[0]
        if len(cls_prob) != 4:
            raise ValueError("cls_prob must be (batch, 2 * anchors, height, width), got %s" % (tuple(cls_prob),))
        batch, channels, height, width = cls_prob
        if not multi and batch != 1:
            raise ValueError("Sorry, multiple images each device is not implemented.")
        anchors = len(attrs["scales"]) * len(attrs["ratios"])
        if channels != 2 * anchors:
            raise ValueError("cls_prob has %d channels for %d anchors (2 each)" % (channels, anchors))
        in_shapes[1] = (batch, 4 * anchors, height, width)
        in_shapes[2] = (batch, 3)
        rows = batch * attrs["rpn_post_nms_top_n"]
        return in_shapes, [(rows, 5), (rows, 1)]
    return infer


for _name, _multi in (("_contrib_Proposal", False), ("_contrib_MultiProposal", True)):
    declare(_name, inputs=("cls_prob", "bbox_pred", "im_info"), attrs=_ATTRS,
            kernel=lambda *arrays, _multi=_multi, **attrs: k.proposal(*arrays, multi=_multi, **attrs),
            infer=_shapes(_multi), num_outputs=2, visible_outputs=lambda attrs: 2 if attrs["output_score"] else 1,
            output_names=("output", "score"), reads_out_grads=False)


gradient_of("_contrib_Proposal", "_contrib_MultiProposal")(zero_gradient)  # MXNet's backward writes zeros
