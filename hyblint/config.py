"""`[tool.hyblint]` in pyproject.toml: found by walking up from the linted paths."""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Dict, Optional, Sequence, Tuple

from hyblint.files import InputError, read_regular
from hyblint.rebase import rebased_table
from hyblint.settings import DEFAULT_HYBRID_BASES, Settings

MAX_CONFIG_BYTES = 1024 * 1024
KNOWN_KEYS = {"select", "ignore", "extend-select", "per-file-ignores", "exclude", "extend-exclude",
              "hybrid-bases", "respect-gitignore", "extend", "verify", "fixable", "unfixable"}


class ConfigError(Exception):
    pass


def find_config(paths: Sequence[str]) -> Optional[Path]:
    """The nearest pyproject.toml with a [tool.hyblint] table, from the first path upwards."""
    first = paths[0] if paths else "."
    try:
        start = Path(first).resolve()
    except (RuntimeError, OSError):  # a symbolic link loop: reported when the file is read
        start = Path(os.path.abspath(first))
    if not start.is_dir():
        start = start.parent
    for folder in [start, *start.parents]:
        candidate = folder / "pyproject.toml"
        if candidate.is_file() and has_table(candidate):
            return candidate
    return None


def has_table(path: Path) -> bool:
    """Whether a pyproject.toml configures hyblint (a ConfigError when it cannot be read)."""
    return "hyblint" in _load(path).get("tool", {})


def _load(path: Path) -> Dict[str, Any]:
    """Every way a pyproject.toml can be bad is a ConfigError naming the file and the reason."""
    try:
        raw = read_regular(path, str(path), MAX_CONFIG_BYTES)
    except InputError as exc:
        raise ConfigError("%s: %s" % (path, "no such file" if exc.code == "HYB905" else exc.reason)) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError("%s: not valid UTF-8 (byte 0x%02x on line %d)"
                          % (path, raw[exc.start], raw[:exc.start].count(b"\n") + 1)) from None
    # (imported here: a tree with no configuration file, checked as it is, never needs the parser)
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    try:
        return tomllib.loads(text)
    except ValueError as exc:  # TOMLDecodeError, and odd values
        raise ConfigError("%s: invalid TOML: %s" % (path, exc)) from None
    except RecursionError:
        raise ConfigError("%s: invalid TOML: arrays or tables nested too deeply" % path) from None


def _strings(table, key, path, what: str) -> Tuple[str, ...]:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError("%s: [tool.hyblint] %s must be a list of %s" % (path, key, what))
    return tuple(value)


def _codes(table, key, path) -> Tuple[str, ...]:
    codes = tuple(v.strip().upper() for v in _strings(table, key, path, "rule codes"))
    unknown = unknown_selectors(codes)
    if unknown:
        raise ConfigError("%s: [tool.hyblint] %s: unknown rule code(s): %s" % (path, key, ", ".join(unknown)))
    return codes


def unknown_selectors(codes) -> Tuple[str, ...]:
    """The codes that select no rule: a rule code (HYB001), a prefix of some (HYB, HYB00), or ALL."""
    from hyblint.diagnostics import INPUT_ERROR_CODES
    from hyblint.selection import RULE_CODES  # codes without importing the rules (nor libcst)
    known = set(RULE_CODES) | set(INPUT_ERROR_CODES)
    return tuple(code for code in codes
                 if code != "ALL" and not any(k.startswith(code) for k in known))


def load_table(path: Path, _chain: Tuple[Path, ...] = ()) -> Dict[str, Any]:
    """The `[tool.hyblint]` table of a pyproject.toml, over the one it names with `extend` (a path
    relative to it): its own keys win, key by key."""
    table = _load(path).get("tool", {}).get("hyblint", {})
    if not isinstance(table, dict) or "extend" not in table:
        return table
    base = table["extend"]
    if not isinstance(base, str) or not base:
        raise ConfigError("%s: [tool.hyblint] extend must be the path of another pyproject.toml" % path)
    target = (path.parent / os.path.expanduser(base)).resolve()
    chain = _chain + (path.resolve(),)
    if target in chain:
        raise ConfigError("%s: [tool.hyblint] extend: %s extends itself through %s"
                          % (path, base, " -> ".join(str(p) for p in chain)))
    if not target.is_file():
        raise ConfigError("%s: [tool.hyblint] extend: %s: no such file" % (path, base))
    base_table = load_table(target, chain)
    if not isinstance(base_table, dict):
        raise ConfigError("%s: [tool.hyblint] must be a table" % target)
    merged = dict(rebased_table(base_table, target.parent, path.parent))  # its patterns mean what they did there
    merged.update((key, value) for key, value in table.items() if key != "extend")
    return merged


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
    for key in ("exclude", "extend-exclude"):
        _strings(table, key, path, "glob patterns (strings)")
    _strings(table, "hybrid-bases", path, "class names (strings)")
    respect = table.get("respect-gitignore", True)
    if not isinstance(respect, bool):
        raise ConfigError("%s: [tool.hyblint] respect-gitignore must be true or false, not %r" % (path, respect))
    return Settings(
        select=_codes(table, "select", path) if "select" in table else None,
        ignore=_codes(table, "ignore", path),
        extend_select=_codes(table, "extend-select", path),
        per_file_ignores=tuple(per_file_ignores),
        exclude=tuple(table.get("exclude", [])),
        extend_exclude=tuple(table.get("extend-exclude", [])),
        hybrid_bases=DEFAULT_HYBRID_BASES | frozenset(table.get("hybrid-bases", [])),
        respect_gitignore=respect,
        fixable=_codes(table, "fixable", path) if "fixable" in table else None,
        unfixable=_codes(table, "unfixable", path),
    )
