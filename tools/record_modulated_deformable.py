"""Record, with real MXNet 1.9.1, contrib.ModulatedDeformableConvolution (deformable convolution v2)
and the gluon.contrib.cnn layer of that name, for tests/test_runtime_modulated_deformable.py:
offsets large enough to move samples across and past the borders, masks in (0, 2), groups.

usage: python tools/record_modulated_deformable.py tests/data/modulated_deformable_cases.json
       (a venv with mxnet 1.9.1)
"""
import json
import sys

import numpy as np
import mxnet as mx

# (operator keyword arguments, data shape)
OPERATOR_CASES = [
    ({"kernel": (3, 3), "num_filter": 4, "pad": (1, 1)}, (1, 2, 5, 6)),
    ({"kernel": (3, 2), "num_filter": 4, "stride": (2, 1), "dilate": (1, 2), "pad": (1, 0),
      "num_deformable_group": 2, "no_bias": True}, (2, 4, 6, 5)),
    ({"kernel": (1, 1), "num_filter": 6, "num_group": 2}, (1, 4, 3, 4)),
    ({"kernel": (3, 3), "num_filter": 2, "pad": (2, 2), "dilate": (2, 2), "num_group": 2,
      "num_deformable_group": 2}, (1, 4, 4, 4)),
]


def enc(a):
    return {"shape": list(a.shape), "data": np.asarray(a, dtype=np.float32).ravel().tolist()}


def operator_cases(rng):
    records = []
    for kwargs, shape in OPERATOR_CASES:
        n, c, height, width = shape
        kh, kw = kwargs["kernel"]
        sh, sw = kwargs.get("stride", (1, 1))
        dh, dw = kwargs.get("dilate", (1, 1))
        ph, pw = kwargs.get("pad", (0, 0))
        oh = (height + 2 * ph - dh * (kh - 1) - 1) // sh + 1
        ow = (width + 2 * pw - dw * (kw - 1) - 1) // sw + 1
        taps = kwargs.get("num_deformable_group", 1) * kh * kw
        inputs = {"data": rng.uniform(-1, 1, shape), "offset": rng.uniform(-2.5, 2.5, (n, 2 * taps, oh, ow)),
                  "mask": rng.uniform(0, 2, (n, taps, oh, ow)),
                  "weight": rng.uniform(-1, 1, (kwargs["num_filter"], c // kwargs.get("num_group", 1), kh, kw))}
        if not kwargs.get("no_bias"):
            inputs["bias"] = rng.uniform(-1, 1, (kwargs["num_filter"],))
        out = mx.nd.contrib.ModulatedDeformableConvolution(
            **{k: mx.nd.array(v) for k, v in inputs.items()}, **kwargs)
        records.append({"kwargs": kwargs, "inputs": {k: enc(v) for k, v in inputs.items()}, "output": enc(out.asnumpy())})
    return records


def layer_case(rng):
    """The layer with random parameters (its offset and mask convolution too), hybridized."""
    from mxnet.gluon.contrib.cnn import ModulatedDeformableConvolution
    net = ModulatedDeformableConvolution(4, kernel_size=3, padding=1, num_deformable_group=2, prefix="dcn_")
    net.initialize(mx.init.Uniform(0.5))
    x = rng.uniform(-1, 1, (1, 4, 5, 5))
    net(mx.nd.array(x))
    params = {k: v.data().asnumpy() for k, v in net.collect_params().items()}
    net.hybridize()
    return {"input": enc(x), "params": {k: enc(v) for k, v in params.items()},
            "output": enc(net(mx.nd.array(x)).asnumpy())}


def main(out_path):
    rng = np.random.RandomState(5)
    with open(out_path, "w") as f:
        json.dump({"operator": operator_cases(rng), "layer": layer_case(rng)}, f)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
