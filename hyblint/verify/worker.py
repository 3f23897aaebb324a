"""Run one module's HybridBlocks eagerly and hybridized, in a process of its own.

This file is executed as a script (`python worker.py`) by `hyblint verify`, so that a block that
hangs or crashes takes only this process down. It reads one JSON request on stdin and writes one
JSON answer on stdout. It imports nothing of hyblint: it needs only the standard library, NumPy
and an `mxnet` to import — hyblint's own runtime (the default) or, with `--python`, a real MXNet
installed in another interpreter.

Request: {"path", "module", "package_root", "source", "fixed_source" (or null), "backend",
          "shapes": {name: [[dims...], ...]}, "seed", "rtol", "atol",
          "changed": [top-level names whose code the fix changed],
          "by_design": {name: [codes of fixes that change results on purpose]}}
          or, for a factory job, {"factory": "module:function", "backend", "shapes", ...}
Answer:  {"blocks": [{"name", "status", "detail", "line", "fix_status", "fix_detail", "touches",
                      "fixed_ran"}, ...],
          "error": null or "why the module could not be imported",
          "unbuilt": the block class whose constructor raised while the module was imported, if so,
          "fatal": null or "why no module can run with this interpreter (no mxnet)"}
"""
from __future__ import annotations

import contextlib
import importlib
import inspect
import io
import json
import os
import re
import sys
import traceback
import types


