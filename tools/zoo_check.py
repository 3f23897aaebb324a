"""Compare the runtime's outputs with real MXNet 1.9.1's on GluonCV's model zoo and GluonNLP's models,
with the same parameters.

    python tools/zoo_check.py --mxnet PYTHON --gluoncv SRC [--json OUT] [--timeout S] [--work DIR]
                              [--names FILE] [--skip PART ...] [NAME-PART ...]
    python tools/zoo_check.py --mxnet PYTHON --gluonnlp SRC [--json OUT] [--work DIR]
    python tools/zoo_check.py --merge JSON ... [--json OUT]

SRC holds GluonCV's sources (the gluoncv wheel unpacked, as the corpus script does), or GluonNLP's
(its package, for the runtime's side when it is not installed there: tools/nlp_source.py). For each
name of the zoo's registry (those holding one of the NAME-PARTs, when given, and none of the --skip
PARTs; those listed in --names):
  - real MXNet (PYTHON: a virtual environment with mxnet==1.9.1) builds the model with
    pretrained=False, initializes it with a seeded generator, runs it on seeded inputs (each
    family's smallest accepted size: zoo_source.input_shapes) and saves the parameters, the inputs
    and the outputs;
  - the runtime builds the same model, loads those parameters and runs the same inputs eagerly,
    then hybridized; each output must equal MXNet's (rtol 1e-4, atol 1e-5; the excess over that
    is shown relative to the output's largest value), and where MXNet's hybridized run fails, the
    runtime's must fail with the same kind of error (unless MXNet ran out of memory: then the
    eager outputs decide).
Each model that differs is run once more on MXNet with oneDNN off (MXNET_MKLDNN_ENABLED=0, the
control; --no-control leaves it out): the same parameters and inputs through MXNet's own im2col and
BLAS, whose sums run in another order, compared with MXNet's recording as the runtime is.
Prints a line per model and, per family (the module that defines the model), how many were built on
MXNet, equal, close (beyond the tolerance by at most 1e-5 of the output's largest value: float32
sums in another order; or beyond it, where the same model run in float64 shows MXNet's outputs no
nearer the exact result than the runtime's; or, where MXNet's hybridized outputs differ from its
own eager ones, the runtime's equal MXNet's eager outputs in both runs), differ (and of those, how many
differ on MXNet too: the control beyond the tolerance) and fail on the runtime, and how many failed
on MXNet itself; --json writes every model's outcome. Each side runs in a process of its own per
batch of models; a model gets --timeout seconds on each side. With --work, MXNet's recordings stay
in that folder and a later run compares with them instead of recording again; --merge prints the
table of several runs.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from node_check import NOISE, excess_over_tolerance

TOOLS = Path(__file__).resolve().parent
ROOT = TOOLS.parent


class OverTime(Exception):
    pass


def _over_time(*_):
    raise OverTime("over the time limit")


def _outputs(value):
    """The arrays of a model's output (nested tuples and lists flattened), as NumPy."""
    if isinstance(value, (list, tuple)):
        return [array for item in value for array in _outputs(item)]
    return [value.asnumpy()] if hasattr(value, "asnumpy") else []


def _failure(stage: str, exc: BaseException) -> dict:
    lines = str(exc).strip().splitlines()
    return {"status": stage + "-failed", "detail": "%s: %s" % (type(exc).__name__, lines[-1][:300] if lines else "")}


