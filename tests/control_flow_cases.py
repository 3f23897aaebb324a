"""Gluon blocks using `F.contrib.foreach`, `while_loop` and `cond`, run on MXNet 1.9.1
(tools/record_control_flow.py records them) and on the runtime (tests/test_control_flow.py).

Each case builds a block with seeded parameters and inputs and returns, for one mode (eager or
hybridized), its outputs and the gradients of a weighted sum of them with respect to every
parameter and input, as JSON values."""
import re

import numpy as np


def _fill(block, mx, seed):
    rng = np.random.RandomState(seed)
    for name, param in sorted(block.collect_params().items()):
        param.set_data(mx.nd.array(rng.uniform(-0.5, 0.5, param.shape)))


def _first_line(exc) -> str:
    lines = [line for line in str(exc).splitlines() if line.strip() and "Traceback" not in line
             and not line.startswith("  File")]
    # (without the time of day MXNet puts in its messages)
    return re.sub(r"\[\d\d:\d\d:\d\d\] ", "", lines[-1] if lines else type(exc).__name__)[:300]


def _run(mx, block, inputs, hybridize, seed):
    """Outputs and gradients of sum(output * fixed weights) for the block called on `inputs`."""
    if hybridize:
        block.hybridize()
    arrays = [mx.nd.array(a) for a in inputs]
    for a in arrays:
        a.attach_grad()
    rng = np.random.RandomState(seed + 1)
    with mx.autograd.record():
        try:
            out = block(*arrays)
        except mx.base.MXNetError as exc:  # (MXNet 1.9.1 fails some hybridized loops: recorded as such)
            return {"forward_error": _first_line(exc)}
        flat = []
        stack = [out]
        while stack:  # the outputs in order, nested lists flattened
            item = stack.pop(0)
            if isinstance(item, (list, tuple)):
                stack[:0] = list(item)
            else:
                flat.append(item)
        weights = [mx.nd.array(rng.uniform(-1, 1, o.shape)) for o in flat]
        loss = mx.nd.add_n(*[(o * w).sum() for o, w in zip(flat, weights)]) if len(flat) > 1 \
            else (flat[0] * weights[0]).sum()
    found = {"outputs": [o.asnumpy().astype(np.float64).tolist() for o in flat]}
    try:
        loss.backward()
    except mx.base.MXNetError as exc:
        # MXNet 1.9.1 cannot differentiate a hybridized cond (its backward's storage inference
        # fails): recorded as such, the runtime's gradients are then checked against eager MXNet's
        found["backward_error"] = _first_line(exc)
        return found
    prefix = block.prefix
    found["input_grads"] = [a.grad.asnumpy().astype(np.float64).tolist() for a in arrays]
    found["param_grads"] = {name[len(prefix):]: p.grad().asnumpy().astype(np.float64).tolist()
                            for name, p in sorted(block.collect_params().items()) if p.grad_req != "null"}
    return found


