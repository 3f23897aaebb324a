"""gluon.contrib.cnn.DeformableConvolution on the runtime, against values recorded from MXNet 1.9.1
(constant 0.5 parameters, so the learned offsets are non-zero and move the samples)."""
import numpy as np

import runtime


def test_deformable_convolution_layer_matches_mxnet():
    with runtime.as_mxnet() as mx:
        from mxnet.gluon.contrib.cnn import DeformableConvolution
        net = DeformableConvolution(4, kernel_size=(3, 2), padding=1, num_deformable_group=2, activation="relu")
        net.initialize(mx.init.Constant(0.5))
        net.hybridize()
        x = mx.nd.array(np.arange(2 * 4 * 5 * 6).reshape(2, 4, 5, 6) / 100.0)
        x.attach_grad()
        with mx.autograd.record():
            y = net(x)
        y.backward()
        shapes = sorted((k, v.shape) for k, v in net.collect_params().items())
        assert shapes == [("deformable_conv0_deformable_conv_bias", (4,)),
                          ("deformable_conv0_deformable_conv_weight", (4, 4, 3, 2)),
                          ("deformable_conv0_offset_bias", (24,)), ("deformable_conv0_offset_weight", (24, 4, 3, 2))]
        assert y.shape == (2, 4, 5, 7)
        np.testing.assert_allclose(y.sum().asscalar(), 2982.72, rtol=1e-5)
        np.testing.assert_allclose(x.grad.sum().asscalar(), 2496.0, rtol=1e-5)
        grads = {k: v.grad().sum().asscalar() for k, v in net.collect_params().items()}
        np.testing.assert_allclose([grads["deformable_conv0_offset_weight"], grads["deformable_conv0_offset_bias"],
                                    grads["deformable_conv0_deformable_conv_weight"],
                                    grads["deformable_conv0_deformable_conv_bias"]],
                                   [3505.3308, 147.51996, 5965.4399, 280.0], rtol=1e-5)
