"""The calls `verify` makes on each block, and what their results say.

One call on the configured inputs shows a block that fails or diverges once hybridized. Values
frozen at trace time need more calls to show: a second identical call (state kept in `self`), a call
with Python's and NumPy's random generators seeded differently (a Python draw), a call in train
mode (a branch on `autograd.is_training()`), and calls at other input signatures (batch 1, an odd
batch, an odd spatial size: `len(x)` or a shape read once). The same calls run on an eager block
and on a hybridized twin holding the same parameters, and each pair of results is compared.

The worker loads this file by its path: it runs in an interpreter that may have no hyblint (real
MXNet's), so it needs only the standard library and NumPy, and is handed the `mx` module.
"""
from __future__ import annotations

import contextlib
import os
import sys
from typing import Dict, List, Optional

# Kinds of divergence, each a value frozen when the graph was traced (see verdicts.KIND_CODES).
DIVERGES = "diverges"                # the hybridized result differs on the configured inputs
FROZEN_STATE = "frozen-state"        # a second call differs eagerly, not hybridized
FROZEN_RANDOM = "frozen-random"      # a Python/NumPy draw differs eagerly, not hybridized
FROZEN_BRANCH = "frozen-branch"      # train mode answers with the predict-mode graph
SIGNATURE = "signature"              # diverges or fails at another input signature only
TRAIN_MODE = "train-mode"            # diverges or fails in train mode (not as the predict graph)

PREDICT, TRAIN = "predict", "train"
MX_SEED = 7          # the operators' generator: the same for every call, eager and hybridized
PY_SEEDS = (11, 23)  # Python's and NumPy's generators: the second tells a Python draw


class Step:
    """One call: on which input signature, in which mode, with which Python seed."""

    def __init__(self, label: str, signature: int, mode: str, py_seed: int):
        self.label, self.signature, self.mode, self.py_seed = label, signature, mode, py_seed


def signatures(shapes: list) -> List[tuple]:
    """(label, shapes): the configured ones, then batch 1 and an odd batch (axis 0 of every input),
    and for image-like inputs (4 or more axes) an odd spatial size."""
    found = [("the configured inputs", shapes)]
    dims = [_dims(s) for s in shapes]
    if not dims or not dims[0]:
        return found
    batch = dims[0][0]
    if batch != 1:
        found.append(("batch 1", [_with_dims(s, (1,) + d[1:]) for s, d in zip(shapes, dims)]))
    odd = batch + 1 if batch % 2 == 0 else batch + 2
    found.append(("batch %d" % odd, [_with_dims(s, (odd,) + d[1:]) for s, d in zip(shapes, dims)]))
    if any(len(d) >= 4 for d in dims):
        odd_size = [_with_dims(s, d[:2] + tuple(n + 1 if n % 2 == 0 else n + 2 for n in d[2:]) if len(d) >= 4 else d)
                    for s, d in zip(shapes, dims)]
        found.append(("odd spatial size", odd_size))
    return found


def _dims(spec) -> tuple:
    return tuple(spec["shape"] if isinstance(spec, dict) else spec)


def _with_dims(spec, dims: tuple):
    return dict(spec, shape=list(dims)) if isinstance(spec, dict) else tuple(dims)


def steps(signature_labels: List[str]) -> List[Step]:
    first, other = PY_SEEDS
    plan = [Step("first call", 0, PREDICT, first), Step("second call", 0, PREDICT, first),
            Step("other Python seed", 0, PREDICT, other), Step("train mode", 0, TRAIN, first),
            Step("train mode again", 0, TRAIN, first)]
    plan += [Step("at " + label, i, PREDICT, first) for i, label in enumerate(signature_labels) if i]
    return plan


