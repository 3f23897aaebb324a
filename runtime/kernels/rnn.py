"""The fused recurrent operator `RNN` (modes rnn_relu, rnn_tanh, lstm, gru), several layers, one or two
directions, an optional LSTM projection, variable sequence lengths and dropout between layers.

Parameters come flat, in MXNet's (cuDNN's) order: every weight first, layer by layer and direction by
direction (i2h (G*H, in), h2h (G*H, H or P), then h2r (P, H) with a projection), then every bias in
the same order (i2h, h2h). Gates: LSTM i, f, g, o; GRU r, z, n (n = tanh(x W_n + b_in + r * (h U_n + b_hn)))."""
from __future__ import annotations

import numpy as np

from runtime import random as _random

GATES = {"rnn_relu": 1, "rnn_tanh": 1, "lstm": 4, "gru": 3}


def parameter_count(mode, input_size, state_size, num_layers, directions, projection_size=None):
    gates, hidden = GATES[mode], state_size
    recurrent = projection_size or state_size
    total = 0
    for layer in range(num_layers):
        width = input_size if layer == 0 else directions * recurrent
        per_direction = gates * hidden * (width + recurrent) + 2 * gates * hidden
        if projection_size:
            per_direction += projection_size * hidden
        total += directions * per_direction
    return total


def _unpack(flat, mode, input_size, hidden, num_layers, directions, projection):
    """[(W_i2h, W_h2h, W_h2r or None, b_i2h, b_h2h)] per layer and direction, from the flat vector."""
    gates = GATES[mode]
    recurrent = projection or hidden
    shapes = []
    for layer in range(num_layers):
        width = input_size if layer == 0 else directions * recurrent
        for _ in range(directions):
            shapes.append(((gates * hidden, width), (gates * hidden, recurrent), (projection, hidden) if projection else None))
    position = 0
    weights = []
    for i2h, h2h, h2r in shapes:
        found = []
        for shape in (i2h, h2h, h2r):
            if shape is None:
                found.append(None)
                continue
            size = shape[0] * shape[1]
            found.append(flat[position:position + size].reshape(shape))
            position += size
        weights.append(found)
    biases = []
    for i2h, h2h, _ in shapes:
        b_i2h = flat[position:position + i2h[0]]
        b_h2h = flat[position + i2h[0]:position + 2 * i2h[0]]
        position += 2 * i2h[0]
        biases.append((b_i2h, b_h2h))
    return [(w[0], w[1], w[2], b[0], b[1]) for w, b in zip(weights, biases)]


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _step(mode, x_part, h, c, w_h2h, w_h2r, b_h2h, clip):
    """One time step from the input's precomputed part (x W_i2h^T + b_i2h): (h, c)."""
    recurrent = h @ w_h2h.T + b_h2h
    if mode == "rnn_relu":
        return np.maximum(x_part + recurrent, 0), c
    if mode == "rnn_tanh":
        return np.tanh(x_part + recurrent), c
    if mode == "gru":
        xr, xz, xn = np.split(x_part, 3, axis=-1)
        hr, hz, hn = np.split(recurrent, 3, axis=-1)
        r, z = _sigmoid(xr + hr), _sigmoid(xz + hz)
        n = np.tanh(xn + r * hn)
        return (1 - z) * n + z * h, c
    i, f, g, o = np.split(x_part + recurrent, 4, axis=-1)
    c = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
    if clip is not None:
        low, high, nan = clip
        c = np.clip(c, low, high)
        if nan:
            c = np.nan_to_num(c, nan=0.0)
    h = _sigmoid(o) * np.tanh(c)
    if w_h2r is not None:
        h = h @ w_h2r.T
    return h, c


def _direction(mode, x, h, c, weights, lengths, reverse, clip):
    """Outputs (T, N, out) and final (h, c) of one direction of one layer."""
    w_i2h, w_h2h, w_h2r, b_i2h, b_h2h = weights
    steps = x.shape[0]
    x_parts = x @ w_i2h.T + b_i2h
    outputs = np.zeros((steps, x.shape[1], h.shape[-1]), dtype=np.float64)
    order = range(steps - 1, -1, -1) if reverse else range(steps)
    for t in order:
        new_h, new_c = _step(mode, x_parts[t], h, c, w_h2h, w_h2r, b_h2h, clip)
        if lengths is None:
            h, c = new_h, new_c
        else:
            valid = (t < lengths)[:, None]
            h = np.where(valid, new_h, h)
            c = np.where(valid, new_c, c) if c is not None else None
            new_h = np.where(valid, new_h, 0.0)
        outputs[t] = new_h
    return outputs, h, c


def rnn(data, parameters, state, *rest, state_size, num_layers, bidirectional=False, mode="lstm", p=0.0,
        state_outputs=False, projection_size=None, lstm_state_clip_min=None, lstm_state_clip_max=None,
        lstm_state_clip_nan=False, use_sequence_length=False, is_train=False):
    rest = list(rest)
    state_cell = rest.pop(0) if mode == "lstm" else None
    lengths = rest.pop(0).astype(np.int64) if use_sequence_length else None
    directions = 2 if bidirectional else 1
    # MXNet 1.9.1 clips the LSTM cell state only in its cuDNN kernel: on the CPU, as here, the
    # lstm_state_clip_* attributes are accepted and change nothing (recorded)
    clip = None
    weights = _unpack(parameters.astype(np.float64), mode, data.shape[2], state_size, num_layers, directions,
                      projection_size)
    x = data.astype(np.float64)
    final_h, final_c = [], []
    for layer in range(num_layers):
        outs = []
        for d in range(directions):
            index = layer * directions + d
            h0 = state[index].astype(np.float64)
            c0 = state_cell[index].astype(np.float64) if state_cell is not None else None
            out, h, c = _direction(mode, x, h0, c0, weights[index], lengths, d == 1, clip)
            outs.append(out)
            final_h.append(h)
            final_c.append(c)
        x = np.concatenate(outs, axis=2) if directions == 2 else outs[0]
        if is_train and p > 0 and layer < num_layers - 1:
            keep = _random.generator().random(x.shape) >= p
            x = x * keep / (1.0 - p)
    dtype = data.dtype
    result = [x.astype(dtype)]
    if state_outputs:
        result.append(np.stack(final_h).astype(dtype))
        if mode == "lstm":
            result.append(np.stack(final_c).astype(dtype))
    return tuple(result) if len(result) > 1 else result[0]