def _load_sibling(name: str) -> types.ModuleType:
    """A module beside this file, by its path: this file runs as a script, in an interpreter that may
    have no hyblint to import, and a plain `import` could pick a user's module of the same name."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("_hyblint_verify_" + name,
                                                  os.path.join(os.path.dirname(os.path.abspath(__file__)), name + ".py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


schedule = _load_sibling("schedule")
discovery = _load_sibling("discovery")

AGREES = "agrees"
FAILS = "fails"
DISAGREES = "disagrees"
NOT_BUILT = "not-built"
NO_INPUTS = "no-inputs"
PROVED = "proved"
DISPROVED = "disproved"
UNPROVED = "unproved"            # the block's fixed code never ran
BY_DESIGN = "changes-results"    # the fix changes results on purpose: not judged by equality


def main() -> None:
    request = json.load(sys.stdin)
    answer = run(request)
    sys.stdout.write(json.dumps(answer))
    sys.stdout.flush()


def run(request: dict) -> dict:
    if request.get("backend", "runtime") == "runtime":
        # The runtime's predict-mode plans fold BatchNorm into convolutions, which rounds otherwise
        # than the eager operators do (exp() in a detector's box decoding makes it 1e27 apart);
        # MXNet's hybridized graph computes as its eager calls do: compare behaviour, not rounding.
        os.environ["HYBLINT_RUNTIME_INFERENCE_FUSION"] = "0"
        import runtime
        runtime.as_mxnet()
    else:
        # before the module's package root goes on sys.path: MXNet's own source tree, verified
        # as a module, must not shadow the installed `mxnet`
        with contextlib.suppress(BaseException):
            import mxnet  # noqa: F401 (a failure is reported where the backend is imported)
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
    try:
        import mxnet as mx
    except BaseException as exc:
        return {"blocks": [], "error": None, "fatal": "cannot import mxnet: " + _describe(exc)}

    if request.get("factory"):
        return _run_factory(request, mx)
    try:
        original = _load_module(request, request["source"])
    except BaseException as exc:  # the user's module may raise anything, SystemExit included
        return {"blocks": [], "error": _describe(exc), "unbuilt": _unbuilt_block(exc, mx)}
    fixed = None
    fixed_error = None
    if request.get("fixed_source") is not None:
        try:
            fixed = _load_module(request, request["fixed_source"])
        except BaseException as exc:
            fixed_error = _describe(exc)
    results = [_verify_one(name, build, original, fixed, fixed_error, request, mx)
               for name, build in _module_candidates(original, mx, request.get("discover", False))]
    results = [r for r in results if r is not None]  # discovered functions that made no block
    if fixed is not None or fixed_error is not None:
        for result in results:
            _judge_fix(result)
    return {"blocks": results, "error": None}


def _run_factory(request: dict, mx) -> dict:
    """A `module:function` job: the function returns a block, or an iterable of blocks, (name, block)
    pairs or (name, block, input shapes) triples."""
    module_name, _, func_name = request["factory"].partition(":")
    sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except BaseException as exc:
        return {"blocks": [], "error": _describe(exc), "unbuilt": _unbuilt_block(exc, mx)}
    request = dict(request, path=getattr(module, "__file__", None) or module_name, module=module_name)
    try:
        made = getattr(module, func_name)()
    except BaseException as exc:  # the factory imported: what failed is building its blocks
        unbuilt = _unbuilt_block(exc, mx)
        detail = "could not build%s: %s" % (" " + unbuilt if unbuilt else "", _describe(exc))
        return {"blocks": [dict(_new_result(func_name + "()"), status=NOT_BUILT, detail=detail,
                                line=_user_line(exc, request["path"]))], "error": None}
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
        results.append(dict(_new_result(func_name), status=NOT_BUILT, detail="factory failed: " + _describe(exc)))
    return {"blocks": results, "error": None}


def _unbuilt_block(exc: BaseException, mx):
    """The name of the outermost Block whose constructor is on `exc`'s traceback, or None: a model
    whose `__init__` raised, as opposed to a module that could not be imported."""
    tb = exc.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        if frame.f_code.co_name == "__init__":
            owner = frame.f_locals.get("self")
            if isinstance(owner, mx.gluon.Block):
                return type(owner).__name__
        tb = tb.tb_next
    return None


def _load_module(request: dict, source: str) -> types.ModuleType:
    name = request.get("module") or os.path.splitext(os.path.basename(request["path"]))[0]
    parent = name.rpartition(".")[0]
    if parent and parent not in sys.modules:
        # the package first, as Python imports it: its __init__ may import this module, which
        # must then find a whole one (the file's), not the empty copy being filled below
        with contextlib.suppress(BaseException):  # a failure shows again when the copy runs
            importlib.import_module(parent)
    module = types.ModuleType(name)
    module.__file__ = os.path.abspath(request["path"])
    module.__package__ = parent
    if os.path.basename(module.__file__) == "__init__.py":  # a package: its submodules import
        module.__path__ = [os.path.dirname(module.__file__)]
        module.__package__ = name
    # Registered under its own name so that pickling, dataclasses and relative imports work.
    sys.modules[name] = module
    exec(compile(source, module.__file__, "exec"), module.__dict__)
    return module


def _module_candidates(module: types.ModuleType, mx, discover: bool = False):
    """(name, build) for the module's own HybridBlock classes and no-argument model factories; with
    `discover`, also every public function that can be called without arguments (model zoo
    functions, `resnet18(pretrained=False, **kwargs)`), called with `pretrained=False` if it takes it."""
    hybrid = mx.gluon.HybridBlock
    for name, obj in sorted(vars(module).items()):
        if getattr(obj, "__module__", None) != module.__name__:
            continue
        # with `discover`, what downloads weights is off for classes and factories too (GluonCV's
        # `DeconvResnet(pretrained_base=True)`, `get_monodepth2(pretrained_base=True)`)
        if isinstance(obj, type) and issubclass(obj, hybrid):
            switched_off = _pretrained_keywords(obj.__init__) if discover else []
            yield name + _call_shown(switched_off), _class_builder(name, switched_off)
        elif inspect.isfunction(obj) and _is_factory(name, obj):
            switched_off = _pretrained_keywords(obj) if discover else []
            yield name + "(%s)" % _call_shown(switched_off)[1:-1], _function_builder(name, switched_off)
        elif discover and inspect.isfunction(obj) and _model_function(name, obj, module):
            switched_off = _pretrained_keywords(obj)
            vocabularies = discovery.vocabulary_keywords(obj) if discovery.package_vocabulary(module) else []
            call = "(%s)" % ", ".join(["%s=False" % keyword for keyword in switched_off] +
                                      ["%s=<%d-token Vocab>" % (keyword, discovery.VOCAB_TOKENS)
                                       for keyword in vocabularies])
            yield name + call, _discovered_builder(name, switched_off, vocabularies, mx)


def _model_function(name: str, func, module) -> bool:
    """A public function callable without arguments that looks like a model zoo's: it takes
    `pretrained`, or it takes only `**kwargs` in a module of models (`resnet18_v1(**kwargs)`).
    Other functions are not called: they may do anything."""
    if name.startswith("_") or not _callable_bare(func):
        return False
    params = inspect.signature(func).parameters.values()
    if any(p.name == "pretrained" for p in params):
        return True
    in_models = "model" in module.__name__.lower()  # its dotted name: `gluoncv.model_zoo.resnet`
    return in_models and any(p.kind is p.VAR_KEYWORD for p in params)


RGB_GUESS = "an RGB image guessed"
# (batch, size) of the RGB images guessed, in turn: small first; ImageNet's size for a fixed-size
# head or a deep stem; one image, for detectors that take one at a time (GluonCV's Faster R-CNN
# sizes its proposals for one); 512 pixels, for SSD's extra layers that 224 pixels shrink to nothing
IMAGE_RUNGS = ((2, 32), (2, 224), (1, 224), (2, 512))
SEQUENCE_GUESS = "a batch of 2 sequences of 5 steps guessed"
FREE_GUESS = "inputs of shape (2, 5, 8) guessed"
FREE_GUESS_SHAPE = (2, 5, 8)


class NotABlock(Exception):
    """A discovered function returned something else than a block: it is no model function."""


def _pretrained_keywords(func) -> list:
    """The keywords of `func` that ask for downloaded weights, `pretrained` and its kin, which
    model zoos give their models' parts (GluonCV's `pretrained_base=True` for a detector's
    backbone): each is passed False, so that a model is built without the network."""
    return [p.name for p in inspect.signature(func).parameters.values()
            if p.name.startswith("pretrained") and (p.default is None or isinstance(p.default, bool))
            and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]


def _discovered_builder(name: str, switched_off: list, vocabularies: list, mx):
    """Builds with every `pretrained*` keyword off and, where the function takes a vocabulary, a
    small one of the package's own class; takes the block out of a `(model, vocab)` answer."""
    def build(module):
        keywords = dict.fromkeys(switched_off, False)
        keywords.update({keyword: discovery.package_vocabulary(module) for keyword in vocabularies})
        made = discovery.the_block(getattr(module, name)(**keywords), mx.gluon.HybridBlock)
        if made is None:
            raise NotABlock(name)
        return made
    return build


