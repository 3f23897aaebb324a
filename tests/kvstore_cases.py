"""Cases of the local key-value store, Parameters on several contexts and gluon.Trainer's use of a
key-value store. Each is a function of the `mxnet` module; tools/record_kvstore_cases.py runs them on
MXNet 1.9.1 and stores what they return (or raise) in fixtures/training/kvstore.json, and
tests/test_runtime_kvstore.py runs them on the runtime and compares."""
import os
import tempfile

import numpy as np

SHAPE = (2, 3)


def outcome(case, mx):
    """What `case(mx)` returns, or {"error": exception type, "message": its text} if it raises."""
    try:
        return {"value": case(mx)}
    except Exception as err:  # the case records MXNet's exception, whatever its type
        return {"error": type(err).__name__, "message": str(err)}


def _values(arrays):
    return [a.asnumpy().tolist() for a in arrays]


def _contexts(arrays):
    return [str(a.context) for a in arrays]


def _ctx(mx, n):
    return [mx.cpu(i) for i in range(n)]


# ---- the key-value store

def kv_properties(mx):
    result = {}
    for name in ("local", "device", "local_allreduce_cpu", "LOCAL"):
        kv = mx.kv.create(name)
        result[name] = [kv.type, kv.rank, kv.num_workers, kv.is_capable("optimizer"),
                        isinstance(kv, mx.kv.KVStoreBase), type(kv).__name__]
    return result


def kv_create_default(mx):
    return mx.kv.create().type


def kv_is_capable_unknown(mx):
    return mx.kv.create("local").is_capable("sparse")


def kv_create_unknown_type(mx):
    return mx.kv.create("nosuchstore").type


def kv_create_not_a_string(mx):
    return mx.kv.create(3).type


def kv_init_and_pull(mx):
    result = []
    for key in (3, "a"):
        kv = mx.kv.create("local")
        kv.init(key, mx.nd.ones(SHAPE) * 4)
        out = mx.nd.zeros(SHAPE)
        kv.pull(key, out=out)
        result.append(out.asnumpy().tolist())
    return result


def kv_init_copies_the_value(mx):
    kv = mx.kv.create("local")
    value = mx.nd.ones(SHAPE)
    kv.init(3, value)
    value[:] = 7
    out = mx.nd.zeros(SHAPE)
    kv.pull(3, out=out)
    return _values([out])


def kv_push_sums_a_list(mx):
    result = {}
    for name in ("local", "device"):
        kv = mx.kv.create(name)
        kv.init(3, mx.nd.zeros(SHAPE))
        vals = [mx.nd.ones(SHAPE, ctx) * (i + 1) for i, ctx in enumerate(_ctx(mx, 4))]
        kv.push(3, vals)
        outs = [mx.nd.zeros(SHAPE, ctx) for ctx in _ctx(mx, 4)]
        kv.pull(3, out=outs)
        kv.push(3, mx.nd.ones(SHAPE) * 0.5)  # no updater: a push replaces the stored value
        again = mx.nd.zeros(SHAPE)
        kv.pull(3, out=again)
        result[name] = [_values(outs), _contexts(outs), _values([again])]
    return result


def kv_list_of_keys(mx):
    kv = mx.kv.create("local")
    keys = [5, 7, 11]
    kv.init(keys, [mx.nd.zeros(SHAPE)] * 3)
    kv.push(keys, [[mx.nd.ones(SHAPE, ctx) * k for ctx in _ctx(mx, 2)] for k in keys])
    outs = [[mx.nd.zeros(SHAPE, ctx) for ctx in _ctx(mx, 2)] for _ in keys]
    kv.pull(keys, out=outs)
    return [_values(o) for o in outs]


def kv_repeated_key_in_a_list(mx):
    kv = mx.kv.create("local")
    kv.init(3, mx.nd.zeros(SHAPE))
    kv.push([3, 3], [mx.nd.ones(SHAPE), mx.nd.ones(SHAPE) * 2])
    out = mx.nd.zeros(SHAPE)
    kv.pull(3, out=out)
    return _values([out])


