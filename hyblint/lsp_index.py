"""The package index of the language server's workspace: what the blocks of the workspace folders
are made of and what they are called with, with each open document's buffer in place of its file.

A check of an open document reads the index as a run of `hyblint check` over the folders would,
and notes which files it read facts from (its blocks' children, callers and helpers): when one of
those changes, in its buffer or on disk, the document is checked again. Everything here runs in
the server's check thread, never on the event loop: the folders are read when the first check
needs them.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Dict, FrozenSet, Iterable, List, Optional, Set, Tuple

from hyblint.analysis.index import Package
from hyblint.config import ConfigError
from hyblint.discovery import discover_in_projects
from hyblint.files import InputError, read_source
from hyblint.projects import Project, Projects
from hyblint.settings import Settings

# A workspace folder holding more Python files than this (a home directory, a checkout of many
# projects) is indexed only up to it: reading them all would hold up the first check for minutes.
MAX_INDEXED_FILES = 20_000


def _indexed_files(roots: List[str]) -> List[str]:
    """The Python files of the folders that `hyblint check` of them would check: each directory
    judged by its own project's exclusions (a nested pyproject.toml's below it). A configuration
    that cannot be read excludes nothing beyond the defaults (its own documents say why)."""
    projects = Projects(lambda settings: settings)

    def project_of(path: str) -> Project:
        try:
            return projects.of_path(path)
        except ConfigError:
            return Settings(), Path(path if os.path.isdir(path) else os.path.dirname(path) or ".").resolve()
    return discover_in_projects(roots, project_of)


def _worth_indexing(text: str) -> bool:
    """Whether a file may define or call blocks (as a linting run's index takes them)."""
    return "class" in text or "forward" in text


class WorkspaceIndex:
    def __init__(self, roots: Iterable[str] = ()):
        self.roots: List[str] = [str(Path(root)) for root in roots]
        self._texts: Optional[Dict[str, str]] = None  # path -> text, read when first needed
        self._buffers: Dict[str, str] = {}            # open documents: path -> buffer text
        self._depends: Dict[str, FrozenSet[str]] = {}  # checked path -> the other files it read
        self._previous: Tuple[str, Optional[str], Optional[str]] = ("", None, None)  # for `rejected`

    def _load(self) -> Dict[str, str]:
        if self._texts is None:
            texts: Dict[str, str] = {}
            if self.roots:
                for path in _indexed_files(self.roots)[:MAX_INDEXED_FILES]:
                    try:
                        text = read_source(path).text
                    except (InputError, OSError):
                        continue  # a file the index cannot read is one it knows nothing of
                    if _worth_indexing(text):
                        texts[os.path.abspath(path)] = text
            texts.update(self._buffers)
            self._texts = texts
        return self._texts

    def package(self, path: str, text: str) -> Tuple[Package, bool]:
        """The index with `text` as the file `path` (an open document's buffer), and whether that
        changed the file's text in the index."""
        path = os.path.abspath(path)
        texts = self._load()
        before = texts.get(path)
        self._previous = (path, before, self._buffers.get(path))
        self._buffers[path] = texts[path] = text
        # a new index per check: what it learned of the other files is read again from their
        # facts, which are kept per text (see `index.file_info`), and what it reads is this check's
        return Package(texts), before is not text and before != text

    def rejected(self, path: str) -> None:
        """The text just given for `path` does not parse: the index keeps the one before, so that
        a half-typed edit does not change what the other files' checks read."""
        path = os.path.abspath(path)
        if self._previous[0] != path or self._texts is None:
            return
        _, before, buffer = self._previous
        for table, value in ((self._texts, before), (self._buffers, buffer)):
            if value is None:
                table.pop(path, None)
            else:
                table[path] = value

    def checked(self, path: str, package: Package) -> None:
        """Note the files the check of `path` read facts from."""
        path = os.path.abspath(path)
        self._depends[path] = frozenset(package.used) - {path}

    def dependents(self, changed: str) -> Set[str]:
        """The checked files whose results read facts from the file `changed`."""
        changed = os.path.abspath(changed)
        return {path for path, used in self._depends.items() if changed in used}

    def closed(self, path: str) -> Set[str]:
        """The document `path` is closed: the index reads its file again. The files whose checks
        read its buffer: to check again."""
        path = os.path.abspath(path)
        dependents = self.dependents(path)
        self._buffers.pop(path, None)
        self._depends.pop(path, None)
        if self._texts is not None:
            self._texts.pop(path, None)
            try:
                text = read_source(path).text
            except (InputError, OSError):
                return dependents
            if _worth_indexing(text):
                self._texts[path] = text
        return dependents

    def reload(self) -> None:
        """Files changed on disk: read the folders again when next needed."""
        self._texts = None
