"""Ops with several outputs: selecting one with an integer index is legal once hybridized and stays
silent; an op asked for one output is a tensor, whose `[0]` is the silent bug HYB001 reports. The
table of counts (analysis/vocabulary.py) was recorded from MXNet 1.9.1's registry. And one
diagnostic per failure, where rules report nested code."""
import pytest

from hyblint.analysis.vocabulary import UNKNOWN_COUNT, output_count
from hyblint.engine import check_source
from hyblint.rules.base import hybrid_block
from hyblint.settings import Settings

ALL = Settings(select=("ALL",))

SELECTED_OUTPUTS = [
    "return F.linalg.slogdet(x)[1]",
    "return F.linalg_slogdet(x)[0]",
    "return F.topk(x, k=2, ret_typ='both')[1]",
    "return x.topk(k=2, ret_typ='both')[0]",
    "return F.SliceChannel(x, num_outputs=3)[2]",
    "return F.split(x, 2, axis=1)[1]",
    "return F.split(x, num_outputs=self._n, axis=1)[1]",
    "return F.split_v2(x, (2, 4), axis=1)[2]",
    "return x.split(num_outputs=2, axis=1)[0]",
    "return F.RNN(x, p, s, state_size=4, num_layers=1, mode='gru', state_outputs=True)[1]",
    "return F.contrib.box_encode(x, m, a, r, mn, st)[1]",
    "return F.amp_multicast(x, m, num_outputs=2)[1]",
    "return F.contrib.foreach(self._body, x, [x])[1]",
    "return F.contrib.while_loop(c, b, [x], max_iterations=3)[1]",
    "return F.contrib.cond(x, t, e)[0]",
    "return F.linalg.gelqf(x)[0]",
    "return F.linalg.syevd(x)[1]",
    "return F.moments(x, axes=0)[1]",
    "return F.BatchNorm(x, g, b, m, v, output_mean_var=True)[1]",
    "return F.BatchNorm(x, g, b, m, v, **self._kwargs)[0]",
    "return F.contrib.MultiBoxTarget(a, l, c)[2]",
    "return F.contrib.bipartite_matching(x, threshold=0.5)[1]",
    "return F.LayerNorm(x, g, b, output_mean_var=True)[2]",
    "return F.random.multinomial(x, get_prob=True)[1]",
    "out, aux = F.Custom(x, op_type='two_outputs')\nreturn out",
]


@pytest.mark.parametrize("body", SELECTED_OUTPUTS)
def test_selecting_an_output_of_a_multi_output_op_is_silent(body):
    assert check_source(hybrid_block(body, args="x, p, s, m, a, r, mn, st, c, t, e, g, b, v, l"),
                        "example.py", ALL) == []


@pytest.mark.parametrize("body", [
    "return F.split(x, num_outputs=1, axis=1)[0]",
    "return F.SliceChannel(x, 1)[0]",
    "return F.topk(x, k=2)[0]",
    "return F.RNN(x, p, s, state_size=4, num_layers=1, mode='gru')[0]",
    "return F.BatchNorm(x, g, b, m, v, output_mean_var=False)[0]",
    "return x.split(num_outputs=1, axis=0)[0]",
    "return F.random.multinomial(x)[0]",  # one output eagerly (the symbolic wrapper's default is two)
])
def test_an_op_with_one_output_indexed_is_reported(body):
    found = check_source(hybrid_block(body, args="x, p, s, g, b, m, v"), "example.py", ALL)
    assert [d.code for d in found] == ["HYB001"]


@pytest.mark.parametrize("op,attributes,positional,count", [
    ("slogdet", {}, {}, 2), ("relu", {}, {}, 1), ("topk", {"ret_typ": "both"}, {}, 2),
    ("topk", {"ret_typ": "indices"}, {}, 1), ("RNN", {"state_outputs": True}, {}, 2), ("RNN", {}, {}, 1),
    ("split", {}, {1: 3}, 3), ("split", {"num_outputs": 1}, {}, 1), ("split_v2", {}, {1: (2, 5)}, 3),
    ("SliceChannel", {}, {}, UNKNOWN_COUNT), ("BatchNorm", {"output_mean_var": UNKNOWN_COUNT}, {}, UNKNOWN_COUNT),
])
def test_output_count_reads_the_attributes_that_change_it(op, attributes, positional, count):
    assert output_count(op, attributes.get, positional.get) == count


@pytest.mark.parametrize("body,codes", [
    ("return y.size()[0]", ["HYB002"]),                     # the attribute fails first
    ("return x[0].shape", ["HYB001"]),                      # the index is what is wrong
    ("return x[0].asnumpy()", ["HYB001"]),
    ("x += x[0]\nreturn x", ["HYB006", "HYB001"]),          # the target and the value: two failures
    ("return x.shape[0] + x[1]", ["HYB002", "HYB001"]),
])
def test_one_diagnostic_per_failure(body, codes):
    found = check_source(hybrid_block(body, args="x, y"), "example.py", ALL)
    assert [d.code for d in found] == codes, found
