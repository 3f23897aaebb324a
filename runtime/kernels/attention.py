"""MXNet's interleaved multi-head attention products (contrib.interleaved_matmul_*).

The projections come interleaved per head: self-attention's (seq, batch, heads * 3 * dim) holds,
for each head, its query, key and value rows of `dim` one after the other; encoder-decoder
attention's keys_values (seq, batch, heads * 2 * dim) holds each head's key then value. Scores are
(batch * heads, query seq, key seq), queries scaled by 1 / sqrt(dim); weighted values come back
as (query seq, batch, heads * dim)."""
from __future__ import annotations

import numpy as np


def _split(projections, heads, parts):
    """(parts, batch * heads, seq, dim) from the interleaved (seq, batch, heads * parts * dim)."""
    seq, batch, width = projections.shape
    dim = width // (heads * parts)
    tmp = projections.reshape(seq, batch, heads, parts, dim)
    return tmp.transpose(3, 1, 2, 0, 4).reshape(parts, batch * heads, seq, dim)


def _join(per_head, heads, parts, index):
    """The inverse of _split for one part, the others zero: (seq, batch, heads * parts * dim)."""
    bh, seq, dim = per_head.shape
    out = np.zeros((seq, bh // heads, heads, parts, dim), per_head.dtype)
    out[:, :, :, index, :] = per_head.reshape(bh // heads, heads, seq, dim).transpose(2, 0, 1, 3)
    return out.reshape(seq, bh // heads, heads * parts * dim)


def _merge_heads(per_head, heads):
    """(batch * heads, seq, dim) -> (seq, batch, heads * dim)"""
    bh, seq, dim = per_head.shape
    return per_head.reshape(bh // heads, heads, seq, dim).transpose(2, 0, 1, 3).reshape(seq, bh // heads, heads * dim)


def _scale(dim, dtype):
    return np.asarray(1.0 / np.sqrt(dim), dtype)


def selfatt_qk(qkv, heads):
    q, k, _ = _split(qkv, heads, 3)
    return (q * _scale(q.shape[-1], qkv.dtype)) @ k.transpose(0, 2, 1)


def selfatt_qk_grad(qkv, grad, heads):
    q, k, _ = _split(qkv, heads, 3)
    s = _scale(q.shape[-1], qkv.dtype)
    return _join(grad @ k * s, heads, 3, 0) + _join(grad.transpose(0, 2, 1) @ q * s, heads, 3, 1)


def selfatt_valatt(qkv, attention, heads):
    return _merge_heads(attention @ _split(qkv, heads, 3)[2], heads)


def selfatt_valatt_grad(qkv, attention, grad, heads):
    v = _split(qkv, heads, 3)[2]
    g = _split(grad, heads, 1)[0]  # (batch * heads, seq, dim)
    return _join(attention.transpose(0, 2, 1) @ g, heads, 3, 2), g @ v.transpose(0, 2, 1)


def encdec_qk(queries, keys_values, heads):
    q = _split(queries, heads, 1)[0]
    k = _split(keys_values, heads, 2)[0]
    return (q * _scale(q.shape[-1], queries.dtype)) @ k.transpose(0, 2, 1)


def encdec_qk_grad(queries, keys_values, grad, heads):
    q = _split(queries, heads, 1)[0]
    k = _split(keys_values, heads, 2)[0]
    s = _scale(q.shape[-1], queries.dtype)
    return _join(grad @ k * s, heads, 1, 0), _join(grad.transpose(0, 2, 1) @ q * s, heads, 2, 0)


def encdec_valatt(keys_values, attention, heads):
    return _merge_heads(attention @ _split(keys_values, heads, 2)[1], heads)


def encdec_valatt_grad(keys_values, attention, grad, heads):
    v = _split(keys_values, heads, 2)[1]
    g = _split(grad, heads, 1)[0]
    return _join(attention.transpose(0, 2, 1) @ g, heads, 2, 1), g @ v.transpose(0, 2, 1)
