"""Record, with real MXNet 1.9.1, `nd.contrib.interleaved_matmul_selfatt_qk`, `_selfatt_valatt`,
`_encdec_qk` and `_encdec_valatt` (the fused attention products GluonNLP's BERT and Transformer
call): outputs, and the gradients of sum(output * seeded weights) with respect to every input; and
`softmax` with `length` (use_length: the scores beyond each row's length masked out), eager with
its gradient and as a Symbol (arguments, inferred shapes), and its rejection of float lengths; and
`reshape_like` with negative ranges (BERT's masked-position decoder uses them).

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


def softmax_length_cases():
    rng = np.random.RandomState(0)
    out = []
    for shape, axis, dtype in (((2, 3, 5), -1, "int32"), ((4, 6), 1, "int64"), ((3, 4, 2), 1, "int32")):
        x = mx.nd.array(rng.uniform(-2, 2, shape).astype("float32"))
        lshape = tuple(d for i, d in enumerate(shape) if i != axis % len(shape))
        length = mx.nd.array(rng.randint(0, shape[axis] + 1, lshape), dtype=dtype)
        weights = mx.nd.array(rng.uniform(-1, 1, shape).astype("float32"))
        x.attach_grad()
        with mx.autograd.record():
            y = mx.nd.softmax(x, length=length, axis=axis, use_length=True, temperature=1.5)
            loss = (y * weights).sum()
        loss.backward()
        symbol = mx.sym.softmax(mx.sym.var("x"), length=mx.sym.var("length"), axis=axis, use_length=True)
        out.append({"x": x.asnumpy().tolist(), "length": length.asnumpy().tolist(), "dtype": dtype, "axis": axis,
                    "weights": weights.asnumpy().tolist(), "out": y.asnumpy().tolist(),
                    "grad": x.grad.asnumpy().tolist(), "arguments": symbol.list_arguments(),
                    "inferred": [list(t) for t in symbol.infer_shape(x=shape)[0]]})
    try:
        mx.nd.softmax(mx.nd.ones((2, 3)), length=mx.nd.ones((2,)), use_length=True).asnumpy()
        error = None
    except mx.base.MXNetError as exc:
        error = [line for line in str(exc).splitlines() if line.startswith("MXNetError")][-1]
    return out, error


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
    softmax, error = softmax_length_cases()
    reshape_like = []
    for lhs, rhs, kwargs in (((4, 64), (2, 2), {"lhs_begin": -2, "lhs_end": -1, "rhs_begin": 0}),
                             ((2, 3, 4), (6, 4, 1), {"lhs_begin": -3, "lhs_end": -1, "rhs_begin": -3, "rhs_end": -2}),
                             ((2, 3, 4), (6, 4, 1), {"lhs_begin": 0, "lhs_end": 2, "rhs_begin": -3, "rhs_end": 1}),
                             ((6, 4), (2, 3, 5), {"lhs_begin": 0, "lhs_end": -1, "rhs_end": -1})):
        result = mx.nd.zeros(lhs).reshape_like(mx.nd.zeros(rhs), **kwargs)
        reshape_like.append({"lhs": lhs, "rhs": rhs, "kwargs": kwargs, "shape": list(result.shape)})
    with open(path, "w") as handle:
        json.dump({"attention": out, "softmax_length": softmax, "float_length_error": error,
                   "reshape_like": reshape_like}, handle)
        handle.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
