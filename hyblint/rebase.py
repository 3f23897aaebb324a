"""Patterns of a configuration that another one `extend`s, made relative to the extending file.

A pattern means what it says relative to the pyproject.toml that declares it (as in ruff):
`/gen` in `shared/pyproject.toml` is `shared/gen`, whoever extends that file. The run matches
`exclude` and `per-file-ignores` relative to the project root (the extending file's directory),
so the extended file's patterns are rewritten for that root here.
"""
from __future__ import annotations

import fnmatch
from pathlib import Path
from typing import Any, Dict, Optional

# keys whose values are patterns relative to the declaring file
EXCLUDE_KEYS = ("exclude", "extend-exclude")
PER_FILE_KEY = "per-file-ignores"


def rebased_table(table: Dict[str, Any], declared_in: Path, root: Path) -> Dict[str, Any]:
    """`table` (declared in the directory `declared_in`) with its patterns relative to `root`.
    Values of the wrong type are left for the loader to report."""
    declared_in, root = declared_in.resolve(), root.resolve()
    if declared_in == root:
        return table
    rebased = dict(table)
    for key in EXCLUDE_KEYS:
        patterns = table.get(key)
        if isinstance(patterns, list) and all(isinstance(p, str) for p in patterns):
            rebased[key] = [q for q in (exclude_pattern(p, declared_in, root) for p in patterns) if q is not None]
    per_file = table.get(PER_FILE_KEY)
    if isinstance(per_file, dict):
        rebased[PER_FILE_KEY] = {per_file_pattern(pattern, declared_in, root): codes
                                 for pattern, codes in per_file.items()}
    return rebased


def exclude_pattern(pattern: str, declared_in: Path, root: Path) -> Optional[str]:
    """A gitignore-style pattern of `declared_in` as a pattern of `root`; None when it can match
    nothing under `root` (the declaring directory is elsewhere)."""
    negated = pattern.startswith("!")
    body = pattern[1:] if negated else pattern
    rewritten = _exclude_body(body, declared_in, root)
    if rewritten is None:
        return None
    return "!" + rewritten if negated else rewritten


def _exclude_body(body: str, declared_in: Path, root: Path) -> Optional[str]:
    if declared_in == root:
        return body
    anchored = "/" in body.rstrip("/")  # gitignore: a slash before the end anchors the pattern
    below = _relative(declared_in, root)
    if below is not None:  # declared in a directory under the root
        stripped = body.lstrip("/")
        return "/%s/%s" % (below, stripped if anchored else "**/" + stripped)
    above = _relative(root, declared_in)
    if above is None:
        return None  # unrelated directories: it speaks of files outside the root
    if not anchored:
        return body  # anywhere below the declaring directory, so anywhere below the root
    parts, downs = body.lstrip("/").split("/"), above.split("/")
    if parts[0] == "**":
        return body
    if len(parts) <= len(downs) or "**" in parts[:len(downs)]:
        return None
    if all(fnmatch.fnmatchcase(down, part) for down, part in zip(downs, parts)):
        return "/" + "/".join(parts[len(downs):])
    return None


def per_file_pattern(pattern: str, declared_in: Path, root: Path) -> str:
    """A per-file-ignores glob: one naming a path (with a slash) is relative to the declaring
    directory; one without matches file names anywhere and stays as it is."""
    if "/" not in pattern or declared_in == root:
        return pattern
    stripped = pattern.lstrip("/")
    below = _relative(declared_in, root)
    if below is not None:
        return "%s/%s" % (below, stripped)
    above = _relative(root, declared_in)
    if above is not None and stripped.startswith(above + "/"):
        return stripped[len(above) + 1:]
    return (declared_in / stripped).as_posix()  # absolute: it matches no file under the root by accident


def _relative(path: Path, base: Path) -> Optional[str]:
    """`path` relative to `base` when it is under it (not `base` itself), else None."""
    try:
        relative = path.relative_to(base)
    except ValueError:
        return None
    text = relative.as_posix()
    return None if text in ("", ".") else text
