"""Record MXNet 1.9.1's answers for NDArray and Symbol front-end cases (methods, helpers, checks).

    /path/to/mxnet-venv/bin/python tools/record_ndarray_symbol_cases.py > tests/data/ndarray_symbol_cases.jsonl

Each case is a Python expression over `mx` and `np` (with the operator it computes, where it
counts as that operator's case, between the id and the code); its value (an NDArray, a list or tuple of
them, or a plain value) is written as {"id", "code", "result"} with arrays as {shape, dtype, data},
or {"error": exception type name, "message": the line MXNet's check wrote} when MXNet raises.
tests/test_runtime_ndarray_symbol_cases.py evaluates the same expressions on the runtime and compares.
"""
import json
import re
import sys

import numpy as np

from recorded_values import encode

_X = "mx.nd.arange(24).reshape((2, 3, 4))"
_S = "mx.sym.var('x')"

CASES = [
    # fluent methods that are front-end functions or operators added late to the method list
    ("fluent/rcbrt", "mx.nd.array([1, 8, 27]).rcbrt()"),
    ("fluent/split_v2", "%s.split_v2(3, axis=2)" % _X.replace("24", "36").replace("4)", "6)")),
    ("fluent/split_v2/indices", "%s.split_v2((1, 3), axis=2)" % _X),
    ("sym/fluent/rcbrt", "%s.rcbrt().eval(x=mx.nd.array([1, 8, 27]))" % _S),
    ("sym/fluent/split_v2", "%s.split_v2(2, axis=1).eval(x=%s)" % (_S, _X.replace("3, 4", "4, 3"))),
    # moveaxis takes any sequence of axes, and rejects axes out of range or named twice
    ("moveaxis/range", "mx.nd.moveaxis(%s, range(3), range(3))" % _X),
    ("moveaxis/tuple", "mx.nd.moveaxis(%s, (0, 1), (2, 0))" % _X),
    ("moveaxis/out_of_range", "mx.nd.moveaxis(%s, 3, 0)" % _X),
    ("moveaxis/negative_out_of_range", "mx.nd.moveaxis(%s, -4, 0)" % _X),
    ("moveaxis/destination_out_of_range", "mx.nd.moveaxis(%s, 0, 5)" % _X),
    ("moveaxis/repeated_source", "mx.nd.moveaxis(%s, [0, 0], [0, 1])" % _X),
    ("moveaxis/repeated_destination", "mx.nd.moveaxis(%s, [0, 1], [1, 1])" % _X),
    ("moveaxis/count_mismatch", "mx.nd.moveaxis(%s, 0, [0, 1])" % _X),
    # broadcast_like pairs axes only when both tuples are given, and checks them
    ("broadcast_like/empty_axes", "mx.nd.broadcast_like(mx.nd.ones((1, 2)), mx.nd.ones((3, 2)), lhs_axes=(), rhs_axes=())"),
    ("broadcast_like/axes_count", "mx.nd.broadcast_like(mx.nd.ones((1, 2)), mx.nd.ones((3, 2)), lhs_axes=(0,), "
                                  "rhs_axes=(0, 1))"),
    ("broadcast_like/lhs_axes_only", "mx.nd.broadcast_like(mx.nd.ones((1, 2)), mx.nd.ones((3, 2)), lhs_axes=(0,))"),
    ("broadcast_like/not_one", "mx.nd.broadcast_like(mx.nd.ones((1, 2)), mx.nd.ones((3, 2)), lhs_axes=(1,), rhs_axes=(0,))"),
    # basic indexing: a view of a contiguous run only; other slices are new arrays
    ("index/is_contiguous", "[mx.nd.NDArray._basic_indexing_slice_is_contiguous(k, (6, 7, 8)) for k in ["
                            "(slice(None), slice(None), slice(None)), (slice(1, 3), slice(None), slice(None)), "
                            "(slice(1, 3), slice(2, 4), slice(None)), (slice(0, 1), slice(2, 4), slice(None)), "
                            "(slice(None), slice(None), slice(None, None, 2)), (slice(2, 3), slice(4, 5), slice(None, None, -1)), "
                            "(slice(0, 1), slice(0, 1), slice(3, 4)), (slice(None), slice(0, 0), slice(None))]]"),
    ("index/contiguous_view", "(lambda x: [x[1:3].__setitem__(slice(None), -1), x][1])(mx.nd.arange(12).reshape((4, 3)))"),
    ("index/strided_copy", "(lambda x: [x[:, 1:3].__setitem__(slice(None), -1), x[::2].__setitem__(slice(None), -2), "
                           "x][2])(mx.nd.arange(12).reshape((4, 3)))"),
    ("index/list_into_element", "(lambda x: [x.__setitem__((1, 2), [7]), x][1])(mx.nd.zeros((2, 3)))"),
    # x[key] = y under record() with y in the graph: a copy where the key covers x, refused otherwise
    ("index/recorded_whole", "_recorded_assign(slice(None), (3, 4), (3, 4))"),
    ("index/recorded_whole_broadcast", "_recorded_assign((None, Ellipsis), (1, 4), (4,))"),
    ("index/recorded_part", "_recorded_assign(slice(1, 3), (3, 4), (2, 4))"),
    ("index/recorded_element", "_recorded_assign(0, (3, 4), (4,))"),
    ("index/recorded_advanced", "_recorded_assign(([0, 1], [1, 2]), (3, 4), (2,))"),
    # the slice assignments behind `x[a:b] = y` (no gradient in MXNet), and the methods over them
    ("slice_assign", "_slice_assign", "mx.nd._internal._slice_assign(mx.nd.ones((2, 3, 4)), mx.nd.zeros((1, 3, 2)), "
                     "begin=(1, None, None), end=(None, None, None), step=(1, 1, 2))"),
    ("slice_assign/crop", "_slice_assign", "mx.nd._internal._crop_assign(mx.nd.ones((2, 3, 4)), mx.nd.zeros((2, 1, 3)), "
                          "begin=(0, 0, 0), end=(2, 1, 3))"),
    ("slice_assign/shape", "mx.nd._internal._slice_assign(mx.nd.ones((2, 3, 4)), mx.nd.zeros((2, 2, 3)), "
                           "begin=(0, 0, 0), end=(2, 1, 3))"),
    ("slice_assign_scalar", "_slice_assign_scalar", "mx.nd._internal._slice_assign_scalar(mx.nd.ones((2, 3, 4)), scalar=3, "
                            "begin=(1,), end=(2,))"),
    ("slice_assign/method", "(lambda x: [x.slice_assign(mx.nd.zeros((1, 3)), (1,), (2,), ()), x])(mx.nd.ones((2, 3)))"),
    ("slice_assign_scalar/method", "(lambda x: [x.slice_assign_scalar(7, (0, 1), (1, 3), (1, 1)), x])(mx.nd.ones((2, 3)))"),
    # nd.CachedOp: a Symbol called on NDArrays in list_inputs() order, differentiable under record()
    ("cached_op", "_cached_op(False)"),
    ("cached_op/recorded", "_cached_op(True)"),
    ("cached_op/inputs", "mx.nd.CachedOp(mx.sym.Convolution(kernel=(3, 3), num_filter=2) + 2)(mx.nd.ones((1, 1, 3, 3)))"),
    # a result whose graph a backward pass freed is out of the graph: a constant to later operations
    ("freed/constant", "_after_backward('z = y * 3')"),
    ("freed/assign", "_after_backward('y[:] = 1')"),
    ("freed/with_leaf", "_after_backward('z = y * x')"),
    # DLPack: the imported array shares the exporter's memory, and a capsule is consumed once
    ("dlpack/read", "(lambda a: [mx.nd.from_dlpack(a.to_dlpack_for_read()), a])(mx.nd.arange(6).reshape((2, 3)))"),
    ("dlpack/shared", "(lambda a: [mx.nd.from_dlpack(mx.nd.to_dlpack_for_write(a)).__setitem__((0, 1), 9), a][1])"
                      "(mx.nd.arange(6).reshape((2, 3)))"),
    ("dlpack/int32", "mx.nd.from_dlpack(mx.nd.array([1, 2], dtype='int32').to_dlpack_for_write())"),
    ("dlpack/twice", "(lambda p: [mx.nd.from_dlpack(p), mx.nd.from_dlpack(p)])(mx.nd.ones((2,)).to_dlpack_for_read())"),
    # NaN through relu and its gradient (kept), and through maximum and minimum
    ("nan/relu_grad", "relu", "_input_grad(lambda x: mx.nd.relu(x), [np.nan, -1, 2, 0])"),
    ("nan/sym_relu_grad", "relu", "_symbol_input_grad(mx.sym.relu(mx.sym.var('x')), [np.nan, -1, 2, 0])"),
    ("nan/maximum", "broadcast_maximum", "[mx.nd.maximum(mx.nd.array([np.nan, 1, 2]), mx.nd.array([1, np.nan, 3])), "
                    "mx.nd.minimum(mx.nd.array([np.nan, 1, 2]), mx.nd.array([1, np.nan, 3]))]"),
    # partial shape inference carries declared partial shapes (0: unknown) through the operators
    ("infer_partial/conv_cast", "(lambda data, weight: mx.sym.Convolution(data=mx.sym.cast(data, dtype='float16'), "
                                "weight=mx.sym.cast(weight, dtype='float16'), pad=(3, 3), num_filter=64, stride=(2, 2), "
                                "no_bias=True, kernel=(7, 7)).infer_shape_partial())(mx.sym.var('data', shape=(1, 0, 0, 0)), "
                                "mx.sym.var('weight'))"),
    ("infer_partial/fc", "mx.sym.FullyConnected(mx.sym.var('x', shape=(0, 5)), num_hidden=3).infer_shape_partial()"),
    ("infer/cast_back", "mx.sym.Convolution(data=mx.sym.var('data'), weight=mx.sym.cast(mx.sym.var('w'), dtype='float32'), "
                        "num_filter=4, kernel=(3, 3), no_bias=True).infer_shape(data=(1, 2, 5, 5))"),
    # zero propagation: no gradient runs behind stop_gradient; bind refuses a graph whose
    # gradients must cross an operator without one
    ("zero_prop/stop_gradient", "_bound_backward(mx.sym.stop_gradient(mx.sym.batch_take(mx.sym.var('x'), "
                                "mx.sym.var('idx'))))"),
    ("zero_prop/bind", "_bound_backward(mx.sym.batch_take(mx.sym.var('x'), mx.sym.var('idx')))"),
    ("zero_prop/bind_index_only", "_bound_backward(mx.sym.batch_take(mx.sym.var('x'), mx.sym.var('idx')), "
                                  "grad_req={'x': 'null', 'idx': 'write'})"),
    ("zero_prop/memory", "_memory_figures()"),
    ("debug_str", "(mx.sym.FullyConnected(mx.sym.var('a'), num_hidden=3, name='fc') * mx.sym.var('b')).debug_str()"),
    # the head operator alone, without inputs or name
    ("atomic/rnn", "(lambda s: [s.list_arguments(), s.list_outputs(), len(s), s.attr('mode')])(mx.sym.RNN("
                   "mx.sym.var('data'), mx.sym.var('param'), mx.sym.var('h0'), mx.sym.var('h1'), state_size=10, "
                   "num_layers=2, bidirectional=True, state_outputs=True, mode='lstm')._gen_atomic_symbol())"),
    ("atomic/plus_scalar", "(lambda s: [s.list_arguments(), s.list_outputs()])("
                           "(mx.sym.FullyConnected(mx.sym.var('x'), num_hidden=3) + 1)._gen_atomic_symbol())"),
    # common-subexpression elimination at bind time: the optimized graph's internals, with it and without
    ("cse/sum_of_same", "(lambda a, b: _optimized_internals((a + b) + (a + b)))(mx.sym.var('a'), mx.sym.var('b'))"),
    ("cse/different_scalars", "(lambda a: _optimized_internals((a + 1) + (a + 2)))(mx.sym.var('a'))"),
    ("cse/nested", "(lambda a, b, c: _optimized_internals(((a + b) + c) + ((a + b) + c)))(mx.sym.var('a'), "
                   "mx.sym.var('b'), mx.sym.var('c'))"),
    ("cse/group_copies", "(lambda a: _optimized_internals(mx.sym.Group([a * (a + 1), a * (a + 1)])))(mx.sym.var('a'))"),
    ("cse/group_add", "(lambda a, b: _optimized_internals(mx.sym.Group([a * (a + 1) + b, a * (a + 1) + b])))("
                      "mx.sym.var('a'), mx.sym.var('b'))"),
    ("cse/dropout", "(lambda a: _optimized_internals(mx.sym.Dropout(a) + mx.sym.Dropout(a)))(mx.sym.var('a'))"),
    # from_numpy twice over one array: the second NDArray still writes to the shared memory
    ("from_numpy/again", "(lambda a: [mx.nd.from_numpy(a), mx.nd.from_numpy(a).__setitem__((1, 0), 7), "
                         "mx.nd.array(a)][2])(np.ones((2, 2), 'float32'))"),
    # the file format follows the shape semantics: V3 (scalars kept) under np_shape, V2 outside
    ("save/np_shape_bytes", "_saved_hex([mx.nd.array(np.array(6)), mx.nd.array(np.zeros((2, 0, 1))), mx.nd.ones((2,))], True)"),
    ("save/legacy_bytes", "_saved_hex([mx.nd.array(np.zeros((2, 0, 1))), mx.nd.ones((2,))], False)"),
    ("load/np_shape_round_trip", "_round_trip([mx.nd.array(np.array(6)), mx.nd.array(np.zeros((0, 3)))], True, True)"),
    ("load/np_shape_file_outside", "_round_trip([mx.nd.ones((2,))], True, False)"),
    ("load/legacy_file_under_np_shape", "_round_trip([mx.nd.ones((2,))], False, True)"),
    # the fused optimizer updates: the result, then every input after the call (states mutate)
    ("update/sgd", "sgd_update", "_updated('sgd_update', 2, lr=0.1, wd=0.01, rescale_grad=0.5)"),
    ("update/sgd/clip", "sgd_update", "_updated('sgd_update', 2, lr=0.1, wd=0.01, rescale_grad=0.5, clip_gradient=0.2)"),
    ("update/sgd/out", "sgd_update", "_updated('sgd_update', 2, out=True, lr=0.1)"),
    ("update/sgd_mom", "sgd_mom_update", "_updated('sgd_mom_update', 3, lr=0.1, momentum=0.9, wd=0.01, clip_gradient=0.3)"),
    ("update/mp_sgd", "mp_sgd_update", "_updated('mp_sgd_update', 3, mp=1, lr=0.1, wd=0.01, clip_gradient=0.3)"),
    ("update/mp_sgd_mom", "mp_sgd_mom_update", "_updated('mp_sgd_mom_update', 4, mp=2, lr=0.1, momentum=0.9, wd=0.01)"),
    ("update/nag_mom", "nag_mom_update", "_updated('nag_mom_update', 3, lr=0.1, momentum=0.9, wd=0.01, rescale_grad=2)"),
    ("update/nag_mom/clip", "nag_mom_update", "_updated('nag_mom_update', 3, lr=0.1, momentum=0.9, wd=0.01, clip_gradient=0.2)"),
    ("update/mp_nag_mom", "mp_nag_mom_update", "_updated('mp_nag_mom_update', 4, mp=2, lr=0.1, momentum=0.9, wd=0.01)"),
    ("update/signsgd", "signsgd_update", "_updated('signsgd_update', 2, lr=0.1, wd=0.01, clip_gradient=1e-3)"),
    ("update/signum", "signum_update", "_updated('signum_update', 3, lr=0.1, momentum=0.9, wd=0.01, wd_lh=0.05, clip_gradient=0.3)"),
    ("update/ftml", "ftml_update", "_updated('ftml_update', 5, lr=0.1, t=3, wd=0.01, rescale_grad=0.5, clip_grad=0.4)"),
    ("update/adam", "adam_update", "_updated('adam_update', 4, lr=0.01, wd=0.01, rescale_grad=0.5, clip_gradient=0.4)"),
    ("update/rmsprop", "rmsprop_update", "_updated('rmsprop_update', 3, lr=0.01, wd=0.01, clip_weights=0.5)"),
    ("update/rmspropalex", "rmspropalex_update", "_updated('rmspropalex_update', 5, lr=0.01, wd=0.01, rescale_grad=0.5)"),
    ("update/ftrl", "ftrl_update", "_updated('ftrl_update', 4, lr=0.1, wd=0.01, lamda1=0.05)"),
    ("update/float16", "sgd_mom_update", "_updated('sgd_mom_update', 3, dtype='float16', lr=0.1, momentum=0.9, wd=0.01)"),
    ("update/float64", "adam_update", "_updated('adam_update', 4, dtype='float64', lr=0.01, wd=0.01)"),
    ("update/shape_mismatch", "mx.nd.sgd_mom_update(mx.nd.ones((3,)), mx.nd.ones((3,)), mx.nd.ones((4,)), lr=0.1)"),
    ("broadcast_like/axes", "mx.nd.broadcast_like(mx.nd.ones((1, 2, 1)), mx.nd.ones((5, 6, 7)), lhs_axes=(0, -1), "
                            "rhs_axes=(1, 2))"),
    # gradientmultiplier: the identity, its gradient times the scalar; a contrib node named after its function
    ("contrib/gradientmultiplier", "_contrib_gradientmultiplier",
     "_input_grad(lambda x: mx.nd.contrib.gradientmultiplier(x, scalar=-0.5) * 3, [1, 2, -3])"),
    ("sym/contrib/gradientmultiplier", "_contrib_gradientmultiplier",
     "_symbol_input_grad(mx.sym.contrib.gradientmultiplier(mx.sym.var('x'), scalar=2.5), [[1, 2], [3, 4]])"),
    ("sym/contrib/node_name", "[mx.sym.contrib.gradientmultiplier(mx.sym.var('x')).name, "
                              "mx.sym.contrib.div_sqrt_dim(mx.sym.var('x')).name]"),
    # bipartite_matching: best scores first, ties in index order, topk's off-by-one, batch axes
    ("contrib/bipartite_matching/ties", "_contrib_bipartite_matching",
     "mx.nd.contrib.bipartite_matching(mx.nd.array([[[0.5, 0.5, 0.1], [0.5, 0.5, 0.2], [0.3, 0.3, 0.3]]]), threshold=0)"),
    ("contrib/bipartite_matching/topk", "_contrib_bipartite_matching",
     "mx.nd.contrib.bipartite_matching(mx.nd.array(np.random.RandomState(3).randint(0, 5, (2, 2, 6, 5)) / 4.0), "
     "threshold=0.3, topk=2)"),
    ("contrib/bipartite_matching/ascend", "_contrib_bipartite_matching",
     "mx.nd.contrib.bipartite_matching(mx.nd.array(np.random.RandomState(4).randint(0, 5, (2, 6, 5)) / 4.0, "
     "dtype='float16'), threshold=0.6, is_ascend=True)"),
    ("contrib/bipartite_matching/one_axis", "mx.nd.contrib.bipartite_matching(mx.nd.ones((3,)), threshold=0.1)"),
    # MultiBoxPrior: anchors per position, sizes with the first ratio then the other ratios, clip, steps
    ("contrib/MultiBoxPrior/default", "_contrib_MultiBoxPrior", "mx.nd.contrib.MultiBoxPrior(mx.nd.ones((1, 2, 3, 5)))"),
    ("contrib/MultiBoxPrior/sizes_ratios", "_contrib_MultiBoxPrior",
     "mx.nd.contrib.MultiBoxPrior(mx.nd.ones((2, 3, 4, 5)), sizes=(0.5, 0.25, 0.1), ratios=(1, 2, 0.5, 3))"),
    ("contrib/MultiBoxPrior/clip_steps", "_contrib_MultiBoxPrior",
     "mx.nd.contrib.MultiBoxPrior(mx.nd.ones((1, 3, 6, 4)), sizes=(0.7, 0.3), ratios=(1, 2), "
     "clip=True, steps=(0.2, 0.3), offsets=(0.4, 0.6))"),
    ("contrib/MultiBoxPrior/float64", "mx.nd.contrib.MultiBoxPrior(mx.nd.ones((1, 3, 2, 2), dtype='float64'))"),
    ("sym/contrib/MultiBoxPrior", "_contrib_MultiBoxPrior",
     "mx.sym.contrib.MultiBoxPrior(mx.sym.var('x'), sizes=(0.5, 0.2), ratios=(1, 2, 0.5)).infer_shape(x=(1, 3, 7, 9))[1]"),
]


