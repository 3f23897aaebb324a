"""Record MXNet 1.9.1's results for sparse storage cases (row_sparse and csr arrays).

    /path/to/mxnet-venv/bin/python tools/record_sparse_cases.py > tests/data/sparse_cases.jsonl

Each case names the operator it exercises and is a Python expression over `mx` and `np`, or
statements that set `result` (run with exec), (with
`D`, a 4x5 matrix with a zero row and a zero column, and `W`, a 5x3 matrix with a zero row). Its
value is written as {"id", "op", "code", "result"}: an array as {stype, shape, dtype, data (dense,
flattened)} plus, for a sparse one, its `indices` (and `indptr` for csr) and stored `values`; a
list of values as a list; {"error": exception type name} when MXNet raises.
tests/test_runtime_sparse.py evaluates the same expressions on the runtime and compares.
"""
import json
import sys

import numpy as np

D = np.array([[0.5, 0, 1.5, -2, 0], [0, 0, 0, 0, 0], [3, -1, 0, 0.25, 4], [0, 2, 0, 0, -1]], dtype=np.float32)
W = np.array([[1, 2, 3], [0, 0, 0], [-1, 0.5, 2], [4, 1, -3], [0.5, 0.5, 0.5]], dtype=np.float32)
G = np.array([[0, 0, 0], [1, -2, 0.5], [0, 0, 0], [0.25, 3, -1], [0, 0, 0]], dtype=np.float32)

R = "mx.nd.array(D).tostype('row_sparse')"
C = "mx.nd.array(D).tostype('csr')"
# one update of weight by an optimizer with the row_sparse gradient G; the weight and states after it
STEP = ("(lambda w, o: (lambda s: (o.update(0, w, mx.nd.array(G).tostype('row_sparse'), s), "
        "[w] + ([] if s is None else list(s) if isinstance(s, (list, tuple)) else [s]))[1])"
        "(o.create_state(0, w)))(%s, %s)")