def record(zoo, name: str, work: Path, timeout: int) -> dict:
    """Real MXNet's side: build, initialize, run eagerly, then hybridized; the parameters, the input
    and both runs' outputs into `work` (or why the hybridized run failed)."""
    import mxnet as mx
    import numpy as np
    stage = "build"
    signal.alarm(timeout)
    try:
        net = zoo.build(name)
        stage = "eager"
        sizes = len(zoo.input_candidates(net, name, np.random.RandomState(0)))
        for size in range(sizes):  # the smallest inputs the model takes on MXNet, each on a fresh model
            if size:
                net = zoo.build(name)
            mx.random.seed(0)
            np.random.seed(0)
            net.initialize()
            x = zoo.input_candidates(net, name, np.random.RandomState(0))[size]
            try:
                outputs = _outputs(net(*_arrays(mx, x)))
                break
            except Exception:
                if size == sizes - 1:
                    raise
        net.save_parameters(str(work / (name + ".params")))
        family = type(net).__module__.rsplit(".", 1)[-1]
        stage = "hybridized"
        try:
            net.hybridize()
            hybridized, failed = _outputs(net(*_arrays(mx, x))), None
        except Exception as exc:  # some models only run eagerly, on MXNet too
            hybridized, failed = [], _failure(stage, exc)["detail"]
        arrays = {"eager_%d" % i: a for i, a in enumerate(outputs)}
        arrays.update({"hybridized_%d" % i: a for i, a in enumerate(hybridized)})
        flat, structure = _flatten(x)
        arrays.update({"input_%d" % i: a for i, a in enumerate(flat)})
        np.savez(str(work / (name + ".npz")), structure=np.array(json.dumps(structure)), **arrays)
        return {"status": "recorded", "family": family, "hybridized_failed": failed}
    except BaseException as exc:  # a model may raise anything while it is built
        return dict(_failure(stage, exc), family="")
    finally:
        signal.alarm(0)


def compare(zoo, name: str, work: Path, timeout: int, hybridized_failed=None, float64: bool = True) -> dict:
    """The runtime's side: the same model with MXNet's parameters, eagerly then hybridized. Where
    MXNet's hybridized run failed, the runtime's must fail too (with the same kind of error). Run
    on MXNet itself with oneDNN off (the control), it measures how far MXNet's own outputs move
    when its sums run in another order; `float64` False leaves out the float64 run."""
    import mxnet as mx
    expected, x = _recording(mx, work, name)
    stage = "build"
    signal.alarm(timeout)
    try:
        net = zoo.build(name)
        stage = "load"
        net.load_parameters(str(work / (name + ".params")))
        found, ours = {}, {}
        for stage in ("eager", "hybridized"):
            if stage == "hybridized":
                net.hybridize()
            try:
                outputs = _outputs(net(*x))
            except Exception as exc:
                if stage == "hybridized" and hybridized_failed and \
                        hybridized_failed.split(":")[0] == type(exc).__name__:
                    found[stage] = "fails as on MXNet"
                    continue
                raise
            if stage == "hybridized" and hybridized_failed:
                if _out_of_memory(hybridized_failed):
                    # what MXNet lacked was memory, not a rule the runtime should also break
                    found[stage] = "runs (MXNet ran out of memory)"
                    continue
                return {"status": "differ", "detail": "hybridized runs; on MXNet: " + hybridized_failed}
            found[stage], ours[stage] = _difference(outputs, expected[stage]), outputs
        if any(excess is None for excess in found.values()):
            return {"status": "differ", "detail": "outputs of other shapes or counts than MXNet's"}
        numbers = [v for v in found.values() if not isinstance(v, str)]
        shown = ", ".join("%s %s" % (k, v if isinstance(v, str) else "%.3g" % v) for k, v in found.items())
        worst = max(numbers)
        status = "equal" if worst <= 0 else "close" if worst <= NOISE else "differ"
        if status == "differ" and len(ours) == 2:
            itself = _difference(expected["hybridized"], expected["eager"])
            to_eager = [_difference(ours[stage], expected["eager"]) for stage in ours]
            if itself is not None and itself > NOISE and all(v is not None and v <= NOISE for v in to_eager):
                return {"status": "close",
                        "detail": "MXNet's hybridized outputs differ from its own eager ones (%.3g); the runtime's "
                                  "equal MXNet's eager outputs in both runs (%s)" % (
                                      itself, ", ".join("%.3g" % v for v in to_eager))}
        if status == "differ" and float64:
            try:
                runtime_error, mxnet_error = _rounding(zoo, name, work, x, ours, expected)
                shown += "; from the float64 result: runtime %.3g, MXNet %.3g" % (runtime_error, mxnet_error)
                status = "close" if runtime_error <= mxnet_error else status
            except Exception as exc:  # a model with float32 constants of its own does not run in float64
                shown += "; no float64 run (%s)" % _failure("float64", exc)["detail"][:120]
        return {"status": status, "detail": "beyond tolerance (relative to the output's largest value): " + shown}
    except BaseException as exc:
        return _failure(stage, exc)
    finally:
        signal.alarm(0)


