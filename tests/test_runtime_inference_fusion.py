"""Predict-mode plans fold BatchNorm into convolutions and fuse residual additions and activations
(runtime/inference.py): their outputs equal the operators run one by one, on small versions of
the benchmarked model families (ResNet v1, MobileNet v2/v3, DenseNet, SqueezeNet)."""
import numpy as np
import pytest

from runtime import nd
from runtime.gluon import nn
from runtime.kernels import conv as conv_kernels
from runtime.kernels import nn as nn_kernels

RNG = np.random.RandomState(7)


def conv_bn(channels, kernel=1, stride=1, pad=0, groups=1, act="relu"):
    block = nn.HybridSequential()
    block.add(nn.Conv2D(channels, kernel, stride, pad, groups=groups, use_bias=False), nn.BatchNorm())
    if act == "relu":
        block.add(nn.Activation("relu"))
    elif act == "relu6":
        block.add(ReLU6())
    elif act == "hard_swish":
        block.add(HardSwish())
    return block


class ReLU6(nn.HybridBlock):
    def hybrid_forward(self, F, x):
        return F.clip(x, 0, 6)


class HardSwish(nn.HybridBlock):
    def hybrid_forward(self, F, x):
        return x * F.clip(x + 3.0, 0.0, 6.0) / 6.0


