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


def mask_shape(steps, batch, num_layers, directions, recurrent):
    """The shape of the hidden output that keeps the dropout between layers for the gradient: one
    scale per element of each layer's output but the last (keep / (1 - p), or 1)."""
    return (max(num_layers - 1, 0), steps, batch, directions * recurrent)


def _split_inputs(mode, rest, use_sequence_length):
    rest = list(rest)
    state_cell = rest.pop(0) if mode == "lstm" else None
    lengths = rest.pop(0).astype(np.int64) if use_sequence_length else None
    return state_cell, lengths


def rnn(data, parameters, state, *rest, state_size, num_layers, bidirectional=False, mode="lstm", p=0.0,
        state_outputs=False, projection_size=None, lstm_state_clip_min=None, lstm_state_clip_max=None,
        lstm_state_clip_nan=False, use_sequence_length=False, is_train=False):
    """The visible outputs (output, and with state_outputs the final states), then the dropout
    scales between layers (hidden: the gradient reads them)."""
    state_cell, lengths = _split_inputs(mode, rest, use_sequence_length)
    directions = 2 if bidirectional else 1
    # MXNet 1.9.1 clips the LSTM cell state only in its cuDNN kernel: on the CPU, as here, the
    # lstm_state_clip_* attributes are accepted and change nothing (recorded)
    clip = None
    weights = _unpack(parameters.astype(np.float64), mode, data.shape[2], state_size, num_layers, directions,
                      projection_size)
    x = data.astype(np.float64)
    steps, batch = data.shape[:2]
    scales = np.ones(mask_shape(steps, batch, num_layers, directions, projection_size or state_size), data.dtype)
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
            scales[layer] = keep / (1.0 - p)
            x = x * scales[layer]
    dtype = data.dtype
    result = [x.astype(dtype)]
    if state_outputs:
        result.append(np.stack(final_h).astype(dtype))
        if mode == "lstm":
            result.append(np.stack(final_c).astype(dtype))
    return tuple(result) + (scales,)


def _direction_backward(mode, x, h0, c0, weights, grads, lengths, reverse, d_out, d_h, d_c):
    """Back through one direction of one layer: the forward is run again keeping each step's values,
    then each step is undone in reverse. Adds the weights' gradients into `grads` (views of the flat
    parameter gradient, as `weights` are of the parameters); returns (d x, d h0, d c0)."""
    w_i2h, w_h2h, w_h2r, b_i2h, b_h2h = weights
    g_i2h, g_h2h, g_h2r, gb_i2h, gb_h2h = grads
    steps = x.shape[0]
    x_parts = x @ w_i2h.T + b_i2h
    order = list(range(steps - 1, -1, -1) if reverse else range(steps))
    h, c = h0, c0
    kept = []  # per step: (h before, c before, values the step's derivative needs, valid rows)
    for t in order:
        recurrent = h @ w_h2h.T + b_h2h
        if mode in ("rnn_relu", "rnn_tanh"):
            new_h = np.maximum(x_parts[t] + recurrent, 0) if mode == "rnn_relu" else np.tanh(x_parts[t] + recurrent)
            new_c, values = c, (new_h,)
        elif mode == "gru":
            xr, xz, xn = np.split(x_parts[t], 3, axis=-1)
            hr, hz, hn = np.split(recurrent, 3, axis=-1)
            r, z = _sigmoid(xr + hr), _sigmoid(xz + hz)
            n = np.tanh(xn + r * hn)
            new_h, new_c, values = (1 - z) * n + z * h, c, (r, z, n, hn)
        else:
            i, f, g, o = np.split(x_parts[t] + recurrent, 4, axis=-1)
            si, sf, tg, so = _sigmoid(i), _sigmoid(f), np.tanh(g), _sigmoid(o)
            new_c = sf * c + si * tg
            tc = np.tanh(new_c)
            raw = so * tc
            new_h = raw @ w_h2r.T if w_h2r is not None else raw
            values = (si, sf, tg, so, tc, raw)
        valid = None if lengths is None else (t < lengths)[:, None]
        kept.append((h, c, values, valid))
        if valid is None:
            h, c = new_h, new_c
        else:
            h = np.where(valid, new_h, h)
            c = np.where(valid, new_c, c) if c is not None else None
    d_x = np.zeros_like(x)
    for t, (h_before, c_before, values, valid) in zip(reversed(order), reversed(kept)):
        # the carried state: the new one where the row is valid, else the one before, untouched
        if valid is None:
            d_new_h, d_new_c = d_h + d_out[t], d_c
            d_h_before = np.zeros_like(d_h)
            d_c_before = None if d_c is None else np.zeros_like(d_c)
        else:
            d_new_h = np.where(valid, d_h + d_out[t], 0.0)
            d_h_before = np.where(valid, 0.0, d_h)
            d_new_c = None if d_c is None else np.where(valid, d_c, 0.0)
            d_c_before = None if d_c is None else np.where(valid, 0.0, d_c)
        if mode in ("rnn_relu", "rnn_tanh"):
            (new_h,) = values
            d_pre = d_new_h * (new_h > 0) if mode == "rnn_relu" else d_new_h * (1 - new_h * new_h)
            d_x_part = d_h_part = d_pre
        elif mode == "gru":
            r, z, n, hn = values
            d_n = d_new_h * (1 - z) * (1 - n * n)
            d_z = d_new_h * (h_before - n) * z * (1 - z)
            d_h_before = d_h_before + d_new_h * z
            d_r = d_n * hn * r * (1 - r)
            d_x_part = np.concatenate([d_r, d_z, d_n], axis=-1)
            d_h_part = np.concatenate([d_r, d_z, d_n * r], axis=-1)
        else:
            si, sf, tg, so, tc, raw = values
            if w_h2r is not None:
                g_h2r += d_new_h.T @ raw
                d_raw = d_new_h @ w_h2r
            else:
                d_raw = d_new_h
            d_cell = d_new_c + d_raw * so * (1 - tc * tc)
            d_c_before = d_c_before + d_cell * sf
            d_x_part = d_h_part = np.concatenate([d_cell * tg * si * (1 - si), d_cell * c_before * sf * (1 - sf),
                                                  d_cell * si * (1 - tg * tg), d_raw * tc * so * (1 - so)], axis=-1)
        g_h2h += d_h_part.T @ h_before
        gb_h2h += d_h_part.sum(axis=0)
        g_i2h += d_x_part.T @ x[t]
        gb_i2h += d_x_part.sum(axis=0)
        d_x[t] = d_x_part @ w_i2h
        d_h = d_h_before + d_h_part @ w_h2h
        d_c = d_c_before
    return d_x, d_h, d_c