def _recording(mx, work: Path, name: str):
    """MXNet's recorded outputs ({stage: arrays}) and the inputs it ran, as nested NDArrays."""
    import numpy as np
    recorded = np.load(str(work / (name + ".npz")))
    expected = {stage: [recorded[key] for key in sorted(recorded.files, key=_number) if key.startswith(stage)]
                for stage in ("eager", "hybridized", "input")}
    structure = json.loads(str(recorded["structure"])) if "structure" in recorded.files else \
        list(range(len(expected["input"])))  # recorded before inputs could nest
    return expected, _nested([mx.nd.array(a) for a in expected["input"]], structure)


def nodes(zoo, side: str, name: str, work: Path, timeout: int) -> dict:
    """node_check on a model that differs: on MXNet, every node's outputs for the recorded parameters
    and inputs; on the runtime, each node alone on MXNet's inputs."""
    import mxnet as mx
    import node_check
    signal.alarm(timeout)
    try:
        if side == "nodes-runtime":
            return dict(status="compared", **node_check.compare(mx, work, name))
        net = zoo.build(name)
        net.load_parameters(str(work / (name + ".params")))
        return {"status": "recorded", "nodes": node_check.record(mx, net, _recording(mx, work, name)[1], work, name)}
    except BaseException as exc:
        return _failure(side, exc)
    finally:
        signal.alarm(0)


def _out_of_memory(failure: str) -> bool:
    """Whether MXNet's failure was its allocator's (MemoryError, "Failed to allocate CPU Memory")."""
    return failure.startswith("MemoryError") or "Failed to allocate" in failure


def _rounding(zoo, name, work, x, ours, expected):
    """How far the runtime's float32 outputs and MXNet's are from the same model's in float64 (run on
    the runtime), each relative to the output's largest value: where an untrained model amplifies
    float32 rounding past the tolerance (a sigmoid of sums of large terms, many layers), MXNet's own
    outputs are no nearer the exact result than the runtime's."""
    import numpy as np
    net = zoo.build(name)
    net.load_parameters(str(work / (name + ".params")))
    net.cast("float64")
    cast = lambda v: [cast(i) for i in v] if isinstance(v, list) else v.astype("float64")  # noqa: E731
    exact = [a.astype("float64") for a in _outputs(net(*cast(x)))]

    def distance(outputs):
        return max((float(np.nanmax(np.abs(a - b))) / max(float(np.nanmax(np.abs(b))), 1.0)
                    for a, b in zip(outputs, exact) if b.size and not np.isnan(b).all()), default=0.0)
    return (max(distance(outputs) for outputs in ours.values()),
            max(distance(expected[stage]) for stage in ours))


def _flatten(value):
    """The arrays of nested lists of inputs, and the nesting with each array's place in that list."""
    if isinstance(value, (list, tuple)):
        flat, structure = [], []
        for item in value:
            items, shape = _flatten(item)
            structure.append(_shifted(shape, len(flat)))
            flat.extend(items)
        return flat, structure
    return [value], 0


def _shifted(structure, offset):
    return [_shifted(s, offset) for s in structure] if isinstance(structure, list) else structure + offset


def _nested(flat, structure):
    return [_nested(flat, s) for s in structure] if isinstance(structure, list) else flat[structure]


def _arrays(mx, value):
    """Nested lists of NumPy arrays as the same lists of NDArrays."""
    return [_arrays(mx, item) for item in value] if isinstance(value, list) else mx.nd.array(value)


def _number(key: str) -> int:
    return int(key.rsplit("_", 1)[-1]) if key[-1].isdigit() else -1


def _difference(outputs, expected):
    """How far the worst element is beyond the tolerance (<= 0: every output is close), divided by
    the largest magnitude of its output (deep untrained models reach large values, where float32
    sums in another order differ in the last digits); None when the outputs do not even have the
    same shapes."""
    if len(outputs) != len(expected) or any(a.shape != b.shape for a, b in zip(outputs, expected)):
        return None
    return excess_over_tolerance(outputs, expected)


