"""Record, with real MXNet 1.9.1, operators called through `mx.nd` on fixed inputs: their outputs and
(where MXNet has a gradient) the inputs' gradients under a fixed head gradient, for
tests/test_runtime_operator_cases.py.

usage: python tools/record_operator_cases.py tests/data/operator_cases.json   (a venv with mxnet 1.9.1)

A case is (name, operator path under mx.nd, inputs, keyword attributes, whether to record
gradients). An input given by its shape is uniform in [-1, 1) from one seeded generator, in the
case's order; one given as {"values", "dtype"} is those values.
"""
import json
import sys

import numpy as np
import mxnet as mx
from mxnet import autograd

CASES = [
    # prelu's gamma matched against the data's axes 1 and 0: per channel, per sample and channel, one value
    ("prelu_gamma_per_sample_and_channel", "LeakyReLU", [(3, 4, 2, 2), (3, 4)], {"act_type": "prelu"}, True),
    ("prelu_gamma_full_2d", "LeakyReLU", [(3, 4), (3, 4)], {"act_type": "prelu"}, True),
    ("prelu_gamma_on_axis_0", "LeakyReLU", [(4, 3), (4,)], {"act_type": "prelu"}, True),
    ("prelu_gamma_scalar", "LeakyReLU", [(2, 3, 2), (1,)], {"act_type": "prelu"}, True),
    # in training, BatchNorm's third output is the batch's 1 / sqrt(var + eps); SyncBatchNorm's the variance
    ("batchnorm_mean_and_inverse_std", "BatchNorm", [(4, 3, 2), (3,), (3,), (3,), (3,)],
     {"output_mean_var": True, "fix_gamma": False}, False),
    ("batchnorm_mean_and_inverse_std_last_axis", "BatchNorm", [(4, 3, 2), (2,), (2,), (2,), (2,)],
     {"output_mean_var": True, "axis": -1, "eps": 0.01}, False),
    ("sync_batchnorm_mean_and_variance", "contrib.SyncBatchNorm", [(4, 3, 2), (3,), (3,), (3,), (3,)],
     {"output_mean_var": True, "key": "bn"}, False),
    # im2col / col2im: columns channel-major then taps; each the other's gradient (MXNet's kernels
    # fail on 1-D and 3-D windows, reading 4-D shapes)
    ("im2col_2d", "im2col", [(2, 3, 5, 4)], {"kernel": (2, 3), "stride": (2, 1), "dilate": (1, 1), "pad": (1, 0)}, True),
    ("im2col_1d_dilated", "im2col", [(1, 2, 7)], {"kernel": (3,), "dilate": (2,)}, False),
    ("im2col_3d", "im2col", [(1, 2, 3, 4, 3)], {"kernel": (2, 2, 2), "pad": (1, 0, 1), "stride": (2, 2, 1)}, False),
    # LRN across channels (its second output, tmp_norm, hidden)
    ("lrn_window_3", "LRN", [(2, 5, 3, 2)], {"nsize": 3, "alpha": 0.5, "beta": 0.6, "knorm": 1.5}, True),
    ("lrn_window_1", "LRN", [(1, 3, 2, 2)], {"nsize": 1}, True),
    ("lrn_window_5_of_4_channels", "LRN", [(2, 4, 2, 3)], {"nsize": 5, "alpha": 0.2}, True),
    # contrib.quantize: int8 zero-centred on the larger magnitude, uint8 over [min, max]; and back
    ("quantize_int8", "contrib.quantize", [(3, 4), {"values": [-0.3], "dtype": "float32"},
                                           {"values": [0.8], "dtype": "float32"}], {"out_type": "int8"}, False),
    ("quantize_uint8", "contrib.quantize", [(3, 4), {"values": [-1.0], "dtype": "float32"},
                                            {"values": [1.5], "dtype": "float32"}], {}, False),
    ("dequantize_int8", "contrib.dequantize", [{"values": [[-127, -3, 0], [5, 90, 127]], "dtype": "int8"},
                                               {"values": [-0.5], "dtype": "float32"},
                                               {"values": [2.0], "dtype": "float32"}], {}, False),
    ("dequantize_uint8", "contrib.dequantize", [{"values": [[0, 3, 128], [200, 254, 255]], "dtype": "uint8"},
                                                {"values": [-0.5], "dtype": "float32"},
                                                {"values": [2.0], "dtype": "float32"}], {}, False),
    # interleaved multi-head attention: 2 heads of dim 3, sequences of 4 (queries) and 5 (keys)
    ("interleaved_selfatt_qk", "contrib.interleaved_matmul_selfatt_qk", [(4, 2, 18)], {"heads": 2}, True),
    ("interleaved_selfatt_valatt", "contrib.interleaved_matmul_selfatt_valatt", [(4, 2, 18), (4, 4, 4)],
     {"heads": 2}, True),
    ("interleaved_encdec_qk", "contrib.interleaved_matmul_encdec_qk", [(4, 2, 6), (5, 2, 12)], {"heads": 2}, True),
    ("interleaved_encdec_valatt", "contrib.interleaved_matmul_encdec_valatt", [(5, 2, 12), (4, 4, 5)],
     {"heads": 2}, True),
    # region proposals: 6 anchors on a 4 x 5 map, images smaller than the map (scores -1 past them)
    ("multi_proposal", "contrib.MultiProposal",
     [(2, 12, 4, 5), (2, 24, 4, 5), {"values": [[60, 70, 1.0], [50, 45, 0.8]], "dtype": "float32"}],
     {"scales": (1, 2), "ratios": (0.5, 1, 2), "rpn_pre_nms_top_n": 50, "rpn_post_nms_top_n": 20, "threshold": 0.5,
      "rpn_min_size": 8, "output_score": True}, True),
    ("proposal_default_anchors", "contrib.Proposal",
     [(1, 24, 3, 4), (1, 48, 3, 4), {"values": [[48, 64, 1.0]], "dtype": "float32"}],
     {"rpn_post_nms_top_n": 12, "output_score": True}, False),
    # deformable convolution: offsets moving each tap's sample, bilinear, zero outside the image
    ("deformable_convolution", "contrib.DeformableConvolution", [(2, 4, 5, 6), (2, 2 * 2 * 9, 5, 6), (6, 4, 3, 3), (6,)],
     {"kernel": (3, 3), "pad": (1, 1), "num_filter": 6, "num_deformable_group": 2}, True),
    ("deformable_convolution_strided_grouped", "contrib.DeformableConvolution",
     [(1, 4, 7, 6), (1, 2 * 6, 3, 2), (4, 2, 3, 2)],
     {"kernel": (3, 2), "stride": (2, 2), "dilate": (1, 2), "num_filter": 4, "num_group": 2, "no_bias": True}, True),
    ("col2im_2d", "col2im", [(2, 12, 6)], {"output_size": (4, 5), "kernel": (2, 2), "stride": (2, 2), "pad": (1, 0)},
     True),
]


