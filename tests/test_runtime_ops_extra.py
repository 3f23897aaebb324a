"""Operators without a recorded golden case, each checked against NumPy through nd and sym; and the
rule that every declared operator has a golden case or a case here."""
import json
from pathlib import Path

import numpy as np
import pytest
from scipy import special

import runtime
from runtime import nd, sym
from runtime.registry import REGISTRY

A = np.array([[0.3, -1.2, 2.5], [1.0, 0.0, -0.4]], dtype=np.float32)
B = np.array([[0.7, 1.5, -2.0], [1.0, 3.0, 0.4]], dtype=np.float32)
UNIT = np.array([[0.1, -0.5, 0.9], [0.3, 0.0, -0.8]], dtype=np.float32)
f = np.float32

def ctc_by_enumeration(scores, label):
    """-log of the summed probability of every path that collapses to the label (blank 0, padding 0)."""
    import itertools
    probs = np.exp(scores) / np.exp(scores).sum(axis=2, keepdims=True)
    steps, batch, classes = scores.shape
    losses = []
    for b in range(batch):
        target = [int(c) for c in label[b] if c != 0]
        total = 0.0
        for path in itertools.product(range(classes), repeat=steps):
            collapsed = [c for i, c in enumerate(path) if c != 0 and (i == 0 or c != path[i - 1])]
            if collapsed == target:
                total += np.prod([probs[t, b, c] for t, c in enumerate(path)])
        losses.append(-np.log(total))
    return np.array(losses, dtype=f)


CTC_SCORES = np.random.RandomState(4).randn(4, 2, 3).astype(np.float32)
CTC_LABEL = np.array([[1, 2], [2, 0]], dtype=np.float32)

