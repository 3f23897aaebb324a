"""Which files a run looks at: Python files under the given paths, minus excluded ones.

Two kinds of patterns exclude, both gitignore-style (matched with `pathspec`):
- the settings' `exclude` and `extend-exclude`, relative to the project root (`gen/` anywhere,
  `/gen` only at the top, `**/gen`), after the default names (`.git`, `venv`, `build`, ...);
- the project's own ignore files, unless `respect-gitignore = false`: `.gitignore` and `.ignore`
  in each directory (each applies to its directory and below; deeper ones win) and
  `.git/info/exclude` of the repository.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

if TYPE_CHECKING:
    import pathspec

DEFAULT_EXCLUDE = (".bzr", ".direnv", ".eggs", ".git", ".hg", ".mypy_cache", ".nox", ".pants.d", ".ruff_cache",
                   ".svn", ".tox", ".venv", "__pypackages__", "_build", "buck-out", "build", "dist",
                   "node_modules", "venv", ".hyblint_cache", "__pycache__")
DEFAULT_EXCLUDE_SET = frozenset(DEFAULT_EXCLUDE)
SUFFIXES = (".py", ".pyi")
IGNORE_FILES = (".gitignore", ".ignore")

# (the directory its patterns are relative to, its patterns)
Layer = Tuple[str, "pathspec.GitIgnoreSpec"]


def _spec(lines: Iterable[str]) -> Optional[pathspec.GitIgnoreSpec]:
    lines = [line for line in lines if line.strip() and not line.lstrip().startswith("#")]
    if not lines:
        return None
    # imported on the first pattern: it costs a run a tenth of what it spends before checking,
    # and a tree with no ignore file and no exclude setting never needs it
    import pathspec
    return pathspec.GitIgnoreSpec.from_lines(lines)


def _read_spec(path: str) -> Optional[pathspec.GitIgnoreSpec]:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return _spec(handle.read().splitlines())
    except OSError:  # unreadable or a directory: it ignores nothing
        return None


def _ignore_layers(folder: str, present: Optional[Sequence[str]] = None) -> List[Layer]:
    """`present`: the names the folder holds, when known (a walk lists them): others are not tried."""
    layers = []
    for name in IGNORE_FILES:
        if present is not None and name not in present:
            continue
        spec = _read_spec(os.path.join(folder, name))
        if spec is not None:
            layers.append((folder, spec))
    return layers


def _repository_root(folder: str) -> Optional[str]:
    for candidate in [folder, *map(str, Path(folder).parents)]:
        if os.path.exists(os.path.join(candidate, ".git")):
            return candidate
    return None


def _outer_layers(folder: str) -> List[Layer]:
    """The ignore files that apply to `folder` from above it: its repository's, from the top down
    to its parent, with .git/info/exclude first (the weakest)."""
    top = _repository_root(folder)
    if top is None:
        return []
    layers: List[Layer] = []
    exclude = _read_spec(os.path.join(top, ".git", "info", "exclude"))
    if exclude is not None:
        layers.append((top, exclude))
    above = [str(p) for p in Path(folder).parents if p == Path(top) or Path(top) in p.parents]
    for parent in reversed(above):
        layers.extend(_ignore_layers(parent))
    return layers


def _ignored(path: str, is_dir: bool, layers: Sequence[Layer]) -> bool:
    """What the deepest ignore file that speaks of `path` says (a later `!pattern` re-includes)."""
    verdict = False
    for base, spec in layers:
        relative = os.path.relpath(path, base)
        if relative.startswith(".."):
            continue
        relative = relative.replace(os.sep, "/") + ("/" if is_dir else "")
        found = spec.check_file(relative).include
        if found is not None:
            verdict = found
    return verdict


class Excluder:
    """The settings' exclusions, relative to the project root."""

    def __init__(self, patterns: Sequence[str], root: Path):
        self.root = str(root)
        self.spec = _spec(patterns)

    def __call__(self, path: str, is_dir: bool) -> bool:
        if os.path.basename(os.path.normpath(path)) in DEFAULT_EXCLUDE_SET:
            return True
        if self.spec is None:
            return False
        absolute = os.path.abspath(path)
        relative = os.path.relpath(absolute, self.root)
        if relative.startswith(".."):  # outside the project: only what names the file can match
            relative = os.path.basename(absolute)
        relative = relative.replace(os.sep, "/") + ("/" if is_dir else "")
        # a file inside an excluded directory is excluded too (gitignore never looks inside one)
        parts = relative.rstrip("/").split("/")
        for depth in range(1, len(parts)):
            if self.spec.match_file("/".join(parts[:depth]) + "/"):
                return True
        return self.spec.match_file(relative)


def discover(paths: Iterable[str], exclude: Sequence[str], root: Path, force_exclude: bool = False,
             respect_gitignore: bool = True) -> List[str]:
    """Python files under `paths`, with one set of exclusions. Files named explicitly are included
    even when excluded, unless `force_exclude` (like ruff's --force-exclude, for pre-commit, which
    names every file)."""
    excluded = Excluder(exclude, root)
    return _discover(paths, lambda path: (excluded, respect_gitignore), force_exclude)


def discover_in_projects(paths: Iterable[str], project_of: Callable[[str], Tuple[Any, Path]],
                         force_exclude: bool = False) -> List[str]:
    """Python files under `paths`, what each directory holds judged by its own project's
    exclusions: `project_of(path)` gives the (settings, root) of the closest configuration, so
    that a nested pyproject.toml's `exclude` and `respect-gitignore` hold below it, as ruff does."""
    excluders: Dict[tuple, Excluder] = {}

    def rules(path: str) -> Tuple[Excluder, bool]:
        settings, root = project_of(path)
        key = (settings.exclude + settings.extend_exclude, str(root))
        if key not in excluders:
            excluders[key] = Excluder(key[0], root)
        return excluders[key], settings.respect_gitignore

    return _discover(paths, rules, force_exclude)


def _discover(paths: Iterable[str], rules: Callable[[str], Tuple[Excluder, bool]], force_exclude: bool) -> List[str]:
    """`rules(path)`: the exclusions that judge what a directory holds (or a file named), and
    whether the ignore files count there."""
    found: List[str] = []
    seen = set()

    def add(name: str) -> None:
        if name not in seen:
            seen.add(name)
            found.append(name)

    for raw in paths:
        if os.path.isdir(raw):
            outer = _outer_layers(os.path.abspath(raw))
            layers_of = {}
            for folder, dirs, files in os.walk(raw):
                absolute = os.path.abspath(folder)
                parent = layers_of.get(os.path.dirname(absolute), outer)
                layers = parent + _ignore_layers(absolute, files)
                layers_of[absolute] = layers
                excluded, respect_gitignore = rules(folder)

                def keep(name: str, is_dir: bool) -> bool:
                    full = os.path.join(folder, name)
                    return not excluded(full, is_dir) and not (
                        respect_gitignore and _ignored(os.path.join(absolute, name), is_dir, layers))
                dirs[:] = sorted(d for d in dirs if keep(d, True))
                for name in sorted(files):
                    if name.endswith(SUFFIXES) and keep(name, False):
                        add(os.path.normpath(os.path.join(folder, name)))
        elif not force_exclude:
            add(os.path.normpath(raw))
        else:
            absolute = os.path.abspath(raw)
            excluded, respect_gitignore = rules(raw)
            layers = _outer_layers(absolute) if respect_gitignore else []
            if not excluded(raw, False) and not _ignored(absolute, False, layers):
                add(os.path.normpath(raw))
    return found
