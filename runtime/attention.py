"""`contrib.interleaved_matmul_*`: the attention products of a Transformer whose query, key and
value projections are computed together (GluonNLP's BERT and Transformer call them).

Inputs are sequence-major, (length, batch, ...). Self-attention takes one (length, batch,
heads * 3 * head_dim) projection, interleaved per head as [query, key, value]; encoder-decoder
attention takes the queries (length_q, batch, heads * head_dim) and the keys and values together,
interleaved per head as [key, value]. Scores are (batch * heads, length_q, length_k), the query
divided by sqrt(head_dim) first; the weighted values come back as (length_q, batch, heads * head_dim).
Written once as compositions of operators against `call`, so `nd` and `sym` share them and the
gradients are those of the operators they use.
"""
from __future__ import annotations

from typing import Callable, Dict


def functions(call: Callable[[str], Callable]) -> Dict[str, Callable]:
    """{name: function} for `contrib`."""
    reshape, transpose, batch_dot = call("Reshape"), call("transpose"), call("batch_dot")

    def part(projection, heads, parts, index):
        """One of the `parts` interleaved per head, as (length, batch, heads, head_dim)."""
        split = reshape(projection, shape=(0, 0, heads, parts, -1))
        return reshape(call("slice_axis")(split, axis=3, begin=index, end=index + 1), shape=(0, 0, 0, -1))

    def by_head(per_head):
        """(length, batch, heads, head_dim) -> (batch * heads, length, head_dim)."""
        return reshape(transpose(per_head, axes=(1, 2, 0, 3)), shape=(-3, -2))

    def merge_heads(weighted, heads):
        """(batch * heads, length, head_dim) -> (length, batch, heads * head_dim)."""
        split = reshape(weighted, shape=(-4, -1, heads, 0, 0))
        return reshape(transpose(split, axes=(2, 0, 1, 3)), shape=(0, 0, -3))

    def scaled(per_head):
        return call("_contrib_div_sqrt_dim")(per_head)

    def interleaved_matmul_selfatt_qk(queries_keys_values, heads):
        query = by_head(scaled(part(queries_keys_values, heads, 3, 0)))
        key = by_head(part(queries_keys_values, heads, 3, 1))
        return batch_dot(query, key, transpose_b=True)

    def interleaved_matmul_selfatt_valatt(queries_keys_values, attention, heads):
        value = by_head(part(queries_keys_values, heads, 3, 2))
        return merge_heads(batch_dot(attention, value), heads)

    def interleaved_matmul_encdec_qk(queries, keys_values, heads):
        query = by_head(scaled(reshape(queries, shape=(0, 0, heads, -1))))
        key = by_head(part(keys_values, heads, 2, 0))
        return batch_dot(query, key, transpose_b=True)

    def interleaved_matmul_encdec_valatt(keys_values, attention, heads):
        value = by_head(part(keys_values, heads, 2, 1))
        return merge_heads(batch_dot(attention, value), heads)

    return {f.__name__: f for f in (interleaved_matmul_selfatt_qk, interleaved_matmul_selfatt_valatt,
                                    interleaved_matmul_encdec_qk, interleaved_matmul_encdec_valatt)}
