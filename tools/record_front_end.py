"""Record MXNet 1.9.1's results for front-end cases: operators and helpers called as user code calls them.

    /path/to/mxnet-venv/bin/python tools/record_front_end.py > tests/data/front_end_cases.jsonl

Each case names the operator it exercises (so that it counts as that operator's case) and is a
Python expression over `mx` and `np`; its value (an NDArray, a list or tuple of them,
or a plain value) is written as {"id", "code", "result"} with arrays as {shape, dtype, data}, or
{"error": exception type name} when MXNet raises. tests/test_runtime_front_end_cases.py evaluates the
same expressions on the runtime and compares.
"""
import json
import sys

import numpy as np

from recorded_values import encode

CASES = [
    ("arange/int32", "_arange", "mx.nd.arange(1.3, 456.6, 1.3, dtype='int32')"),
    ("contrib/isnan", "_not_equal", "mx.nd.contrib.isnan(mx.nd.array([1, np.nan, np.inf, -np.inf, 0]))"),
    ("contrib/isinf", "_equal_scalar", "mx.nd.contrib.isinf(mx.nd.array([1, np.nan, np.inf, -np.inf, 0]))"),
    ("contrib/isfinite", "_not_equal_scalar", "mx.nd.contrib.isfinite(mx.nd.array([1, np.nan, np.inf, -np.inf, 0]))"),
    ("all_finite", "all_finite", "[mx.nd.all_finite(mx.nd.array([1, 2])), mx.nd.all_finite(mx.nd.array([1, np.inf]))]"),
    ("multi_all_finite", "multi_all_finite", "mx.nd.multi_all_finite(mx.nd.array([1, 2]), mx.nd.array([np.nan]), num_arrays=2)"),
    ("moments", "moments", "mx.nd.moments(mx.nd.array([[1, 2, 4], [3, 5, 9]]), axes=(1,))"),
    ("moments/keepdims", "moments", "mx.nd.moments(mx.nd.array([[1, 2, 4], [3, 5, 9]]), axes=(0,), keepdims=True)"),
    ("histogram/count", "_histogram", "mx.nd.histogram(mx.nd.array([0, 1, 2, 3, 4, 5, 6, 7, 8, 9.5]), bins=4, range=(0, 10))"),
    ("histogram/edges", "_histogram", "mx.nd.histogram(mx.nd.array([0.5, 1, 2, 3, 9]), bins=mx.nd.array([0, 1, 3, 10]))"),
    ("ravel_multi_index", "_ravel_multi_index", "mx.nd.ravel_multi_index(mx.nd.array([[1, 2, 0], [3, 0, 1]]), shape=(3, 4))"),
    ("unravel_index", "_unravel_index", "mx.nd.unravel_index(mx.nd.array([4, 9, 11]), shape=(3, 4))"),
    ("rcbrt", "rcbrt", "mx.nd.rcbrt(mx.nd.array([1, 8, 27]))"),
    ("hard_sigmoid", "hard_sigmoid", "mx.nd.hard_sigmoid(mx.nd.array([-5, -1, 0, 1, 5]))"),
    ("hard_sigmoid/params", "hard_sigmoid", "mx.nd.hard_sigmoid(mx.nd.array([-1, 0, 1]), alpha=0.5, beta=0.25)"),
    ("hypot", "_hypot", "mx.nd.hypot(mx.nd.array([3, 5]), mx.nd.array([4, 12]))"),
    ("hypot/scalar", "_hypot_scalar", "mx.nd.hypot(mx.nd.array([3, 5]), 4)"),
    ("sym/hypot", "_hypot", "mx.sym.hypot(mx.sym.var('a'), mx.sym.var('b')).eval(a=mx.nd.array([3]), b=mx.nd.array([4]))"),
    ("sym/pow", "_rpower_scalar", "mx.sym.pow(2, mx.sym.var('e')).eval(e=mx.nd.array([3, 4]))"),
    ("moveaxis", "transpose", "mx.nd.moveaxis(mx.nd.arange(24).reshape((2, 3, 4)), 0, 2)"),
    ("moveaxis/negative", "transpose", "mx.nd.moveaxis(mx.nd.arange(24).reshape((2, 3, 4)), -1, 0)"),
    ("linalg/gemm", "_linalg_gemm", "mx.nd.linalg.gemm(mx.nd.array([[1, 2], [3, 4]]), mx.nd.array([[1, 0], [2, 1]]), "
                    "mx.nd.array([[1, 1], [1, 1]]), alpha=2, beta=0.5)"),
    ("linalg/gemm/transpose", "_linalg_gemm", "mx.nd.linalg.gemm(mx.nd.array([[1, 2], [3, 4], [5, 6]]), mx.nd.array([[1, 0], "
                              "[2, 1], [0, 1]]), mx.nd.zeros((2, 2)), transpose_a=True)"),
    ("linalg/potrf", "_linalg_potrf", "mx.nd.linalg.potrf(mx.nd.array([[4, 2], [2, 3]]))"),
    ("linalg/potri", "_linalg_potri", "mx.nd.linalg.potri(mx.nd.array([[2, 0], [1, 1]]))"),
    ("linalg/syrk", "_linalg_syrk", "mx.nd.linalg.syrk(mx.nd.array([[1, 2, 3], [4, 5, 6]]), alpha=0.5)"),
    ("linalg/syrk/transpose", "_linalg_syrk", "mx.nd.linalg.syrk(mx.nd.array([[1, 2, 3], [4, 5, 6]]), transpose=True)"),
    ("linalg/trmm", "_linalg_trmm", "mx.nd.linalg.trmm(mx.nd.array([[1, 9], [2, 3]]), mx.nd.array([[1, 2], [3, 4]]))"),
    ("linalg/trsm", "_linalg_trsm", "mx.nd.linalg.trsm(mx.nd.array([[2, 9], [1, 4]]), mx.nd.array([[2, 4], [5, 6]]))"),
    ("linalg/trsm/right", "_linalg_trsm", "mx.nd.linalg.trsm(mx.nd.array([[2, 0], [1, 4]]), mx.nd.array([[2, 4], [5, 6]]), "
                          "rightside=True, transpose=True, alpha=2)"),
    ("linalg/sumlogdiag", "_linalg_sumlogdiag", "mx.nd.linalg.sumlogdiag(mx.nd.array([[[2, 1], [1, 3]], [[1, 0], [0, 5]]]))"),
    ("linalg/sumlogdiag/2d", "_linalg_sumlogdiag", "mx.nd.linalg.sumlogdiag(mx.nd.array([[2, 1], [1, 3]]))"),
    ("linalg/extractdiag", "_linalg_extractdiag", "mx.nd.linalg.extractdiag(mx.nd.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]]), offset=1)"),
    ("linalg/makediag", "_linalg_makediag", "mx.nd.linalg.makediag(mx.nd.array([1, 2]), offset=-1)"),
    ("linalg/extracttrian", "_linalg_extracttrian", "mx.nd.linalg.extracttrian(mx.nd.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]]))"),
    ("linalg/extracttrian/upper", "_linalg_extracttrian", "mx.nd.linalg.extracttrian(mx.nd.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]]), "
                                  "offset=1)"),
    ("linalg/maketrian", "_linalg_maketrian", "mx.nd.linalg.maketrian(mx.nd.array([1, 2, 3]))"),
    ("linalg/maketrian/upper", "_linalg_maketrian", "mx.nd.linalg.maketrian(mx.nd.array([1, 2, 3]), offset=1, lower=False)"),
    ("linalg/inverse", "_linalg_inverse", "mx.nd.linalg.inverse(mx.nd.array([[4, 7], [2, 6]]))"),
    ("linalg/det", "_linalg_det", "mx.nd.linalg.det(mx.nd.array([[[4, 7], [2, 6]], [[1, 2], [3, 4]]]))"),
    ("linalg/slogdet", "_linalg_slogdet", "mx.nd.linalg.slogdet(mx.nd.array([[[4, 7], [2, 6]], [[1, 2], [3, 4]]]))"),
    ("linalg/syevd/values", "_linalg_syevd", "mx.nd.linalg.syevd(mx.nd.array([[2, 1], [1, 2]]))[1]"),
    ("contrib/boolean_mask", "_contrib_boolean_mask", "mx.nd.contrib.boolean_mask(mx.nd.arange(6).reshape((3, 2)), mx.nd.array([1, 0, 1]))"),
    ("contrib/index_copy", "_contrib_index_copy", "mx.nd.contrib.index_copy(mx.nd.zeros((3, 2)), mx.nd.array([2, 0]), "
                           "mx.nd.array([[1, 2], [3, 4]]))"),
    ("contrib/allclose", "_contrib_allclose", "[mx.nd.contrib.allclose(mx.nd.array([1, 2]), mx.nd.array([1, 2.00001])), "
                         "mx.nd.contrib.allclose(mx.nd.array([1, 2]), mx.nd.array([1, 3]))]"),
    ("contrib/div_sqrt_dim", "_contrib_div_sqrt_dim", "mx.nd.contrib.div_sqrt_dim(mx.nd.ones((2, 4)))"),
    ("choose_element_0index", "choose_element_0index", "mx.nd.choose_element_0index(mx.nd.array([[1, 2, 3], [4, 5, 6]]), mx.nd.array([2, 0]))"),
    ("fill_element_0index", "fill_element_0index", "mx.nd.fill_element_0index(mx.nd.zeros((2, 3)), mx.nd.array([7, 8]), mx.nd.array([1, 2]))"),
    ("onehot_encode", "_onehot_encode", "mx.nd.onehot_encode(mx.nd.array([0, 2]), mx.nd.zeros((2, 3)))"),
    ("random_uniform/shape", "_random_uniform", "mx.nd.random_uniform(low=2, high=3, shape=(2, 3)).shape"),
    ("uniform/dtype", "_random_uniform", "str(mx.nd.uniform(shape=(2,), dtype='float64').dtype)"),
    ("sample_normal/shape", "_sample_normal", "mx.nd.sample_normal(mx.nd.zeros((2,)), mx.nd.ones((2,)), shape=(3,)).shape"),
    ("ones/out", "_ones", "[mx.nd.ones((2, 2), out=mx.nd.zeros((2, 2)))]"),
    ("random_normal/shape", "_random_normal", "mx.nd.random_normal(loc=1, scale=2, shape=(3, 2)).shape"),
    ("random_exponential/shape", "_random_exponential", "mx.nd.random_exponential(lam=2, shape=(4,)).shape"),
    ("random_gamma/shape", "_random_gamma", "mx.nd.random_gamma(alpha=2, beta=1, shape=(2, 2)).shape"),
    ("random_poisson/shape", "_random_poisson", "mx.nd.random_poisson(lam=3, shape=(5,)).shape"),
    ("random_negative_binomial/shape", "_random_negative_binomial",
     "mx.nd.random_negative_binomial(k=3, p=0.5, shape=(2,)).shape"),
    ("random_randint/dtype", "_random_randint", "str(mx.nd.random_randint(low=0, high=5, shape=(3,)).dtype)"),
    ("sample_uniform/shape", "_sample_uniform",
     "mx.nd.sample_uniform(mx.nd.zeros((2,)), mx.nd.ones((2,)), shape=(4, 1)).shape"),
    ("sample_exponential/shape", "_sample_exponential", "mx.nd.sample_exponential(mx.nd.ones((3,)), shape=2).shape"),
    ("sample_gamma/shape", "_sample_gamma", "mx.nd.sample_gamma(mx.nd.ones((3,)), mx.nd.ones((3,))).shape"),
    ("sample_poisson/shape", "_sample_poisson", "mx.nd.sample_poisson(mx.nd.ones((2,)), shape=(3,)).shape"),
    ("shuffle/sorted", "_shuffle", "mx.nd.sort(mx.nd.shuffle(mx.nd.arange(6)))"),
    ("linalg/gelqf/shapes", "_linalg_gelqf", "[a.shape for a in mx.nd.linalg.gelqf(mx.nd.array([[1, 2, 3], [4, 5, 6]]))]"),
    ("linalg/gelqf/product", "_linalg_gelqf", "(lambda q, l: mx.nd.dot(l, q))(*mx.nd.linalg.gelqf(mx.nd.array([[1, 2, 3], "
     "[4, 5, 6]])))"),
    ("RNN/lstm/bidirectional", "RNN", "mx.nd.RNN(*_rnn_inputs('lstm', 2, True), state_size=3, num_layers=2, "
     "bidirectional=True, mode='lstm', state_outputs=True)"),
    ("RNN/gru", "RNN", "mx.nd.RNN(*_rnn_inputs('gru', 1, False), state_size=3, num_layers=1, mode='gru', "
     "state_outputs=True)"),
    ("RNN/gru/bidirectional", "RNN", "mx.nd.RNN(*_rnn_inputs('gru', 2, True), state_size=3, num_layers=2, "
     "bidirectional=True, mode='gru')"),
    ("RNN/rnn_tanh", "RNN", "mx.nd.RNN(*_rnn_inputs('rnn_tanh', 2, False), state_size=3, num_layers=2, "
     "mode='rnn_tanh', state_outputs=True)"),
    ("RNN/rnn_relu", "RNN", "mx.nd.RNN(*_rnn_inputs('rnn_relu', 1, True), state_size=3, num_layers=1, "
     "bidirectional=True, mode='rnn_relu', state_outputs=True)"),
    ("RNN/lstm/clip", "RNN", "mx.nd.RNN(*_rnn_inputs('lstm', 1, False, 4.0), state_size=3, num_layers=1, "
     "mode='lstm', state_outputs=True, lstm_state_clip_min=-0.2, lstm_state_clip_max=0.3)"),
    ("RNN/sym/infer_shape", "RNN", "mx.sym.RNN(mx.sym.var('x'), mx.sym.var('p'), mx.sym.var('s'), mx.sym.var('c'), "
     "state_size=3, num_layers=2, bidirectional=True, mode='lstm', state_outputs=True).infer_shape(x=(5, 2, 4))"),
    ("degrees", "degrees", "mx.nd.degrees(mx.nd.array([0, np.pi / 2, -np.pi]))"),
    ("radians", "radians", "mx.nd.radians(mx.nd.array([0, 90, -180]))"),
    ("moveaxis/several", "transpose", "mx.nd.moveaxis(mx.nd.arange(24).reshape((2, 3, 4)), [0, 1], [2, 0])"),
    ("from_numpy", "_copy", "mx.nd.from_numpy(np.arange(6, dtype=np.float32).reshape(2, 3))"),
    ("flatten/inplace", "Flatten", "mx.nd.ones((2, 3, 4)).flatten(inplace=True)"),
    ("broadcast_to/numpy_shape", "broadcast_to", "mx.nd.ones((1, 3)).broadcast_to(np.array([2, 3]))"),
    ("executor/outputs_before_forward", "_copy", "[o.shape for o in (mx.sym.var('x') * 2).simple_bind(mx.cpu(), "
     "x=(2, 3)).outputs]"),
    ("symbol/pickle", "_copy", "__import__('pickle').loads(__import__('pickle').dumps(mx.sym.FullyConnected("
     "mx.sym.var('x'), num_hidden=3, name='fc'))).list_arguments()"),
    ("contrib/SyncBatchNorm", "_contrib_SyncBatchNorm", "mx.nd.contrib.SyncBatchNorm(mx.nd.array([[1, 2], [3, 5]])"
     ".reshape((2, 2, 1, 1)), mx.nd.array([1, 2]), mx.nd.array([0, 1]), mx.nd.array([0.5, 1]), mx.nd.array([1, 2]), "
     "fix_gamma=False)"),
    ("contrib/SyncBatchNorm/training", "_contrib_SyncBatchNorm", "_sync_bn_training()"),
    ("model_zoo/resnet18_v1", "Convolution", "_zoo_model('resnet18_v1')"),
    ("model_zoo/resnet50_v2", "Convolution", "_zoo_model('resnet50_v2')"),
    ("model_zoo/resnet34_v2/thumbnail", "Convolution", "_zoo_model('resnet34_v2', thumbnail=True, classes=10)"),
    ("model_zoo/resnet101_v1/names", "Convolution", "_zoo_model('resnet101_v1', run=False)"),
    ("random/exponential", "_random_exponential", "(lambda a: (a.shape, str(a.dtype)))(mx.nd.random.exponential(2, "
     "shape=(3,)))"),
    ("random/gamma/arrays", "_sample_gamma", "mx.nd.random.gamma(mx.nd.ones((2,)), mx.nd.ones((2,)), shape=(3,)).shape"),
    ("random/poisson", "_random_poisson", "(lambda a: (a.shape, str(a.dtype)))(mx.nd.random.poisson(3, shape=4))"),
    ("random/negative_binomial", "_random_negative_binomial", "mx.nd.random.negative_binomial(3, 0.5, shape=(2, 2))"
     ".shape"),
    ("random/negative_binomial/arrays", "_sample_negative_binomial", "mx.nd.random.negative_binomial(mx.nd.array([3, 4]),"
     " mx.nd.array([0.5, 0.2]), shape=5).shape"),
    ("random/multinomial", "_sample_multinomial", "mx.nd.random.multinomial(mx.nd.array([[0, 1], [1, 0]]), shape=3)"),
    ("random/multinomial/prob", "_sample_multinomial", "mx.nd.random.multinomial(mx.nd.array([[0, 1.0], [1, 0]]), "
     "get_prob=True)"),
    ("random/multinomial/1d", "_sample_multinomial", "(lambda a: (a.shape, str(a.dtype)))(mx.nd.random.multinomial("
     "mx.nd.array([0.5, 0.5])))"),
    ("random/randint", "_random_randint", "(lambda a: (a.shape, str(a.dtype)))(mx.nd.random.randint(0, 5, shape=(2,)))"),
    ("sym/random/uniform", "_random_uniform", "mx.sym.random.uniform(0, 1, shape=(2,)).eval()[0].shape"),
    ("sym/random/normal/arrays", "_sample_normal", "mx.sym.random.normal(mx.sym.var('m'), mx.sym.var('s'), shape=(2,))"
     ".infer_shape(m=(3,), s=(3,))"),
    ("random/shuffle", "_shuffle", "mx.nd.sort(mx.nd.random.shuffle(mx.nd.arange(5)))"),
    ("ndarray/getstate", "_copy", "bytes(mx.nd.array([[1, 2], [3, 4]], dtype='int32').__getstate__()['handle']).hex()"),
    ("ndarray/pickle", "_copy", "__import__('pickle').loads(__import__('pickle').dumps(mx.nd.array([1.5, 2])))"),
    ("ndarray/reshape/size", "Reshape", "mx.nd.ones((2, 3, 5)).reshape((2, 3))"),
    ("gluon/LSTMCell/unroll", "RNN", "_gluon_rnn('rnn.LSTMCell(3)', 'unroll')"),
    ("gluon/GRUCell/unroll", "RNN", "_gluon_rnn('rnn.GRUCell(3)', 'unroll')"),
    ("gluon/RNNCell/relu", "RNN", "_gluon_rnn('rnn.RNNCell(3, activation=\\'relu\\')', 'unroll')"),
    ("gluon/SequentialRNNCell", "RNN", "_gluon_rnn('_sequential()', 'unroll')"),
    ("gluon/BidirectionalCell", "RNN", "_gluon_rnn('rnn.BidirectionalCell(rnn.LSTMCell(3), rnn.GRUCell(3))', "
     "'unroll')"),
    ("gluon/LSTM/bidirectional", "RNN", "_gluon_rnn('rnn.LSTM(3, num_layers=2, bidirectional=True, layout=\\'NTC\\')', "
     "'layer')"),
    ("gluon/LSTM/hybridized", "RNN", "_gluon_rnn('rnn.LSTM(3, num_layers=2, layout=\\'NTC\\')', 'hybrid')"),
    ("gluon/GRU/states", "RNN", "_gluon_rnn('rnn.GRU(3, layout=\\'NTC\\')', 'states')"),
    ("gluon/RNN/tanh", "RNN", "_gluon_rnn('rnn.RNN(3, activation=\\'tanh\\', layout=\\'NTC\\')', 'layer')"),
    ("init/bilinear", "_zeros", "(lambda w: [mx.init.Bilinear()._init_weight('w', w), w][1])(mx.nd.zeros((1, 1, 4, 4)))"),
    ("init/bilinear/odd", "_zeros", "(lambda w: [mx.init.Bilinear()._init_weight('w', w), w][1])(mx.nd.zeros((2, 1, 3, 5)))"),
    ("init/lstmbias", "_zeros", "(lambda w: [mx.init.LSTMBias(2.5)._init_weight('b', w), w][1])(mx.nd.zeros((8,)))"),
    ("init/orthogonal", "dot", "(lambda w: [mx.init.Orthogonal(scale=2.0)._init_weight('w', w), "
                               "mx.nd.round(mx.nd.dot(w, w, transpose_b=True) * 1000)][1])(mx.nd.zeros((3, 5)))"),
    ("init/orthogonal/tall", "dot", "(lambda w: [mx.init.Orthogonal(rand_type='normal')._init_weight('w', w), "
                                    "mx.nd.round(mx.nd.dot(w, w, transpose_a=True) * 1000)][1])(mx.nd.zeros((4, 2)))"),
    ("init/constant/dumps/array", "_ones", "mx.init.Constant(mx.nd.ones((2, 1)) * 3).dumps()"),
    ("init/constant/dumps/numpy", "_ones", "mx.init.Constant(np.arange(3)).dumps()"),
    ("init/constant/dumps/scalar", "_ones", "mx.init.Constant(1).dumps()"),
    ("init/create/orthogonal", "_zeros", "type(mx.init.create('orthogonal')).__name__"),
    ("grad/rcbrt", "rcbrt", "_input_grad(mx.nd.rcbrt, [1, 8, 0.5, -27])"),
    ("grad/degrees", "degrees", "_input_grad(mx.nd.degrees, [1, -2])"),
    ("grad/radians", "radians", "_input_grad(mx.nd.radians, [1, -2])"),
    ("grad/hard_sigmoid", "hard_sigmoid", "_input_grad(lambda x: mx.nd.hard_sigmoid(x, alpha=0.3, beta=0.4), "
                                          "[-5, -1, 0, 1, 1.9, 5], [[1, 2, 3, 4, 5, 6]])"),
    ("grad/div_sqrt_dim", "_contrib_div_sqrt_dim", "_input_grad(mx.nd.contrib.div_sqrt_dim, [[1, 2, 3, 4], [5, 6, 7, 8]])"),
    ("grad/moments", "moments", "_input_grad(lambda x: mx.nd.moments(x, axes=(1,)), [[1, 2, 4], [3, 5, 9]], "
                                "[[1, 2], [0.5, -1]])"),
    ("grad/moments/keepdims", "moments", "_input_grad(lambda x: mx.nd.moments(x, axes=(0, 2), keepdims=True), "
                                         "[[[1, 2], [4, 0]], [[3, 5], [9, 1]]])"),
    ("grad/boolean_mask", "_contrib_boolean_mask", "_input_grad(lambda x: mx.nd.contrib.boolean_mask(x, "
                                                   "mx.nd.array([0, 1, 1])), [[1, 2], [3, 4], [5, 6]], [[[1, 2], [3, 4]]])"),
    ("grad/arcsinh", "arcsinh", "_input_grad(mx.nd.arcsinh, [-2, 0, 0.5, 3])"),
    ("grad/arccosh", "arccosh", "_input_grad(mx.nd.arccosh, [1.5, 2, 7])"),
    ("grad/arctanh", "arctanh", "_input_grad(mx.nd.arctanh, [-0.5, 0, 0.9])"),
    ("init/equal", "_zeros", "[mx.init.Constant(-10.0) == mx.init.Constant(-10.0), mx.init.Constant(1) == mx.init.Constant(2), "
                   "mx.init.Zero() == mx.init.One(), mx.init.Xavier() != mx.init.Xavier(), mx.init.Zero() == 0]"),
    ("executor/backward_first", "repeat", "(lambda g: [mx.sym.repeat(mx.sym.var('x'), repeats=2, axis=0).bind(mx.cpu(), "
                                          "{'x': mx.nd.ones((2, 3))}, args_grad={'x': g}).backward(mx.nd.arange(12).reshape((4, 3))), "
                                          "g][1])(mx.nd.zeros((2, 3)))"),
    ("executor/backward_null_reqs", "FullyConnected", "(lambda e: [e.forward(is_train=True), e.backward(e.outputs[0]), "
                                   "e.outputs[0]][2])(mx.sym.FullyConnected(mx.sym.var('x'), num_hidden=2, no_bias=True, "
                                   "name='fc').bind(mx.cpu(), {'x': mx.nd.ones((1, 3)), 'fc_weight': mx.nd.ones((2, 3))}, "
                                   "args_grad={'x': mx.nd.zeros((1, 3)), 'fc_weight': mx.nd.zeros((2, 3))}, grad_req='null'))"),
    ("gluon/parameter_dict/str", "_zeros", "[str(mx.gluon.ParameterDict('net1_')).splitlines()[0], "
                                           "str(mx.gluon.ParameterDict()).splitlines()[0]]"),
    ("nd/reset_arrays", "_zeros", "(lambda x, y: [mx.nd.reset_arrays(x, y, num_arrays=2), x, y])(mx.nd.ones((2, 2)), "
                                  "mx.nd.ones((3,), dtype='float16'))"),
    ("nd/reset_arrays/count", "_zeros", "mx.nd.reset_arrays(mx.nd.ones((2,)), mx.nd.ones((2,)), num_arrays=1)"),
]


