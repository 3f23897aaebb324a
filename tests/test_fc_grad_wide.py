"""FullyConnected's gradient at the seed MLP's training size, where its products go through
threads.wide_product, equals the plain NumPy products."""
import numpy as np

from runtime import autograd, nd


def test_fully_connected_gradient_at_training_size():
    rng = np.random.RandomState(5)
    x, w, b = rng.randn(64, 512), rng.randn(256, 512), rng.randn(256)
    head = rng.randn(64, 256)
    variables = [nd.array(a, dtype=np.float32) for a in (x, w, b)]
    for v in variables:
        v.attach_grad()
    with autograd.record():
        out = nd.FullyConnected(*variables, num_hidden=256)
    out.backward(nd.array(head, dtype=np.float32))
    for got, want in zip(variables, (head @ w, head.T @ x, head.sum(axis=0))):
        np.testing.assert_allclose(got.grad.asnumpy(), want, rtol=1e-4, atol=1e-3)
