"""Record MXNet 1.9.1's results for the operator semantics that its own unit tests
(tests/python/unittest/test_operator.py) rely on: shapes, indexing, softmax, resizing, elementwise.

    /path/to/mxnet-venv/bin/python tools/record_operator_semantics.py > tests/data/operator_semantics.jsonl

Each case names the operator it exercises and is a Python expression over `mx`, `np` and the
helpers below; its value (an NDArray, a list or tuple of them, or a plain value) is written as
{"id", "op", "code", "result"} with arrays as {shape, dtype, data}, or {"error": exception type
name} when MXNet raises. tests/test_runtime_operator_semantics.py evaluates the same expressions on the
runtime and compares.
"""
import json
import sys

import numpy as np

from recorded_values import encode


def _head_grad(y, shape, head_shape):
    """The gradient of the bound symbol `y` (of one variable x of `shape`) for a head gradient of
    ones of `head_shape`: MXNet copies a head gradient only where the operator's gradient reads it."""
    import mxnet as mx
    grad = mx.nd.zeros(shape)
    exe = y.bind(mx.cpu(), args={"x": mx.nd.ones(shape)}, args_grad={"x": grad})
    exe.forward(is_train=True)
    exe.backward([mx.nd.ones(head_shape)])
    return grad


def _read_after_forward(y, **arrays):
    """[forward raised?, the error type name where the first output is read (or its value)]:
    MXNet's forward only queues the operators, so a failing one raises where its output is read."""
    import mxnet as mx
    exe = y.bind(mx.cpu(), args={k: mx.nd.array(v) for k, v in arrays.items()})
    try:
        exe.forward()
    except Exception as exc:  # noqa: BLE001
        return [True, type(exc).__name__]
    try:
        return [False, exe.outputs[0].asnumpy().tolist()]
    except Exception as exc:  # noqa: BLE001
        return [False, type(exc).__name__]


def _error_name(function):
    """The name of the built-in exception type that `function()` raises (None if none): for the
    cases where MXNet raises Python's own type rather than MXNetError (a RuntimeError)."""
    try:
        function()
    except Exception as exc:  # noqa: BLE001
        return next(c.__name__ for c in type(exc).__mro__ if c.__module__ == "builtins")
    return None


def _simple_bind_shapes(y, **kwargs):
    """The argument shapes simple_bind allocates, given keywords that are not all shapes."""
    import mxnet as mx
    exe = y.simple_bind(mx.cpu(), **kwargs)
    return [list(a.shape) for a in exe.arg_arrays]


def _grads(function, *arrays, head=None):
    """[outputs, gradients of each input] of `function` under autograd, with the head gradient given."""
    import mxnet as mx
    inputs = [mx.nd.array(a) if not hasattr(a, "asnumpy") else a for a in arrays]
    for a in inputs:
        a.attach_grad()
    with mx.autograd.record():
        out = function(*inputs)
    out.backward(None if head is None else mx.nd.array(head))
    return [out] + [a.grad for a in inputs]


def _bound_grads(y, head, **arrays):
    """The gradients of each named argument of `y` bound to `arrays`, for the head gradient `head`."""
    import mxnet as mx
    args = {k: mx.nd.array(v) for k, v in arrays.items()}
    grads = {k: mx.nd.zeros(a.shape) for k, a in args.items()}
    exe = y.bind(mx.cpu(), args=args, args_grad=grads)
    exe.forward(is_train=True)
    exe.backward([mx.nd.array(head)])
    return [grads[k] for k in sorted(grads)]


HELPERS = {"_bound_grads": _bound_grads, "_head_grad": _head_grad, "_read_after_forward": _read_after_forward, "_error_name": _error_name,
           "_simple_bind_shapes": _simple_bind_shapes, "_grads": _grads}