def enc(a):
    return {"shape": list(a.shape), "dtype": str(a.dtype), "data": a.ravel().tolist()}


def resolve(path):
    target = mx.nd
    for part in path.split("."):
        target = getattr(target, part)
    return target


def record(rng, name, path, shapes, kwargs, grads):
    arrays = [np.array(spec["values"], spec["dtype"]) if isinstance(spec, dict)
              else rng.uniform(-1, 1, spec).astype("float32") for spec in shapes]
    inputs = [mx.nd.array(a, dtype=a.dtype) for a in arrays]
    for x in inputs:
        x.attach_grad()
    entry = {"name": name, "op": path, "kwargs": kwargs, "inputs": [enc(a) for a in arrays]}
    try:
        with autograd.record():
            out = resolve(path)(*inputs, **kwargs)
        outs = out if isinstance(out, (list, tuple)) else [out]
        entry["outputs"] = [enc(o.asnumpy()) for o in outs]
        if grads:
            heads = [rng.uniform(-1, 1, o.shape).astype("float32") for o in outs]
            autograd.backward(outs, [mx.nd.array(h) for h in heads])
            entry["heads"] = [enc(h) for h in heads]
            entry["grads"] = [enc(x.grad.asnumpy()) for x in inputs]
    except mx.base.MXNetError as err:
        entry["error"] = [line for line in str(err).strip().splitlines() if line.strip()][-1]
    return entry


def main(out_path):
    rng = np.random.RandomState(7)
    records = [record(rng, *case) for case in CASES]
    with open(out_path, "w") as out:  # one case a line
        out.write("[\n" + ",\n".join(json.dumps(r) for r in records) + "\n]\n")


if __name__ == "__main__":
    main(sys.argv[1])
