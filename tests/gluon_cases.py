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


CASES = {f.__name__: f for f in (split_data_along_the_first_axis_gives_views, split_and_load_keeps_csr)}