def foreach_lstm_cell(mx, hybridize):
    """An LSTM cell run by foreach over the time axis: its parameters are free variables of the body."""
    class Net(mx.gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.cell = mx.gluon.rnn.LSTMCell(4, input_size=3)

        def hybrid_forward(self, F, x, h, c):
            out, states = F.contrib.foreach(self.cell, x, [h, c])
            return out, states

    net = Net(prefix="net_")
    net.initialize()
    _fill(net, mx, 3)
    rng = np.random.RandomState(4)
    return _run(mx, net, [rng.uniform(-1, 1, (5, 2, 3)), rng.uniform(-1, 1, (2, 4)), rng.uniform(-1, 1, (2, 4))],
                hybridize, 4)


def foreach_free_parameter(mx, hybridize):
    """A step reading a parameter of the block and a symbol computed before the loop; two data
    arrays (one 1-D), two states, two outputs."""
    class Net(mx.gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.scale = self.params.get("scale", shape=(3,))
                self.dense = mx.gluon.nn.Dense(3, in_units=3)

        def hybrid_forward(self, F, x, t, s, scale):
            shift = F.tanh(s)

            def step(data, states):
                row, tick = data
                y = F.broadcast_mul(row, scale) + states[0] * 0.5
                z = self.dense(y) + F.broadcast_mul(states[1], tick)
                return [y, z], [y, z + shift]
            return F.contrib.foreach(step, [x, t], [s, s * 2])

    net = Net(prefix="net_")
    net.initialize()
    _fill(net, mx, 5)
    rng = np.random.RandomState(6)
    return _run(mx, net, [rng.uniform(-1, 1, (4, 2, 3)), rng.uniform(-1, 1, (4,)), rng.uniform(-1, 1, (2, 3))],
                hybridize, 6)


def while_loop_accumulate(mx, hybridize):
    """A loop that stops on a condition of its state before max_iterations (3 steps of 6): the
    stacked outputs have max_iterations rows, of which the first 3 are defined (MXNet leaves the
    rest as they were in memory); a parameter is read in both the condition and the body."""
    class Net(mx.gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.weight = self.params.get("weight", shape=(2, 3))

        def hybrid_forward(self, F, x, limit, weight):
            def cond(i, s):
                return (i < limit).sum() + (F.sum(weight) < 100)

            def body(i, s):
                s = F.tanh(s * 1.1 + x) * weight
                return [s, s.sum(axis=1)], [i + 1, s]
            i = F.zeros((1,))
            outputs, (n, final) = F.contrib.while_loop(cond, body, [i, x], max_iterations=6)
            return [o.slice_axis(axis=0, begin=0, end=3) for o in outputs] + [n, final]

    net = Net(prefix="net_")
    net.initialize()
    _fill(net, mx, 7)
    rng = np.random.RandomState(8)
    return _run(mx, net, [rng.uniform(-1, 1, (2, 3)), np.array([3.0])], hybridize, 8)


def cond_both_branches(mx, hybridize):
    """cond whose predicate reads the input, called on inputs that take each branch; the branches
    read a parameter and different inputs, and give two outputs."""
    class Net(mx.gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.weight = self.params.get("weight", shape=(2, 3))

        def hybrid_forward(self, F, x, y, weight):
            return F.contrib.cond(x.sum() > 0, lambda: [x * weight + y, x * 2],
                                  lambda: [F.exp(y) - weight, weight * y])

    found = {}
    for branch, (low, high) in (("then", (0, 1)), ("else", (-1, 0))):
        net = Net(prefix="net_")
        net.initialize()
        _fill(net, mx, 9)
        rng = np.random.RandomState(10)
        found[branch] = _run(mx, net, [rng.uniform(low, high, (2, 3)), rng.uniform(-1, 1, (2, 3))], hybridize, 10)
    return found


def while_loop_inside_foreach(mx, hybridize):
    """A while_loop in the body of a foreach: the inner loop reads the outer step's slice and state."""
    class Net(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, x, s):
            def step(row, states):
                def inner_cond(j, acc):
                    return j < 2

                def inner_body(j, acc):
                    acc = F.sin(acc) + row
                    return acc, [j + 1, acc]
                _, (_, acc) = F.contrib.while_loop(inner_cond, inner_body, [F.zeros((1,)), states[0]],
                                                   max_iterations=3)
                return acc * 2, [acc]
            return F.contrib.foreach(step, x, [s])

    net = Net(prefix="net_")
    net.initialize()
    rng = np.random.RandomState(12)
    return _run(mx, net, [rng.uniform(-1, 1, (3, 2)), rng.uniform(-1, 1, (2,))], hybridize, 12)


def dynamic_unroll_valid_length(mx, hybridize):
    """gluon.contrib.rnn.dynamic_unroll (foreach underneath) over batch-major inputs with valid lengths:
    each sequence's states stop at its length, its later outputs are zeros."""
    class Net(mx.gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.cell = mx.gluon.rnn.GRUCell(4, input_size=3)

        def hybrid_forward(self, F, x, h, length):
            return mx.gluon.contrib.rnn.rnn_cell.dynamic_unroll(self.cell, x, [h], layout="NTC", valid_length=length)

    net = Net(prefix="net_")
    net.initialize()
    _fill(net, mx, 14)
    rng = np.random.RandomState(15)
    return _run(mx, net, [rng.uniform(-1, 1, (3, 5, 3)), rng.uniform(-1, 1, (3, 4)), np.array([5.0, 2.0, 3.0])],
                hybridize, 15)


CASES = {f.__name__: f for f in (foreach_lstm_cell, foreach_free_parameter, while_loop_accumulate,
                                 cond_both_branches, while_loop_inside_foreach, dynamic_unroll_valid_length)}


def graphs(mx):
    """Symbols with control-flow nodes as MXNet 1.9.1 writes them to JSON (its `subgraphs`), with
    inputs and the outputs of a forward pass: the runtime must load and run MXNet's files."""
    x, s, w = mx.sym.var("x"), mx.sym.var("s"), mx.sym.var("w")

    def step(row, states):
        out = mx.sym.tanh(row * 2 + states[0] * w)
        return out, [out + 1]
    outs, states = mx.sym.contrib.foreach(step, x, [s])
    loop_outs, loop_vars = mx.sym.contrib.while_loop(
        lambda i, acc: i < 3, lambda i, acc: ([acc * w], [i + 1, mx.sym.sin(acc) + w]),
        [mx.sym.zeros((1,)), s], max_iterations=5)
    branch = mx.sym.contrib.cond(mx.sym.sum(s) > 0, lambda: s * w, lambda: s - w)
    rng = np.random.RandomState(13)
    inputs = {"x": rng.uniform(-1, 1, (4, 3)), "s": rng.uniform(-1, 1, (3,)), "w": rng.uniform(-1, 1, (3,))}
    found = {}
    for name, symbol in (("foreach", mx.sym.Group([outs] + states)),
                         ("while_loop", mx.sym.Group([loop_outs[0].slice_axis(axis=0, begin=0, end=3)]
                                                     + loop_vars)),
                         ("cond", branch)):
        executor = symbol.bind(mx.cpu(), {k: mx.nd.array(inputs[k]) for k in symbol.list_inputs()})
        found[name] = {"json": symbol.tojson(),
                       "outputs": [o.asnumpy().astype(np.float64).tolist() for o in executor.forward()]}
    return {"inputs": {k: v.tolist() for k, v in inputs.items()}, "graphs": found}
