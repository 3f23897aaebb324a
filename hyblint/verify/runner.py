"""Drive the worker over a set of modules: one subprocess per module, each with a time limit."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from hyblint.verify import worker

WORKER = Path(worker.__file__).resolve()
# The directory that holds the `hyblint` and `runtime` packages, for the worker's imports.
PROJECT_ROOT = WORKER.parents[2]

TIMEOUT = "timeout"
CRASHED = "crashed"
IMPORT_FAILED = "import-failed"
BUILD_FAILED = "build-failed"    # the module imports fine but for a block it builds, whose constructor raised

# Worst first: a silent divergence is the case nobody would notice without running the code.
STATUS_ORDER = [worker.DISAGREES, worker.FAILS, TIMEOUT, CRASHED, IMPORT_FAILED, BUILD_FAILED,
                worker.NOT_BUILT, worker.NO_INPUTS, worker.AGREES]
# A module that did not get as far as its blocks.
MODULE_FAILURES = (TIMEOUT, CRASHED, IMPORT_FAILED, BUILD_FAILED)


class InterpreterError(Exception):
    """The interpreter cannot run any module (no `mxnet` to import): a usage error, not a finding."""


@dataclass
class BlockResult:
    path: str
    name: str
    status: str
    detail: str = ""
    line: Optional[int] = None
    fix_status: Optional[str] = None
    fix_detail: str = ""
    touches: List[str] = field(default_factory=list)  # the changed definitions this block runs
    fixed_ran: bool = False                           # its fixed version ran and agreed
    findings: List[dict] = field(default_factory=list)  # what the calls after the first showed
    lines: List[int] = field(default_factory=list)      # lines of the module run while hybridized
    eager_lines: List[int] = field(default_factory=list)
    inputs: List[str] = field(default_factory=list)     # the input signatures tried
    train: Optional[str] = None                         # how train mode was entered
    first_call: Optional[str] = None                    # the first call's status, before later calls
    first_detail: str = ""
    calls: Optional[dict] = None                        # the calls made, for a reproducer
    diagnostics: List[dict] = field(default_factory=list)  # static diagnostics it ran, with verdicts
    # the lines it ran in the other files of its package, by absolute path, and where it broke
    elsewhere: Dict[str, List[int]] = field(default_factory=dict)
    eager_elsewhere: Dict[str, List[int]] = field(default_factory=dict)
    failed_at: Optional[List] = None                    # [file, line]: the package's last frame
    eager_failed: List[str] = field(default_factory=list)  # the calls that raised eagerly (their labels)

    def to_json(self) -> dict:
        return {"path": self.path, "block": self.name, "status": self.status, "detail": self.detail,
                "line": self.line, "fix": self.fix_status, "fix_detail": self.fix_detail,
                "inputs": self.inputs, "train": self.train, "findings": self.findings,
                "diagnostics": self.diagnostics}

    @classmethod
    def from_answer(cls, path: str, b: dict) -> "BlockResult":
        return cls(path, b["name"], b["status"], b["detail"], b["line"], b["fix_status"], b["fix_detail"],
                   b.get("touches", []), b.get("fixed_ran", False), b.get("findings", []), b.get("lines", []),
                   b.get("eager_lines", []), b.get("inputs", []), b.get("train"), b.get("first_call"),
                   b.get("first_detail", ""), b.get("calls"), [], b.get("elsewhere", {}),
                   b.get("eager_elsewhere", {}), b.get("failed_at"), b.get("eager_failed", []))


@dataclass
class VerifyOptions:
    shapes: Dict[str, List[List[int]]] = field(default_factory=dict)
    factories: Sequence[str] = ()
    fix: bool = False
    unsafe_fixes: bool = False
    python: Optional[str] = None     # another interpreter, e.g. one with real MXNet installed
    timeout: float = 120.0
    discover: bool = False           # also call the modules' model functions (pretrained=False)
    seed: int = 0
    rtol: float = 1e-4
    atol: float = 1e-5


def module_name_and_root(path: Path):
    """The dotted module name and the directory to put on sys.path so its package imports work."""
    path = path.resolve()
    parts = [path.stem]
    folder = path.parent
    while (folder / "__init__.py").exists():
        parts.insert(0, folder.name)
        folder = folder.parent
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts), str(folder)


def verify_module(path: Path, source: str, fixed_source: Optional[str], options: VerifyOptions,
                  changed: Sequence[str] = (), by_design: Optional[Dict[str, List[str]]] = None) -> List[BlockResult]:
    """`changed`: the module's top-level definitions the fix changed; `by_design`: those changed by
    fixes that change results on purpose, with the codes of those fixes."""
    module, root = module_name_and_root(path)
    request = {"path": str(path.resolve()), "module": module, "package_root": root, "source": source,
               "fixed_source": fixed_source, "changed": list(changed), "by_design": by_design or {}}
    return _run_worker(request, str(path), options)


def verify_factory(spec: str, options: VerifyOptions) -> List[BlockResult]:
    """Blocks made by a `module:function` factory, imported from the current directory."""
    return _run_worker({"factory": spec}, spec, options)


def _run_worker(request: dict, shown: str, options: VerifyOptions) -> List[BlockResult]:
    request = dict(request, backend="mxnet" if options.python else "runtime", shapes=options.shapes,
                   discover=options.discover,
                   seed=options.seed, rtol=options.rtol, atol=options.atol)
    env = dict(os.environ)
    if not options.python:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PROJECT_ROOT), env.get("PYTHONPATH")]))
    try:
        done = subprocess.run([options.python or sys.executable, str(WORKER)], input=json.dumps(request),
                              capture_output=True, text=True, timeout=options.timeout, env=env)
    except subprocess.TimeoutExpired:
        return [BlockResult(shown, "*", TIMEOUT, "no answer within %g s" % options.timeout)]
    try:
        answer = json.loads(done.stdout)
    except ValueError:
        tail = (done.stderr.strip().splitlines() or ["exit code %d" % done.returncode])[-1]
        return [BlockResult(shown, "*", CRASHED, "the worker process died: " + tail[:300])]
    if answer.get("fatal"):
        raise InterpreterError("%s: %s" % (options.python or sys.executable, answer["fatal"]))
    if answer["error"]:
        if answer.get("unbuilt"):
            return [BlockResult(shown, answer["unbuilt"], BUILD_FAILED, "could not build %s when the module was "
                                "imported: %s" % (answer["unbuilt"], answer["error"]))]
        return [BlockResult(shown, "*", IMPORT_FAILED, answer["error"])]
    where = shown if "factory" not in request else request["factory"]
    return [BlockResult.from_answer(where, b) for b in answer["blocks"]]


def sort_results(results: List[BlockResult]) -> List[BlockResult]:
    rank = {s: i for i, s in enumerate(STATUS_ORDER)}
    return sorted(results, key=lambda r: (rank.get(r.status, len(rank)), r.path, r.name))
