"""`[tool.hyblint]` in pyproject.toml: found by walking up from the linted paths."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Dict, Optional, Sequence, Tuple

from hyblint.settings import DEFAULT_HYBRID_BASES, Settings

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

KNOWN_KEYS = {"select", "ignore", "extend-select", "per-file-ignores", "exclude", "extend-exclude",
              "hybrid-bases", "verify"}


class ConfigError(Exception):
    pass


def find_config(paths: Sequence[str]) -> Optional[Path]:
    """The nearest pyproject.toml with a [tool.hyblint] table, from the first path upwards."""
    start = Path(paths[0] if paths else ".").resolve()
    if not start.is_dir():
        start = start.parent
    for folder in [start, *start.parents]:
        candidate = folder / "pyproject.toml"
        if candidate.is_file() and "hyblint" in _load(candidate).get("tool", {}):
            return candidate
    return None


def _load(path: Path) -> Dict[str, Any]:
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError("%s: invalid TOML: %s" % (path, exc)) from None
    except OSError as exc:
        raise ConfigError("%s: cannot read: %s" % (path, exc.strerror or exc)) from None


def _codes(table, key, path) -> Tuple[str, ...]:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError("%s: [tool.hyblint] %s must be a list of rule codes" % (path, key))
    return tuple(v.strip().upper() for v in value)


def load_table(path: Path) -> Dict[str, Any]:
    """The raw `[tool.hyblint]` table of a pyproject.toml."""
    return _load(path).get("tool", {}).get("hyblint", {})


def load_settings(path: Optional[Path]) -> Settings:
    if path is None:
        return Settings()
    table = load_table(path)
    if not isinstance(table, dict):
        raise ConfigError("%s: [tool.hyblint] must be a table" % path)
    unknown = sorted(set(table) - KNOWN_KEYS)
    if unknown:
        raise ConfigError("%s: unknown [tool.hyblint] option(s): %s" % (path, ", ".join(unknown)))
    per_file = table.get("per-file-ignores", {})
    if not isinstance(per_file, dict):
        raise ConfigError("%s: [tool.hyblint] per-file-ignores must be a table of glob = [codes]" % path)
    per_file_ignores = []
    for pattern, codes in per_file.items():
        if not isinstance(codes, list) or not all(isinstance(c, str) for c in codes):
            raise ConfigError("%s: per-file-ignores %r must be a list of rule codes" % (path, pattern))
        per_file_ignores.append((pattern, tuple(c.upper() for c in codes)))
    for key in ("exclude", "extend-exclude", "hybrid-bases"):
        _codes(table, key, path)  # validates the list of strings
    return Settings(
        select=_codes(table, "select", path) if "select" in table else None,
        ignore=_codes(table, "ignore", path),
        extend_select=_codes(table, "extend-select", path),
        per_file_ignores=tuple(per_file_ignores),
        exclude=tuple(table.get("exclude", [])),
        extend_exclude=tuple(table.get("extend-exclude", [])),
        hybrid_bases=DEFAULT_HYBRID_BASES | frozenset(table.get("hybrid-bases", [])),
    )
