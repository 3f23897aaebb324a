"""Record, with real MXNet 1.9.1, the `linalg.*` operators' outputs and gradients, and their
rejections of bad input.

    python tools/record_linalg_cases.py fixtures/golden/grads_linalg.jsonl tests/data/linalg_rejections.jsonl

(a venv with mxnet==1.9.1). The first file is in the format of fixtures/golden/grads_outputs.jsonl:
each case runs under autograd.record() with its float inputs attached, then backward with a
recorded head gradient per output; `outputs` are the forward results. Inputs come in float32 and
float64, batched and not, with the attributes that change a result (transposes, alpha/beta, axis,
lower, rightside, offset), and with the triangle the operator does not read filled with noise.
The second file is in the format of tests/data/mxnet_rejections.jsonl: each bad call through
`mx.nd` and through `mx.sym` bound and run forward; `words` is the part of MXNet's message after
its C++ check expression.
"""
import json
import re
import sys

import mxnet as mx
import numpy as np
from mxnet import autograd, nd


def enc(a):
    a = np.asarray(a)
    return {"shape": list(a.shape), "dtype": str(a.dtype), "data": a.ravel().tolist()}


def spd(rng, n, batch=()):
    x = rng.uniform(-1, 1, batch + (n, n))
    return np.matmul(x, np.swapaxes(x, -1, -2)) + n * np.eye(n)


def factor(rng, n, batch=(), lower=True, noise=True):
    """A triangular factor with a positive diagonal; the other triangle holds noise (never read)."""
    x = rng.uniform(-1, 1, batch + (n, n)) + 2 * np.eye(n)
    tri = np.tril(x) if lower else np.triu(x)
    if noise:
        tri = tri + (np.triu(rng.uniform(5, 9, x.shape), 1) if lower else np.tril(rng.uniform(5, 9, x.shape), -1))
    return tri


def cases():
    rng = np.random.RandomState(7)
    for dtype in ("float64", "float32"):
        u = lambda *shape: rng.uniform(-1, 1, shape).astype(dtype)  # noqa: E731
        yield "linalg.gemm", {"alpha": 1.5, "beta": -0.5}, [u(2, 3), u(3, 4), u(2, 4)]
        yield "linalg.gemm", {"transpose_a": True, "transpose_b": True, "alpha": 2.0}, [u(2, 3, 2), u(2, 4, 3), u(2, 2, 4)]
        yield "linalg.gemm", {"axis": 0, "beta": 2.0}, [u(3, 2, 4), u(4, 2, 5), u(3, 2, 5)]
        yield "linalg.gemm2", {"transpose_a": True, "alpha": 0.5}, [u(3, 2), u(3, 4)]
        yield "linalg.gemm2", {"axis": -3, "transpose_b": True}, [u(2, 3, 2, 4), u(2, 5, 2, 4)]
        for lower in (True, False):
            # potrf reads one triangle: the other one holds noise
            a = spd(rng, 3, (2,))
            noise = np.triu(rng.uniform(3, 6, a.shape), 1) if lower else np.tril(rng.uniform(3, 6, a.shape), -1)
            yield "linalg.potrf", {"lower": lower}, [(a + noise).astype(dtype)]
            yield "linalg.potri", {"lower": lower}, [factor(rng, 3, (2,), lower).astype(dtype)]
        yield "linalg.potrf", {}, [spd(rng, 4).astype(dtype)]
        for flags in ({}, {"transpose": True}, {"rightside": True}, {"rightside": True, "transpose": True, "lower": False},
                      {"lower": False}):
            lower = flags.get("lower", True)
            b_shape = (2, 2, 3) if flags.get("rightside") else (2, 3, 2)
            yield "linalg.trmm", dict(flags, alpha=1.5), [factor(rng, 3, (2,), lower).astype(dtype),
                                                          rng.uniform(-1, 1, b_shape).astype(dtype)]
            yield "linalg.trsm", dict(flags, alpha=-0.7), [factor(rng, 3, (2,), lower).astype(dtype),
                                                           rng.uniform(-1, 1, b_shape).astype(dtype)]
        yield "linalg.syrk", {"alpha": 0.5}, [u(2, 3, 4)]
        yield "linalg.syrk", {"transpose": True}, [u(3, 2)]
        yield "linalg.sumlogdiag", {}, [rng.uniform(0.5, 2, (2, 3, 3)).astype(dtype)]
        yield "linalg.sumlogdiag", {}, [rng.uniform(0.5, 2, (3, 3)).astype(dtype)]
        yield "linalg.extractdiag", {"offset": 1}, [u(2, 3, 3)]
        yield "linalg.extractdiag", {"offset": -2}, [u(4, 4)]
        yield "linalg.makediag", {"offset": -1}, [u(2, 3)]
        yield "linalg.makediag", {}, [u(3)]
        for offset, lower in ((0, True), (0, False), (1, True), (-1, False)):
            yield "linalg.extracttrian", {"offset": offset, "lower": lower}, [u(2, 4, 4)]
            yield "linalg.maketrian", {"offset": offset, "lower": lower}, [u(2, 6)]
        yield "linalg.inverse", {}, [spd(rng, 3, (2,)).astype(dtype)]
        yield "linalg.det", {}, [(rng.uniform(-1, 1, (2, 3, 3)) + 2 * np.eye(3)).astype(dtype)]
        yield "linalg.det", {}, [np.array([[1, 2], [2, 4]], dtype)]  # singular: no gradient
        yield "linalg.slogdet", {}, [np.array([[[-2, 1, 0.5], [0.3, 1, 0.2], [0.1, 0.4, 3]],
                                               [[1, 2, 0], [2, 1, 0.5], [0, 0.5, 2]]], dtype)]
        yield "linalg.gelqf", {}, [u(2, 3, 5)]
        yield "linalg.gelqf", {}, [u(3, 3)]
        # syevd reads the lower triangle: the upper one holds noise; distinct eigenvalues
        a = spd(rng, 4, (2,)) + np.diag([0, 1, 3, 6])
        yield "linalg.syevd", {}, [(a + np.triu(rng.uniform(-3, 3, a.shape), 1)).astype(dtype)]


