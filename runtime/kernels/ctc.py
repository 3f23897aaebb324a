"""Connectionist temporal classification loss (Graves et al. 2006), forward algorithm in log space."""
from __future__ import annotations

import numpy as np


def _label_sequence(row, length, padding):
    if length is not None:
        return row[:int(length)]
    stops = np.nonzero(row == padding)[0]
    return row[:stops[0]] if stops.size else row


def _negative_log_likelihood(log_probs, labels, blank):
    """-log p(labels | log_probs) over all alignments: log_probs is (T, C) log-softmax output."""
    steps = log_probs.shape[0]
    extended = np.full(2 * len(labels) + 1, blank, dtype=np.int64)
    extended[1::2] = labels
    size = extended.size
    # a label may be reached from two states back unless it repeats the label before the blank between
    skip = np.zeros(size, dtype=bool)
    skip[2:] = (extended[2:] != blank) & (extended[2:] != extended[:-2])
    alpha = np.full(size, -np.inf)
    if steps == 0:
        return np.inf
    alpha[0] = log_probs[0, blank]
    if size > 1:
        alpha[1] = log_probs[0, extended[1]]
    for t in range(1, steps):
        stay = alpha
        step = np.concatenate(([-np.inf], alpha[:-1]))
        jump = np.where(skip, np.concatenate(([-np.inf, -np.inf], alpha[:-2])), -np.inf)
        alpha = np.logaddexp(np.logaddexp(stay, step), jump) + log_probs[t, extended]
    ends = alpha[-2:] if size > 1 else alpha[-1:]
    return -np.logaddexp.reduce(ends)


def ctc_loss(data, label, *lengths, use_data_lengths=False, use_label_lengths=False, blank_label="first"):
    """data: (T, N, C) unnormalized scores; label: (N, L); then the sequence lengths and the label
    lengths, each present only when its use_ flag is set. With blank_label='first' the blank is class 0
    and labels are padded with 0; with 'last' the blank is class C-1 and the padding is -1."""
    lengths = list(lengths)
    data_lengths = lengths.pop(0) if use_data_lengths else None
    label_lengths = lengths.pop(0) if use_label_lengths else None
    steps, batch, classes = data.shape
    blank, padding = (0, 0) if blank_label == "first" else (classes - 1, -1)
    scores = data.astype(np.float64)
    shifted = scores - scores.max(axis=2, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=2, keepdims=True))
    losses = np.empty(batch, dtype=np.float64)
    for b in range(batch):
        length = int(data_lengths[b]) if use_data_lengths else steps
        labels = _label_sequence(np.asarray(label[b]).astype(np.int64),
                                 label_lengths[b] if use_label_lengths else None, padding)
        losses[b] = _negative_log_likelihood(log_probs[:length, b], labels, blank)
    return losses.astype(data.dtype)


def _log_alpha_beta(log_probs, extended, blank):
    """Forward (alpha) and backward (beta) log variables of every (step, extended-label state);
    beta[t, s] includes the emission at step t, so alpha + beta counts it twice."""
    steps, size = log_probs.shape[0], extended.size
    skip = np.zeros(size, dtype=bool)
    skip[2:] = (extended[2:] != blank) & (extended[2:] != extended[:-2])
    emit = log_probs[:, extended]
    alpha = np.full((steps, size), -np.inf)
    beta = np.full((steps, size), -np.inf)
    alpha[0, :2] = emit[0, :2]
    beta[-1, -2:] = emit[-1, -2:]
    none = np.full(2, -np.inf)
    for t in range(1, steps):
        prev = alpha[t - 1]
        jump = np.where(skip, np.concatenate((none, prev[:-2])), -np.inf)
        alpha[t] = np.logaddexp(np.logaddexp(prev, np.concatenate((none[:1], prev[:-1]))), jump) + emit[t]
    # the jump into state s + 2 is allowed when skip[s + 2]
    skip_back = np.concatenate((skip[2:], [False, False]))
    for t in range(steps - 2, -1, -1):
        nxt = beta[t + 1]
        jump = np.where(skip_back, np.concatenate((nxt[2:], none)), -np.inf)
        beta[t] = np.logaddexp(np.logaddexp(nxt, np.concatenate((nxt[1:], none[:1]))), jump) + emit[t]
    return alpha, beta


def ctc_loss_grad(data, label, *lengths, use_data_lengths=False, use_label_lengths=False, blank_label="first"):
    """Gradient of each sequence's loss w.r.t. its unnormalized scores data (T, N, C), through the
    softmax: softmax(data) - (posterior occupancy of each class); zero past a sequence's length and
    for sequences whose label cannot be aligned (infinite loss)."""
    lengths = list(lengths)
    data_lengths = lengths.pop(0) if use_data_lengths else None
    label_lengths = lengths.pop(0) if use_label_lengths else None
    steps, batch, classes = data.shape
    blank, padding = (0, 0) if blank_label == "first" else (classes - 1, -1)
    scores = data.astype(np.float64)
    shifted = scores - scores.max(axis=2, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=2, keepdims=True))
    grad = np.zeros((steps, batch, classes), dtype=np.float64)
    for b in range(batch):
        length = int(data_lengths[b]) if use_data_lengths else steps
        labels = _label_sequence(np.asarray(label[b]).astype(np.int64),
                                 label_lengths[b] if use_label_lengths else None, padding)
        if length == 0:
            continue
        extended = np.full(2 * len(labels) + 1, blank, dtype=np.int64)
        extended[1::2] = labels
        seq = log_probs[:length, b]
        alpha, beta = _log_alpha_beta(seq, extended, blank)
        log_likelihood = np.logaddexp.reduce(alpha[-1, -2:])
        if not np.isfinite(log_likelihood):
            continue
        occupancy = alpha + beta - seq[:, extended] - log_likelihood
        posterior = np.zeros((length, classes))
        for s, c in enumerate(extended):
            posterior[:, c] += np.exp(occupancy[:, s])
        grad[:length, b] = np.exp(seq) - posterior
    return grad
