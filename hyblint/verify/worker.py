"""Run one module's HybridBlocks eagerly and hybridized, in a process of its own.

This file is executed as a script (`python worker.py`) by `hyblint verify`, so that a block that
hangs or crashes takes only this process down. It reads one JSON request on stdin and writes one
JSON answer on stdout. It imports nothing of hyblint: it needs only the standard library, NumPy
and an `mxnet` to import — hyblint's own runtime (the default) or, with `--python`, a real MXNet
installed in another interpreter.

Request: {"path", "module", "package_root", "source", "fixed_source" (or null), "backend",
          "shapes": {name: [[dims...], ...]}, "seed", "rtol", "atol"}
          or, for a factory job, {"factory": "module:function", "backend", "shapes", ...}
Answer:  {"blocks": [{"name", "status", "detail", "line", "fix_status", "fix_detail"}, ...],
          "error": null or "why the module could not be imported"}
"""
from __future__ import annotations

import contextlib
import importlib
import inspect
import io
import json
import os
import sys
import traceback
import types

AGREES = "agrees"
FAILS = "fails"
DISAGREES = "disagrees"
NOT_BUILT = "not-built"
NO_INPUTS = "no-inputs"
PROVED = "proved"
DISPROVED = "disproved"


def main() -> None:
    request = json.load(sys.stdin)
    answer = run(request)
    sys.stdout.write(json.dumps(answer))
    sys.stdout.flush()


def run(request: dict) -> dict:
    if request.get("backend", "runtime") == "runtime":
        import runtime
        runtime.as_mxnet()
    if request.get("package_root"):
        sys.path.insert(0, request["package_root"])
    if request.get("path"):
        module_dir = os.path.dirname(os.path.abspath(request["path"]))
        if module_dir not in sys.path:
            sys.path.insert(0, module_dir)
    # Blocks print at trace time; keep stdout for the answer alone.
    with contextlib.redirect_stdout(io.StringIO()):
        return _run_quietly(request)


def _run_quietly(request: dict) -> dict:
    import mxnet as mx

    if request.get("factory"):
        return _run_factory(request, mx)
    try:
        original = _load_module(request, request["source"])
    except BaseException as exc:  # the user's module may raise anything, SystemExit included
        return {"blocks": [], "error": _describe(exc)}
    fixed = None
    fixed_error = None
    if request.get("fixed_source") is not None:
        try:
            fixed = _load_module(request, request["fixed_source"])
        except BaseException as exc:
            fixed_error = _describe(exc)
    results = [_verify_one(name, build, original, fixed, fixed_error, request, mx)
               for name, build in _module_candidates(original, mx)]
    return {"blocks": results, "error": None}


def _run_factory(request: dict, mx) -> dict:
    """A `module:function` job: the function returns a block, or an iterable of blocks, (name, block)
    pairs or (name, block, input shapes) triples."""
    module_name, _, func_name = request["factory"].partition(":")
    sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
        request = dict(request, path=getattr(module, "__file__", None) or module_name, module=module_name)
        made = getattr(module, func_name)()
    except BaseException as exc:
        return {"blocks": [], "error": _describe(exc)}
    if isinstance(made, mx.gluon.Block):
        made = [(func_name + "()", made)]
    results = []
    shapes = dict(request["shapes"])
    try:
        for entry in (made.items() if isinstance(made, dict) else made):
            # an entry is a block, (name, block), or (name, block, input shapes)
            entry = entry if isinstance(entry, tuple) else (type(entry).__name__, entry)
            name, block = str(entry[0]), entry[1]
            if len(entry) > 2:
                shapes[name] = [s if isinstance(s, dict) else list(s) for s in entry[2]]
            results.append(_verify_one(name, lambda _module, block=block: block, None, None, None,
                                       dict(request, shapes=shapes), mx))
    except BaseException as exc:  # a generator factory may fail half-way
        results.append({"name": func_name, "status": NOT_BUILT, "detail": "factory failed: " + _describe(exc),
                        "line": None, "fix_status": None, "fix_detail": ""})
    return {"blocks": results, "error": None}


def _load_module(request: dict, source: str) -> types.ModuleType:
    name = request.get("module") or os.path.splitext(os.path.basename(request["path"]))[0]
    module = types.ModuleType(name)
    module.__file__ = os.path.abspath(request["path"])
    module.__package__ = name.rpartition(".")[0]
    # Registered under its own name so that pickling, dataclasses and relative imports work.
    sys.modules[name] = module
    exec(compile(source, module.__file__, "exec"), module.__dict__)
    return module