CASES = [
    # MXNet copies a head gradient only where an operator's gradient reads it (shape_array's does not)
    ("shape_array/head_grad_unread", "shape_array",
     "_head_grad(mx.sym.shape_array(mx.sym.var('x')), (2, 3), (7,))"),
    ("size_array/head_grad_unread", "size_array", "_head_grad(mx.sym.size_array(mx.sym.var('x')), (2, 3), (6,))"),
    ("mul_scalar/head_grad_wrong_shape", "_mul_scalar", "_head_grad(mx.sym.var('x') * 2, (2, 3), (7,))"),
    # a head gradient is copied into an array of the output's dtype (int32 here: 0.7 becomes 0)
    ("mod/int_head_grad", "_mod",
     "_bound_grads(mx.sym.cast(mx.sym.var('a'), dtype='int32') % mx.sym.cast(mx.sym.var('b'), dtype='int32'), "
     "[[0.7, 0.9]], a=[[5, 7]], b=[[0, 3]])"),
    ("broadcast_mod/int_head_grad", "broadcast_mod",
     "_bound_grads(mx.sym.broadcast_mod(mx.sym.cast(mx.sym.var('a'), dtype='int32'), "
     "mx.sym.cast(mx.sym.var('b'), dtype='int32')), [[2.5, 3.7]], a=[[5, 7]], b=[[2]])"),
    ("logical_and/scalar", "_logical_and_scalar", "[mx.nd.logical_and(mx.nd.array([0, 1, 2]), 2), "
     "mx.nd.logical_and(mx.nd.array([0, 1, 2]), 0)]"),
    ("logical_xor/scalar", "_logical_xor_scalar", "mx.nd.logical_xor(1, mx.nd.array([0, 1, 2]))"),
    ("logical_or/scalar", "_logical_or_scalar", "[mx.nd.logical_or(mx.nd.array([0, 0.5]), 0), mx.nd.logical_or(1, 0)]"),
    ("logical/broadcast", "broadcast_logical_and", "mx.nd.logical_and(mx.nd.array([[0, 1]]), mx.nd.array([[1], [0]]))"),
    # unravel_index: the leading coordinate is what remains (its size may be given as -1)
    ("unravel_index/leading_unknown", "_unravel_index", "mx.nd.unravel_index(mx.nd.array([4, 9, 23]), shape=(-1, 4))"),
    ("unravel_index/leading_overflow", "_unravel_index", "mx.nd.unravel_index(mx.nd.array([4, 9, 23]), shape=(2, 4))"),
    # index_array: each element's index along every axis (or the chosen ones), int64
    ("index_array/all_axes", "_contrib_index_array", "mx.nd.contrib.index_array(mx.nd.ones((2, 3)))"),
    ("index_array/axes", "_contrib_index_array", "mx.nd.contrib.index_array(mx.nd.ones((2, 1, 3)), axes=(-1, 0))"),
    ("index_array/sym", "_contrib_index_array",
     "mx.sym.contrib.index_array(mx.sym.var('x'), axes=(1,)).eval(x=mx.nd.ones((2, 2)))"),
    ("index_array/grad", "_contrib_index_array", "_grads(lambda x: mx.nd.contrib.index_array(x), np.ones((2, 2)))[1:]"),
    # image.normalize: (data - mean) / std per channel, 3-D or 4-D data
    ("image.normalize/3d", "_image_normalize",
     "mx.nd.image.normalize(mx.nd.array(np.arange(12).reshape((3, 2, 2))), mean=(0, 1, 2), std=(3, 2, 1))"),
    ("image.normalize/4d_scalar", "_image_normalize",
     "mx.nd.image.normalize(mx.nd.array(np.arange(8).reshape((2, 1, 2, 2))), mean=1.0, std=2.0)"),
    ("image.normalize/sym", "_image_normalize",
     "mx.sym.image.normalize(mx.sym.var('x'), mean=(0.5, 0, 1), std=(2, 4, 8)).eval(x=mx.nd.ones((1, 3, 1, 2)))"),
    ("image.normalize/grad", "_image_normalize",
     "_grads(lambda x: mx.nd.image.normalize(x, mean=(0, 1, 2), std=(3, 2, 1)), np.ones((3, 1, 2)))"),
    ("image.normalize/two_channels", "_image_normalize", "mx.nd.image.normalize(mx.nd.ones((2, 2, 2)))"),
    ("image.normalize/bad_mean", "_image_normalize", "mx.nd.image.normalize(mx.nd.ones((3, 2, 2)), mean=(1, 2))"),
    ("image.normalize/2d", "_image_normalize", "mx.nd.image.normalize(mx.nd.ones((3, 2)))"),
    # Pooling's "same" convention (1-D): ceil(width / stride) windows (only the shape: MXNet's MKLDNN
    # build cannot compute the values); its check reads three pads, so fewer is an error
    ("Pooling/same_shape", "Pooling",
     "mx.nd.Pooling(mx.nd.ones((1, 1, 7)), kernel=(3,), stride=(2,), pad=(0, 0, 0), pooling_convention='same').shape"),
    ("Pooling/same_one_pad", "Pooling",
     "mx.nd.Pooling(mx.nd.ones((1, 1, 7)), kernel=(3,), stride=(2,), pooling_convention='same')"),
    ("Pooling/same_2d", "Pooling",
     "mx.nd.Pooling(mx.nd.ones((1, 1, 4, 4)), kernel=(2, 2), pad=(0, 0, 0), pooling_convention='same')"),
    ("Pooling/same_pad", "Pooling",
     "mx.nd.Pooling(mx.nd.ones((1, 1, 10)), kernel=(2,), stride=(2,), pad=(2, 2, 2), pooling_convention='same')"),
    # UpSampling: nearest with several inputs (each repeated up to the first's size times scale, then
    # concatenated or summed), bilinear as a per-channel deconvolution with a weight input
    ("UpSampling/nearest_concat", "UpSampling",
     "_grads(lambda a, b: mx.nd.UpSampling(a, b, scale=2, sample_type='nearest', num_args=2), "
     "np.arange(4).reshape((1, 1, 2, 2)), [[[[5]]]], head=np.arange(32).reshape((1, 2, 4, 4)))"),
    ("UpSampling/nearest_sum", "UpSampling",
     "_grads(lambda a, b: mx.nd.UpSampling(a, b, scale=1, sample_type='nearest', num_args=2, "
     "multi_input_mode='sum'), np.arange(8).reshape((1, 2, 2, 2)), [[[[5]], [[7]]]], "
     "head=np.arange(8).reshape((1, 2, 2, 2)))"),
    ("UpSampling/bilinear_shapes", "UpSampling",
     "mx.sym.UpSampling(mx.sym.var('data'), mx.sym.var('weight'), scale=3, sample_type='bilinear', num_filter=2, "
     "num_args=2).infer_shape(data=(1, 2, 3, 3))"),
    ("UpSampling/bilinear", "UpSampling",
     "_grads(lambda d, w: mx.nd.UpSampling(d, w, scale=2, sample_type='bilinear', num_filter=2, num_args=2), "
     "np.arange(18).reshape((1, 2, 3, 3)) / 7.0, np.arange(32).reshape((2, 1, 4, 4)) / 9.0, "
     "head=np.arange(72).reshape((1, 2, 6, 6)) / 11.0)"),
    ("UpSampling/nearest_not_dividing", "UpSampling",
     "mx.nd.UpSampling(mx.nd.ones((1, 1, 3, 3)), mx.nd.ones((1, 1, 2, 2)), scale=1, sample_type='nearest', "
     "num_args=2)"),
    # reshape_like: a negative bound counts from the end (ndim, not ndim + 1)
    ("reshape_like/negative_end", "reshape_like",
     "mx.nd.reshape_like(mx.nd.arange(15).reshape((3, 5)), mx.nd.ones((1, 15, 4)), lhs_begin=0, rhs_begin=1, "
     "rhs_end=-1)"),
    ("reshape_like/negative_begin", "reshape_like",
     "mx.nd.reshape_like(mx.nd.ones((30, 12)), mx.nd.ones((4, 2, 2, 3)), lhs_begin=-1, rhs_begin=1).shape"),
    ("reshape_like/bad_range", "reshape_like",
     "mx.nd.reshape_like(mx.nd.ones((3, 5)), mx.nd.ones((15,)), lhs_begin=1, lhs_end=1)"),
    ("reshape_like/sym_shapes", "reshape_like",
     "mx.sym.reshape_like(mx.sym.var('l'), mx.sym.var('r'), lhs_begin=1, lhs_end=-1, rhs_begin=1).infer_shape("
     "l=(1, 1, 7, 3, 1, 1), r=(81, 1, 1, 21))"),
    # BilinearResize2D's modes: the output size from the input's parity
    ("BilinearResize2D/to_even_down", "_contrib_BilinearResize2D",
     "mx.nd.contrib.BilinearResize2D(mx.nd.array(np.arange(15).reshape((1, 1, 3, 5))), mode='to_even_down')"),
    ("BilinearResize2D/to_even_up", "_contrib_BilinearResize2D",
     "mx.nd.contrib.BilinearResize2D(mx.nd.array(np.arange(12).reshape((1, 1, 3, 4))), mode='to_even_up')"),
    ("BilinearResize2D/to_odd_down", "_contrib_BilinearResize2D",
     "mx.nd.contrib.BilinearResize2D(mx.nd.array(np.arange(12).reshape((1, 1, 3, 4))), mode='to_odd_down')"),
    ("BilinearResize2D/to_odd_up", "_contrib_BilinearResize2D",
     "mx.nd.contrib.BilinearResize2D(mx.nd.array(np.arange(12).reshape((1, 1, 3, 4))), mode='to_odd_up')"),
    ("BilinearResize2D/odd_scale", "_contrib_BilinearResize2D",
     "mx.nd.contrib.BilinearResize2D(mx.nd.array(np.arange(12).reshape((1, 1, 3, 4))), scale_height=2, "
     "scale_width=0.5, mode='odd_scale')"),
    ("BilinearResize2D/to_even_up_grad", "_contrib_BilinearResize2D",
     "_grads(lambda x: mx.nd.contrib.BilinearResize2D(x, mode='to_even_up'), np.arange(6).reshape((1, 1, 3, 2)), "
     "head=np.arange(8).reshape((1, 1, 4, 2)))"),
    # simple_bind takes only tuples as shapes; other keywords are ignored
    ("take/simple_bind_other_keywords", "take",
     "_simple_bind_shapes(mx.sym.take(mx.sym.var('a'), mx.sym.var('indices'), axis=1), a=(2, 3), indices=(4,), "
     "axis=1, mode='clip')"),
    # take(mode='raise') out of range: forward passes, reading the output raises
    ("take/raise_when_read", "take",
     "_read_after_forward(mx.sym.take(mx.sym.var('a'), mx.sym.var('i'), mode='raise'), a=[[1, 2], [3, 4]], i=[5])"),
    ("take/raise_in_range", "take",
     "_read_after_forward(mx.sym.take(mx.sym.var('a'), mx.sym.var('i'), mode='raise'), a=[[1, 2], [3, 4]], i=[1])"),
    # gather_nd out of bounds raises Python's IndexError
    ("gather_nd/out_of_bounds", "gather_nd",
     "_error_name(lambda: mx.nd.gather_nd(mx.nd.array([[0, 1, 2], [3, 4, 5]]), "
     "mx.nd.array([[0, 1, 0], [0, 1, 3]])).asnumpy())"),
    ("gather_nd/negative_out_of_bounds", "gather_nd",
     "_error_name(lambda: mx.nd.gather_nd(mx.nd.array([[0, 1, 2], [3, 4, 5]]), "
     "mx.nd.array([[0, 1, 0], [0, 1, -5]])).asnumpy())"),
    ("gather_nd/negative_wraps", "gather_nd",
     "mx.nd.gather_nd(mx.nd.array([[0, 1, 2], [3, 4, 5]]), mx.nd.array([[0, 1, -1], [0, 1, -2]]))"),
    # outside np_shape(), a size 0 is an unknown size: eager operators giving one fail
    ("zeros/scalar_shape", "_zeros", "mx.nd.zeros(shape=())"),
    ("ones/scalar_shape", "_ones", "mx.nd.ones(shape=())"),
    ("zeros/zero_size", "_zeros", "mx.nd.zeros(shape=(0, 1, 3, 0))"),
    ("ones/zero_size", "_ones", "mx.nd.ones((2, 0))"),
    ("empty/zero_size", "_zeros", "mx.nd.empty((0, 3)).shape"),
    ("ones/np_shape_zero_size", "_ones", "_np_shape_ones((0, 1, 0, 4))"),
    ("ones/np_shape_scalar", "_ones", "_np_shape_ones(())"),
    ("tile/zero_rep", "tile", "mx.nd.tile(mx.nd.arange(16).reshape((4, 4)), (1, 0, 3))"),
    ("tile/negative_rep", "tile", "mx.nd.tile(mx.nd.arange(16).reshape((4, 4)), (1, 2, -3))"),
    ("relu/zero_size", "relu", "mx.nd.relu(mx.nd.array(np.ones((0, 3))))"),
    ("shape_array/zero_size_input", "shape_array", "mx.nd.shape_array(mx.nd.array(np.ones((2, 0))))"),
    ("boolean_mask/empty_result", "_contrib_boolean_mask",
     "mx.nd.contrib.boolean_mask(mx.nd.ones((3, 2)), mx.nd.zeros((3,)))"),
    ("depth_to_space/zero_space", "depth_to_space", "mx.nd.depth_to_space(mx.nd.array(np.ones((1, 4, 0, 3))), 2)"),
    ("space_to_depth/zero_depth", "space_to_depth", "mx.nd.space_to_depth(mx.nd.array(np.ones((1, 0, 2, 2))), 2)"),
    ("diag/k_past_the_matrix", "diag", "mx.nd.diag(mx.nd.arange(16).reshape((4, 4)), k=5)"),
    # amp_cast: floating-point data takes the dtype, integer data keeps its own
    ("amp_cast/float16", "amp_cast", "mx.nd.amp_cast(mx.nd.array([1.5, 70000, -3e-8]), dtype='float16')"),
    ("amp_cast/int", "amp_cast", "mx.nd.amp_cast(mx.nd.array([1, 2], dtype='int32'), dtype='float16')"),
    ("amp_cast/sym", "amp_cast",
     "mx.sym.amp_cast(mx.sym.var('x'), dtype='float16').eval(x=mx.nd.array([0.1, 65519]))"),
    ("amp_cast/grad", "amp_cast", "_grads(lambda x: mx.nd.amp_cast(x, dtype='float16'), [1.0, 2.0], head=[3, 4])"),
    # index_copy: an int64 index is accepted; gradients to both tensors
    ("index_copy/int64_index_grads", "_contrib_index_copy",
     "_grads(lambda x, t: mx.nd.contrib.index_copy(x, mx.nd.array([0, 4, 2], dtype='int64'), t), np.zeros((5, 3)), "
     "[[1, 2, 3], [4, 5, 6], [7, 8, 9]], head=np.arange(15).reshape((5, 3)))"),
    # softmax over each lane's first `length` places
    ("softmax/use_length", "softmax",
     "mx.nd.softmax(mx.nd.array(np.arange(12).reshape((2, 3, 2)) / 5.0), mx.nd.array([[1, 3], [2, 0]], dtype='int32'), "
     "use_length=True, axis=1)"),
    ("softmax/use_length_sym", "softmax",
     "mx.sym.softmax(mx.sym.var('d'), mx.sym.var('l'), use_length=True, axis=-1).eval(d=mx.nd.array([[1, 2, 3], "
     "[4, 5, 6]]), l=mx.nd.array([2, 3], dtype='int32'))"),
    ("softmax/use_length_grad", "softmax",
     "_grads(lambda d: mx.nd.softmax(d, mx.nd.array([2, 1], dtype='int32'), use_length=True), [[1, 2, 3], [4, 5, 6]], "
     "head=[[1, 2, 3], [4, 5, 6]])[:2]"),
    # SoftmaxOutput with a label of the data's shape: class probabilities
    ("SoftmaxOutput/probability_label", "SoftmaxOutput",
     "_grads(lambda d, l: mx.nd.SoftmaxOutput(d, l, grad_scale=2), [[1, 2, 3], [1, 0, 0]], [[0.2, 0.3, 0.5], "
     "[1, 0, 0]])"),
    ("softmax_cross_entropy", "softmax_cross_entropy",
     "mx.nd.softmax_cross_entropy(mx.nd.array([[1, 2, 3], [11, 7, 5]]), mx.nd.array([2, 0]))"),
    ("softmax_cross_entropy/grad", "softmax_cross_entropy",
     "_grads(lambda d: mx.nd.softmax_cross_entropy(d, mx.nd.array([2, 0])), [[1, 2, 3], [11, 7, 5]], head=[2])"),
    ("softmax_cross_entropy/2d_label", "softmax_cross_entropy",
     "mx.nd.softmax_cross_entropy(mx.nd.array([[1, 2, 3]]), mx.nd.array([[2]]))"),
]


def _np_shape_ones(shape):
    import mxnet as mx
    with mx.np_shape():
        return mx.nd.ones(shape)


HELPERS["_np_shape_ones"] = _np_shape_ones


def evaluate(mx, code):
    return eval(code, {"mx": mx, "np": np, **HELPERS})


def record(mx):
    for case_id, op, code in CASES:
        try:
            result = encode(evaluate(mx, code))
        except Exception as exc:  # noqa: BLE001  (the type is what is recorded)
            result = {"error": type(exc).__name__}
        yield {"id": case_id, "op": op, "code": code, "result": result}


if __name__ == "__main__":
    import mxnet
    for line in record(mxnet):
        sys.stdout.write(json.dumps(line) + "\n")