def _is_factory(name: str, func) -> bool:
    """A module-level function of no required arguments named like a model factory."""
    if not (name.startswith("get_") or name.startswith("build_") or name.endswith("_net")):
        return False
    return _callable_bare(func)


def _callable_bare(func) -> bool:
    """Whether the function can be called without arguments."""
    try:
        params = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return False
    return all(p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params)


def _call_shown(switched_off: list) -> str:
    """How a candidate's name shows the keywords it is built with: '' for none (`Tiny`)."""
    return "(%s)" % ", ".join("%s=False" % keyword for keyword in switched_off) if switched_off else ""


def _class_builder(name: str, switched_off: list = ()):
    def build(module):
        cls = getattr(module, name)
        needed = [p.name for p in list(inspect.signature(cls.__init__).parameters.values())[1:]
                  if p.default is p.empty and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
        if needed:
            raise TypeError("the constructor needs arguments (%s): name a factory with --factory"
                            % ", ".join(needed))
        return cls(**dict.fromkeys(switched_off, False))
    return build


def _function_builder(name: str, switched_off: list = ()):
    return lambda module: getattr(module, name)(**dict.fromkeys(switched_off, False))


def _verify_one(name, build, original, fixed, fixed_error, request, mx) -> dict:
    import numpy as np

    result = _new_result(name)
    fixing = fixed is not None or fixed_error is not None
    if fixing:
        result["touches"] = _touched_by_name(name, original, request)
    try:
        _seed(request["seed"], mx)
        net = build(original)  # the block to hybridize: built first, its nodes are named as MXNet's would be
    except NotABlock:
        return None
    except BaseException as exc:
        result.update(status=NOT_BUILT, detail="could not build: " + _describe(exc))
        return result
    eager_net = _second_instance(build, original, request, mx) or net
    if fixing:
        result["touches"] = sorted(set(result["touches"]) | _touched_by_tree(net, request))
    shapes, inferred_from = _input_shapes(name, net, request, mx)
    wanted = _input_names(net)
    if wanted is not None and (shapes is None or (inferred_from and len(shapes) < wanted[0])):
        # no first layer declares them all: inputs that the traced graph feeds to Embeddings are token ids
        tokens = discovery.token_id_inputs(_second_instance(build, original, request, mx), wanted[0], mx)
        if tokens is not None:
            shapes, inferred_from = tokens, "the Embedding layers that read %s" % ", ".join(wanted[1][:wanted[0]])
    if shapes is None and request.get("discover") and wanted and wanted[0] and not _has_parameters(net):
        # no layer declares a size (an activation, an attention score): any float arrays may do
        shapes, inferred_from = [FREE_GUESS_SHAPE] * wanted[0], "a block without parameters (%s)" % FREE_GUESS
    if shapes is None:
        result.update(status=NO_INPUTS, detail="input shapes unknown: give --shapes %s=..." % _short(name))
        return result
    if wanted is not None and len(shapes) not in range(wanted[0], len(wanted[1]) + 1):
        result.update(status=NO_INPUTS, detail="hybrid_forward takes inputs (%s) but %d shape(s) given"
                      % (", ".join(wanted[1]), len(shapes)))
        return result
    rng = np.random.RandomState(request["seed"])
    labelled = schedule.signatures(shapes)
    inputs_by_signature = [[_random_input(rng, spec) for spec in group] for _, group in labelled]
    inputs = inputs_by_signature[0]
    plan = schedule.steps([label for label, _ in labelled])
    recorder = schedule.LineRecorder(os.path.abspath(request["path"]) if request.get("path") and
                                     not request.get("factory") else None, _package_dir(request))
    record = schedule.gradients_work(mx)
    result["train"] = "autograd.record()" if record else "autograd.train_mode()"
    result["inputs"] = [_shape_text(group) for _, group in labelled]
    # what a reproducer needs to make the same calls
    result["calls"] = {"signatures": [[label, [dict(s) if isinstance(s, dict) else list(s) for s in group]]
                                      for label, group in labelled],
                       "plan": [[step.label, step.signature, step.mode, step.py_seed] for step in plan],
                       "seed": request["seed"], "mx_seed": schedule.MX_SEED, "record": record}

    def arrays_of(i):
        return [mx.nd.array(a) for a in inputs_by_signature[i]]

    try:
        _seed(request["seed"], mx)
        eager_net.initialize()
        first = schedule.run_steps(eager_net, plan[:1], arrays_of, mx, recorder, record, _outputs)[0]
        if first.error is not None:
            raise first.error
    except BaseException as exc:
        rung = request.get("image_rung", 0)
        if inferred_from and RGB_GUESS in inferred_from and rung + 1 < len(IMAGE_RUNGS):
            # the image did not fit the network: try the next guess
            return _verify_one(name, build, original, fixed, fixed_error, dict(request, image_rung=rung + 1), mx)
        if inferred_from:  # a guess from the first layer that did not fit is no finding about the block
            result.update(status=NO_INPUTS, detail="input shape %s inferred from %s did not run (%s): give "
                          "--shapes %s=..." % (_shape_text(shapes), inferred_from, _describe(exc), _short(name)))
        else:
            result.update(status=NOT_BUILT, detail="fails before hybridize(): " + _describe(exc),
                          line=_user_line(exc, request["path"]))
        return result
    # as they were for the first call: train mode moves a BatchNorm's running statistics
    params = {k: p.data().asnumpy() for k, p in eager_net._collect_params_with_prefix().items()}
    eager_outcomes = schedule.run_steps(eager_net, plan, arrays_of, mx, recorder, record, _outputs, first=first)
    eager = first.outputs
    hybrid_net = net
    if eager_net is net or not _adopt(net, params, mx):
        # one instance only (a factory hands out one block): it goes on, hybridized, with the
        # parameters of its first call back (its Python state stays as its calls left it)
        hybrid_net = eager_net
        for key, param in eager_net._collect_params_with_prefix().items():
            param.set_data(mx.nd.array(params[key], dtype=params[key].dtype))
    hybrid_net.hybridize()
    hybrid_outcomes = schedule.run_steps(hybrid_net, plan, arrays_of, mx, recorder, record, _outputs)
    base = hybrid_outcomes[0]
    package = _package_dir(request)
    if base.error is not None:
        result.update(status=FAILS, detail=_describe(base.error), line=_user_line(base.error, request["path"]),
                      failed_at=_package_place(base.error, package))
    else:
        differs = _difference(eager, base.outputs, request)
        result.update(status=DISAGREES, detail=differs) if differs else result.update(status=AGREES)
    result.update(first_call=result["status"], first_detail=result["detail"])
    labels = [label for label, _ in labelled]
    found = schedule.findings(plan, labels, eager_outcomes, hybrid_outcomes,
                              lambda e, h: _difference(e, h, request), _describe,
                              lambda exc: _user_line(exc, request["path"]), request["rtol"], request["atol"],
                              lambda exc: _package_place(exc, package))
    for finding in [f for f in found if f["kind"] == schedule.TRAIN_MODE and "values differ" in f["detail"]]:
        step = plan[finding["step"]]
        check = (eager_net, step, arrays_of, mx, record, _outputs, eager_outcomes[finding["step"]].outputs,
                 request["rtol"], request["atol"])
        if schedule.depends_on_draws(*check) or schedule.ill_conditioned(*check):
            found.remove(finding)  # random draws or rounding decide these values: compared, they tell nothing
    result["findings"] = found
    result["lines"] = sorted(set().union(*(o.lines for o in hybrid_outcomes)))
    result["eager_lines"] = sorted(set().union(*(o.lines for o in eager_outcomes)))
    # calls the block itself does not take (a detector's training branch wants its targets): they
    # compare nothing, so they refute nothing about what only they would run
    result["eager_failed"] = [step.label for step, outcome in zip(plan, eager_outcomes) if outcome.error is not None]
    result["elsewhere"] = _lines_by_file(hybrid_outcomes)
    result["eager_elsewhere"] = _lines_by_file(eager_outcomes)
    if found and result["status"] == AGREES:
        # the first call agreed: the finding is what the block does wrong
        fails = found[0]["detail"].startswith("fails hybridized")
        result.update(status=FAILS if fails else DISAGREES, detail=found[0]["detail"], line=found[0]["line"],
                      failed_at=found[0].get("at"))

    if fixing and (result["touches"] or result["status"] == AGREES or fixed_error is not None):
        _prove_fix(result, name, build, fixed, fixed_error, params, inputs, eager, request, mx)
    return result


def _new_result(name: str) -> dict:
    return {"name": name, "status": None, "detail": "", "line": None, "fix_status": None, "fix_detail": "",
            "touches": [], "fixed_ran": False, "findings": [], "lines": [], "eager_lines": [], "inputs": [],
            "train": None, "first_call": None, "first_detail": "", "calls": None, "elsewhere": {},
            "eager_elsewhere": {}, "failed_at": None, "eager_failed": []}


def _second_instance(build, module, request: dict, mx):
    """Another instance of the block, to run eagerly, or None when building it again fails or
    gives the same object."""
    try:
        _seed(request["seed"], mx)
        return build(module)
    except Exception:
        return None


def _adopt(net, params: dict, mx) -> bool:
    """Give a block that never ran the parameters of its eagerly run twin: its first hybridized call
    then traces the graph from the state the eager block's first call had. False if it cannot."""
    try:
        mine = net._collect_params_with_prefix()
        if set(mine) != set(params):
            return False
        for key, value in params.items():
            if tuple(mine[key].shape or ()) != value.shape:
                mine[key].shape = value.shape  # known now: initialize() need not wait for a call
        net.initialize()
        for key, value in params.items():
            mine[key].set_data(mx.nd.array(value, dtype=value.dtype))
        return True
    except Exception:
        return False


def _touched_by_name(name: str, module, request: dict) -> list:
    """The changed definitions a candidate is made of, known before it is built: its class and
    the module's classes it derives from, or its factory function."""
    changed = set(request.get("changed") or ())
    obj = getattr(module, _short(name), None)
    names = {_short(name)}
    if isinstance(obj, type):
        names |= {c.__name__ for c in obj.__mro__ if c.__module__ == module.__name__}
    return sorted(names & changed)


def _touched_by_tree(net, request: dict) -> set:
    """The changed classes of this module that the built block or any block inside it runs."""
    changed = set(request.get("changed") or ())
    module = request.get("module")
    found, seen, stack = set(), set(), [net]
    while stack:
        block = stack.pop()
        if id(block) in seen:  # a block shared by two parents, or one that contains itself
            continue
        seen.add(id(block))
        found |= {c.__name__ for c in type(block).__mro__ if c.__module__ == module}
        stack.extend(getattr(block, "_children", {}).values())
    return found & changed


def _judge_fix(result: dict) -> None:
    """A block whose code the fix changed but that never got as far as running has nothing proved."""
    if result["touches"] and result["fix_status"] is None:
        if result["status"] == NO_INPUTS:
            why = "its input shapes are unknown"
        elif result["detail"].startswith("fails before hybridize()"):
            why = "the original block fails before hybridize()"
        else:
            why = "the block was not built"
        result.update(fix_status=UNPROVED, fix_detail="fix not proved: %s" % why)


def _prove_fix(result, name, build, fixed, fixed_error, params, inputs, eager, request, mx):
    """The fixed block, given the original's parameters, must hybridize to the original's eager result.
    A block the fix did not touch is run too: a fix elsewhere in the module (an import it removed)
    must not change it, but only a change is reported for it."""
    if fixed_error is not None:
        result.update(fix_status=DISPROVED, fix_detail="fixed module fails to import: " + fixed_error)
        return
    touched = bool(result["touches"])
    by_design = sorted({c for n in result["touches"] for c in request.get("by_design", {}).get(n, ())})
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
        schedule.seed_first_call(mx)  # as the original's first call was seeded
        with mx.autograd.predict_mode():
            hybrid = _outputs(net(*[mx.nd.array(a) for a in inputs]))
    except BaseException as exc:
        result.update(fix_status=DISPROVED, fix_detail=("fixed block fails hybridized: " if touched else
                      "the fix elsewhere in the module breaks this block: ") + _describe(exc))
        return
    differs = _difference(eager, hybrid, request)
    if not touched:
        if differs:
            result.update(fix_status=DISPROVED, fix_detail="the fix elsewhere in the module changes this "
                          "block's result: " + differs)
        else:
            result["fixed_ran"] = True
        return
    result["fixed_ran"] = True
    if by_design:
        # Documented to change results (the bug it fixes), so equality proves nothing either way.
        result.update(fix_status=BY_DESIGN, fix_detail="the %s fix changes results by design (%s); "
                      "hybridizes; review it" % (", ".join(by_design), differs or "same results on these inputs"))
    elif differs:
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
    """A candidate's name without its call: `resnet18(pretrained=False)` -> `resnet18`."""
    return name.split("(", 1)[0] if name.endswith(")") else name


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
    """(shapes, None) from the configuration (by block name), else (shapes, what they were read from)
    from the first layer when it declares its input size, else (None, None)."""
    configured = request["shapes"]
    short = _short(name)
    module = request.get("module") or ""
    for key in (module + "." + short, module + ":" + short, name, short, type(net).__name__):
        if key in configured:
            return [s if isinstance(s, dict) else tuple(s) for s in configured[key]], None
    first = _first_layer(net, mx)
    if first is None:
        return None, None
    nn = mx.gluon.nn
    weight_shape = None
    for p in first.params.values():
        if p.name.endswith("weight"):
            weight_shape = p.shape
            break
    what = "the first layer %s" % type(first).__name__
    conv_dims = {getattr(nn, n, None): d for n, d in (("Conv1D", 1), ("Conv2D", 2), ("Conv3D", 3))}
    if isinstance(first, nn.Embedding) and weight_shape and weight_shape[0]:
        # token ids: whole numbers below the vocabulary size
        return [{"shape": [2, 5], "low": 0, "high": weight_shape[0]}], what + "(input_dim=%d)" % weight_shape[0]
    stem = _image_stem(first, weight_shape, net, nn) if request.get("discover") else None
    if stem:
        # a model zoo's image network: an RGB image, the next of IMAGE_RUNGS each time one does not run
        batch, size = IMAGE_RUNGS[request.get("image_rung", 0)]
        return [(batch, 3, size, size)], what + " (%s: %s)" % (stem, RGB_GUESS)
    features = _sequence_features(first, weight_shape, nn) if request.get("discover") else None
    if features:
        # a sequence model's first layer (a Transformer's LayerNorm): it reads the last axis
        return [(2, 5, features)], what + " (%d features per step: %s)" % (features, SEQUENCE_GUESS)
    if not weight_shape or len(weight_shape) < 2 or not weight_shape[1]:
        return None, None  # the layer defers its input size to the first call
    if isinstance(first, nn.Dense):
        return [(2, weight_shape[1])], what + "(in_units=%d)" % weight_shape[1]
    dims = conv_dims.get(type(first))
    if dims:
        in_channels = weight_shape[1] * getattr(first, "_kwargs", {}).get("num_group", 1)
        return [(2, in_channels) + (16,) * dims], what + "(in_channels=%d)" % in_channels
    return None, None


def _has_parameters(net) -> bool:
    try:
        return bool(list(net.collect_params().keys()))  # MXNet's ParameterDict has no len()
    except Exception:  # a block that cannot list them: assume it has some
        return True


def _sequence_features(first, weight_shape, nn):
    """The size of the last axis a model function's first layer reads when the layer says it reads
    steps of features: a LayerNorm over the last axis of known size, or a Dense that does not
    flatten (`flatten=False`) with known `in_units`; None otherwise."""
    if type(first) is getattr(nn, "LayerNorm", None) and getattr(first, "_axis", None) == -1:
        sizes = [p.shape[0] for p in first.params.values() if p.shape]
        return sizes[0] if sizes and sizes[0] else None
    if type(first) is getattr(nn, "Dense", None) and getattr(first, "_flatten", True) is False:
        return weight_shape[1] if weight_shape and len(weight_shape) == 2 and weight_shape[1] else None
    return None


def _image_stem(first, weight_shape, net, nn):
    """How a model function's block reads as an image network, or None: its first layer a Conv2D
    that takes 3 channels or defers them, or a BatchNorm that defers its channels in front of
    convolutions (ResNet v2 normalizes the raw image first)."""
    if type(first) is getattr(nn, "Conv2D", None) and weight_shape and len(weight_shape) == 4:
        return {0: "deferred in_channels", 3: "in_channels=3"}.get(weight_shape[1])
    deferred = all(not p.shape or not p.shape[0] for p in first.params.values())
    if type(first) is getattr(nn, "BatchNorm", None) and deferred:
        pending, seen = [net], 0
        while pending and seen < 10000:  # a bound, against a block that contains itself
            block = pending.pop()
            seen += 1
            if type(block) is getattr(nn, "Conv2D", None):
                return "a BatchNorm in front of convolutions"
            pending.extend(getattr(block, "_children", {}).values())
    return None


def _first_layer(net, mx):
    """The first built-in layer with parameters of the block, its children searched depth first in
    the order they were registered, through sequential containers and custom blocks alike (a
    custom block registers its layers in `__init__` in the order its `hybrid_forward` usually
    applies them; parts without parameters, such as a detector's target generators registered
    before its network, say nothing of the input). None when there is none."""
    builtin = {t for t in vars(mx.gluon.nn).values() if isinstance(t, type)}
    sequential = {getattr(mx.gluon.nn, n, None) for n in ("HybridSequential", "Sequential")}
    pending, seen = [net], set()
    while pending and len(seen) < 10000:  # a bound, against a block that contains itself
        block = pending.pop()
        if id(block) in seen:
            continue
        seen.add(id(block))
        if type(block) in builtin and type(block) not in sequential and getattr(block, "_reg_params", None):
            return block
        pending.extend(reversed(list(getattr(block, "_children", {}).values())))
    return None


def _shape_text(shapes) -> str:
    return ", ".join(str(tuple(s["shape"]) if isinstance(s, dict) else tuple(s)) for s in shapes)


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
    return "%s: %s" % (type(exc).__name__, _message_line(str(exc))[:300])


# What MXNet's C++ backend puts around its message: "[22:50:02] ../src/op.h:134: " before it.
_BACKEND_PLACE = re.compile(r"\[\d\d:\d\d:\d\d\] [^\s:]+:\d+: ")


def _message_line(text: str) -> str:
    """The line of an error message that says what went wrong. MXNet's errors come as a C++
    traceback ("Traceback (most recent call last):", "  File ...", "MXNetError: <message>") or as
    "MXNetError: Error in operator X: [time] file:line: Check failed: ...", with stack frames after."""
    lines = [line.strip() for line in text.strip().splitlines()]
    lines = [line for line in lines if line and line != "Traceback (most recent call last):"
             and not line.startswith(("File \"", "[bt] ", "Stack trace")) and not re.match(r"^\d+: ", line)]
    if not lines:
        return ""
    marked = [line for line in lines if line.startswith("MXNetError: ")]
    operator = [line for line in lines if "Error in operator" in line]
    checks = [line for line in lines if "Check failed" in line]
    line = operator[0] if operator else (marked or checks or [lines[0]])[-1]
    while line.startswith("MXNetError: "):
        line = line[len("MXNetError: "):]
    return _BACKEND_PLACE.sub("", line).strip()


def _package_dir(request: dict):
    """The directory of the module's top-level package (`gluoncv/` for gluoncv.model_zoo.ssd.ssd),
    whose other files a block's run is traced in too; None for a module outside a package."""
    root, module = request.get("package_root"), request.get("module") or ""
    if not root or "." not in module:
        return None
    return os.path.join(os.path.abspath(root), module.split(".", 1)[0])


def _lines_by_file(outcomes) -> dict:
    merged: dict = {}
    for outcome in outcomes:
        for path, lines in outcome.elsewhere.items():
            merged.setdefault(os.path.abspath(path), set()).update(lines)
    return {path: sorted(lines) for path, lines in sorted(merged.items())}


def _package_place(exc: BaseException, package):
    """[file, line] of the last frame of the traceback inside the package: where a block built in
    one module broke in another's code (None: outside it, e.g. when the graph ran)."""
    if not package:
        return None
    prefix = os.path.join(package, "")
    place = None
    for frame, lineno in traceback.walk_tb(exc.__traceback__):
        if frame.f_code.co_filename.startswith("<"):
            # code compiled from a string (MXNet 1.9.1 makes its operator functions so: "<string>"),
            # which abspath would place in the current directory, the package's when verifying it
            continue
        filename = os.path.abspath(frame.f_code.co_filename)
        if filename.startswith(prefix):
            place = [filename, lineno]
    return place


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
