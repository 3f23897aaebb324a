"""List the MXNet names a package's sources use, and check which the runtime's `mxnet` lacks.

    python tools/mxnet_names.py SRC [SRC ...] [--write OUT.json] [--check] [--import PACKAGE ...]

Each SRC is a package's source folder (e.g. GluonCV's or GluonNLP's unpacked wheel). The sources
are read with `ast`, never imported. Collected, per file:
  - every `import mxnet...` and `from mxnet... import name` (needed when the module is imported);
  - every attribute chain on a name bound to MXNet (`mx.gluon.nn.Conv2D`, `nd.contrib.box_nms`,
    `gluon.HybridBlock`), marked "import" where it is evaluated when the module is imported (module
    level and class bodies, decorators, base classes, default values) and "call" elsewhere.
--write stores the sorted names (dotted paths from `mxnet`; when they are needed, how many files use
them and one of those) as JSON, a name a line: the
list tests/data/third_party_mxnet_names.json is made so, from GluonCV 0.10.5 and GluonNLP 0.10.0.
--check resolves each on the runtime (after `runtime.as_mxnet()`) and prints those that fail.
--import imports each PACKAGE (installed, unmodified) on the runtime and prints the outcome.
"""
from __future__ import annotations

import argparse
import ast
import importlib
import json
import sys
import types
from pathlib import Path


def _dotted(node):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


class _Collector(ast.NodeVisitor):
    def __init__(self, package: str):
        self.package = package
        self.aliases = {}  # local name -> mxnet path
        self.found = {}  # mxnet path -> "import" or "call"
        self.depth = 0  # function bodies entered
        self.fallback = 0  # `except ImportError:` handlers entered

    def _add(self, path):
        when = "fallback" if self.fallback else "call" if self.depth else "import"
        rank = {"fallback": 0, "call": 1, "import": 2}
        if rank[when] > rank.get(self.found.get(path), -1):
            self.found[path] = when

    def visit_Try(self, node):
        for statement in node.body + node.orelse + node.finalbody:
            self.visit(statement)
        for handler in node.handlers:
            caught = _dotted(handler.type) if handler.type is not None else None
            alternative = caught in ("ImportError", "ModuleNotFoundError", "AttributeError")
            self.fallback += alternative
            for statement in handler.body:
                self.visit(statement)
            self.fallback -= alternative

    def visit_Import(self, node):
        for alias in node.names:
            if alias.name == "mxnet" or alias.name.startswith("mxnet."):
                self._add(alias.name)
                if alias.asname:
                    self.aliases[alias.asname] = alias.name
                else:
                    self.aliases["mxnet"] = "mxnet"

    def visit_ImportFrom(self, node):
        module = node.module or ""
        if node.level == 0 and (module == "mxnet" or module.startswith("mxnet.")):
            for alias in node.names:
                if alias.name == "*":
                    self._add(module)
                    continue
                path = module + "." + alias.name
                self._add(path)
                self.aliases[alias.asname or alias.name] = path

    def _function(self, node):
        for item in node.decorator_list:
            self.visit(item)
        for default in node.args.defaults + [d for d in node.args.kw_defaults if d is not None]:
            self.visit(default)
        self.depth += 1
        for statement in node.body:
            self.visit(statement)
        self.depth -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = _function

    def visit_Lambda(self, node):
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    def visit_Attribute(self, node):
        dotted = _dotted(node)
        if dotted is not None:
            head, _, rest = dotted.partition(".")
            if head in self.aliases and rest:
                self._add(self.aliases[head] + "." + rest)
                return
        self.generic_visit(node)


def collect(sources):
    """{mxnet path: {"when": "import" or "call", "files": [files using it]}} over the sources."""
    names = {}
    for source in sources:
        source = Path(source)
        for path in sorted(source.rglob("*.py")):
            try:
                tree = ast.parse(path.read_text(encoding="utf-8"))
            except (SyntaxError, UnicodeDecodeError):
                continue
            collector = _Collector(source.name)
            collector.visit(tree)
            relative = str(path.relative_to(source.parent))
            for name, when in collector.found.items():
                entry = names.setdefault(name, {"when": when, "files": []})
                if when == "import":
                    entry["when"] = "import"
                entry["files"].append(relative)
    return names


def resolve(path: str):
    """The object `path` (dotted from `mxnet`) names on the runtime: modules imported as needed."""
    parts = path.split(".")
    value = importlib.import_module(parts[0])
    for index, part in enumerate(parts[1:], start=1):
        try:
            value = getattr(value, part)
        except AttributeError:
            if not isinstance(value, types.ModuleType):
                raise
            try:  # a submodule not loaded yet
                value = importlib.import_module(".".join(parts[:index + 1]))
            except ImportError:
                raise AttributeError("%s has no attribute %s" % (".".join(parts[:index]), part)) from None
    return value


def unresolved(names):
    failures = {}
    for name in sorted(names):
        try:
            resolve(name)
        except Exception as error:  # noqa: BLE001 (reported, whatever it is)
            failures[name] = "%s: %s" % (type(error).__name__, error)
    return failures


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sources", nargs="+")
    parser.add_argument("--write")
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--import", dest="packages", nargs="*", default=[])
    args = parser.parse_args(argv)
    status = 0
    if args.packages:
        import runtime
        runtime.as_mxnet()
        for package in args.packages:
            try:
                module = importlib.import_module(package)
                print("imported %s %s" % (package, getattr(module, "__version__", "")))
            except Exception as error:  # noqa: BLE001 (reported, whatever it is)
                print("failed   %s: %s: %s" % (package, type(error).__name__, error))
                status = 1
    names = collect(args.sources)
    if args.write:
        lines = ["  %s: %s" % (json.dumps(name), json.dumps(
            {"when": entry["when"], "files": len(set(entry["files"])), "example": sorted(entry["files"])[0]}))
            for name, entry in sorted(names.items())]
        Path(args.write).write_text("{\n" + ",\n".join(lines) + "\n}\n")
    if args.check:
        import runtime
        runtime.as_mxnet()
        failures = unresolved(names)
        for name, error in failures.items():
            print("%-8s %-60s %s" % (names[name]["when"], name, error))
        print("%d of %d names resolve (%d of %d used at import)" % (
            len(names) - len(failures), len(names),
            sum(1 for n, e in names.items() if e["when"] == "import" and n not in failures),
            sum(1 for e in names.values() if e["when"] == "import")))
        return 1 if any(names[n]["when"] == "import" for n in failures) else status
    return status


if __name__ == "__main__":
    sys.exit(main())