def _gluon_rnn(build, how):
    """A gluon.rnn cell or layer with deterministic parameters, run on a (2, 4, 5) NTC batch."""
    import mxnet as mx
    from mxnet.gluon import rnn

    def _sequential():
        seq = rnn.SequentialRNNCell()
        seq.add(rnn.LSTMCell(3))
        seq.add(rnn.ResidualCell(rnn.GRUCell(3)))
        return seq

    block = eval(build, {"rnn": rnn, "_sequential": _sequential})
    block.initialize()
    rng = np.random.RandomState(3)
    data = mx.nd.array(rng.uniform(-1, 1, (2, 4, 5)))
    if how == "unroll":
        block.unroll(4, data, merge_outputs=True)  # shapes the deferred parameters
    else:
        block(data)
    for name in sorted(block.collect_params()):
        param = block.collect_params()[name]
        param.set_data(mx.nd.array(rng.uniform(-0.6, 0.6, param.shape)))
    if how == "unroll":
        outputs, states = block.unroll(4, data, merge_outputs=True)
        return [outputs] + list(states)
    if how == "hybrid":
        block.hybridize()
        block(data)
        return block(data)
    if how == "states":
        outputs, states = block(data, block.begin_state(2))
        return [outputs] + list(states)
    return block(data)


def _input_grad(function, data, head_grads=None):
    """[outputs, gradient of the input]: `function` of one float32 input, run under autograd.record,
    then backward from its outputs (with `head_grads`, one list per output, or ones)."""
    import mxnet as mx
    x = mx.nd.array(data)
    x.attach_grad()
    with mx.autograd.record():
        outputs = function(x)
    outputs = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
    heads = [mx.nd.array(h) for h in head_grads] if head_grads else [mx.nd.ones_like(o) for o in outputs]
    mx.autograd.backward(outputs, heads)
    return outputs + [x.grad]