def _saved_hex(arrays, np_shape):
    """The bytes nd.save writes for the arrays under the shape semantics given, as hex."""
    import os
    import tempfile
    import mxnet as mx
    with tempfile.TemporaryDirectory() as where:
        path = os.path.join(where, "arrays")
        with mx.np_shape(np_shape):
            mx.nd.save(path, arrays)
        with open(path, "rb") as handle:
            return handle.read().hex()


def _round_trip(arrays, save_np_shape, load_np_shape):
    """What nd.load gives back for the arrays saved under one shape semantics, loaded under another."""
    import os
    import tempfile
    import mxnet as mx
    with tempfile.TemporaryDirectory() as where:
        path = os.path.join(where, "arrays")
        with mx.np_shape(save_np_shape):
            mx.nd.save(path, arrays)
        with mx.np_shape(load_np_shape):
            return mx.nd.load(path)


def _recorded_assign(key, shape, value_shape):
    """[x, the value's gradient] after `x[key] = value; (x * 2).backward()` under record()."""
    import mxnet as mx
    x = mx.nd.zeros(shape)
    value = mx.nd.arange(int(np.prod(value_shape))).reshape(value_shape)
    value.attach_grad()
    with mx.autograd.record():
        x[key] = value
        doubled = x * 2
    doubled.backward()
    return [x, value.grad]


