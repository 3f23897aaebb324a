"""The project's own modules a module imports, directly or through others: a verify answer depends
on their code as much as on the module's, so the result cache keys them too.

Only files under the directories a verify worker puts on `sys.path` (the module's package root and
its own directory) count; installed packages are the interpreter's, which the cache fingerprints
apart; under an installation directory (site-packages), only the module's own top-level
package counts. A name is resolved as Python would find it there: `a.b.c` runs `a/__init__.py`,
`a/b/__init__.py` and `a/b/c.py` (or `a/b/c/__init__.py`); `from a import b` may name a
submodule `a/b.py`. An import that resolves to no file is someone else's and ignored; a module
that does not parse imports nothing (its own run reports why)."""
from __future__ import annotations

import ast
import hashlib
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Tuple

from hyblint.verify.runner import module_name_and_root


def _module_file(root: Path, dotted: str) -> List[Path]:
    """The files that importing `dotted` from `root` runs: each package's `__init__.py`, then the
    module; empty when the name is not a module under `root`."""
    parts = dotted.split(".")
    found: List[Path] = []
    folder = root
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        package = folder / part
        if (package / "__init__.py").is_file():
            found.append(package / "__init__.py")
            folder = package
        elif last and (folder / (part + ".py")).is_file():
            found.append(folder / (part + ".py"))
        else:
            return []
    return found


def _imported_names(tree: ast.Module, package: str) -> Iterator[str]:
    """Dotted names the module imports (relative ones made absolute against `package`); for
    `from a import b`, both `a` and `a.b` (b may be a submodule or a name in `a`)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".") if package else []
                if node.level - 1 > len(anchor):
                    continue  # beyond the top package: Python raises, the run will show it
                anchor = anchor[:len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            if not base:
                for alias in node.names:
                    yield alias.name
                continue
            yield base
            for alias in node.names:
                if alias.name != "*":
                    yield base + "." + alias.name


def local_imports(path: Path, source: str) -> List[Path]:
    """The project files `path` imports, transitively, in a stable order (itself excluded)."""
    path = path.resolve()
    _, package_root = module_name_and_root(path)
    roots = [Path(package_root)] + ([path.parent] if path.parent != Path(package_root) else [])
    # An installed package (its root is site-packages) imports other distributions beside it, not
    # project modules: following them would read all of mxnet and numpy for each module verified.
    own_top = module_name_and_root(path)[0].split(".", 1)[0] if _installation(Path(package_root)) else None
    seen: Dict[Path, None] = {}
    pending: List[Tuple[Path, Optional[str]]] = [(path, source)]
    while pending:
        current, text = pending.pop()
        if text is None:
            try:
                text = current.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        name, _ = module_name_and_root(current)
        package = name if current.name == "__init__.py" else name.rpartition(".")[0]
        for dotted in _imported_names(tree, package):
            if own_top is not None and dotted.split(".", 1)[0] != own_top:
                continue
            for root in roots:
                for file in _module_file(root, dotted):
                    file = file.resolve()
                    if file != path and file not in seen:
                        seen[file] = None
                        pending.append((file, None))
    return sorted(seen)


def _installation(root: Path) -> bool:
    """Whether `root` is where distributions are installed: it holds their `*.dist-info` or
    `*.egg-info` records."""
    try:
        return any(entry.suffix in (".dist-info", ".egg-info") for entry in root.iterdir())
    except OSError:
        return False


def imports_digest(path: Path, source: str) -> str:
    """One hash of the contents of every project module `path` imports (see `local_imports`)."""
    digest = hashlib.sha256()
    for file in local_imports(path, source):
        try:
            digest.update(str(file).encode("utf-8", "surrogatepass") + b"\0" + file.read_bytes() + b"\0")
        except OSError:
            digest.update(str(file).encode("utf-8", "surrogatepass") + b"\0missing\0")
    return digest.hexdigest()