class LineRecorder:
    """The lines of one file that run while it records (sys.settrace), and those of the other files
    of its package (a block built by a model function in one module runs the classes of others:
    their diagnostics are judged by it too); other files are left untraced."""

    def __init__(self, filename: Optional[str], package_dir: Optional[str] = None):
        self.filename = filename
        self.package_dir = os.path.join(package_dir, "") if package_dir else None
        self.lines: set = set()
        self.elsewhere: Dict[str, set] = {}

    def _call(self, frame, event, arg):
        name = frame.f_code.co_filename
        if name == self.filename:
            return self._line
        if self.package_dir is not None and name.startswith(self.package_dir):
            return self._other_line
        return None

    def _line(self, frame, event, arg):
        if event == "line":
            self.lines.add(frame.f_lineno)
        return self._line

    def _other_line(self, frame, event, arg):
        if event == "line":
            lines = self.elsewhere.get(frame.f_code.co_filename)
            if lines is None:
                lines = self.elsewhere[frame.f_code.co_filename] = set()
            lines.add(frame.f_lineno)
        return self._other_line

    @contextlib.contextmanager
    def recording(self, into: set, elsewhere: Optional[Dict[str, set]] = None):
        if not self.filename:
            yield
            return
        self.lines = into
        self.elsewhere = elsewhere if elsewhere is not None else {}
        previous = sys.gettrace()
        sys.settrace(self._call)
        try:
            yield
        finally:
            sys.settrace(previous)


def gradients_work(mx) -> bool:
    """Whether this `mxnet` computes gradients: train mode is then run under `autograd.record()`."""
    import numpy as np
    try:
        x = mx.nd.array([1.0, 2.0])
        x.attach_grad()
        with mx.autograd.record():
            y = (x * x).sum()
        y.backward()
        return bool(np.allclose(x.grad.asnumpy(), [2.0, 4.0]))
    except Exception:
        return False


class Outcome:
    def __init__(self, outputs=None, error: Optional[BaseException] = None, lines: Optional[set] = None,
                 elsewhere: Optional[Dict[str, set]] = None):
        self.outputs, self.error, self.lines = outputs, error, lines or set()
        self.elsewhere = elsewhere or {}  # the lines of the package's other files, by file


def run_steps(net, plan: List[Step], arrays_of, mx, recorder: LineRecorder, record: bool,
              outputs, first: Optional[Outcome] = None) -> List[Outcome]:
    """Each step's outputs (NumPy arrays) or error. `arrays_of(i)`: fresh inputs of signature i;
    `first`: the first step's outcome when it has already run."""
    import random

    import numpy as np
    done = [first] if first is not None else []
    for step in plan[len(done):]:
        mx.random.seed(MX_SEED)  # first: an mxnet may seed NumPy's generator with it
        random.seed(step.py_seed)  # the same draws, eager and hybridized
        np.random.seed(step.py_seed)
        lines: set = set()
        elsewhere: Dict[str, set] = {}
        try:
            with recorder.recording(lines, elsewhere), _mode(mx, step.mode, record):
                result = outputs(net(*arrays_of(step.signature)))
            done.append(Outcome(result, None, lines, elsewhere))
        except BaseException as exc:  # user code may raise anything
            if isinstance(exc, KeyboardInterrupt):
                raise
            done.append(Outcome(None, exc, lines, elsewhere))
    return done


def seed_first_call(mx) -> None:
    import random

    import numpy as np
    mx.random.seed(MX_SEED)
    random.seed(PY_SEEDS[0])
    np.random.seed(PY_SEEDS[0])


def _mode(mx, mode: str, record: bool):
    if mode == PREDICT:
        return mx.autograd.predict_mode()
    return mx.autograd.record() if record else mx.autograd.train_mode()


def same(a, b, rtol: float, atol: float) -> bool:
    import numpy as np
    if a is None or b is None or len(a) != len(b):
        return False
    return all(x.shape == y.shape and np.allclose(x, y, rtol=rtol, atol=atol, equal_nan=True) for x, y in zip(a, b))


