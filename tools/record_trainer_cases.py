"""Record gluon.Trainer steps and a states file from MXNet 1.9.1, for the runtime's tests.

Run with an interpreter that has `mxnet==1.9.1` (the tests never need it):
    PYTHON tools/record_trainer_cases.py fixtures/training
Gradients are set by hand and marked fresh (as backward marks them), so that the cases test the
Trainer and not autograd. Writes trainer.json and sgd_momentum.states (Trainer.save_states).
"""
import json
import sys
from pathlib import Path

import mxnet as mx
import numpy as np
from mxnet import gluon


def make_net(seed):
    rng = np.random.RandomState(seed)
    net = gluon.nn.Dense(3, in_units=4, prefix="fc_")
    net.initialize()
    net.weight.set_data(mx.nd.array(rng.uniform(-1, 1, (3, 4))))
    net.bias.set_data(mx.nd.array(rng.uniform(-1, 1, (3,))))
    grads = [[rng.uniform(-1, 1, (3, 4)).astype("float32").tolist(), rng.uniform(-1, 1, (3,)).astype("float32").tolist()]
             for _ in range(4)]
    return net, grads


def set_grads(net, step, fresh=(True, True)):
    for param, grad, is_fresh in zip((net.weight, net.bias), step, fresh):
        param.grad()[:] = mx.nd.array(grad)
        param.data()._fresh_grad = is_fresh


def snapshot(net):
    return [net.weight.data().asnumpy().tolist(), net.bias.data().asnumpy().tolist()]


def sgd_case(out):
    net, grads = make_net(1)
    start = snapshot(net)
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.01})
    after = []
    for step in grads[:3]:
        set_grads(net, step)
        trainer.step(2)
        after.append(snapshot(net))
    trainer.save_states(str(out / "sgd_momentum.states"))
    set_grads(net, grads[3])
    trainer.step(2)
    after.append(snapshot(net))
    return {"start": start, "grads": grads, "after": after}


def adam_case():
    net, grads = make_net(2)
    start = snapshot(net)
    net.weight.lr_mult = 0.5
    net.bias.wd_mult = 0.0
    trainer = gluon.Trainer(net.collect_params(), "adam", {"learning_rate": 0.01, "wd": 0.1, "clip_gradient": 0.4})
    after, lrs = [], []
    fresh = [(True, True), (True, False), (True, True), (True, True)]
    for k, (step, is_fresh) in enumerate(zip(grads, fresh)):
        set_grads(net, step, is_fresh)
        if k == 2:
            trainer.set_learning_rate(0.05)
        if k == 3:
            trainer.allreduce_grads()
            trainer.update(4)
        else:
            trainer.step(3, ignore_stale_grad=True)
        lrs.append(trainer.learning_rate)
        after.append(snapshot(net))
    return {"start": start, "grads": grads, "fresh": fresh, "after": after, "lrs": lrs}


def stale_case():
    net, grads = make_net(3)
    trainer = gluon.Trainer(net.collect_params(), "sgd")
    set_grads(net, grads[0], (True, False))
    try:
        trainer.step(1)
    except UserWarning as exc:
        return {"error": type(exc).__name__, "message": str(exc), "after": snapshot(net)}
    raise AssertionError("MXNet accepted a stale gradient")


def main():
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    cases = {"sgd": sgd_case(out), "adam": adam_case(), "stale": stale_case()}
    (out / "trainer.json").write_text(json.dumps(cases))


if __name__ == "__main__":
    main()