def side_main(argv) -> None:
    """One side's process: the models named on standard input, one JSON line out for each."""
    side, source, work, timeout = argv[0], argv[1], Path(argv[2]), int(argv[3])
    sys.path.insert(0, str(TOOLS))
    if side in ("runtime", "nodes-runtime"):
        sys.path.insert(0, str(ROOT))
        import runtime
        runtime.as_mxnet()
    signal.signal(signal.SIGALRM, _over_time)
    if source.startswith("gluonnlp:"):
        from nlp_source import GluonNLPZoo
        zoo = GluonNLPZoo(source.split(":", 1)[1])
    else:
        from zoo_source import GluonCVZoo
        zoo = GluonCVZoo(source, fill_mxnet=side in ("runtime", "nodes-runtime"))
    if side == "list":
        print(json.dumps(list(zoo.get_model_list())), flush=True)
        return
    for line in sys.stdin:
        name = line.strip()
        if side == "mxnet":
            outcome = record(zoo, name, work, timeout)
            (work / (name + ".json")).write_text(json.dumps(outcome))
        elif side.startswith("nodes-"):
            outcome = nodes(zoo, side, name, work, timeout)
        else:
            failed = json.loads((work / (name + ".json")).read_text()).get("hybridized_failed")
            outcome = compare(zoo, name, work, timeout, failed, float64=side == "runtime")
        print(json.dumps({"name": name, **outcome}), flush=True)


def run_side(python: str, side: str, names, source: str, work: Path, timeout: int, batch: int = 0) -> dict:
    """{name: outcome} from one side, `batch` models a process (0: all), restarting past a model
    whose process died. The control side is MXNet with oneDNN off: its convolutions and dense
    layers then run on MXNet's own im2col and BLAS, which sum in another order."""
    outcomes, left = {}, list(names)
    env = dict(os.environ, MXNET_MKLDNN_ENABLED="0") if side == "control" else None
    while left:
        process = subprocess.run([python, str(Path(__file__)), "--side", side, source, str(work), str(timeout)],
                                 input="\n".join(left[:batch or len(left)]) + "\n", capture_output=True, text=True,
                                 env=env)
        for line in process.stdout.splitlines():
            if line.startswith("{"):
                outcome = json.loads(line)
                name = outcome.pop("name")
                outcomes[name] = outcome
                print("  %-40s %-8s %s" % (name, side, outcome["status"]), flush=True)
        done = [name for name in left[:batch or len(left)] if name in outcomes]
        if len(done) < len(left[:batch or len(left)]):  # the process ended in the middle of a model: that one failed
            crashed = left[len(done)]
            tail = process.stderr.strip().splitlines()
            outcomes[crashed] = {"status": "crashed", "family": "",
                                 "detail": tail[-1][:300] if tail else "exit %d" % process.returncode}
            done.append(crashed)
        left = [name for name in left if name not in outcomes]
    return outcomes


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--side":
        return side_main(sys.argv[2:])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("parts", nargs="*", help="check the names holding one of these")
    parser.add_argument("--mxnet", help="Python of a virtual environment with mxnet==1.9.1")
    parser.add_argument("--gluoncv", help="a directory holding gluoncv/model_zoo")
    parser.add_argument("--gluonnlp", metavar="SRC", help="check GluonNLP's models instead (SRC: a directory "
                        "holding the gluonnlp package, for the runtime's side where it is not installed)")
    parser.add_argument("--skip", nargs="*", default=[], help="leave out the names holding one of these")
    parser.add_argument("--names", help="a file of the names to check, one a line (with or without NAME-PARTs)")
    parser.add_argument("--json", help="write every model's outcome here")
    parser.add_argument("--timeout", type=int, default=300, help="seconds per model and side")
    parser.add_argument("--work", help="keep MXNet's recordings here, and reuse those found there")
    parser.add_argument("--batch", type=int, default=0, help="models a process (0: all); MXNet keeps the memory "
                        "it allocated until its process ends, so that large detectors fail to allocate after many")
    parser.add_argument("--no-control", dest="control", action="store_false", help="do not run the models that "
                        "differ again on MXNet with oneDNN off (the control: how far MXNet's outputs move by itself)")
    parser.add_argument("--nodes", action="store_true", help="run each node of the models that differ alone on "
                        "the runtime, with the inputs MXNet gave it (tools/node_check.py)")
    parser.add_argument("--merge", nargs="+", metavar="JSON", help="check nothing: the table of earlier runs' "
                        "--json files, a model's outcome taken from the last file that has it")
    args = parser.parse_args()
    if args.merge:
        results = {}
        for path in args.merge:
            results.update(json.loads(Path(path).read_text()))
        return report(results, args.json)
    if not (args.mxnet and (args.gluoncv or args.gluonnlp)):
        parser.error("give --mxnet and --gluoncv or --gluonnlp")
    source = "gluonnlp:" + args.gluonnlp if args.gluonnlp else args.gluoncv
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(args.work or scratch)
        work.mkdir(parents=True, exist_ok=True)
        listed = subprocess.run([args.mxnet, str(Path(__file__)), "--side", "list", source, scratch, "0"],
                                capture_output=True, text=True, check=True).stdout
        names = [n for n in json.loads(listed.strip().splitlines()[-1])
                 if (not args.parts or any(part in n for part in args.parts))
                 and not any(part in n for part in args.skip)
                 and (not args.names or n in Path(args.names).read_text().split())]
        print("%d models" % len(names), flush=True)
        kept = {n: json.loads((work / (n + ".json")).read_text()) for n in names if (work / (n + ".json")).exists()}
        on_mxnet = dict(kept, **run_side(args.mxnet, "mxnet", [n for n in names if n not in kept],
                                          source, work, args.timeout, args.batch))
        recorded = [n for n in names if on_mxnet[n]["status"] == "recorded"]
        on_runtime = run_side(sys.executable, "runtime", recorded, source, work, args.timeout, args.batch)
        differing = [n for n in recorded if on_runtime[n]["status"] == "differ"]
        controls = run_side(args.mxnet, "control", differing if args.control else [], source, work, args.timeout,
                            args.batch)
        traced = run_side(args.mxnet, "nodes-mxnet", differing if args.nodes else [], source, work, args.timeout,
                          args.batch)
        by_node = run_side(sys.executable, "nodes-runtime", [n for n in traced if traced[n]["status"] == "recorded"],
                           source, work, args.timeout, args.batch)
    report({name: dict({"mxnet": on_mxnet[name], "runtime": on_runtime.get(name)},
                       **({"control": controls[name]} if name in controls else {}),
                       **({"nodes": by_node.get(name, traced[name])} if name in traced else {})) for name in names},
           args.json)


