"""Record, with real MXNet 1.9.1, `nd.contrib.interleaved_matmul_selfatt_qk`, `_selfatt_valatt`,
`_encdec_qk` and `_encdec_valatt` (the fused attention products GluonNLP's BERT and Transformer
call): outputs, and the gradients of sum(output * seeded weights) with respect to every input.

    python tools/record_attention_cases.py tests/data/attention_cases.json

(a venv with mxnet==1.9.1)
"""
import json
import sys

import mxnet as mx
import numpy as np


def inputs(seed, shapes):
    rng = np.random.RandomState(seed)
    return [rng.uniform(-1, 1, shape).astype("float32") for shape in shapes]


# (operator, input shapes, heads): sequence 5 (4 for the decoder's queries), batch 2, 2 heads of 3
CASES = [("interleaved_matmul_selfatt_qk", [(5, 2, 18)], 2),
         ("interleaved_matmul_selfatt_valatt", [(5, 2, 18), (4, 5, 5)], 2),
         ("interleaved_matmul_encdec_qk", [(4, 2, 6), (5, 2, 12)], 2),
         ("interleaved_matmul_encdec_valatt", [(5, 2, 12), (4, 4, 5)], 2),
         ("interleaved_matmul_selfatt_qk", [(3, 1, 24)], 4)]


def main(path):
    out = []
    for seed, (name, shapes, heads) in enumerate(CASES):
        arrays = [mx.nd.array(a) for a in inputs(seed, shapes)]
        for a in arrays:
            a.attach_grad()
        with mx.autograd.record():
            result = getattr(mx.nd.contrib, name)(*arrays, heads=heads)
            weights = mx.nd.array(np.random.RandomState(100 + seed).uniform(-1, 1, result.shape).astype("float32"))
            loss = (result * weights).sum()
        loss.backward()
        out.append({"op": name, "shapes": shapes, "heads": heads, "seed": seed, "out": result.asnumpy().tolist(),
                    "out_shape": list(result.shape), "grads": [a.grad.asnumpy().tolist() for a in arrays]})
    with open(path, "w") as handle:
        json.dump(out, handle)
        handle.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