def _sync_bn_training():
    """SyncBatchNorm's output in training and the moving statistics it leaves."""
    import mxnet as mx
    moving_mean, moving_var = mx.nd.array([0.5, 1]), mx.nd.array([1, 2])
    with mx.autograd.record():
        out = mx.nd.contrib.SyncBatchNorm(mx.nd.array([[1, 2], [3, 5]]).reshape((2, 2, 1, 1)), mx.nd.array([1, 2]),
                                          mx.nd.array([0, 1]), moving_mean, moving_var, fix_gamma=False, ndev=1,
                                          key="bn")
    return [out, moving_mean, moving_var]


def _zoo_model(name, run=True, **kwargs):
    """[parameter names, output (or nothing)] of a model zoo network with deterministic parameters."""
    import mxnet as mx
    net = mx.gluon.model_zoo.vision.get_model(name, prefix="net_", **kwargs)
    names = list(net.collect_params())
    if not run:
        return [names]
    net.initialize()
    data = mx.nd.array(np.random.RandomState(5).uniform(-1, 1, (1, 3, 32, 32)))
    net(data)
    rng = np.random.RandomState(11)
    for key in sorted(names):
        param = net.collect_params()[key]
        low, high = (0.5, 1.5) if key.endswith(("running_var", "gamma")) else (-0.1, 0.1)
        param.set_data(mx.nd.array(rng.uniform(low, high, param.shape)))
    return [names, net(data)]