def _module_candidates(module: types.ModuleType, mx):
    """(name, build) for the module's own HybridBlock classes and no-argument model factories."""
    hybrid = mx.gluon.HybridBlock
    for name, obj in sorted(vars(module).items()):
        if getattr(obj, "__module__", None) != module.__name__:
            continue
        if isinstance(obj, type) and issubclass(obj, hybrid):
            yield name, _class_builder(name)
        elif inspect.isfunction(obj) and _is_factory(name, obj):
            yield name + "()", _function_builder(name)


def _is_factory(name: str, func) -> bool:
    """A module-level function of no required arguments named like a model factory."""
    if not (name.startswith("get_") or name.startswith("build_") or name.endswith("_net")):
        return False
    try:
        params = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return False
    return all(p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params)


def _class_builder(name: str):
    def build(module):
        cls = getattr(module, name)
        needed = [p.name for p in list(inspect.signature(cls.__init__).parameters.values())[1:]
                  if p.default is p.empty and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
        if needed:
            raise TypeError("the constructor needs arguments (%s): name a factory with --factory"
                            % ", ".join(needed))
        return cls()
    return build


def _function_builder(name: str):
    return lambda module: getattr(module, name)()


def _verify_one(name, build, original, fixed, fixed_error, request, mx) -> dict:
    import numpy as np

    result = {"name": name, "status": None, "detail": "", "line": None,
              "fix_status": None, "fix_detail": ""}
    try:
        _seed(request["seed"], mx)
        net = build(original)
    except BaseException as exc:
        result.update(status=NOT_BUILT, detail="could not build: " + _describe(exc))
        return result
    shapes = _input_shapes(name, net, request, mx)
    if shapes is None:
        result.update(status=NO_INPUTS, detail="input shapes unknown: give --shapes %s=..." % _short(name))
        return result
    wanted = _input_names(net)
    if wanted is not None and len(shapes) not in range(wanted[0], len(wanted[1]) + 1):
        result.update(status=NO_INPUTS, detail="hybrid_forward takes inputs (%s) but %d shape(s) given"
                      % (", ".join(wanted[1]), len(shapes)))
        return result
    rng = np.random.RandomState(request["seed"])
    inputs = [_random_input(rng, spec) for spec in shapes]
    try:
        _seed(request["seed"], mx)
        net.initialize()
        eager = _outputs(net(*[mx.nd.array(a) for a in inputs]))
    except BaseException as exc:
        result.update(status=NOT_BUILT, detail="fails before hybridize(): " + _describe(exc),
                      line=_user_line(exc, request["path"]))
        return result

    params = {k: p.data().asnumpy() for k, p in net._collect_params_with_prefix().items()}
    try:
        net.hybridize()
        hybrid = _outputs(net(*[mx.nd.array(a) for a in inputs]))
        differs = _difference(eager, hybrid, request)
        if differs:
            result.update(status=DISAGREES, detail=differs)
        else:
            result.update(status=AGREES)
    except BaseException as exc:
        result.update(status=FAILS, detail=_describe(exc), line=_user_line(exc, request["path"]))

    if fixed is not None or fixed_error is not None:
        _prove_fix(result, name, build, fixed, fixed_error, params, inputs, eager, request, mx)
    return result


def _prove_fix(result, name, build, fixed, fixed_error, params, inputs, eager, request, mx):
    """The fixed block, given the original's parameters, must hybridize to the original's eager result."""
    if fixed_error is not None:
        result.update(fix_status=DISPROVED, fix_detail="fixed module fails to import: " + fixed_error)
        return
    try:
        _seed(request["seed"], mx)
        net = build(fixed)
        net.initialize()
        net(*[mx.nd.array(a) for a in inputs])  # resolves deferred parameter shapes
        mine = net._collect_params_with_prefix()
        if set(mine) != set(params):
            raise ValueError("the fixed block's parameters differ: %s" % sorted(set(mine) ^ set(params)))
        for key, value in params.items():
            mine[key].set_data(mx.nd.array(value))
        net.hybridize()
        hybrid = _outputs(net(*[mx.nd.array(a) for a in inputs]))
    except BaseException as exc:
        result.update(fix_status=DISPROVED, fix_detail="fixed block fails hybridized: " + _describe(exc))
        return
    differs = _difference(eager, hybrid, request)
    if differs:
        result.update(fix_status=DISPROVED, fix_detail="fixed block differs from the original: " + differs)
    else:
        result.update(fix_status=PROVED)


def _random_input(rng, spec):
    """Uniform in [-1, 1), or whole numbers in [low, high) for a spec such as an index input."""
    if isinstance(spec, dict):
        return rng.randint(spec["low"], spec["high"], size=tuple(spec["shape"])).astype("float32")
    return rng.uniform(-1, 1, size=tuple(spec)).astype("float32")


def _seed(seed: int, mx) -> None:
    import numpy as np
    np.random.seed(seed)
    mx.random.seed(seed)


def _short(name: str) -> str:
    return name[:-2] if name.endswith("()") else name


def _input_names(net):
    """(required count, names) of hybrid_forward's tensor inputs, or None when it cannot be read."""
    try:
        params = list(inspect.signature(type(net).hybrid_forward).parameters.values())[2:]
    except (TypeError, ValueError, AttributeError):
        return None
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
        return None
    # Parameters registered with self.params.get arrive as keyword arguments: not inputs.
    own = set(getattr(net, "_reg_params", {}) or {})
    names = [p.name for p in params if p.name not in own]
    required = sum(1 for p in params if p.name in names and p.default is p.empty)
    return required, names


def _input_shapes(name, net, request: dict, mx):
    """Shapes from the configuration (by block name), else from the first layer when it says."""
    configured = request["shapes"]
    short = _short(name)
    module = request.get("module") or ""
    for key in (module + "." + short, module + ":" + short, short, type(net).__name__):
        if key in configured:
            return [s if isinstance(s, dict) else tuple(s) for s in configured[key]]
    first = _first_layer(net, mx)
    if first is None:
        return None
    nn = mx.gluon.nn
    weight_shape = None
    for p in first.params.values():
        if p.name.endswith("weight"):
            weight_shape = p.shape
            break
    if isinstance(first, nn.Dense) and weight_shape and weight_shape[1]:
        return [(2, weight_shape[1])]
    conv_dims = {getattr(nn, n, None): d for n, d in (("Conv1D", 1), ("Conv2D", 2), ("Conv3D", 3))}
    dims = conv_dims.get(type(first))
    if dims and weight_shape and weight_shape[1]:
        in_channels = weight_shape[1] * getattr(first, "_kwargs", {}).get("num_group", 1)
        return [(2, in_channels) + (16,) * dims]
    if isinstance(first, nn.Embedding):
        return None
    return None


def _first_layer(net, mx):
    """The first built-in layer of a (nested) sequential container, or None when order is unknown."""
    nn = mx.gluon.nn
    sequential = tuple(t for t in (getattr(nn, "HybridSequential", None), getattr(nn, "Sequential", None)) if t)
    block = net
    while isinstance(block, sequential):
        children = list(block._children.values())
        if not children:
            return None
        block = children[0]
    builtin = {t for t in vars(nn).values() if isinstance(t, type)}
    return block if type(block) in builtin else None


def _outputs(value):
    if isinstance(value, (list, tuple)):
        flat = []
        for v in value:
            flat.extend(_outputs(v))
        return flat
    return [value.asnumpy()]


def _difference(expected, actual, request) -> str:
    import numpy as np
    if len(expected) != len(actual):
        return "%d outputs eagerly, %d hybridized" % (len(expected), len(actual))
    for i, (e, a) in enumerate(zip(expected, actual)):
        if e.shape != a.shape:
            return "output %d: shape %s eagerly, %s hybridized" % (i, e.shape, a.shape)
        if not np.allclose(e, a, rtol=request["rtol"], atol=request["atol"], equal_nan=True):
            worst = float(np.max(np.abs(e.astype("float64") - a.astype("float64"))))
            return "output %d: values differ (max abs difference %.3g)" % (i, worst)
    return ""


def _describe(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return "%s: %s" % (type(exc).__name__, text[0][:300] if text else "")


def _user_line(exc: BaseException, path: str):
    """The last line of the user's file in the traceback: where hybrid_forward broke."""
    if not path:
        return None
    target = os.path.abspath(path)
    line = None
    for frame, lineno in traceback.walk_tb(exc.__traceback__):
        if os.path.abspath(frame.f_code.co_filename) == target:
            line = lineno
    return line


if __name__ == "__main__":
    main()