def _cached_op(recorded):
    """[outputs, (gradients of weight, bias, data)] of a CachedOp over a convolution and a sum; the
    first call fills `out`, the second runs under record() when `recorded`."""
    import mxnet as mx
    data = mx.nd.arange(2 * 2 * 4 * 4).reshape((2, 2, 4, 4)) / 10
    weight = mx.nd.arange(3 * 2 * 3 * 3).reshape((3, 2, 3, 3)) / 20
    bias = mx.nd.array([1, 2, 3])
    graph = mx.sym.Convolution(kernel=(3, 3), num_filter=3, name="conv") * 2
    op = mx.nd.CachedOp(mx.sym.Group([graph, mx.sym.sum(graph)]))
    if not recorded:
        out = [mx.nd.zeros((2, 3, 2, 2)), mx.nd.zeros((1,))]
        op(data, weight, bias, out=out)
        return out
    for array in (data, weight, bias):
        array.attach_grad()
    with mx.autograd.record():
        first, total = op(data, weight, bias)
        loss = (first * first).sum() + total
    loss.backward()
    return [first, total, weight.grad, bias.grad, data.grad]


def _after_backward(statement):
    """[x's gradient, then what backward of z gives or the error] when `statement` runs under a
    second record() on y = x * 2, whose graph the first backward freed."""
    import mxnet as mx
    x = mx.nd.array([1, 2, 3])
    x.attach_grad()
    with mx.autograd.record():
        y = x * 2
    y.backward()
    scope = {"x": x, "y": y}
    with mx.autograd.record():
        exec(statement, scope)
    if "z" in scope:
        scope["z"].backward()
    return [x.grad, y]