def record(number, op, kwargs, arrays):
    xs = [nd.array(a, dtype=a.dtype) for a in arrays]
    for x in xs:
        x.attach_grad()
    function = nd
    for part in op.split("."):
        function = getattr(function, part)
    with autograd.record():
        out = function(*xs, **kwargs)
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    rng = np.random.RandomState(100 + number)
    heads = [rng.uniform(-1, 1, o.shape).astype(o.dtype) for o in outs]
    autograd.backward(outs, head_grads=[nd.array(h, dtype=h.dtype) for h in heads])
    return {"id": "%s/la%d" % (op, number), "op": op, "kwargs": kwargs, "inputs": [enc(a) for a in arrays],
            "grad_inputs": [True] * len(arrays), "heads": [enc(h) for h in heads],
            "outputs": [enc(o.asnumpy()) for o in outs], "grads": [enc(x.grad.asnumpy()) for x in xs]}


def bad_calls():
    ones = lambda *shape, dtype="float32": np.ones(shape, dtype)  # noqa: E731
    yield "potrf/not_square", "linalg.potrf", {}, [ones(2, 3)]
    yield "potrf/not_positive", "linalg.potrf", {}, [np.array([[1, 2], [2, 1]], "float32")]
    yield "potrf/not_positive64", "linalg.potrf", {"lower": False}, [np.array([[1, 2], [2, 1]], "float64")]
    yield "potri/not_square", "linalg.potri", {}, [ones(2, 3)]
    yield "gemm/inner", "linalg.gemm", {}, [ones(2, 3), ones(2, 3), ones(2, 2)]
    yield "gemm/c_shape", "linalg.gemm", {}, [ones(2, 3), ones(3, 2), ones(3, 3)]
    yield "gemm/batch", "linalg.gemm", {}, [ones(2, 2, 3), ones(3, 3, 2), ones(2, 2, 2)]
    yield "gemm2/inner", "linalg.gemm2", {"transpose_a": True}, [ones(2, 3), ones(3, 2)]
    yield "gemm2/batch", "linalg.gemm2", {}, [ones(2, 2, 3), ones(3, 3, 2)]
    yield "gemm2/axis", "linalg.gemm2", {"axis": 1}, [ones(2, 3), ones(3, 2)]
    yield "gemm2/float16", "linalg.gemm2", {}, [ones(2, 2, dtype="float16"), ones(2, 2, dtype="float16")]
    yield "gemm2/mixed", "linalg.gemm2", {}, [ones(2, 2), ones(2, 2, dtype="float64")]
    yield "trmm/not_square", "linalg.trmm", {}, [ones(2, 3), ones(3, 2)]
    yield "trmm/batch", "linalg.trmm", {}, [ones(2, 3, 3), ones(3, 3, 2)]
    yield "trsm/inner", "linalg.trsm", {}, [ones(3, 3), ones(2, 2)]
    yield "trsm/right_inner", "linalg.trsm", {"rightside": True}, [ones(3, 3), ones(3, 2)]
    yield "sumlogdiag/not_square", "linalg.sumlogdiag", {}, [ones(2, 3)]
    yield "extractdiag/vector", "linalg.extractdiag", {}, [ones(3)]
    yield "extractdiag/not_square", "linalg.extractdiag", {}, [ones(2, 3)]
    yield "extractdiag/offset", "linalg.extractdiag", {"offset": 3}, [ones(3, 3)]
    yield "extracttrian/offset", "linalg.extracttrian", {"offset": -3}, [ones(3, 3)]
    yield "maketrian/length", "linalg.maketrian", {}, [ones(4)]
    yield "syevd/not_square", "linalg.syevd", {}, [ones(2, 3)]
    yield "gelqf/tall", "linalg.gelqf", {}, [ones(3, 2)]
    yield "inverse/not_square", "linalg.inverse", {}, [ones(2, 3)]
    yield "inverse/singular", "linalg.inverse", {}, [np.zeros((2, 2), "float32")]
    yield "det/not_square", "linalg.det", {}, [ones(2, 3)]
    yield "det/vector", "linalg.det", {}, [ones(3)]
    yield "det/float16", "linalg.det", {}, [ones(2, 2, dtype="float16")]
    yield "det/singular", "linalg.det", {}, [np.zeros((2, 2), "float32")]
    yield "slogdet/not_square", "linalg.slogdet", {}, [ones(2, 3)]
    yield "slogdet/singular", "linalg.slogdet", {}, [np.zeros((2, 2), "float64")]