def kv_pushpull_in_place_reads_before_writing(mx):
    """The same arrays pushed for several keys: every key sums the values as they were."""
    kv = mx.kv.create("device")
    keys = [5, 7, 11]
    kv.broadcast(keys, [mx.nd.zeros(SHAPE)] * 3, out=[mx.nd.zeros(SHAPE)] * 3)
    vals = [[mx.nd.ones(SHAPE, ctx) * 2 for ctx in _ctx(mx, 4)]] * 3
    kv.pushpull(keys, vals)
    single = [mx.nd.ones(SHAPE, ctx) for ctx in _ctx(mx, 3)]
    kv.pushpull(5, single, out=None)
    return [_values(vals[0]), _values(single)]


def kv_pushpull_to_out(mx):
    kv = mx.kv.create("local")
    kv.init("w", mx.nd.zeros(SHAPE))
    vals = [mx.nd.ones(SHAPE, ctx) for ctx in _ctx(mx, 2)]
    outs = [mx.nd.zeros(SHAPE, ctx) for ctx in _ctx(mx, 3)]
    kv.pushpull("w", vals, out=outs)
    return [_values(vals), _values(outs)]


def kv_broadcast(mx):
    kv = mx.kv.create("device")
    out = mx.nd.zeros(SHAPE)
    kv.broadcast(3, mx.nd.ones(SHAPE) * 3, out)
    outs = [mx.nd.zeros(SHAPE, ctx) for ctx in _ctx(mx, 2)]
    kv.broadcast(6, mx.nd.ones(SHAPE) * 5, outs)
    return [_values([out]), _values(outs)]


def kv_broadcast_an_inited_key(mx):
    kv = mx.kv.create("local")
    kv.init(3, mx.nd.zeros(SHAPE))
    kv.broadcast(3, mx.nd.ones(SHAPE), out=mx.nd.zeros(SHAPE))
    return True


def kv_updater_gets_keys_and_sums(mx):
    calls = []

    def updater(key, recv, local):
        calls.append([repr(key), type(key).__name__, recv.asnumpy().tolist(), local.asnumpy().tolist()])
        local += recv

    result = []
    for keys in ([3, 9], ["a", "b"]):
        kv = mx.kv.create("local")
        kv.init(keys, [mx.nd.ones(SHAPE)] * 2)
        kv._set_updater(updater)
        kv.push(keys, [[mx.nd.ones(SHAPE, ctx) for ctx in _ctx(mx, 2)]] * 2)
        outs = [mx.nd.zeros(SHAPE) for _ in keys]
        kv.pull(keys, out=outs)
        result.append(_values(outs))
    return [calls, result]


def kv_duplicate_init(mx):
    kv = mx.kv.create("local")
    kv.init(3, mx.nd.zeros(SHAPE))
    kv.init(3, mx.nd.zeros(SHAPE))
    return True


def kv_push_before_init(mx):
    kv = mx.kv.create("local")
    kv.push(3, mx.nd.zeros(SHAPE))
    return True


def kv_pull_before_init(mx):
    kv = mx.kv.create("local")
    kv.pull(3, out=mx.nd.zeros(SHAPE))
    return True


def kv_pull_before_init_str(mx):
    kv = mx.kv.create("local")
    kv.pull("x", out=mx.nd.zeros(SHAPE))
    return True


def kv_str_key_on_an_int_store(mx):
    kv = mx.kv.create("local")
    kv.init(3, mx.nd.zeros(SHAPE))
    kv.init("a", mx.nd.zeros(SHAPE))
    return True


def kv_int_key_on_a_str_store(mx):
    kv = mx.kv.create("local")
    kv.init("a", mx.nd.zeros(SHAPE))
    kv.push(3, mx.nd.zeros(SHAPE))
    return True


def kv_mixed_key_types_in_a_list(mx):
    kv = mx.kv.create("local")
    kv.init([1, "a"], [mx.nd.zeros(SHAPE)] * 2)
    return True


def kv_keys_and_values_of_different_lengths(mx):
    kv = mx.kv.create("local")
    kv.init([1, 2], [mx.nd.zeros(SHAPE)])
    return True


def kv_float_key(mx):
    kv = mx.kv.create("local")
    kv.init(1.5, mx.nd.zeros(SHAPE))
    return True


def kv_pull_without_out(mx):
    kv = mx.kv.create("local")
    kv.init(3, mx.nd.zeros(SHAPE))
    kv.pull(3)
    return True


