"""Loss-output operators: their forward is the prediction (identity, or a sigmoid), and their
gradient, declared in runtime/ops/grad_nn.py, is the loss's, whatever the head gradient."""
from __future__ import annotations

from runtime.kernels import elementwise as k
from runtime.registry import Attr, bool_, choice, declare, float_, uniform_types


def _label_like_data(in_shapes, attrs):
    """A regression label has the data's shape, or its size (a (N,) label for (N, 1) data)."""
    data = in_shapes[0]
    if len(in_shapes) > 1 and in_shapes[1] is None:
        in_shapes[1] = data
    return in_shapes, [data]


def _prediction(kernel):
    def run(data, label, grad_scale=1.0):
        return kernel(data)
    return run


for _name, _kernel in (("LinearRegressionOutput", k.identity), ("MAERegressionOutput", k.identity),
                       ("LogisticRegressionOutput", k.sigmoid)):
    declare(_name, inputs=("data", "label"), attrs=[Attr("grad_scale", float_, 1.0)], kernel=_prediction(_kernel),
            infer=_label_like_data, types=uniform_types())  # label and data of one dtype (MXNet 1.9.1)


def _svm_shapes(in_shapes, attrs):
    if in_shapes[1] is None:
        in_shapes[1] = (in_shapes[0][0],)
    return in_shapes, [in_shapes[0]]


declare("SVMOutput", inputs=("data", "label"),
        attrs=[Attr("margin", float_, 1.0), Attr("regularization_coefficient", float_, 1.0),
               Attr("use_linear", bool_, False)],
        kernel=lambda data, label, margin=1.0, regularization_coefficient=1.0, use_linear=False: k.identity(data),
        infer=_svm_shapes, types=uniform_types(wording="layer"))
declare("MakeLoss", attrs=[Attr("grad_scale", float_, 1.0), Attr("valid_thresh", float_, 0.0),
                           Attr("normalization", choice("null", "batch", "valid"), "null")],
        kernel=lambda data, grad_scale=1.0, valid_thresh=0.0, normalization="null": k.identity(data),
        infer=lambda s, a: (s, [s[0]]))
declare("make_loss", kernel=k.identity, infer=lambda s, a: (s, [s[0]]))
