"""The CTC loss operator (`CTCLoss`, alias `ctc_loss` and the `contrib.` names MXNet keeps)."""
from __future__ import annotations

from runtime.kernels.ctc import ctc_loss
from runtime.registry import Attr, bool_, choice, declare, uniform_types


def _ctc_inputs(attrs):
    names = ["data", "label"]
    if attrs.get("use_data_lengths"):
        names.append("data_lengths")
    if attrs.get("use_label_lengths"):
        names.append("label_lengths")
    return names


def _ctc_shapes(in_shapes, attrs):
    data, label = in_shapes[0], in_shapes[1]
    if len(data) != 3:
        raise ValueError("The number of dimensions of the data must be 3 (sequence, batch, alphabet), got %d"
                         % len(data))
    if len(label) != 2 or label[0] != data[1]:
        raise ValueError("The label must be (batch, label length) with batch %d, got %s" % (data[1], tuple(label)))
    return in_shapes, [(data[1],)]


_ctc = declare("CTCLoss", inputs=("data", "label", "data_lengths", "label_lengths"),
               attrs=[Attr("use_data_lengths", bool_, False), Attr("use_label_lengths", bool_, False),
                      Attr("blank_label", choice("first", "last"), "first")],
               kernel=ctc_loss, infer=_ctc_shapes,
               types=uniform_types(free=("label", "data_lengths", "label_lengths")),
               aliases=("ctc_loss", "_contrib_CTCLoss", "_contrib_ctc_loss", "contrib.CTCLoss", "contrib.ctc_loss"))
_ctc.input_names = _ctc_inputs