def kv_pull_shape_mismatch(mx):
    kv = mx.kv.create("local")
    kv.init(3, mx.nd.zeros(SHAPE))
    out = mx.nd.zeros((3, 2))
    kv.pull(3, out=out)
    return out.asnumpy().tolist()


def kv_set_optimizer_updates_stored_weights(mx):
    kv = mx.kv.create("local")
    kv.init(0, mx.nd.ones(SHAPE))
    opt = mx.optimizer.create("sgd", learning_rate=0.1, momentum=0.9, wd=0.01)
    kv.set_optimizer(opt)
    history = []
    for step in range(3):
        kv.push(0, [mx.nd.ones(SHAPE, ctx) * (i + step + 1) for i, ctx in enumerate(_ctx(mx, 2))])
        out = mx.nd.zeros(SHAPE)
        kv.pull(0, out=out)
        history.append(out.asnumpy().tolist())
    return [history, kv._updater.optimizer is opt, sorted(kv._updater.states),
            _values([kv._updater.states[0]])]


def kv_optimizer_states_round_trip(mx):
    kv = mx.kv.create("device")
    kv.init(0, mx.nd.ones(SHAPE))
    kv.set_optimizer(mx.optimizer.create("sgd", learning_rate=0.1, momentum=0.9))
    kv.push(0, mx.nd.ones(SHAPE))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "kv.states")
        kv.save_optimizer_states(path, dump_optimizer=True)
        kv.push(0, mx.nd.ones(SHAPE) * 5)
        kv.load_optimizer_states(path)
    loaded = kv._updater.states[0]
    kv.push(0, mx.nd.ones(SHAPE))
    out = mx.nd.zeros(SHAPE)
    kv.pull(0, out=out)
    return [_values([loaded, out]), kv._updater.optimizer.momentum]


def kv_save_states_without_optimizer(mx):
    kv = mx.kv.create("local")
    with tempfile.TemporaryDirectory() as tmp:
        kv.save_optimizer_states(os.path.join(tmp, "s"))
    return True


def kv_load_states_without_optimizer(mx):
    kv = mx.kv.create("local")
    kv.load_optimizer_states("no-such-file")
    return True


def kv_compression_on_local(mx):
    kv = mx.kv.create("local")
    kv.set_gradient_compression({"type": "2bit", "threshold": 0.5})
    return True


def kv_compression_unknown_type(mx):
    kv = mx.kv.create("device")
    kv.set_gradient_compression({"type": "3bit", "threshold": 0.5})
    return True


def kv_compression_2bit_on_device(mx):
    """2-bit compression: each pushed value is quantized to -t, 0 or t, keeping what it left as a
    residual for the next push of the same key from the same array."""
    kv = mx.kv.create("device")
    kv.set_gradient_compression({"type": "2bit", "threshold": 0.5})
    kv.init(3, mx.nd.zeros((6,)))
    history = []
    grads = [mx.nd.array([0.3, 0.6, -0.7, 1.2, -0.2, 0.0], ctx) * (i + 1) for i, ctx in enumerate(_ctx(mx, 2))]
    for _ in range(3):
        kv.push(3, grads)
        out = mx.nd.zeros((6,))
        kv.pull(3, out=out)
        history.append(out.asnumpy().tolist())
    return history


def kv_compression_of_a_single_value(mx):
    kv = mx.kv.create("device")
    kv.set_gradient_compression({"type": "2bit", "threshold": 0.5})
    kv.init(3, mx.nd.zeros((6,)))
    history = []
    for _ in range(2):
        kv.push(3, mx.nd.array([0.3, 0.6, -0.7, 1.2, -0.2, 0.5]))
        out = mx.nd.zeros((6,))
        kv.pull(3, out=out)
        history.append(out.asnumpy().tolist())
    return history


def kv_compression_default_threshold(mx):
    kv = mx.kv.create("device")
    kv.set_gradient_compression({"type": "2bit"})
    kv.init(3, mx.nd.zeros((6,)))
    kv.push(3, [mx.nd.array([0.3, 0.6, -0.7, 1.2, -0.2, 0.5], ctx) for ctx in _ctx(mx, 2)])
    out = mx.nd.zeros((6,))
    kv.pull(3, out=out)
    return out.asnumpy().tolist()