def findings(plan: List[Step], labels: List[str], eager: List[Outcome], hybrid: List[Outcome], difference,
             describe, user_line, rtol: float, atol: float, place=lambda exc: None) -> List[Dict]:
    """What the calls after the first show: at most one finding of each kind. `difference(e, h)`
    words how two outputs differ ('' when alike); `user_line(exc)`, the module's line an error
    left, `place(exc)`, its [file, line] anywhere in the package."""
    found: Dict[str, Dict] = {}

    def add(kind, step_index, detail, line=None, at=None):
        if kind not in found:
            step = plan[step_index]
            found[kind] = {"kind": kind, "detail": detail, "line": line, "at": at, "call": step.label,
                           "mode": step.mode, "inputs": labels[step.signature], "step": step_index}

    def alike(a, b):
        return same(a.outputs, b.outputs, rtol, atol)

    e0, h0 = eager[0], hybrid[0]
    if e0.error is not None or h0.error is not None:
        return []
    # When the first call already differs, or the eager block changes from call to call, later
    # values tell nothing new: only what is frozen (the hybridized result staying put) is judged.
    base_differs = bool(difference(e0.outputs, h0.outputs))
    stateful = eager[1].error is None and not alike(eager[1], e0)
    for i, step in enumerate(plan[1:], start=1):
        e, h = eager[i], hybrid[i]
        if e.error is not None:
            continue  # the block itself does not take this call: no finding about hybridizing it
        where = "%s (%s)" % (labels[step.signature], step.mode) if step.signature else step.label
        if h.error is not None:
            kind = SIGNATURE if step.signature else TRAIN_MODE if step.mode == TRAIN else DIVERGES
            add(kind, i, "fails hybridized at %s, though it runs eagerly: %s" % (where, describe(h.error)),
                user_line(h.error), place(h.error))
            continue
        shapes_differ = [o.shape for o in e.outputs] != [o.shape for o in h.outputs]
        if step.label == "second call":
            if stateful and alike(h, h0):
                add(FROZEN_STATE, i, "a second call gives a different result eagerly, the first call's "
                    "hybridized: state set in hybrid_forward is frozen at trace time")
            elif not base_differs and not alike(e, h):
                add(DIVERGES, i, "second call: " + difference(e.outputs, h.outputs))
        elif step.label == "other Python seed":
            if not stateful and not alike(e, e0) and alike(h, h0):
                add(FROZEN_RANDOM, i, "another Python/NumPy random seed changes the eager result, not the "
                    "hybridized one: a Python draw is frozen at trace time")
        elif step.mode == TRAIN:
            if not stateful and not alike(e, eager[1]) and alike(h, hybrid[1]):
                add(FROZEN_BRANCH, i, "in train mode the hybridized block answers as in predict mode, unlike "
                    "the eager block: the branch taken when the graph was traced is frozen")
            elif base_differs or stateful:
                continue
            elif shapes_differ or (step.label == "train mode again" and alike(e, eager[i - 1])
                                   and alike(h, hybrid[i - 1])):
                # values are compared when both give the same under the same seeds (dropout masks)
                differs = difference(e.outputs, h.outputs)
                if differs:
                    add(TRAIN_MODE, i, "train mode: " + differs)
        elif not base_differs and (shapes_differ or not stateful):
            differs = difference(e.outputs, h.outputs)
            if differs:
                add(SIGNATURE, i, "at %s: %s" % (labels[step.signature], differs))
    return list(found.values())


ROUNDING = 1e-6  # a relative change of the inputs of the size of float32 rounding


def ill_conditioned(net, step: Step, arrays_of, mx, record: bool, outputs, expected, rtol: float, atol: float) -> bool:
    """Whether the block's result for `step` moves beyond the tolerance when its inputs move by
    float32 rounding (`expected`: its result on the inputs themselves). Then eager and hybridized
    results that round differently on the way may differ by as much without either being wrong:
    a BatchNorm in train mode over a 1x1 feature map of two images divides by the spread of two
    numbers (MXNet 1.9.1's ResNet v2 at 32x32: rounding of 7e-6 in front of it becomes 0.57)."""
    import random

    import numpy as np
    mx.random.seed(MX_SEED)
    random.seed(step.py_seed)
    np.random.seed(step.py_seed)
    try:
        with _mode(mx, step.mode, record):
            got = outputs(net(*[a * (1 + ROUNDING) for a in arrays_of(step.signature)]))
    except Exception:  # user code may raise anything: nothing shown about its conditioning
        return False
    return not same(got, expected, rtol, atol)


def depends_on_draws(net, step: Step, arrays_of, mx, record: bool, outputs, expected, rtol: float, atol: float) -> bool:
    """Whether the block's result for `step` changes with the operators' random seed (`expected`:
    its result under MX_SEED). A hybridized graph may draw its random numbers in another order
    than the eager calls (GluonNLP's weight drop fetches every dropped weight before the graph
    runs), so in train mode such a block's values differ between the two by their draws alone.
    Both generators are seeded otherwise: an mxnet may draw its operators' numbers from NumPy's."""
    import random

    import numpy as np
    mx.random.seed(MX_SEED + 1)
    random.seed(step.py_seed + 1)
    np.random.seed(step.py_seed + 1)
    try:
        with _mode(mx, step.mode, record):
            got = outputs(net(*arrays_of(step.signature)))
    except Exception:  # user code may raise anything: nothing shown about its draws
        return False
    return not same(got, expected, rtol, atol)
