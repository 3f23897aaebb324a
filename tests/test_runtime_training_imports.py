"""The training API under MXNet's import paths, and mx.random's seed and sampler aliases."""
import numpy as np

import runtime


def test_training_modules_import_as_mxnet():
    with runtime.as_mxnet():
        import mxnet as mx
        from mxnet import gluon
        from mxnet.gluon.data import DataLoader, vision
        from mxnet.gluon.data.vision import transforms
        from mxnet.optimizer import SGD
        from mxnet.gluon.loss import SoftmaxCrossEntropyLoss

        assert mx.optimizer.create("sgd").__class__ is SGD
        assert isinstance(mx.lr_scheduler.FactorScheduler(step=2), mx.lr_scheduler.LRScheduler)
        assert isinstance(mx.metric.create("acc"), mx.metric.Accuracy)
        assert gluon.Trainer.__name__ == "Trainer" and gluon.loss.SoftmaxCrossEntropyLoss is SoftmaxCrossEntropyLoss
        assert DataLoader is gluon.data.DataLoader and vision.transforms is transforms
        assert mx.recordio.IRHeader._fields == ("flag", "label", "id", "id2")


def test_random_seed_reproduces_samples_and_initial_weights():
    with runtime.as_mxnet():
        import mxnet as mx
        from mxnet import gluon

        def draw():
            mx.random.seed(42)
            net = gluon.nn.Dense(3, in_units=4)
            net.initialize(mx.init.Xavier())
            return mx.random.uniform(-1, 1, shape=(2, 2)).asnumpy(), mx.random.normal(shape=(3,)).asnumpy(), \
                net.weight.data().asnumpy()

        first, second = draw(), draw()
        for a, b in zip(first, second):
            np.testing.assert_array_equal(a, b)
        mx.random.seed(7)
        alias = mx.random.uniform(-1, 1, shape=(2, 2)).asnumpy()
        mx.random.seed(7)
        np.testing.assert_array_equal(mx.nd.random.uniform(-1, 1, shape=(2, 2)).asnumpy(), alias)


def test_more_samplers_of_nd_random():
    from runtime import nd
    runtime.random.seed(0)
    assert nd.random.randn(2, 3).shape == (2, 3)
    counts = nd.random.poisson(3.0, shape=(1000,)).asnumpy()
    assert abs(counts.mean() - 3.0) < 0.3 and (counts == np.round(counts)).all()
    assert nd.random.exponential(2.0, shape=(4,)).shape == (4,)
    assert (nd.random.gamma(2.0, 1.0, shape=(5,)).asnumpy() > 0).all()