def kv_compression_1bit(mx):
    kv = mx.kv.create("device")
    kv.set_gradient_compression({"type": "1bit", "threshold": 0.5})
    kv.init(3, mx.nd.zeros((6,)))
    kv.push(3, [mx.nd.array([0.3, 0.6, -0.7, 1.2, -0.2, 0.5], ctx) for ctx in _ctx(mx, 2)])
    out = mx.nd.zeros((6,))
    kv.pull(3, out=out)
    return out.asnumpy().tolist()


def kv_compression_none(mx):
    kv = mx.kv.create("device")
    kv.set_gradient_compression({"type": "none"})
    kv.init(3, mx.nd.zeros((6,)))
    kv.push(3, [mx.nd.array([0.3, 0.6, -0.7, 1.2, -0.2, 0.5], ctx) for ctx in _ctx(mx, 2)])
    out = mx.nd.zeros((6,))
    kv.pull(3, out=out)
    return out.asnumpy().tolist()


def kv_compression_without_type(mx):
    kv = mx.kv.create("device")
    kv.set_gradient_compression({"threshold": 0.5})
    return True


def kv_duplicate_init_str(mx):
    kv = mx.kv.create("local")
    kv.init("w", mx.nd.zeros(SHAPE))
    kv.init("w", mx.nd.zeros(SHAPE))
    return True


def kv_push_before_init_str(mx):
    kv = mx.kv.create("local")
    kv.init("w", mx.nd.zeros(SHAPE))
    kv.push("v", mx.nd.zeros(SHAPE))
    return True


def kv_push_shape_mismatch(mx):
    kv = mx.kv.create("local")
    kv.init(3, mx.nd.zeros(SHAPE))
    kv.push(3, mx.nd.zeros((3, 2)))
    out = mx.nd.zeros(SHAPE)
    kv.pull(3, out=out)
    return out.asnumpy().tolist()


def kv_teststore(mx):
    kv = mx.kv.create("teststore")
    out = mx.nd.zeros(SHAPE)
    kv.broadcast(1, mx.nd.ones(SHAPE), out=out)
    outs = [mx.nd.zeros(SHAPE) for _ in range(2)]
    kv.pushpull(1, [mx.nd.ones(SHAPE)] * 2, out=outs)
    kv.pushpull(1, outs)
    errors = []
    for call in (lambda: kv.set_optimizer(mx.optimizer.create("sgd")), lambda: kv.save_optimizer_states("x"),
                 lambda: kv.load_optimizer_states("x"), lambda: kv.is_capable("sparse")):
        try:
            call()
            errors.append(None)
        except Exception as err:
            errors.append([type(err).__name__, str(err)])
    return [_values([out] + outs), kv.type, kv.rank, kv.num_workers, kv.is_capable("optimizer"),
            type(kv).is_capable("optimizer"), isinstance(kv, mx.kv.KVStoreBase), errors]


def kv_register_a_store(mx):
    @mx.kv.KVStoreBase.register
    class MyCaseStore(mx.kv.KVStoreBase):
        @property
        def type(self):
            return "mine"

    kv = mx.kv.create("MyCaseStore")
    return [type(kv).__name__, kv.type, "mycasestore" in mx.kv.KVStoreBase.kv_registry]


# ---- Parameters on several contexts

def _param(mx, name="x", shape=SHAPE, n=2, init="zeros", **kwargs):
    param = mx.gluon.Parameter(name, shape=shape, **kwargs)
    param.initialize(ctx=_ctx(mx, n), init=init)
    return param


def param_copies_per_context(mx):
    x = _param(mx, init="ones")
    x.data(mx.cpu(0))[:] = 5
    with mx.cpu(1):
        under_cpu1 = str(x.data().context)
    return [[str(c) for c in x.list_ctx()], _contexts(x.list_data()), _contexts(x.list_grad()),
            _values(x.list_data()), str(x.data().context), under_cpu1, str(x.grad(mx.cpu(1)).context)]


def param_data_on_another_context(mx):
    return str(_param(mx).data(mx.cpu(2)))


def param_grad_on_another_context(mx):
    return str(_param(mx).grad(mx.gpu(0)))


def param_list_ctx_before_initialize(mx):
    return mx.gluon.Parameter("x", shape=SHAPE).list_ctx()


def param_list_ctx_deferred(mx):
    x = mx.gluon.Parameter("x", shape=(0, 3), allow_deferred_init=True)
    x.initialize(ctx=_ctx(mx, 2))
    return [str(c) for c in x.list_ctx()]