class Bottleneck(nn.HybridBlock):
    """ResNet v1's bottleneck with a strided 1x1 downsampling shortcut."""

    def __init__(self, channels, stride, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.body = nn.HybridSequential()
            self.body.add(conv_bn(channels // 4, 1, stride), conv_bn(channels // 4, 3, 1, 1),
                          conv_bn(channels, 1, act=None))
            self.down = conv_bn(channels, 1, stride, act=None)

    def hybrid_forward(self, F, x):
        return F.Activation(self.body(x) + self.down(x), act_type="relu")


class Basic(nn.HybridBlock):
    """ResNet v1's basic block with an identity shortcut."""

    def __init__(self, channels, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.body = nn.HybridSequential()
            self.body.add(conv_bn(channels, 3, 1, 1), conv_bn(channels, 3, 1, 1, act=None))

    def hybrid_forward(self, F, x):
        return F.relu(x + self.body(x))


class InvertedResidual(nn.HybridBlock):
    """MobileNet v2's block: expand, depthwise, project, add."""

    def __init__(self, channels, expansion, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            hidden = channels * expansion
            self.body = nn.HybridSequential()
            self.body.add(conv_bn(hidden, 1, act="relu6"), conv_bn(hidden, 3, 1, 1, groups=hidden, act="relu6"),
                          conv_bn(channels, 1, act=None))

    def hybrid_forward(self, F, x):
        return x + self.body(x)


class SqueezeExcite(nn.HybridBlock):
    """MobileNet v3's block: depthwise with hard swish, squeeze-excitation, projection."""

    def __init__(self, channels, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.expand = conv_bn(channels * 2, 1, act="hard_swish")
            self.depthwise = conv_bn(channels * 2, 5, 2, 2, groups=channels * 2, act="hard_swish")
            self.squeeze = nn.Conv2D(channels // 2, 1, activation="relu")
            self.excite = nn.Conv2D(channels * 2, 1)
            self.project = conv_bn(channels, 1, act=None)

    def hybrid_forward(self, F, x):
        x = self.depthwise(self.expand(x))
        weight = self.excite(self.squeeze(F.contrib.AdaptiveAvgPooling2D(x, output_size=1)))
        return self.project(F.broadcast_mul(x, F.clip(weight + 3.0, 0.0, 6.0) / 6.0))


class DenseLayer(nn.HybridBlock):
    """DenseNet's layer: BN-ReLU-Conv1x1-BN-ReLU-Conv3x3, concatenated to its input."""

    def __init__(self, growth, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.body = nn.HybridSequential()
            self.body.add(nn.BatchNorm(), nn.Activation("relu"), nn.Conv2D(growth * 2, 1, use_bias=False),
                          nn.BatchNorm(), nn.Activation("relu"), nn.Conv2D(growth, 3, padding=1, use_bias=False))

    def hybrid_forward(self, F, x):
        return F.concat(x, self.body(x), dim=1)


class Fire(nn.HybridBlock):
    """SqueezeNet's fire module: squeeze 1x1, expand 1x1 and 3x3, concatenated."""

    def __init__(self, squeeze, expand, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.squeeze = nn.Conv2D(squeeze, 1, activation="relu")
            self.left = nn.Conv2D(expand, 1, activation="relu")
            self.right = nn.Conv2D(expand, 3, padding=1, activation="relu")

    def hybrid_forward(self, F, x):
        x = self.squeeze(x)
        return F.concat(self.left(x), self.right(x), dim=1)


def resnet():
    net = nn.HybridSequential()
    net.add(conv_bn(8, 7, 2, 3), nn.MaxPool2D(3, 2, 1), Basic(8), Bottleneck(16, 2), nn.GlobalAvgPool2D(),
            nn.Dense(5))
    return net


def mobilenet_v2():
    net = nn.HybridSequential()
    net.add(conv_bn(8, 3, 2, 1, act="relu6"), InvertedResidual(8, 6), conv_bn(12, 1, act="relu6"),
            nn.GlobalAvgPool2D(), nn.Flatten(), nn.Dense(5))
    return net


def mobilenet_v3():
    net = nn.HybridSequential()
    net.add(conv_bn(8, 3, 2, 1, act="hard_swish"), SqueezeExcite(8), nn.GlobalAvgPool2D(), nn.Dense(5))
    return net


def densenet():
    net = nn.HybridSequential()
    net.add(conv_bn(8, 3, 1, 1), DenseLayer(4), DenseLayer(4), nn.BatchNorm(), nn.Activation("relu"),
            nn.Conv2D(8, 1, use_bias=False), nn.AvgPool2D(2, 2), nn.BatchNorm(), nn.Activation("relu"),
            nn.GlobalAvgPool2D(), nn.Dense(5))
    return net


def squeezenet():
    net = nn.HybridSequential()
    net.add(nn.Conv2D(8, 3, 2, activation="relu"), nn.MaxPool2D(3, 2, ceil_mode=True), Fire(4, 8), Fire(4, 8),
            nn.Conv2D(5, 1, activation="relu"), nn.GlobalAvgPool2D(), nn.Flatten())
    return net


def randomized(net, shape):
    """The net with random weights and BatchNorm statistics (gamma, beta, mean, variance)."""
    net.initialize()
    net(nd.ones(shape))
    for name, param in net.collect_params().items():
        values = RNG.uniform(-0.5, 0.5, param.shape)
        if name.endswith("running_var"):
            values = RNG.uniform(0.5, 1.5, param.shape)
        elif name.endswith("gamma"):
            values = RNG.uniform(0.8, 1.2, param.shape)
        param.set_data(nd.array(values.astype(np.float32)))
    return net


def forward(net, x, monkeypatch, fused):
    monkeypatch.setenv("HYBLINT_RUNTIME_INFERENCE_FUSION", "1" if fused else "0")
    net.hybridize(static_alloc=True, static_shape=True)  # a new plan under the setting
    out = net(x).asnumpy()
    graph = next(iter(net._cached.values()))
    kernels = {getattr(step.function, "__name__", "") for step in graph.executor.plan_steps(False, graph.input_names)}
    return out, kernels


MODELS = {"resnet": resnet, "mobilenet_v2": mobilenet_v2, "mobilenet_v3": mobilenet_v3, "densenet": densenet,
          "squeezenet": squeezenet}


@pytest.mark.parametrize("name", sorted(MODELS))
@pytest.mark.parametrize("batch", [1, 3])
def test_the_fused_plan_equals_the_operators_one_by_one(name, batch, monkeypatch):
    shape = (batch, 3, 20, 20)
    net = randomized(MODELS[name](), shape)
    x = nd.array(RNG.uniform(-1, 1, shape).astype(np.float32))
    plain, plain_kernels = forward(net, x, monkeypatch, fused=False)
    fused, fused_kernels = forward(net, x, monkeypatch, fused=True)
    assert "convolution_chain" not in plain_kernels and "batch_norm_chain" not in plain_kernels
    if name != "squeezenet":  # no BatchNorm there: its convolutions keep their ReLU step
        assert fused_kernels & {"convolution_chain", "batch_norm_chain"}
        assert "batch_norm" not in fused_kernels  # every BatchNorm folded or fused
    np.testing.assert_allclose(fused, plain, rtol=1e-4, atol=1e-5)
    eager = MODELS[name]()
    eager.initialize()
    eager(x)
    # paired in the order the blocks registered them: sorted names would pair batchnorm10 of one
    # copy with batchnorm9 of the other once the global name counters cross a power of ten
    for mine, theirs in zip(eager.collect_params().values(), net.collect_params().values()):
        mine.set_data(theirs.data())
    np.testing.assert_allclose(eager(x).asnumpy(), plain, rtol=1e-4, atol=1e-5)


def test_batch_norm_statistics_changed_after_the_first_call_are_seen(monkeypatch):
    shape = (2, 3, 12, 12)
    net = randomized(resnet(), shape)
    x = nd.array(RNG.uniform(-1, 1, shape).astype(np.float32))
    monkeypatch.setenv("HYBLINT_RUNTIME_INFERENCE_FUSION", "1")
    net.hybridize(static_alloc=True, static_shape=True)
    before = net(x).asnumpy()
    for name, param in net.collect_params().items():
        if name.endswith("running_mean"):
            param.set_data(param.data() + 0.25)
    after = net(x).asnumpy()
    assert not np.allclose(before, after)
    monkeypatch.setenv("HYBLINT_RUNTIME_INFERENCE_FUSION", "0")
    net.hybridize(static_alloc=True, static_shape=True)
    np.testing.assert_allclose(after, net(x).asnumpy(), rtol=1e-4, atol=1e-5)


def reference_convolution(x, weight, stride, pad, groups):
    return nn_kernels._convolution_nd(x, weight, None, weight.shape[2:], stride, (1, 1), pad, weight.shape[0],
                                      groups, True)


@pytest.mark.parametrize("kernel,stride,pad,groups,filters", [
    (3, 1, 1, 6, 6), (3, 2, 1, 6, 6), (5, 2, 2, 6, 6), (3, 1, 0, 6, 6),  # depthwise
    (1, 1, 0, 1, 6), (1, 2, 0, 1, 6),  # a plain product per image
    (3, 1, 1, 2, 6), (3, 2, 1, 3, 6), (7, 2, 3, 1, 6), (3, 1, 1, 1, 6),  # grouped and plain columns
    (3, 1, 1, 1, 3), (3, 1, 0, 1, 3), (5, 1, 2, 1, 2),  # few filters for the channels: shifted products
])
def test_shape_chosen_convolutions_with_their_epilogue_equal_the_reference(kernel, stride, pad, groups, filters):
    x = RNG.standard_normal((2, 6, 9, 11)).astype(np.float32)
    weight = RNG.standard_normal((filters, 6 // groups, kernel, kernel)).astype(np.float32)
    expected = reference_convolution(x, weight, (stride, stride), (pad, pad), groups)
    scale = RNG.uniform(0.5, 2, filters).astype(np.float32)
    shift = RNG.standard_normal(filters).astype(np.float32)
    residual = RNG.standard_normal(expected.shape).astype(np.float32)
    oh, ow = expected.shape[2:]
    geometry = (kernel, kernel, stride, stride, pad, pad, 1, 1, oh, ow)
    got = conv_kernels.conv2d(x, weight.reshape(filters, -1), geometry, groups, scale, shift, residual,
                              conv_kernels.RELU6)
    want = np.clip(expected * scale[:, None, None] + shift[:, None, None] + residual, 0, 6)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    got = conv_kernels.conv2d(x, weight.reshape(filters, -1), geometry, groups, np.empty(0, np.float32), shift,
                              conv_kernels.no_residual(np.float32), conv_kernels.NONE)
    np.testing.assert_allclose(got, expected + shift[:, None, None], rtol=1e-4, atol=1e-4)


def test_the_activations_treat_nan_as_mxnet_does():
    # MXNet 1.9.1 (tests/data/nan_activation_cases.json): the Activation operator's ReLU gives 0 for
    # NaN, the `relu` operator keeps it, and a clip keeps it
    x = np.array([[[[np.nan, -1.0, 7.0, 3.0]]]], np.float32)
    one = np.ones((1, 1, 1, 1), np.float32)
    for act, expected in [(conv_kernels.RELU, [0, 0, 7, 3]), (conv_kernels.RELU_OP, [np.nan, 0, 7, 3]),
                          (conv_kernels.RELU6, [np.nan, 0, 6, 3])]:
        out = conv_kernels.conv2d(x, one.reshape(1, 1), (1, 1, 1, 1, 0, 0, 1, 1, 1, 4), 1, np.empty(0, np.float32),
                                  np.zeros(1, np.float32), conv_kernels.no_residual(np.float32), act)
        np.testing.assert_array_equal(out.ravel(), np.float32(expected))


def test_the_profile_times_every_step_and_the_plan_releases_intermediates(monkeypatch):
    from runtime.plan_profile import arena_bytes, profile_plan, summary
    shape = (2, 3, 20, 20)
    net = randomized(resnet(), shape)
    x = nd.array(RNG.uniform(-1, 1, shape).astype(np.float32))
    out, _ = forward(net, x, monkeypatch, fused=True)
    graph = next(iter(net._cached.values()))
    rows, peak, total = profile_plan(graph.executor, graph.input_names, [x._data], repeat=2)
    assert len(rows) == len(graph.executor.plan_steps(False, graph.input_names))
    assert all(r["seconds"] > 0 for r in rows) and "convolution_chain" in summary(rows)
    assert 0 < peak < total  # released after their last reader, not all held to the end
    steps = graph.executor.plan_steps(False, graph.input_names)
    fused = [step for step in steps if "buffer" in step.attrs]
    assert fused and len({step.attrs["buffer"].index for step in fused}) < len(fused)  # arena slots shared
    assert 0 < arena_bytes(steps) < total
    np.testing.assert_array_equal(net(x).asnumpy(), out)  # the plan's kernels are restored


def _reshaped():
    return nn.HybridLambda(lambda F, x: F.reshape(x, (0, -1, 4)))


# the last fused step's buffer is the output, or a view of it is
@pytest.mark.parametrize("last", [lambda: conv_bn(4, 1, act=None), nn.Flatten, _reshaped])
def test_outputs_written_in_the_arena_are_the_callers_to_keep(last, monkeypatch):
    shape = (2, 3, 12, 12)
    net = nn.HybridSequential()
    net.add(conv_bn(4, 3, 1, 1), last())
    net = randomized(net, shape)
    first, second = (nd.array(RNG.uniform(-1, 1, shape).astype(np.float32)) for _ in range(2))
    monkeypatch.setenv("HYBLINT_RUNTIME_INFERENCE_FUSION", "1")
    net.hybridize(static_alloc=True, static_shape=True)
    kept = net(first)
    expected = kept.asnumpy().copy()
    assert not np.array_equal(net(second).asnumpy(), expected)
    np.testing.assert_array_equal(kept.asnumpy(), expected)
    np.testing.assert_array_equal(net(first).asnumpy(), expected)
