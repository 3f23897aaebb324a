"""Record MXNet 1.9.1's partial shape inference: sizes unknown on the way in (0, or -1 under
np_shape()) that operators carry, and that a consumer's known shape fills in backwards.

    python tools/record_partial_inference.py tests/data/partial_inference_cases.json   (MXNet's venv)

Each case is an expression over `mx` that builds a symbol and the keyword shapes given to
`infer_shape` or `infer_shape_partial`; the record keeps the argument and output shapes, or the error.
"""
import json
import sys

CASES = [
    # slice_axis / slice over an axis of unknown size: the size stays unknown
    ("slice_axis/unknown_axis", "partial", False, "mx.sym.slice_axis(mx.sym.var('data', shape=(10, 0)), axis=1, begin=0, end=5)", {}),
    ("slice_axis/known_axis", "partial", False, "mx.sym.slice_axis(mx.sym.var('data', shape=(10, 0)), axis=0, begin=0, end=5)", {}),
    ("slice_axis/negative_range", "partial", False, "mx.sym.slice_axis(mx.sym.var('data', shape=(10, 0)), axis=1, begin=-3, end=-1)", {}),
    ("slice_axis/np_unknown_axis", "partial", True, "mx.sym.slice_axis(mx.sym.var('data', shape=(10, -1)), axis=1, begin=0, end=5)", {}),
    ("slice_axis/np_known_axis", "partial", True, "mx.sym.slice_axis(mx.sym.var('data', shape=(10, -1)), axis=0, begin=2, end=5)", {}),
    ("slice/np_unknown_rows", "partial", True, "mx.sym.slice(mx.sym.var('data', shape=(-1, 20)), begin=(None, 3), end=(None, 10))", {}),
    ("slice/np_step", "partial", True, "mx.sym.slice(mx.sym.var('data', shape=(-1, 20)), begin=(None, None), end=(None, 10), step=(None, 2))", {}),
    ("slice/unknown_rows", "partial", False, "mx.sym.slice(mx.sym.var('data', shape=(0, 20)), begin=(2, 3), end=(None, 10))", {}),
    # a reshape's input with one unknown size, completed from what an elementwise consumer needs
    ("reshape/holdout_keep", "full", False, "mx.sym.elemwise_add(mx.sym.var('data').reshape((0, -1)), mx.sym.ones(shape=(2, 75)))", {"data": (0, 3, 5, 5)}),
    ("reshape/holdout_inner", "full", False, "mx.sym.elemwise_add(mx.sym.var('data').reshape((0, -1)), mx.sym.ones(shape=(2, 75)))", {"data": (2, 3, 0, 5)}),
    ("reshape/holdout_copy_all", "full", False, "mx.sym.elemwise_add(mx.sym.var('data').reshape((-2,)), mx.sym.ones(shape=(2, 3, 5, 6)))", {"data": (2, 3, 0, 6)}),
    ("reshape/holdout_merge", "full", False, "mx.sym.elemwise_add(mx.sym.var('data').reshape((-3, -3)), mx.sym.ones(shape=(6, 30)))", {"data": (2, 3, 5, 0)}),
    ("reshape/holdout_reverse_split", "full", False, "mx.sym.elemwise_add(mx.sym.var('data').reshape((-2, -1, 16, -4), reverse=True), mx.sym.ones(shape=(1, 2, 3, 4, 16)))", {"data": (1, 0, 3, 64)}),
    ("elemwise/partial_both", "partial", False, "mx.sym.var('a', shape=(2, 0)) + mx.sym.var('b', shape=(0, 3))", {}),
    # a creation operator's unknown sizes (-1) decided by its consumers, through a transpose
    ("creation/unknown_sizes", "partial", False, "mx.sym.ones(shape=(-1, -1))", {}),
    ("transpose/back_to_creation", "full", False, "mx.sym.ones(shape=[2, 3]) + mx.sym.transpose(mx.sym.ones(shape=[-1, -1]))", {}),
    # creations of partly known sizes (-1 or 0): the partial shapes go on through a transpose and
    # an addition, which completes both (MXNet's test_transpose_infer_shape_mixed)
    ("creation/partial_sizes", "partial", False, "mx.sym.ones(shape=(2, -1))", {}),
    ("transpose/partial_creation", "partial", False, "mx.sym.transpose(mx.sym.ones(shape=(3, 0)))", {}),
    ("transpose/partial_creations_mixed", "full", False, "mx.sym.ones(shape=[2, -1]) + mx.sym.transpose(mx.sym.ones(shape=[3, -1]))", {}),
    ("transpose/partial_creations_mixed_partial", "partial", False, "mx.sym.ones(shape=[2, 0]) + mx.sym.transpose(mx.sym.ones(shape=[3, 0]))", {}),
    ("transpose/back_to_variable", "full", False, "mx.sym.var('a', shape=(2, 3, 4)) + mx.sym.transpose(mx.sym.var('b'), axes=(1, 2, 0))", {}),
    # the deprecated target_shape
    ("reshape/target_shape", "full", False, "mx.sym.Reshape(mx.sym.var('data'), target_shape=(2, 0))", {"data": (2, 3, 5, 5)}),
    ("reshape/target_shape_middle", "full", False, "mx.sym.Reshape(mx.sym.var('data'), target_shape=(3, 0, 5))", {"data": (2, 3, 5, 5)}),
    ("reshape/target_shape_exact", "full", False, "mx.sym.Reshape(mx.sym.var('data'), target_shape=(7, 5))", {"data": (7, 5)}),
    # a creation operator given no shape, or (): an unknown shape that its consumers decide
    ("creation/no_shape_consumer", "full", False, "mx.sym.random.normal(0, 1) + mx.sym.var('x')", {"x": (2, 3)}),
    ("creation/empty_shape_consumer", "full", False, "mx.sym.zeros(()) + mx.sym.var('x')", {"x": (2, 3)}),
    ("creation/no_shape_alone", "full", False, "mx.sym.random.normal(0, 1)", {}),
    ("creation/empty_shape_partial", "partial", False, "mx.sym.random.uniform(0, 1, shape=())", {}),
    # a Symbol passed by keyword to an operator without such an input: dropped without inputs, else an error
    ("compose/keyword_dropped", "full", False,
     "mx.sym.random.randn(data=mx.sym.ones((2, 3)), loc=0, scale=1) + mx.sym.var('x')", {"x": (2, 3)}),
    ("compose/keyword_not_found", "full", False, "mx.sym.relu(data=mx.sym.var('x'), foo=mx.sym.var('y'))", {}),
]


def _shapes(shapes):
    """The shapes as lists; None where inference could not decide them all."""
    return None if shapes is None else [list(s) for s in shapes]


def main(path):
    import mxnet as mx
    records = []
    for case_id, mode, np_shape, code, given in CASES:
        try:
            with mx.np_shape(np_shape):
                symbol = eval(code, {"mx": mx})
                infer = symbol.infer_shape_partial if mode == "partial" else symbol.infer_shape
                args, outs, _ = infer(**given)
            result = {"arguments": symbol.list_arguments(), "args": _shapes(args), "outs": _shapes(outs)}
        except Exception as exc:  # noqa: BLE001 - what MXNet raises is what is recorded
            result = {"error": type(exc).__name__}
        records.append({"id": case_id, "mode": mode, "np_shape": np_shape, "code": code,
                        "given": {k: list(v) for k, v in given.items()}, "result": result})
    with open(path, "w") as handle:
        json.dump(records, handle, indent=1)
        handle.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