def param_set_data_writes_every_copy(mx):
    x = _param(mx)
    x.set_data(mx.nd.ones(SHAPE) * 3)
    return _values(x.list_data())


def param_reset_ctx_averages_the_copies(mx):
    x = _param(mx)
    for i, w in enumerate(x.list_data()):
        w[:] = i + 1
    x.reset_ctx([mx.cpu(3), mx.cpu(1), mx.cpu(5)])
    return [[str(c) for c in x.list_ctx()], _values(x.list_data()), _contexts(x.list_grad()),
            str(x.data(mx.cpu(5)).context)]


def param_reset_ctx_uninitialized(mx):
    mx.gluon.Parameter("x", shape=SHAPE).reset_ctx(mx.cpu(1))
    return True


def param_reset_ctx_deferred(mx):
    x = mx.gluon.Parameter("x", shape=(0, 3), allow_deferred_init=True)
    x.initialize(ctx=mx.cpu(0))
    x.reset_ctx([mx.cpu(1), mx.cpu(2)])
    x.shape = (2, 3)
    x._finish_deferred_init()
    return _contexts(x.list_data())


def param_grads_per_context(mx):
    x = _param(mx, n=3)
    with mx.autograd.record():
        ys = [w * (i + 1) for i, w in enumerate(x.list_data())]
    for y in ys:
        y.backward()
    grads = _values(x.list_grad())
    x.zero_grad()
    return [grads, _values(x.list_grad())]


def param_save_and_load_on_contexts(mx):
    params = mx.gluon.ParameterDict("net_")
    x = params.get("x", shape=SHAPE)
    params.initialize(ctx=_ctx(mx, 2), init="zeros")
    for i, w in enumerate(x.list_data()):
        w[:] = 2 * i + 1
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "p.params")
        params.save(path)
        saved = mx.nd.load(path)
        other = mx.gluon.ParameterDict("net_")
        y = other.get("x", shape=SHAPE)
        other.load(path, ctx=[mx.cpu(2), mx.cpu(4)])
        y_contexts = _contexts(y.list_data())
        try:
            params.load(path, ctx=[mx.cpu(7)])
            mismatch = None
        except Exception as err:
            mismatch = [type(err).__name__, str(err)]
    return [saved["net_x"].asnumpy().tolist(), _values(y.list_data()), y_contexts, mismatch]


def param_cast_every_copy(mx):
    x = _param(mx)
    x.cast("float16")
    return [[str(np.dtype(w.dtype)) for w in x.list_data()], [str(np.dtype(g.dtype)) for g in x.list_grad()],
            _contexts(x.list_data())]


def param_grad_req_null_on_contexts(mx):
    x = _param(mx)
    x.grad_req = "null"
    try:
        x.list_grad()
        error = None
    except Exception as err:
        error = [type(err).__name__, str(err)]
    x.grad_req = "write"
    return [error, _contexts(x.list_grad())]


def param_second_trainer_for_row_sparse(mx):
    x = mx.gluon.Parameter("x", shape=(10,), stype="row_sparse")
    x.initialize()
    first = mx.gluon.Trainer([x], "sgd")
    same = x._trainer is first
    x._set_trainer(None)
    x._set_trainer(first)
    mx.gluon.Trainer([x], "sgd")
    return same


def param_second_trainer_for_dense(mx):
    x = _param(mx)
    mx.gluon.Trainer([x], "sgd")
    second = mx.gluon.Trainer([x], "sgd")
    return x._trainer is second


def param_dict_list_ctx(mx):
    params = mx.gluon.ParameterDict("p_")
    params.get("a", shape=SHAPE)
    params.get("b", shape=SHAPE)
    params["p_a"].initialize(ctx=[mx.cpu(2), mx.cpu(0)])
    params["p_b"].initialize(ctx=[mx.cpu(1)])
    return sorted(str(c) for c in params.list_ctx())


