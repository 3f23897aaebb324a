"""A standalone script per failing or diverging block: the module's source, how the block is built,
the calls `verify` made up to the one that went wrong (inputs, mode, seeds), and the check that
shows it. It runs as-is on MXNet 1.9.1, or on hyblint's runtime with `--runtime`."""
from __future__ import annotations

import re
from pathlib import Path
from typing import List, Optional

from hyblint.verify import worker

SCRIPT = '''\
"""{title}

Found by `hyblint verify`: {status}: {shown}

Runs on MXNet 1.9.1 (`python THIS_FILE`), or on hyblint's runtime (`python THIS_FILE --runtime`,
with the `runtime` package importable). Exits with the failure (an exception) while the problem is there."""
import importlib
import random
import sys
import types

import numpy as np

if "--runtime" in sys.argv:
    import runtime
    runtime.as_mxnet()
import mxnet as mx

SOURCE = {source!r}
MODULE = {module!r}
FILENAME = {filename!r}
PACKAGE_ROOT = {package_root!r}  # only for a module with relative imports: imported from there
BUILD = {build!r}  # an expression over the module `m`
SIGNATURES = {signatures!r}
CALLS = {calls!r}  # (what, signature, mode, Python seed): the last is the one that goes wrong
SEED, MX_SEED, RECORD = {seed!r}, {mx_seed!r}, {record!r}
KIND = {kind!r}
DETAIL = {detail!r}


def load():
    if PACKAGE_ROOT is not None:
        sys.path.insert(0, PACKAGE_ROOT)
        return importlib.import_module(MODULE)
    module = types.ModuleType(MODULE)
    module.__file__ = FILENAME
    sys.modules[MODULE] = module
    exec(compile(SOURCE, FILENAME, "exec"), module.__dict__)
    return module


def make_inputs(specs):
    rng = np.random.RandomState(SEED)
    made = []
    for spec in specs:
        if isinstance(spec, dict):  # token ids and the like: whole numbers in [low, high)
            made.append(rng.randint(spec["low"], spec["high"], size=tuple(spec["shape"])).astype("float32"))
        else:
            made.append(rng.uniform(-1, 1, size=tuple(spec)).astype("float32"))
    return made


INPUTS = [make_inputs(specs) for _, specs in SIGNATURES]


def flat(value):
    if isinstance(value, (list, tuple)):
        return [a for v in value for a in flat(v)]
    return [value.asnumpy()]


def call(net, what, signature, mode, py_seed):
    mx.random.seed(MX_SEED)
    random.seed(py_seed)
    np.random.seed(py_seed)
    scope = mx.autograd.predict_mode() if mode == "predict" else (
        mx.autograd.record() if RECORD else mx.autograd.train_mode())
    with scope:
        return flat(net(*[mx.nd.array(a) for a in INPUTS[signature]]))


def same(a, b):
    return len(a) == len(b) and all(x.shape == y.shape and np.allclose(x, y, rtol=1e-4, atol=1e-5, equal_nan=True)
                                    for x, y in zip(a, b))


def main():
    m = load()
    mx.random.seed(SEED)
    np.random.seed(SEED)
    hybrid = eval(BUILD, {{"m": m}})
    mx.random.seed(SEED)
    np.random.seed(SEED)
    eager = eval(BUILD, {{"m": m}})
    eager.initialize()
    eager_out = [call(eager, *CALLS[0])]
    params = {{k: p.data().asnumpy() for k, p in eager._collect_params_with_prefix().items()}}
    eager_out += [call(eager, *c) for c in CALLS[1:]]
    # the hybridized twin starts from the eager block's parameters of its first call
    mine = hybrid._collect_params_with_prefix()
    for key, value in params.items():
        if tuple(mine[key].shape or ()) != value.shape:
            mine[key].shape = value.shape
    hybrid.initialize()
    for key, value in params.items():
        mine[key].set_data(mx.nd.array(value, dtype=value.dtype))
    hybrid.hybridize()
    hybrid_out = [call(hybrid, *c) for c in CALLS]  # a failure raises here
    e, h = eager_out, hybrid_out
    checks = {{
        "frozen-state": lambda: not same(e[1], e[0]) and same(h[1], h[0]),
        "frozen-random": lambda: not same(e[2], e[1]) and same(h[2], h[0]),
        "frozen-branch": lambda: not same(e[-1], e[1]) and same(h[-1], h[1]),
    }}
    if checks.get(KIND, lambda: not same(e[-1], h[-1]))():
        for name, outputs in (("eager", e[-1]), ("hybridized", h[-1])):
            print("%s: %s" % (name, [o.shape for o in outputs]), [o.ravel()[:4] for o in outputs])
        raise AssertionError("%s (%s): %s" % (KIND, CALLS[-1][0], DETAIL))
    print("the hybridized block behaves as the eager one: not reproduced")


if __name__ == "__main__":
    main()
'''


def build_expression(name: str) -> Optional[str]:
    """How the candidate `name` is built from its module `m`: `m.Net()`, `m.get_net()`,
    `m.resnet18(pretrained=False)`."""
    function, _, call = name.partition("(")
    if call and function.isidentifier() and _DISCOVERED_CALL.fullmatch("(" + call):
        return "m.%s(%s" % (function, call)
    return "m.%s()" % name if name.isidentifier() else None


# the calls discovery makes: no arguments, or model-zoo keywords switched off
_DISCOVERED_CALL = re.compile(r"\((\w+=False(, \w+=False)*)?\)")


def what_went_wrong(result):
    """(kind, the index of the call that shows it, detail), or None for a block that behaves."""
    if result.first_call in (worker.FAILS, worker.DISAGREES):
        return ("fails" if result.first_call == worker.FAILS else "diverges"), 0, result.first_detail
    for finding in result.findings:
        if "step" in finding:
            failed = finding["detail"].startswith("fails hybridized")
            return ("fails" if failed else finding["kind"]), finding["step"], finding["detail"]
    return None


def script(result, source: str, module: str, package_root: str) -> Optional[str]:
    wrong = what_went_wrong(result)
    build = build_expression(result.name)
    if wrong is None or build is None or not result.calls:
        return None
    kind, step, detail = wrong
    calls = result.calls
    relative = re.search(r"^\s*from\s+\.", source, re.MULTILINE) is not None
    return SCRIPT.format(
        title="%s in %s %s when hybridized" % (result.name, result.path,
                                                 "fails" if kind == "fails" else "diverges"),
        status=result.status, shown=_docstring_safe(detail), detail=detail, source=source, module=module,
        filename=str(Path(result.path).resolve()), package_root=package_root if relative else None,
        build=build, signatures=[tuple(s) for s in calls["signatures"]],
        calls=[tuple(c) for c in calls["plan"][:step + 1]], seed=calls["seed"], mx_seed=calls["mx_seed"],
        record=calls["record"], kind=kind)


def _docstring_safe(text: str) -> str:
    return text.replace("\\", "/").replace('"' * 3, "'" * 3)


def file_name(result, module: str) -> str:
    stem = re.sub(r"[^A-Za-z0-9_]+", "_", "%s_%s" % (module, result.name)).strip("_")
    return "repro_%s.py" % stem


def write_all(results, sources, directory: Path) -> List[Path]:
    """One script per failing or diverging block of the modules in `sources` ({path: (source, module,
    package root)}); the paths written."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for result in results:
        known = sources.get(result.path)
        if known is None:
            continue  # a factory's blocks: their code is not one module's
        text = script(result, *known)
        if text is None:
            continue
        path = directory / file_name(result, known[1])
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