def rnn_backward(inputs, out_grads, scales, state_size, num_layers, bidirectional=False, mode="lstm",
                 projection_size=None, use_sequence_length=False, **_):
    """Gradients of (data, parameters, state[, state_cell]) from those of the outputs (output, and
    final h and c where state_outputs gave them, else None), with the dropout `scales` the forward
    used. Computed in float64, as the forward is."""
    data, parameters, state = inputs[:3]
    state_cell, lengths = _split_inputs(mode, inputs[3:], use_sequence_length)
    directions = 2 if bidirectional else 1
    recurrent = projection_size or state_size
    flat = parameters.astype(np.float64)
    weights = _unpack(flat, mode, data.shape[2], state_size, num_layers, directions, projection_size)
    d_flat = np.zeros_like(flat)
    grads = _unpack(d_flat, mode, data.shape[2], state_size, num_layers, directions, projection_size)
    # the forward again, keeping each layer's input (after dropout)
    layer_inputs = [data.astype(np.float64)]
    x = layer_inputs[0]
    for layer in range(num_layers - 1):
        outs = []
        for d in range(directions):
            index = layer * directions + d
            c0 = state_cell[index].astype(np.float64) if state_cell is not None else None
            outs.append(_direction(mode, x, state[index].astype(np.float64), c0, weights[index], lengths, d == 1,
                                   None)[0])
        x = (np.concatenate(outs, axis=2) if directions == 2 else outs[0]) * scales[layer]
        layer_inputs.append(x)
    d_output = out_grads[0].astype(np.float64)
    d_final_h = None if len(out_grads) < 2 or out_grads[1] is None else out_grads[1].astype(np.float64)
    d_final_c = None if len(out_grads) < 3 or out_grads[2] is None else out_grads[2].astype(np.float64)
    d_state = np.zeros(state.shape, np.float64)
    d_cell = None if state_cell is None else np.zeros(state_cell.shape, np.float64)
    for layer in range(num_layers - 1, -1, -1):
        x = layer_inputs[layer]
        d_x = np.zeros_like(x)
        for d in range(directions):
            index = layer * directions + d
            c0 = state_cell[index].astype(np.float64) if state_cell is not None else None
            part = d_output[..., d * recurrent:(d + 1) * recurrent]
            d_h = d_final_h[index] if d_final_h is not None else np.zeros(state.shape[1:], np.float64)
            d_c = None
            if c0 is not None:
                d_c = d_final_c[index] if d_final_c is not None else np.zeros(c0.shape, np.float64)
            dx, dh0, dc0 = _direction_backward(mode, x, state[index].astype(np.float64), c0, weights[index],
                                               grads[index], lengths, d == 1, part, d_h, d_c)
            d_x += dx
            d_state[index] = dh0
            if d_cell is not None:
                d_cell[index] = dc0
        d_output = d_x * scales[layer - 1] if layer > 0 else d_x
    result = [d_output.astype(data.dtype), d_flat.astype(parameters.dtype), d_state.astype(state.dtype)]
    if state_cell is not None:
        result.append(d_cell.astype(state_cell.dtype))
    if lengths is not None:
        result.append(None)  # integer lengths: no gradient
    return result