def _input_grad(function, values):
    """[f(x), the gradient of sum(f(x)) at x]."""
    import mxnet as mx
    x = mx.nd.array(values)
    x.attach_grad()
    with mx.autograd.record():
        y = function(x)
    y.backward()
    return [y, x.grad]


def _symbol_input_grad(symbol, values):
    """The gradient reaching x through a bound symbol's backward with ones."""
    import mxnet as mx
    x = mx.nd.array(values)
    executor = symbol.bind(mx.cpu(), {"x": x}, args_grad={"x": mx.nd.zeros(x.shape)})
    executor.forward(is_train=True)
    executor.backward(mx.nd.ones(x.shape))
    return executor.grad_dict["x"]


def _bound_backward(symbol, grad_req="write"):
    """x's gradient after forward and backward of the symbol bound to x (3, 4) and idx (3,) int32."""
    import mxnet as mx
    executor = symbol.simple_bind(ctx=mx.cpu(), x=(3, 4), idx=(3,), grad_req=grad_req,
                                  type_dict={"x": np.float32, "idx": np.int32})
    executor.arg_dict["x"][:] = mx.nd.arange(12).reshape((3, 4))
    executor.forward(is_train=True)
    executor.backward()
    return executor.grad_dict.get("x")


def _memory_figures():
    """[with gradients > without, without == behind stop_gradient] of debug_str's allocated MB
    for ten products in a row."""
    import re
    import mxnet as mx
    data = mx.sym.var("data")
    for _ in range(10):
        data = data * data

    def allocated(symbol, **kwargs):
        executor = symbol.simple_bind(ctx=mx.cpu(), data=(10, 3, 64, 64), **kwargs)
        return int(re.search(r"Total (\d+) MB allocated", executor.debug_str()).group(1))
    big, small = allocated(data), allocated(data, grad_req="null")
    stopped = allocated(mx.sym.stop_gradient(data))
    return [big > stopped, small == stopped]