def block_reset_ctx_after_hybridizing(mx):
    """A hybridized net keeps running after its parameters move, with the moved values."""
    net = mx.gluon.nn.Dense(2, in_units=3, prefix="d_")
    net.initialize(ctx=_ctx(mx, 2))
    net.hybridize()
    for i, w in enumerate(net.weight.list_data()):
        w[:] = i + 1
    net.bias.set_data(mx.nd.zeros((2,)))
    x = mx.nd.ones((1, 3))
    before = [net(x.as_in_context(ctx)).asnumpy().tolist() for ctx in _ctx(mx, 2)]
    net.collect_params().reset_ctx(_ctx(mx, 2))
    same = [net(x.as_in_context(ctx)).asnumpy().tolist() for ctx in _ctx(mx, 2)]
    net.collect_params().reset_ctx(mx.cpu(3))
    moved = net(x.as_in_context(mx.cpu(3)))
    return [before, same, moved.asnumpy().tolist(), str(moved.context)]


def _shared_pair(mx):
    class B(mx.gluon.Block):
        def __init__(self, params=None):
            super().__init__(params=params)
            with self.name_scope():
                self.weight = self.params.get("weight", shape=(2, 2))

    class C(mx.gluon.Block):
        def __init__(self, b1, b2):
            super().__init__()
            self.b1, self.b2 = b1, b2

    b1 = B()
    return C(b1, B(b1.collect_params()))


def block_save_deduplicated(mx):
    """A parameter shared by two blocks is saved once with deduplicate=True, and loads into both."""
    net = _shared_pair(mx)
    net.initialize(mx.init.Constant(3), ctx=_ctx(mx, 2))
    with tempfile.TemporaryDirectory() as tmp:
        once, twice = os.path.join(tmp, "once.params"), os.path.join(tmp, "twice.params")
        net.save_parameters(once, deduplicate=True)
        net.save_parameters(twice)
        keys = [sorted(mx.nd.load(once)), sorted(mx.nd.load(twice))]
        other = _shared_pair(mx)
        other.load_parameters(once, ctx=mx.cpu(1))
    return [keys, _values(other.b2.weight.list_data()), _contexts(other.b1.weight.list_data())]


def block_load_cast_dtype(mx):
    result = []
    for source in ("current", "saved"):
        net = mx.gluon.nn.Dense(2, in_units=2, prefix="d_")
        net.initialize(ctx=_ctx(mx, 2))
        net.cast("float16")
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "p.params")
            net.save_parameters(path)
            net.cast("float32")
            net.load_parameters(path, cast_dtype=True, dtype_source=source)
        result.append([str(np.dtype(net.weight.dtype)), [str(np.dtype(w.dtype)) for w in net.weight.list_data()]])
    return result


def block_forward_and_train_on_contexts(mx):
    """Data split over two contexts, each copy of a (hybridized) net runs on its own, and the Trainer
    sums the gradients so that the copies stay equal."""
    result = []
    for hybridize in (False, True):
        net = mx.gluon.nn.HybridSequential(prefix="net_")
        net.add(mx.gluon.nn.Dense(3, in_units=4, prefix="d0_"), mx.gluon.nn.Dense(2, in_units=3, prefix="d1_"))
        net.initialize(mx.init.Xavier(), ctx=_ctx(mx, 2))
        rng = np.random.RandomState(0)
        for param in net.collect_params().values():
            param.set_data(mx.nd.array(rng.uniform(-1, 1, param.shape)))
        if hybridize:
            net.hybridize()
        trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.9})
        data = mx.nd.array(rng.uniform(-1, 1, (4, 4)))
        label = mx.nd.array(rng.uniform(-1, 1, (4, 2)))
        loss_fn = mx.gluon.loss.L2Loss()
        for _ in range(2):
            xs = mx.gluon.utils.split_and_load(data, _ctx(mx, 2))
            ls = mx.gluon.utils.split_and_load(label, _ctx(mx, 2))
            with mx.autograd.record():
                losses = [loss_fn(net(x), l) for x, l in zip(xs, ls)]
            for loss in losses:
                loss.backward()
            trainer.step(4)
        outs = [net(x) for x in xs]
        result.append([_contexts(outs), _values(outs),
                       {k: _values(p.list_data()) for k, p in sorted(net.collect_params().items())},
                       trainer._kvstore.type, trainer._update_on_kvstore])
    return result


# ---- gluon.Trainer and its key-value store

def _step(mx, x, trainer, steps=2, batch_size=1):
    for _ in range(steps):
        with mx.autograd.record():
            ys = [w * (i + 1) for i, w in enumerate(x.list_data())]
        for y in ys:
            y.backward()
        trainer.step(batch_size)