CASES = [
    # creation
    ("create/rsp_from_dense", "cast_storage", R),
    ("create/csr_from_dense", "cast_storage", C),
    ("create/rsp_tuple", "cast_storage",
     "mx.nd.sparse.row_sparse_array(([[1, 2], [0, 0], [3, 4]], [1, 3, 4]), shape=(6, 2))"),
    ("create/rsp_tuple_infer", "cast_storage", "mx.nd.sparse.row_sparse_array(([[1, 2], [3, 4]], [0, 2]))"),
    ("create/csr_tuple", "cast_storage", "mx.nd.sparse.csr_matrix(([1, 0, 3], [0, 2, 1], [0, 2, 2, 3]), shape=(3, 4))"),
    ("create/csr_tuple_infer", "cast_storage", "mx.nd.sparse.csr_matrix(([1, 2, 3], [0, 2, 1], [0, 2, 2, 3]))"),
    ("create/csr_coo", "cast_storage", "mx.nd.sparse.csr_matrix(([1, 2, 3], ([0, 2, 2], [1, 0, 3])), shape=(3, 4))"),
    ("create/csr_int64", "cast_storage", "mx.nd.sparse.csr_matrix(np.array([[0, 1], [2, 0]], dtype='int64'))"),
    ("create/zeros_rsp", "cast_storage", "mx.nd.zeros((3, 2), stype='row_sparse')"),
    ("create/zeros_csr", "cast_storage", "mx.nd.sparse.zeros('csr', (2, 3), dtype='float64')"),
    ("create/empty_rsp", "cast_storage", "mx.nd.sparse.empty('row_sparse', (2, 2))"),
    ("create/array_copy", "cast_storage", "mx.nd.sparse.array(%s, dtype='float16')" % C),
    ("cast/rsp_to_dense", "cast_storage", "mx.nd.cast_storage(%s, stype='default')" % R),
    ("cast/csr_to_rsp", "cast_storage", "%s.tostype('row_sparse')" % C),
    ("cast/rsp_to_csr", "cast_storage", "%s.tostype('csr')" % R),
    ("astype/rsp", "cast_storage", "%s.astype('int32')" % R),
    ("copy/csr", "cast_storage", "%s.copy()" % C),
    ("copyto/dense", "cast_storage", "%s.copyto(mx.nd.zeros((4, 5)))" % R),
    ("getitem/csr_rows", "slice", "%s[1:3]" % C),
    ("getitem/csr_row", "slice", "%s[2]" % C),
    ("retain", "_sparse_retain", "mx.nd.sparse.retain(%s, mx.nd.array([0, 1, 3], dtype='int64'))" % R),
    ("retain/keyword", "_sparse_retain", "mx.nd.sparse.retain(%s, indices=mx.nd.array([2]))" % R),
    # storage inference of operators
    ("rsp+rsp", "elemwise_add", "%s + %s" % (R, R)),
    ("csr-csr", "elemwise_sub", "%s - %s" % (C, C)),
    ("rsp+dense", "elemwise_add", "%s + mx.nd.array(D)" % R),
    ("rsp*dense", "elemwise_mul", "%s * mx.nd.ones((4, 5))" % R),
    ("dense*rsp", "broadcast_mul", "mx.nd.ones((4, 5)) * %s" % R),
    ("csr*csr", "elemwise_mul", "mx.nd.elemwise_mul(%s, %s)" % (C, C)),
    ("csr/dense", "broadcast_div", "%s / mx.nd.ones((4, 5))" % C),
    ("csr*row", "broadcast_mul", "mx.nd.broadcast_mul(%s, mx.nd.array([[1, 2, 3, 4, 5]]))" % C),
    ("rsp*2", "_mul_scalar", "%s * 2" % R),
    ("csr+1", "_plus_scalar", "%s + 1" % C),
    ("rsp>0", "_greater_scalar", "%s > 0" % R),
    ("rsp==0", "_equal_scalar", "%s == 0" % R),
    ("-csr", "negative", "-%s" % C),
    ("sqrt/rsp", "sqrt", "mx.nd.sqrt(mx.nd.abs(%s))" % R),
    ("exp/csr", "exp", "mx.nd.exp(%s)" % C),
    ("relu/csr", "relu", "mx.nd.relu(%s)" % C),
    ("zeros_like/rsp", "zeros_like", "mx.nd.zeros_like(%s)" % R),
    ("add_n/rsp", "add_n", "mx.nd.add_n(%s, %s, %s)" % (R, R, R)),
    ("sum/csr", "sum", "mx.nd.sum(%s, axis=0)" % C),
    ("dot/csr_dense", "dot", "mx.nd.sparse.dot(%s, mx.nd.array(W))" % C),
    ("dot/csrT_dense", "dot", "mx.nd.sparse.dot(%s, mx.nd.array(W[:4]), transpose_a=True)" % C),
    ("dot/csrT_rsp", "dot", "mx.nd.dot(%s, mx.nd.array(G[:4]).tostype('row_sparse'), transpose_a=True)" % C),
    ("dot/dense_csr", "dot", "mx.nd.dot(mx.nd.array(W[:4].T), %s)" % C),
    ("dot/csr_rsp", "dot", "mx.nd.dot(%s, mx.nd.array(W).tostype('row_sparse'))" % C),
    ("slice/csr", "slice", "mx.nd.slice(%s, begin=(1, 1), end=(3, 4))" % C),
    ("slice/rsp", "slice", "mx.nd.slice(%s, begin=(1,), end=(3,))" % R),
    ("square_sum/rsp_keepdims", "_square_sum", "mx.nd._internal._square_sum(%s, axis=1, keepdims=True)" % R),
    ("square_sum/rsp_axis0", "_square_sum", "mx.nd._internal._square_sum(%s, axis=0)" % R),
    ("norm/rsp", "norm", "mx.nd.norm(%s)" % R),
    ("where/csr", "where", "mx.nd.sparse.where(%s, mx.nd.ones((4, 5)), mx.nd.zeros((4, 5)))" % C),
    ("concat/csr", "concat", "mx.nd.concat(%s, %s, dim=0)" % (C, C)),
    ("sparse.add", "elemwise_add", "mx.nd.sparse.add(%s, %s)" % (R, R)),
    ("sparse.multiply", "elemwise_mul", "mx.nd.sparse.multiply(%s, mx.nd.array(D))" % C),
    ("getnnz", "_contrib_getnnz", "mx.nd.contrib.getnnz(%s)" % C),
    ("getnnz/rows", "_contrib_getnnz", "mx.nd.contrib.getnnz(%s, axis=1)" % C),
    ("getnnz/columns", "_contrib_getnnz", "mx.nd.contrib.getnnz(%s, axis=0)" % C),
    # optimizers: a row_sparse gradient (rows 1 and 3 of G) updates only its rows when the update is lazy
    *[("optimizer/%s" % name, "cast_storage", STEP % (weight, options)) for name, weight, options in (
        ("sgd_lazy", "mx.nd.array(W)", "mx.optimizer.SGD(learning_rate=0.1, wd=0.1)"),
        ("sgd_momentum_lazy/weight_missing_rows", "mx.nd.array(W).tostype('row_sparse')",
         "mx.optimizer.SGD(learning_rate=0.1, momentum=0.9, wd=0.1, clip_gradient=1.5)"),
        ("sgd_std", "mx.nd.array(W)", "mx.optimizer.SGD(learning_rate=0.1, momentum=0.9, wd=0.1, lazy_update=False)"),
        ("adam_lazy", "mx.nd.array(W)", "mx.optimizer.Adam(learning_rate=0.1, wd=0.1, rescale_grad=0.5)"),
        ("adam_std", "mx.nd.array(W)", "mx.optimizer.Adam(learning_rate=0.1, wd=0.1, lazy_update=False)"),
        ("adagrad", "mx.nd.array(W)", "mx.optimizer.AdaGrad(learning_rate=0.1)"),
        ("ftrl/weight_missing_rows", "mx.nd.array(W).tostype('row_sparse')",
         "mx.optimizer.Ftrl(learning_rate=0.1, wd=0.1)"),
        ("sgd_momentum_rsp_weight", "mx.nd.array(W + 10).tostype('row_sparse')",
         "mx.optimizer.SGD(learning_rate=0.1, momentum=0.9, wd=0.1)"),
        ("ftrl_rsp_weight", "mx.nd.array(W + 10).tostype('row_sparse')", "mx.optimizer.Ftrl(learning_rate=0.1)"),
        ("adam_rsp_weight", "mx.nd.array(W + 10).tostype('row_sparse')", "mx.optimizer.Adam(learning_rate=0.1)"),
        ("rmsprop_dense_fallback", "mx.nd.array(W)", "mx.optimizer.RMSProp(learning_rate=0.1, wd=0.1)"))],
    # gradients of row_sparse storage
    ("grad/embedding_sparse_grad", "Embedding",
     "from mxnet import gluon\ne = gluon.nn.Embedding(5, 3, sparse_grad=True)\ne.initialize(mx.init.Constant(0.5))\n"
     "with mx.autograd.record():\n    y = e(mx.nd.array([[0, 3], [3, 1]]))\ny.backward()\nresult = e.weight.grad()"),
    ("grad/embedding_op_attach_grad", "Embedding",
     "w = mx.nd.array(W)\nw.attach_grad(stype='row_sparse')\nwith mx.autograd.record():\n"
     "    y = mx.nd.Embedding(mx.nd.array([4, 2, 4]), w, input_dim=5, output_dim=3, sparse_grad=True)\n"
     "    z = y * y\nz.backward()\nresult = [w.grad, y]"),
    ("grad/dot_csr_rsp_weight", "dot",
     "w = mx.nd.array(W)\nw.attach_grad(stype='row_sparse')\nwith mx.autograd.record():\n"
     "    y = mx.nd.sparse.dot(mx.nd.array(D).tostype('csr'), w)\ny.backward()\nresult = w.grad"),
    ("grad/attach_grad_stype", "cast_storage",
     "x = mx.nd.zeros((2, 2), stype='csr')\nx.attach_grad()\n"
     "y = mx.nd.zeros((2, 2))\ny.attach_grad(stype='row_sparse')\n"
     "result = [x.grad, y.grad, x.detach()]"),
    ("grad/gamma_at_poles", "gamma",
     "x = mx.nd.array([0, -1, -2, 0.5, 1]).tostype('row_sparse')\nx.attach_grad()\nwith mx.autograd.record():\n"
     "    y = mx.nd.sparse.gamma(x)\n    z = mx.nd.gammaln(x)\nmx.autograd.backward([y, z])\nresult = [y, z, x.grad]"),
    ("trainer/sparse_grad_sgd", "cast_storage",
     "from mxnet import gluon\nx = gluon.Parameter('x', shape=(4, 2), grad_stype='row_sparse')\n"
     "x.initialize(ctx=mx.cpu(0), init=mx.init.Constant(1))\n"
     "t = gluon.Trainer([x], 'sgd', {'learning_rate': 0.5, 'momentum': 0.5, 'wd': 0.1})\n"
     "for step in range(2):\n    with mx.autograd.record():\n"
     "        y = mx.nd.Embedding(mx.nd.array([step]), x.data(), input_dim=4, output_dim=2, sparse_grad=True)\n"
     "    y.backward()\n    t.step(1)\nresult = [x.data(), x.grad()]"),
    ("trainer/row_sparse_parameter", "_sparse_retain",
     "from mxnet import gluon\nx = gluon.Parameter('x', shape=(6, 2), stype='row_sparse', grad_stype='row_sparse')\n"
     "x.initialize(ctx=mx.cpu(0), init=mx.init.Constant(2))\nt = gluon.Trainer([x], 'sgd', {'learning_rate': 0.1})\n"
     "with mx.autograd.record():\n    w = x.row_sparse_data(mx.nd.array([1, 4]))\n    y = w * 3\ny.backward()\n"
     "t.step(1)\nresult = [x.row_sparse_data(mx.nd.array([0, 1, 5])), x.grad(), x.var().attr('__storage_type__')]"),
    ("error/row_sparse_parameter_data", "cast_storage",
     "from mxnet import gluon\nx = gluon.Parameter('x', shape=(6, 2), stype='row_sparse')\nx.initialize()\n"
     "result = x.data()"),
    ("error/row_sparse_data_without_trainer", "cast_storage",
     "from mxnet import gluon\nx = gluon.Parameter('x', shape=(6, 2), stype='row_sparse')\nx.initialize()\n"
     "result = x.row_sparse_data(mx.nd.array([1]))"),
    ("error/row_sparse_data_of_dense", "cast_storage",
     "from mxnet import gluon\nx = gluon.Parameter('x', shape=(6, 2))\nx.initialize()\n"
     "t = gluon.Trainer([x], 'sgd')\nresult = x.row_sparse_data(mx.nd.array([1]))"),
    ("error/symbol_block_sparse_parameter", "dot",
     "d = mx.sym.var('data')\nout = mx.sym.dot(d, mx.sym.var('weight', stype='row_sparse'))\n"
     "result = mx.gluon.SymbolBlock(out, d)"),
    ("error/invalid_grad_stype", "cast_storage", "mx.gluon.Parameter('x', shape=(2, 2), grad_stype='dense')"),
    ("executor/embedding_sparse_grad", "Embedding",
     "w = mx.sym.var('w', stype='row_sparse')\n"
     "e = mx.sym.sparse.Embedding(data=mx.sym.var('data'), weight=w, input_dim=5, output_dim=3, sparse_grad=True)\n"
     "ex = e.simple_bind(mx.cpu(), grad_req={'data': 'null', 'w': 'write'}, data=(3,))\n"
     "ex.arg_dict['data'][:] = mx.nd.array([4, 2, 4])\nex.arg_dict['w'][:] = mx.nd.array(W).tostype('row_sparse')\n"
     "ex.forward(is_train=True)\nex.backward([mx.nd.ones((3, 3))])\n"
     "result = [ex.outputs[0], ex.grad_dict['w'], ex.arg_dict['w']]"),
    ("quadratic/csr", "_contrib_quadratic", "mx.nd.contrib.quadratic(%s, a=0.5, b=-2, c=0)" % C),
    ("quadratic/csr_c", "_contrib_quadratic", "mx.nd.contrib.quadratic(%s, a=0.5, b=-2, c=1)" % C),
    ("quadratic/rsp", "_contrib_quadratic", "mx.nd.contrib.quadratic(%s, a=0.5, b=-2)" % R),
    ("quadratic/dense", "_contrib_quadratic", "mx.nd.contrib.quadratic(mx.nd.array(D), a=3, b=1, c=-1)"),
    ("quadratic/sym", "_contrib_quadratic",
     "mx.sym.contrib.quadratic(mx.sym.var('x'), a=2, c=4).eval(x=mx.nd.array([[1, -2]]))"),
    ("executor/output_storage", "elemwise_add",
     "x, y = mx.sym.var('x', stype='row_sparse'), mx.sym.var('y', stype='csr')\n"
     "out = mx.sym.Group([x + x, mx.sym.sqrt(mx.sym.abs(y)), mx.sym.sparse.dot(y, x, transpose_a=True), x * 2, "
     "mx.sym.exp(x)])\n"
     "ex = out.bind(mx.cpu(), {'x': mx.nd.array(D[:, :4].T).tostype('row_sparse'), "
     "'y': mx.nd.array(D).tostype('csr')})\nresult = ex.forward()"),
    ("kvstore/row_sparse_pull", "_sparse_retain",
     "kv = mx.kv.create('local')\nkv.init('w', mx.nd.array(W).tostype('row_sparse'))\n"
     "outs = [mx.nd.sparse.zeros('row_sparse', (5, 3)) for _ in range(2)]\n"
     "kv.row_sparse_pull('w', out=outs, row_ids=[mx.nd.array([0, 2]), mx.nd.array([3, 1, 3])])\nresult = outs"),
    # errors
    ("error/rsp_shape_mismatch", "cast_storage", "mx.nd.sparse.row_sparse_array(mx.nd.array(D), shape=(2, 2))"),
    ("error/csr_from_rsp", "cast_storage", "mx.nd.sparse.csr_matrix(%s)" % R),
]


