"""Which files a run looks at: Python files under the given paths, minus excluded ones."""
from __future__ import annotations

import fnmatch
import os
from pathlib import Path, PurePath
from typing import Iterable, List, Sequence

DEFAULT_EXCLUDE = (".bzr", ".direnv", ".eggs", ".git", ".hg", ".mypy_cache", ".nox", ".pants.d", ".ruff_cache",
                   ".svn", ".tox", ".venv", "__pypackages__", "_build", "buck-out", "build", "dist",
                   "node_modules", "venv", ".hyblint_cache", "__pycache__")
DEFAULT_EXCLUDE_SET = frozenset(DEFAULT_EXCLUDE)
SUFFIXES = (".py", ".pyi")


def _excluded(path: PurePath, patterns: Sequence[str], root: Path) -> bool:
    if path.name in DEFAULT_EXCLUDE_SET:
        return True
    if not patterns:
        return False
    try:
        relative = path.relative_to(root).as_posix()
    except ValueError:
        relative = path.as_posix()
    for pattern in patterns:
        pattern = pattern.rstrip("/")
        if fnmatch.fnmatch(path.name, pattern) or fnmatch.fnmatch(relative, pattern) \
                or fnmatch.fnmatch(relative, pattern + "/*"):
            return True
    return False


def discover(paths: Iterable[str], exclude: Sequence[str], root: Path, force_exclude: bool = False) -> List[str]:
    """Python files under `paths`. Files named explicitly are included even when excluded, unless
    `force_exclude` (like ruff's --force-exclude, for pre-commit, which names every file)."""
    patterns = tuple(exclude)  # the default names are matched by set lookup in _excluded
    found: List[str] = []
    seen = set()

    def add(name: str) -> None:
        if name not in seen:
            seen.add(name)
            found.append(name)

    for raw in paths:
        if os.path.isdir(raw):
            for folder, dirs, files in os.walk(raw):
                here = Path(folder)
                dirs[:] = sorted(d for d in dirs if not _excluded(here / d, patterns, root))
                for name in sorted(files):
                    if name.endswith(SUFFIXES) and not _excluded(here / name, patterns, root):
                        add(os.path.normpath(os.path.join(folder, name)))
        elif not (force_exclude and _excluded(Path(raw), patterns, root)):
            add(os.path.normpath(raw))
    return found
