"""What `hyblint verify` checks before it runs anything: the `[tool.hyblint.verify]` table and the
`--python` interpreter. A mistake in either is a usage error (exit 2) that names the file or option."""
from __future__ import annotations

import math
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any, Dict, List, Optional

from hyblint.config import ConfigError

KNOWN_KEYS = ("shapes", "factories", "timeout")

# What the runtime imports that the lint-only install leaves out (the [runtime] extra).
RUNTIME_MODULES = ("numpy", "numba", "threadpoolctl", "scipy")
RUNTIME_INSTALL = "pip install 'hyblint[runtime]'"


def missing_runtime() -> List[str]:
    """The runtime's dependencies this interpreter cannot import, by name (found, not imported:
    importing numba costs a second)."""
    import importlib.util
    missing = []
    for name in RUNTIME_MODULES:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):  # a broken install is as good as none
            found = False
        if not found:
            missing.append(name)
    return missing


def require_runtime() -> None:
    """Raise, saying what to install, when the runtime could not run in this interpreter."""
    missing = missing_runtime()
    if missing:
        raise ValueError("the runtime needs %s, which %s not installed: %s"
                         % (", ".join(missing), "is" if len(missing) == 1 else "are", RUNTIME_INSTALL))
_FACTORY = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")


def verify_table(paths: List[str]) -> Dict[str, Any]:
    """The validated `[tool.hyblint.verify]` table of the configuration `hyblint check` would use."""
    from hyblint.config import find_config, load_table
    config = find_config(paths or ["."])
    if config is None:
        return {}
    table = load_table(config)
    table = table.get("verify", {}) if isinstance(table, dict) else {}
    where = "%s: [tool.hyblint.verify]" % config
    if not isinstance(table, dict):
        raise ConfigError("%s must be a table" % where)
    unknown = sorted(set(table) - set(KNOWN_KEYS))
    if unknown:
        raise ConfigError("%s: unknown option(s): %s (known: %s)" % (where, ", ".join(unknown), ", ".join(KNOWN_KEYS)))
    shapes = table.get("shapes", {})
    if not isinstance(shapes, dict):
        raise ConfigError("%s shapes must be a table of block name = [[dims...], ...], e.g. "
                          "{ \"Net\" = [[2, 16]] }" % where)
    for name, groups in shapes.items():
        if not isinstance(groups, list) or not groups or not all(_is_shape(g) for g in groups):
            raise ConfigError("%s shapes.%s must be a list of input shapes, each a list of positive "
                              "integers, e.g. [[2, 16]]" % (where, name))
    factories = table.get("factories", [])
    if not isinstance(factories, list) or not all(isinstance(f, str) and _FACTORY.match(f) for f in factories):
        raise ConfigError("%s factories must be a list of \"module:function\" strings" % where)
    if "timeout" in table and not _positive_number(table["timeout"]):
        raise ConfigError("%s timeout must be a positive number of seconds, not %r" % (where, table["timeout"]))
    return table


def _is_shape(value) -> bool:
    if isinstance(value, dict):  # an integer input: {"shape": [...], "low": L, "high": H}
        return (set(value) == {"shape", "low", "high"} and _is_shape(value["shape"])
                and all(_is_int(value[k]) for k in ("low", "high")) and value["low"] < value["high"])
    return isinstance(value, list) and all(_is_int(d) and d > 0 for d in value)


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _positive_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0 and math.isfinite(value)


# Exit status of the probe below when the interpreter runs but has no `mxnet` to import.
_NO_MXNET = 3
_PROBE = "import importlib.util, sys; sys.exit(0 if importlib.util.find_spec('mxnet') else %d)" % _NO_MXNET


def check_python(python: str) -> str:
    """The interpreter given with --python, as a path, once it is known to run and to have `mxnet`."""
    path: Optional[str] = python if os.sep in python or (os.altsep and os.altsep in python) else shutil.which(python)
    if path is None or not Path(path).exists():
        raise ValueError("--python %s: no such file" % python)
    if Path(path).is_dir():
        raise ValueError("--python %s: is a directory, not a Python interpreter" % python)
    if not os.access(path, os.X_OK):
        raise ValueError("--python %s: not executable" % python)
    try:
        done = subprocess.run([path, "-c", _PROBE], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.SubprocessError) as exc:
        raise ValueError("--python %s: cannot run it: %s" % (python, exc)) from None
    if done.returncode == _NO_MXNET:
        raise ValueError("--python %s: this interpreter has no `mxnet` module to import" % python)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["exit code %d" % done.returncode])[-1]
        raise ValueError("--python %s: not a working Python interpreter: %s" % (python, last[:300]))
    return path
