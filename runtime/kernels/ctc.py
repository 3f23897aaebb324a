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