def _optimized_internals(symbol):
    """[the optimized graph's internals' count, its outputs' count, whether its last output's name
    ends in _copy_output] bound with MXNET_ELIMINATE_COMMON_EXPR=1, then =0."""
    import os
    import mxnet as mx
    found = []
    for flag in ("1", "0"):
        before = os.environ.get("MXNET_ELIMINATE_COMMON_EXPR")
        os.environ["MXNET_ELIMINATE_COMMON_EXPR"] = flag
        try:
            executor = symbol.simple_bind(ctx=mx.cpu(), **{name: (2, 3) for name in symbol.list_inputs()})
        finally:
            if before is None:
                del os.environ["MXNET_ELIMINATE_COMMON_EXPR"]
            else:
                os.environ["MXNET_ELIMINATE_COMMON_EXPR"] = before
        optimized = executor.get_optimized_symbol()
        outputs = optimized.list_outputs()
        found.append([len(optimized.get_internals()), len(outputs), outputs[-1].endswith("_copy_output")])
    return found


def _updated(name, count, dtype="float32", mp=0, out=False, **kwargs):
    """[the result, each input after the call] of an optimizer update over deterministic inputs (the
    states non-negative where they are squares); `mp`: that many trailing float32 inputs (the mp_
    variants' momentum and master weight), which start from the weight's values."""
    import mxnet as mx
    rng = np.random.RandomState(3)
    values = [rng.uniform(-1, 1, (2, 3)) for _ in range(count)]
    values[2:] = [np.abs(v) for v in values[2:]]
    arrays = [mx.nd.array(v, dtype=dtype if i < count - mp else "float32") for i, v in enumerate(values)]
    if mp:
        arrays[-1] = mx.nd.array(arrays[0].asnumpy(), dtype="float32")
    result = getattr(mx.nd, name)(*arrays, out=arrays[0] if out else None, **kwargs)
    return [result] + arrays


