"""Gradients of the small operators of runtime/ops/contrib.py (same contract as runtime/ops/grad_math.py)."""
from __future__ import annotations

import math

import numpy as np

from runtime.registry import gradient_of


def _scaled(local):
    """The gradient of an elementwise y = f(x) whose derivative is local(x, y, attrs)."""
    def gradient(inputs, outputs, out_grads, **attrs):
        x = inputs[0]
        return [(out_grads[0] * local(x, outputs[0], attrs)).astype(x.dtype, copy=False)]
    return gradient


gradient_of("rcbrt")(_scaled(lambda x, y, a: -y / (3 * x)))  # d x^(-1/3) = -x^(-4/3) / 3
gradient_of("degrees")(_scaled(lambda x, y, a: 180.0 / math.pi))
gradient_of("radians")(_scaled(lambda x, y, a: math.pi / 180.0))
# flat where the line alpha * x + beta is clipped to 0 or 1
gradient_of("hard_sigmoid")(_scaled(
    lambda x, y, a: np.where((a["alpha"] * x + a["beta"] > 0) & (a["alpha"] * x + a["beta"] < 1), a["alpha"], 0)))
gradient_of("_contrib_div_sqrt_dim")(_scaled(lambda x, y, a: 1.0 / math.sqrt(x.shape[-1])))
gradient_of("_contrib_gradientmultiplier")(_scaled(lambda x, y, a: a["scalar"]))


@gradient_of("moments")
def _moments(inputs, outputs, out_grads, axes=None, keepdims=False):
    x = inputs[0]
    axes = tuple(range(x.ndim)) if axes is None else tuple(a % x.ndim for a in axes)
    count = int(np.prod([x.shape[a] for a in axes]))
    kept = [1 if i in axes else d for i, d in enumerate(x.shape)]
    mean = outputs[0].reshape(kept)
    grad_mean, grad_var = out_grads[0].reshape(kept), out_grads[1].reshape(kept)
    dx = grad_mean / count + grad_var * 2.0 * (x - mean) / count
    return [np.broadcast_to(dx, x.shape).astype(x.dtype)]


@gradient_of("_contrib_boolean_mask")
def _boolean_mask(inputs, outputs, out_grads, axis=0):
    """The output's gradient goes back to the kept slices; the dropped ones and the mask get zeros."""
    data, index = inputs
    dx = np.zeros_like(data)
    kept = np.nonzero(index.reshape(-1) != 0)[0]
    where = [slice(None)] * data.ndim
    where[axis] = kept
    dx[tuple(where)] = out_grads[0]
    return [dx, np.zeros_like(index)]


gradient_of("_contrib_quadratic")(_scaled(lambda x, y, attrs: 2 * attrs["a"] * x + attrs["b"]))


@gradient_of("_contrib_index_copy")
def _index_copy(inputs, outputs, out_grads):
    """The copied rows' gradient goes to new_tensor; old_tensor keeps the rest (zeros where it was
    overwritten); the index gets zeros."""
    old, index, new = inputs
    rows = index.astype(np.int64).reshape(-1)
    d_old = out_grads[0].copy()
    d_old[rows] = 0
    return [d_old.astype(old.dtype, copy=False), np.zeros_like(index),
            out_grads[0][rows].astype(new.dtype, copy=False)]