def _trainer_state(trainer):
    kv = trainer._kvstore
    return [None if kv is None else kv.type, trainer._update_on_kvstore, trainer._distributed,
            trainer._kv_initialized, len(trainer._updaters)]


def trainer_kvstore_choices(mx):
    result = {}
    for kvstore in ("local", "device", None, "local_allreduce_cpu", "nccl_none"):
        for update_on_kvstore in (None, True, False):
            for n in (1, 2):
                key = "%s/%s/%d" % (kvstore, update_on_kvstore, n)
                kind = kvstore if kvstore != "nccl_none" else mx.kv.create("local")
                try:
                    x = _param(mx, n=n)
                    trainer = mx.gluon.Trainer([x], "sgd", {"learning_rate": 0.1, "momentum": 0.5}, kvstore=kind,
                                               update_on_kvstore=update_on_kvstore)
                    before = _trainer_state(trainer)
                    _step(mx, x, trainer)
                    result[key] = [before, _trainer_state(trainer), _values(x.list_data())]
                except Exception as err:
                    result[key] = [type(err).__name__, str(err)]
    return result


def trainer_with_teststore(mx):
    x = _param(mx)
    kv = mx.kv.create("teststore")
    trainer = mx.gluon.Trainer([x], "sgd", {"learning_rate": 1.0, "momentum": 0.5}, kvstore=kv)
    _step(mx, x, trainer)
    return [_trainer_state(trainer), _values(x.list_data())]


def trainer_with_teststore_update_on_kvstore(mx):
    x = _param(mx)
    trainer = mx.gluon.Trainer([x], "sgd", kvstore=mx.kv.create("teststore"), update_on_kvstore=True)
    trainer._init_kvstore()
    return True


def trainer_kvstore_of_a_wrong_type(mx):
    x = _param(mx)
    trainer = mx.gluon.Trainer([x], "sgd", kvstore=3)
    _step(mx, x, trainer)
    return True


def trainer_update_when_updating_on_kvstore(mx):
    x = _param(mx)
    trainer = mx.gluon.Trainer([x], "sgd", update_on_kvstore=True)
    _step(mx, x, trainer, steps=1)
    trainer.update(1)
    return True


def trainer_allreduce_when_updating_on_kvstore(mx):
    x = _param(mx)
    trainer = mx.gluon.Trainer([x], "sgd", update_on_kvstore=True)
    trainer.allreduce_grads()
    return True


def trainer_allreduce_then_update(mx):
    x = _param(mx)
    trainer = mx.gluon.Trainer([x], "sgd", {"learning_rate": 1.0, "momentum": 0.5}, update_on_kvstore=False)
    with mx.autograd.record():
        ys = [w * (i + 1) for i, w in enumerate(x.list_data())]
    for y in ys:
        y.backward()
    before = _values(x.list_grad())
    trainer.allreduce_grads()
    after = _values(x.list_grad())
    trainer.update(2)
    return [before, after, _values(x.list_data()), _trainer_state(trainer)]


def trainer_compression_on_local(mx):
    x = _param(mx)
    trainer = mx.gluon.Trainer([x], "sgd", kvstore="local", compression_params={"type": "2bit", "threshold": 0.5})
    _step(mx, x, trainer)
    return True


def trainer_compression_on_device(mx):
    result = []
    for update_on_kvstore in (True, False):
        x = mx.gluon.Parameter("x", shape=(4,))
        x.initialize(ctx=_ctx(mx, 2), init="zeros")
        trainer = mx.gluon.Trainer([x], "sgd", {"learning_rate": 1.0}, kvstore="device",
                                   compression_params={"type": "2bit", "threshold": 0.5},
                                   update_on_kvstore=update_on_kvstore)
        history = []
        for _ in range(3):
            with mx.autograd.record():
                ys = [w * mx.nd.array([0.3, 0.6, -0.7, 1.2], w.context) * (i + 1)
                      for i, w in enumerate(x.list_data())]
            for y in ys:
                y.backward()
            trainer.step(1)
            history.append(_values(x.list_data()))
        result.append(history)
    return result