def check_message(exc) -> str:
    """The line of an MXNet error that states the failed check (the C++ traceback around it varies)."""
    lines = [line for line in str(exc).splitlines() if line.strip()]
    for line in lines:
        # (MXNet's log writes `A::B` in a condition as `A: :B`)
        checked = re.search(r"Check failed: (.*?): (.*)$", line.replace(": :", "::"))
        if checked:  # the words after the condition, or the condition where there are none (CHECK_EQ)
            return checked.group(2) or checked.group(1).strip()
        if line.startswith("MXNetError: "):
            return line[len("MXNetError: "):]
    return lines[0] if lines else ""


SCOPE = {"np": np, "_saved_hex": _saved_hex, "_round_trip": _round_trip, "_updated": _updated,
         "_recorded_assign": _recorded_assign, "_cached_op": _cached_op, "_after_backward": _after_backward,
         "_input_grad": _input_grad, "_symbol_input_grad": _symbol_input_grad, "_bound_backward": _bound_backward,
         "_memory_figures": _memory_figures, "_optimized_internals": _optimized_internals}


def record(mx):
    for case_id, *op, code in CASES:
        try:
            with mx.name.NameManager():  # automatic names (`_mul0`) count from 0 in every case
                result = encode(eval(code, dict(SCOPE, mx=mx)))
        except Exception as exc:  # noqa: BLE001  (the type and the check's words are what is recorded)
            result = {"error": type(exc).__name__, "message": check_message(exc)}
        yield dict({"id": case_id, "code": code, "result": result}, **({"op": op[0]} if op else {}))


if __name__ == "__main__":
    import mxnet
    for line in record(mxnet):
        sys.stdout.write(json.dumps(line) + "\n")