def encode(value):
    import mxnet as mx
    if isinstance(value, mx.nd.NDArray):
        dense = value.asnumpy()
        out = {"stype": value.stype, "shape": list(value.shape), "dtype": str(dense.dtype),
               "data": dense.reshape(-1).tolist()}
        if value.stype != "default":
            out["indices"] = value.indices.asnumpy().tolist()
            out["values"] = value.data.asnumpy().reshape(-1).tolist()
            if value.stype == "csr":
                out["indptr"] = value.indptr.asnumpy().tolist()
                # a csr result may carry unused (uninitialised) room past indptr[-1]: not recorded
                stored = out["indptr"][-1]
                out["indices"], out["values"] = out["indices"][:stored], out["values"][:stored]
        return out
    if isinstance(value, (list, tuple)):
        return [encode(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def main():
    import mxnet as mx
    for case_id, op, code in CASES:
        try:
            scope = {"mx": mx, "np": np, "D": D, "W": W, "G": G}
            if "result = " in code:
                exec(code, scope)
                result = encode(scope["result"])
            else:
                result = encode(eval(code, scope))
        except Exception as exc:  # noqa: BLE001 - the recorded outcome is the exception's type
            result = {"error": type(exc).__name__}
        sys.stdout.write(json.dumps({"id": case_id, "op": op, "code": code, "result": result}) + "\n")


if __name__ == "__main__":
    main()