def _rnn_inputs(mode, layers, bidirectional, scale=1.0):
    """Deterministic inputs of the fused RNN operator: (data (5, 2, 4), flat parameters, states)."""
    import mxnet as mx
    gates = {"lstm": 4, "gru": 3}.get(mode, 1)
    directions = 2 if bidirectional else 1
    count = 0
    for layer in range(layers):
        width = 4 if layer == 0 else 3 * directions
        count += directions * (gates * 3 * (width + 3) + 2 * gates * 3)
    rng = np.random.RandomState(7)
    arrays = [rng.uniform(-1, 1, (5, 2, 4)) * scale, rng.uniform(-0.5, 0.5, (count,)),
              rng.uniform(-1, 1, (layers * directions, 2, 3))]
    if mode == "lstm":
        arrays.append(rng.uniform(-1, 1, (layers * directions, 2, 3)))
    return [mx.nd.array(a) for a in arrays]


def record(mx):
    for case_id, op, code in CASES:
        try:
            result = encode(eval(code, {"mx": mx, "np": np, "_rnn_inputs": _rnn_inputs,
                                   "_gluon_rnn": _gluon_rnn, "_sync_bn_training": _sync_bn_training,
                                   "_zoo_model": _zoo_model, "_input_grad": _input_grad}))
        except Exception as exc:  # noqa: BLE001  (the type is what is recorded)
            result = {"error": type(exc).__name__}
        yield {"id": case_id, "op": op, "code": code, "result": result}


if __name__ == "__main__":
    import mxnet
    for line in record(mxnet):
        sys.stdout.write(json.dumps(line) + "\n")