# op: (inputs, attributes, NumPy reference)
CASES = {
    "CTCLoss": ([CTC_SCORES, CTC_LABEL], {}, ctc_by_enumeration),
    "_rnn_param_concat": ([A.ravel(), B.ravel()], {"dim": 0}, lambda a, b: np.concatenate([a, b])),
    "rint": ([A], {}, lambda a: np.rint(a)), "tan": ([A], {}, np.tan), "arcsin": ([UNIT], {}, np.arcsin),
    "arccos": ([UNIT], {}, np.arccos), "arctan": ([A], {}, np.arctan), "sinh": ([A], {}, np.sinh),
    "cosh": ([A], {}, np.cosh), "erfinv": ([UNIT], {}, special.erfinv),
    "logical_not": ([A], {}, lambda a: (a == 0).astype(f)),
    "_mod": ([A, B], {}, np.mod), "_power": ([np.abs(A), B], {}, np.power),
    "_maximum": ([A, B], {}, np.maximum), "_minimum": ([A, B], {}, np.minimum),
    "_equal": ([A, B], {}, lambda a, b: (a == b).astype(f)),
    "_not_equal": ([A, B], {}, lambda a, b: (a != b).astype(f)),
    "_greater": ([A, B], {}, lambda a, b: (a > b).astype(f)),
    "_greater_equal": ([A, B], {}, lambda a, b: (a >= b).astype(f)),
    "_lesser": ([A, B], {}, lambda a, b: (a < b).astype(f)),
    "_lesser_equal": ([A, B], {}, lambda a, b: (a <= b).astype(f)),
    "_hypot": ([A, B], {}, np.hypot),
    "_logical_and": ([A, B], {}, lambda a, b: ((a != 0) & (b != 0)).astype(f)),
    "_logical_or": ([A, B], {}, lambda a, b: ((a != 0) | (b != 0)).astype(f)),
    "_logical_xor": ([A, B], {}, lambda a, b: ((a != 0) ^ (b != 0)).astype(f)),
    "broadcast_logical_xor": ([A, B[:1]], {}, lambda a, b: ((a != 0) ^ (b != 0)).astype(f)),
    "_plus_scalar": ([A], {"scalar": 2.0}, lambda a: a + 2), "_minus_scalar": ([A], {"scalar": 2.0}, lambda a: a - 2),
    "_rminus_scalar": ([A], {"scalar": 2.0}, lambda a: 2 - a), "_mul_scalar": ([A], {"scalar": 2.0}, lambda a: a * 2),
    "_div_scalar": ([A], {"scalar": 2.0}, lambda a: a / 2), "_rdiv_scalar": ([B], {"scalar": 2.0}, lambda b: 2 / b),
    "_mod_scalar": ([A], {"scalar": 2.0}, lambda a: np.mod(a, f(2))),
    "_rmod_scalar": ([B], {"scalar": 2.0}, lambda b: np.mod(f(2), b)),
    "_power_scalar": ([np.abs(A)], {"scalar": 2.0}, lambda a: a ** 2),
    "_rpower_scalar": ([A], {"scalar": 2.0}, lambda a: f(2) ** a),
    "_maximum_scalar": ([A], {"scalar": 0.5}, lambda a: np.maximum(a, f(0.5))),
    "_minimum_scalar": ([A], {"scalar": 0.5}, lambda a: np.minimum(a, f(0.5))),
    "_equal_scalar": ([A], {"scalar": 1.0}, lambda a: (a == 1).astype(f)),
    "_not_equal_scalar": ([A], {"scalar": 1.0}, lambda a: (a != 1).astype(f)),
    "_greater_scalar": ([A], {"scalar": 0.3}, lambda a: (a > f(0.3)).astype(f)),
    "_greater_equal_scalar": ([A], {"scalar": 0.3}, lambda a: (a >= f(0.3)).astype(f)),
    "_lesser_scalar": ([A], {"scalar": 0.3}, lambda a: (a < f(0.3)).astype(f)),
    "_lesser_equal_scalar": ([A], {"scalar": 0.3}, lambda a: (a <= f(0.3)).astype(f)),
    "_hypot_scalar": ([A], {"scalar": 3.0}, lambda a: np.hypot(a, f(3))),
    "nanprod": ([np.where(A > 2, np.nan, A).astype(f)], {"axis": 1}, lambda a: np.nanprod(a, axis=1)),
    "_split_v2": ([A], {"indices": (0, 1), "axis": 1}, lambda a: (a[:, :1], a[:, 1:])),
    "_zeros": ([], {"shape": (2, 3)}, lambda: np.zeros((2, 3), f)),
    "_ones": ([], {"shape": (2, 3)}, lambda: np.ones((2, 3), f)),
    "_full": ([], {"shape": (2, 2), "value": 1.5}, lambda: np.full((2, 2), 1.5, f)),
    "_arange": ([], {"start": 1.0, "stop": 7.0, "step": 2.0}, lambda: np.arange(1, 7, 2, dtype=f)),
    "_linspace": ([], {"start": 0.0, "stop": 1.0, "num": 5}, lambda: np.linspace(0, 1, 5, dtype=f)),
    # samplers made deterministic by their parameters: a point mass at the given value or at 0
    "_random_uniform_like": ([A], {"low": 2.0, "high": 2.0}, lambda a: np.full_like(a, 2.0)),
    "_random_normal_like": ([A], {"loc": 1.5, "scale": 0.0}, lambda a: np.full_like(a, 1.5)),
    "_random_gamma_like": ([A], {"alpha": 1.0, "beta": 0.0}, np.zeros_like),
    "_random_exponential_like": ([A], {"lam": float("inf")}, np.zeros_like),
    "_random_poisson_like": ([A], {"lam": 0.0}, np.zeros_like),
    "_random_negative_binomial_like": ([A], {"k": 2, "p": 1.0}, np.zeros_like),
    "_random_generalized_negative_binomial_like": ([A], {"mu": 0.0, "alpha": 0.5}, np.zeros_like),
    "_random_generalized_negative_binomial": ([], {"mu": 0.0, "alpha": 0.5, "shape": (2, 2)},
                                              lambda: np.zeros((2, 2), f)),
    "_sample_generalized_negative_binomial": ([np.zeros((2,), f), np.full((2,), 0.5, f)], {"shape": (3,)},
                                              lambda mu, alpha: np.zeros((2, 3), f)),
    # densities (tests/test_runtime_random_pdf.py checks them against SciPy, with gradients)
    "_random_pdf_normal": ([B, A, np.abs(A) + 1], {},
                           lambda x, m, s: np.exp(-0.5 * ((x - m) / s) ** 2) / (s * np.sqrt(2 * np.pi))),
    "_random_pdf_uniform": ([np.clip(B, -1, 1), A * 0 - 1, A * 0 + 1], {}, lambda x, lo, hi: np.full_like(x, 0.5)),
    "_random_pdf_gamma": ([np.abs(B) + 0.1, np.abs(A) + 1, np.abs(A) + 0.5], {"is_log": True},
                          lambda x, a, b: a * np.log(b) + (a - 1) * np.log(x) - b * x - special.gammaln(a)),
    "_random_pdf_exponential": ([np.abs(B), np.abs(A) + 0.5], {}, lambda x, lam: lam * np.exp(-lam * x)),
    "_random_pdf_poisson": ([np.round(np.abs(B)), np.abs(A) + 0.5], {},
                            lambda x, lam: np.exp(x * np.log(lam) - lam - special.gammaln(x + 1))),
    "_random_pdf_negative_binomial": ([np.round(np.abs(B)), np.abs(A) + 1, np.full_like(A, 0.4)], {"is_log": True},
                                      lambda x, k, p: special.gammaln(x + k) - special.gammaln(x + 1)
                                      - special.gammaln(k) + k * np.log(p) + x * np.log1p(-p)),
    "_random_pdf_generalized_negative_binomial": (
        [np.round(np.abs(B)), np.abs(A) + 1, np.full_like(A, 0.5)], {"is_log": True},
        lambda x, mu, a: special.gammaln(x + 1 / a) - special.gammaln(x + 1) - special.gammaln(1 / a)
        - np.log1p(mu * a) / a + x * np.log(mu * a / (1 + mu * a))),
    "_random_pdf_dirichlet": ([np.array([[0.2, 0.8], [0.5, 0.5]], f), np.array([[1.0, 2.0], [3.0, 1.5]], f)],
                              {"is_log": True},
                              lambda x, a: special.gammaln(a.sum(-1)) - special.gammaln(a).sum(-1)
                              + ((a - 1) * np.log(x)).sum(-1)),
    # one class: every draw is class 0, so each row is done at its first draw
    "_sample_unique_zipfian": ([], {"range_max": 1, "shape": (2, 1)},
                               lambda: (np.zeros((2, 1), np.int64), np.ones(2, np.int64))),
    "_eye": ([], {"N": 3, "k": 1}, lambda: np.eye(3, k=1, dtype=f)),
    # loss outputs: the forward is the prediction (their gradients: tests/test_autograd_golden.py)
    "LinearRegressionOutput": ([A, B], {}, lambda a, b: a), "MAERegressionOutput": ([A, B], {}, lambda a, b: a),
    "LogisticRegressionOutput": ([A, B], {}, lambda a, b: 1 / (1 + np.exp(-a))),
    "SVMOutput": ([A, np.array([0, 2], f)], {"margin": 0.5}, lambda a, b: a),
    "MakeLoss": ([A], {"grad_scale": 2.0}, lambda a: a), "make_loss": ([A], {}, lambda a: a),
}