def trainer_states_through_the_kvstore(mx):
    x = _param(mx)
    trainer = mx.gluon.Trainer([x], "sgd", {"learning_rate": 1.0, "momentum": 0.5})
    _step(mx, x, trainer)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "t.states")
        trainer.save_states(path)
        states = {k: v.asnumpy().tolist() for k, v in trainer._kvstore._updater.states.items()}
        _step(mx, x, trainer, steps=1)
        trainer.load_states(path)
    loaded = {k: v.asnumpy().tolist() for k, v in trainer._kvstore._updater.states.items()}
    x.lr_mult = 2.0
    return [states, loaded, trainer._optimizer is trainer._kvstore._updater.optimizer,
            trainer._kvstore._updater.optimizer._get_lr(0), _values(x.list_data())]


def trainer_states_with_updaters_per_context(mx):
    x = _param(mx)
    trainer = mx.gluon.Trainer([x], "sgd", {"learning_rate": 1.0, "momentum": 0.5}, update_on_kvstore=False)
    _step(mx, x, trainer)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "t.states")
        trainer.save_states(path)
        trainer.load_states(path)
    return [[{k: v.asnumpy().tolist() for k, v in u.states.items()} for u in trainer._updaters],
            trainer._optimizer is trainer._updaters[1].optimizer, _contexts([u.states[0] for u in trainer._updaters])]


def trainer_loading_parameters_resets_the_kvstore(mx):
    result = []
    for kv in ("local", "device"):
        params = mx.gluon.ParameterDict()
        x = params.get("x", shape=(4,))
        params.initialize(ctx=_ctx(mx, 2), init="zeros")
        trainer = mx.gluon.Trainer(params, "sgd", {"learning_rate": 0.1}, kvstore=kv)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "p.params")
            params.save(path)
            _step(mx, x, trainer, steps=1)
            params.load(path)
        state = _trainer_state(trainer)
        _step(mx, x, trainer, steps=1)
        result.append([state, _values(x.list_data())])
    return result


def trainer_set_data_after_a_step(mx):
    x = _param(mx)
    trainer = mx.gluon.Trainer([x], "sgd", {"learning_rate": 0.1})
    _step(mx, x, trainer, steps=1)
    x.set_data(mx.nd.ones(SHAPE))
    state = _trainer_state(trainer)
    _step(mx, x, trainer, steps=1)
    return [state, _values(x.list_data())]


def trainer_stale_gradient_on_one_context(mx):
    x = _param(mx)
    trainer = mx.gluon.Trainer([x], "sgd", {"learning_rate": 0.1})
    with mx.autograd.record():
        y = x.data(mx.cpu(1)) * 2
    y.backward()
    try:
        trainer.step(1)
        error = None
    except Exception as err:
        error = [type(err).__name__, str(err)]
    trainer.step(1, ignore_stale_grad=True)
    return [error, _values(x.list_data())]


def trainer_parameters_on_different_contexts(mx):
    x = _param(mx, "x", n=2)
    y = _param(mx, "y", n=3)
    mx.gluon.Trainer([x, y], "sgd")
    return True


def trainer_uninitialized_parameter(mx):
    x = mx.gluon.Parameter("x", shape=SHAPE)
    mx.gluon.Trainer([x], "sgd")
    return True


def trainer_lr_scheduler_on_the_kvstore(mx):
    x = _param(mx)
    sched = mx.lr_scheduler.FactorScheduler(2, factor=0.1, base_lr=1.0)
    trainer = mx.gluon.Trainer([x], "sgd", {"learning_rate": 1.0, "lr_scheduler": sched})
    lrs = []
    for _ in range(5):
        _step(mx, x, trainer, steps=1)
        lrs.append(trainer.learning_rate)
    return [lrs, _values(x.list_data()), _trainer_state(trainer)]


def trainer_big_parameter_on_local(mx):
    """'local' with a parameter of more than 16M elements: updates leave the key-value store."""
    x = mx.gluon.Parameter("x", shape=(16 * 1024 * 1024 + 1,))
    x.initialize(ctx=_ctx(mx, 2), init="zeros")
    trainer = mx.gluon.Trainer([x], "sgd", kvstore="local")
    trainer._init_kvstore()
    return _trainer_state(trainer)


CASES = {name: fn for name, fn in sorted(globals().items())
         if name.startswith(("kv_", "param_", "block_", "trainer_")) and callable(fn)}