def _nodes_line(found: dict) -> str:
    return ("%(nodes)d nodes: %(bit-equal)d bit for bit, %(within)d within the tolerance, %(close)d close, "
            "%(beyond)d beyond, %(failed)d failed; worst: %(worst)s %(failures)s; not bit for bit: %(inexact)s"
            % dict(found, inexact=found.get("not_bit_for_bit")))


def report(results: dict, json_path=None) -> None:
    """A line per model, then the counts per family; every outcome into `json_path`."""
    families = collections.defaultdict(collections.Counter)
    for name, outcome in results.items():
        family = outcome["mxnet"].get("family") or "(failed on MXNet)"
        families[family]["built"] += outcome["runtime"] is not None
        families[family]["mxnet failed"] += outcome["runtime"] is None
        if outcome["runtime"] is not None:
            status = outcome["runtime"]["status"]
            families[family][status if status in ("equal", "close", "differ") else "fail"] += 1
            # MXNet's own outputs, its sums in another order, are no nearer its recorded ones
            families[family]["mxnet too"] += outcome.get("control", {}).get("status") == "differ"
        print("%-40s %-10s %s" % (name, (outcome["runtime"] or outcome["mxnet"])["status"],
                                  (outcome["runtime"] or outcome["mxnet"]).get("detail", "")))
        if "control" in outcome:
            print("%-40s %-10s %s" % ("  MXNet without oneDNN", outcome["control"]["status"],
                                      outcome["control"].get("detail", "")))
        if "nodes" in outcome:
            found = outcome["nodes"]
            families[family]["nodes agree"] += found["status"] == "compared" and not found["beyond"] + found["failed"]
            print("%-40s %-10s %s" % ("  each node on MXNet's inputs", found["status"],
                                      found.get("detail") or _nodes_line(found)))
    columns = ("built", "equal", "close", "differ", "mxnet too", "nodes agree", "fail", "mxnet failed")
    print("\n%-24s" % "family" + "".join("%14s" % column for column in columns))
    total = collections.Counter()
    for family in sorted(families):
        counts = families[family]
        total.update(counts)
        print("%-24s" % family + "".join("%14d" % counts[column] for column in columns))
    print("%-24s" % "all" + "".join("%14d" % total[column] for column in columns))
    if json_path:
        Path(json_path).write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