def as_list(value):
    return list(value) if isinstance(value, (list, tuple)) else [value]


@pytest.mark.parametrize("name", sorted(CASES))
def test_operator_through_nd_and_sym(name):
    inputs, attrs, reference = CASES[name]
    expected = as_list(reference(*inputs))
    eager = as_list(getattr(nd, name)(*[nd.array(a) for a in inputs], **attrs))
    names = ["in%d" % i for i in range(len(inputs))]
    graph = getattr(sym, name)(*[sym.var(n) for n in names], **attrs)
    deferred = graph.bind(runtime.cpu(), {n: nd.array(a) for n, a in zip(names, inputs)}).forward()
    for results in (eager, deferred):
        assert len(results) == len(expected)
        for got, want in zip(results, expected):
            np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-6)


def test_every_declared_operator_has_a_golden_case_or_a_case_here():
    golden = {json.loads(line)["op"] for line in
              (Path(__file__).resolve().parents[1] / "fixtures" / "golden" / "ops.jsonl").read_text().splitlines()}
    # and the operators that recorded front-end, sparse, operator and NDArray/Symbol cases
    # (tests/data/front_end_cases.jsonl, sparse_cases.jsonl, operator_semantics.jsonl, ndarray_symbol_cases.jsonl) compute
    recorded = [json.loads(line) for name in ("front_end_cases.jsonl", "sparse_cases.jsonl", "operator_semantics.jsonl",
                                              "ndarray_symbol_cases.jsonl") for line in
                (Path(__file__).resolve().parent / "data" / name).read_text().splitlines()]
    golden |= {case["op"] for case in recorded
               if "op" in case and not (isinstance(case["result"], dict) and "error" in case["result"])}
    # and the operators whose outputs and gradients were recorded (tools/record_linalg_cases.py, record_spatial_cases.py)
    for name in ("grads_linalg.jsonl", "grads_spatial.jsonl"):
        golden |= {json.loads(line)["op"] for line in
                   (Path(__file__).resolve().parents[1] / "fixtures" / "golden" / name).read_text().splitlines()}
    # and those whose values MXNet gave beside its rejections (RROIAlign, which has no backward)
    for name in ("linalg_rejections.jsonl", "spatial_rejections.jsonl"):
        cases = [json.loads(line) for line in (Path(__file__).resolve().parent / "data" / name).read_text().splitlines()]
        golden |= {case["op"] for case in cases if not (isinstance(case["nd"], dict) and "error" in case["nd"])}
    # and those called on recorded inputs by tests/test_runtime_operator_cases.py (tools/record_operator_cases.py)
    cases = json.loads((Path(__file__).resolve().parent / "data" / "operator_cases.json").read_text())
    golden |= {"_contrib_" + c["op"][len("contrib."):] if c["op"].startswith("contrib.") else c["op"]
               for c in cases if "error" not in c}
    # and those checked against values recorded from MXNet in a test of their own
    golden |= {"BatchNorm_v1"}  # symbolic only in MXNet: tests/test_runtime_recorded_fixes.py
    golden |= {"_contrib_ModulatedDeformableConvolution"}  # tests/test_runtime_modulated_deformable.py
    golden |= {"_contrib_box_decode", "_contrib_box_encode", "amp_multicast"}  # tests/test_runtime_box_coder.py
    golden |= {"_foreach", "_while_loop", "_cond"}  # tests/test_control_flow.py (blocks and MXNet's JSON)
    golden |= {"_contrib_MultiBoxTarget"}  # tests/test_multibox_target.py
    # and nd.image's operators (tools/record_image_ops.py)
    image_ops = json.loads((Path(__file__).resolve().parent / "data" / "image_ops_cases.json").read_text())
    golden |= {"_image_" + name for name in ("to_tensor", "normalize") if image_ops[name]}
    golden |= {"_image_" + case["op"] for case in image_ops["flip"]}
    # and multi_sum_sq (tools/record_adamw_cases.py)
    adamw = json.loads((Path(__file__).resolve().parent / "data" / "adamw_cases.json").read_text())
    golden |= {case["fn"] for case in adamw if case["fn"] == "multi_sum_sq"}
    # and the quantization operators, as operators and in int8 symbol files (tools/record_quantization_cases.py)
    quantization = json.loads((Path(__file__).resolve().parent / "data" / "quantization_cases.json").read_text())
    golden |= {"_contrib_" + name for name in ("quantize_v2", "dequantize") if quantization["ops"][name]}
    golden |= {"_contrib_quantized_pooling"} if quantization["ops"]["pooling"] else set()
    golden |= {node["op"] for case in quantization["graphs"] for node in json.loads(case["graph"])["nodes"]}
    # and those of the graphs MXNet's quantize_net wrote, whose outputs tests/test_runtime_quantize_net.py compares
    # (tools/record_quantize_net_cases.py; calib_mode='none' gives _contrib_requantize)
    quantized_nets = json.loads((Path(__file__).resolve().parent / "data" / "quantize_net_cases.json").read_text())
    golden |= {node[0] for case in quantized_nets["cases"] if "output" in case for node in case["nodes"]}
    by_op = {}
    for name, op in REGISTRY.items():
        by_op.setdefault(id(op), set()).add(name)
    uncovered = sorted(min(names) for names in by_op.values() if not names & (golden | set(CASES)))
    assert uncovered == []
