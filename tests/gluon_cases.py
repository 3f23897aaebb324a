"""Gluon cases run on MXNet 1.9.1 (tools/record_gluon_cases.py records them) and on the runtime
(tests/test_runtime_gluon_cases.py): each takes the `mxnet` module and returns JSON values."""


def split_data_along_the_first_axis_gives_views(mx):
    """Slices along axis 0 index the batch (views, MXNet's split_data); other axes are copies."""
    x = mx.nd.arange(12).reshape((6, 2))
    first = mx.gluon.utils.split_data(x, 3)
    x[:] = -1
    y = mx.nd.arange(12).reshape((2, 6))
    other = mx.gluon.utils.split_data(y, 3, batch_axis=1)
    y[:] = -1
    return {"axis0": [p.asnumpy().tolist() for p in first], "axis1": [p.asnumpy().tolist() for p in other]}


def split_and_load_keeps_csr(mx):
    import scipy.sparse as sps
    from mxnet.ndarray import sparse
    c = sparse.csr_matrix(sps.coo_matrix(([2.0, 3.0], ([1, 4], [2, 0]))).tocsr(), shape=(5, 3))
    parts = mx.gluon.utils.split_and_load(c, [mx.cpu(0), mx.cpu(1)], even_split=False)
    return [[p.stype, list(p.shape), p.asnumpy().tolist()] for p in parts]


def a_row_sparse_parameter_saves_every_row(mx):
    """With a Trainer, ParameterDict.save writes a row_sparse parameter's rows; they load into a
    dense parameter of the same name."""
    import os
    import tempfile
    params = mx.gluon.ParameterDict("net_")
    params.get("w0", shape=(2, 3))
    params.get("w1", shape=(4, 3), stype="row_sparse")
    params.initialize(init=mx.init.Constant(1.5))
    mx.gluon.Trainer(params, "sgd")
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "p.params")
        params.save(path)
        dense = mx.gluon.ParameterDict("net_")
        dense.get("w0", shape=(2, 3))
        dense.get("w1", shape=(4, 3))
        dense.load(path)
    w1 = dense.get("w1").data()
    return [w1.stype, w1.asnumpy().tolist()]


def op_hook_names(mx):
    """register_op_hook: the names the callback is given, hybridized (monitor_all or not) and not
    (the array comes as a handle in MXNet, an NDArray here)."""
    from mxnet.base import py_str
    calls = {}
    for case, hybridize, monitor_all in (("all", True, True), ("outputs", True, False), ("eager", False, True)):
        seen = []
        model = mx.gluon.nn.HybridSequential(prefix="m_")
        with model.name_scope():
            model.add(mx.gluon.nn.Dense(2, flatten=False), mx.gluon.nn.Activation("relu"), mx.gluon.nn.MaxPool1D())
        model.initialize()
        if hybridize:
            model.hybridize()
        model.register_op_hook(lambda name, op, array: seen.append([py_str(name), py_str(op)]),
                               monitor_all)
        model(mx.nd.ones((2, 3, 4)).reshape((1, 6, 4)))
        calls[case] = seen
    return calls


def recorded_hybridized_calls_by_inline_limit(mx):
    """autograd.get_symbol of a hybridized call: its operators when the graph has at most
    inline_limit of them (2 by default), else one _CachedOp node; static_alloc never inlines."""
    import json
    ops = {}
    for case, flags in (("limit3", {"inline_limit": 3}), ("limit0", {"inline_limit": 0}), ("default", {}),
                        ("static", {"inline_limit": 3, "static_alloc": True})):
        net = mx.gluon.nn.HybridSequential()
        with net.name_scope():
            for _ in range(3):
                net.add(mx.gluon.nn.Dense(4))
        net.initialize()
        net.hybridize(**flags)
        with mx.autograd.record():
            y = net(mx.nd.zeros((1, 5)))
        nodes = json.loads(mx.autograd.get_symbol(y).tojson())["nodes"]
        ops[case] = [node["op"] for node in nodes]
        y.backward()
    return ops


CASES = {f.__name__: f for f in (split_data_along_the_first_axis_gives_views, split_and_load_keeps_csr,
                                 a_row_sparse_parameter_saves_every_row, op_hook_names,
                                 recorded_hybridized_calls_by_inline_limit)}