def outcome(run):
    try:
        result = run()
        results = result if isinstance(result, (list, tuple)) else [result]
        values = [enc(r.asnumpy()) for r in results]
        return values if len(values) > 1 else values[0]
    except Exception as exc:  # noqa: BLE001 - MXNet's exception is what is recorded
        lines = [line for line in str(exc).strip().splitlines() if line.strip()]
        message = next((line for line in reversed(lines) if "Error" in line or "Check failed" in line), lines[-1])
        message = message.split("MXNetError: ", 1)[-1]
        record = {"error": type(exc).__name__, "message": message}
        if type(exc).__name__ == "MXNetError":
            record["words"] = _words(message)
        return record


def _words(message):
    """MXNet's message without the graph node's prefix, the check's C++ expression and its values
    (a check with no words of its own: the expression and its values)."""
    if message.endswith(" :"):
        return message[:-2].split("Check failed: ", 1)[-1]
    if " : " in message:
        return message.rsplit(" : ", 1)[-1]
    if "Check failed: " in message:
        return message.split("Check failed: ", 1)[-1].split(": ", 1)[-1]
    message = re.sub(r", in operator \w+\(.*\)$", "", message)  # the call's attributes, as MXNet prints them
    return re.sub(r"^Error in operator \S+: ", "", message)


def rejection(case_id, op, kwargs, arrays):
    def nd_run():
        function = nd
        for part in op.split("."):
            function = getattr(function, part)
        return function(*[nd.array(a, dtype=a.dtype) for a in arrays], **kwargs)

    def sym_run():
        function = mx.sym
        for part in op.split("."):
            function = getattr(function, part)
        names = ["in%d" % i for i in range(len(arrays))]
        out = function(*[mx.sym.var(n) for n in names], **kwargs)
        args = {n: nd.array(a, dtype=a.dtype) for n, a in zip(names, arrays)}
        outputs = out.bind(mx.cpu(), {n: args[n] for n in out.list_arguments()}).forward(is_train=False)
        return outputs if len(outputs) > 1 else outputs[0]

    return {"id": case_id, "op": op, "kwargs": kwargs, "inputs": [enc(a) for a in arrays],
            "nd": outcome(lambda: [r.wait_to_read() or r for r in _listed(nd_run())]),
            "sym": outcome(lambda: [r.wait_to_read() or r for r in _listed(sym_run())])}


def _listed(result):
    return list(result) if isinstance(result, (list, tuple)) else [result]


def main(grads_path, rejections_path):
    assert mx.__version__ == "1.9.1", mx.__version__
    with open(grads_path, "w") as out:
        for number, case in enumerate(cases()):
            out.write(json.dumps(record(number, *case)) + "\n")
    with open(rejections_path, "w") as out:
        for case in bad_calls():
            out.write(json.dumps(rejection(*case)) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
