"""An on-disk cache of diagnostics: one entry per file path, holding the hash of the content it was
computed from. One cache file per settings and hyblint version."""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import Dict, FrozenSet, Iterable, List, Optional

from hyblint import __version__
from hyblint.early import CACHE_DIR_VARIABLE, CACHE_FOLDER  # (defined where the console script reads them first)
from hyblint.diagnostics import Applicability, Diagnostic, Edit, Fix, Location, Related, Severity
from hyblint.settings import Settings


def _diagnostic_to_json(d: Diagnostic) -> dict:
    data = asdict(d)
    data["severity"] = d.severity.value
    if d.fix is not None:
        data["fix"]["applicability"] = d.fix.applicability.value
    return data


def _diagnostic_from_json(data: dict) -> Diagnostic:
    fix = None
    if data["fix"] is not None:
        f = data["fix"]
        fix = Fix(Applicability(f["applicability"]), f["message"],
                  tuple(Edit(e["content"], Location(**e["location"]), Location(**e["end_location"]))
                        for e in f["edits"]))
    related = tuple(Related(r["filename"], Location(**r["location"]), r["message"]) for r in data.get("related", ()))
    return Diagnostic(data["code"], data["message"], data["filename"], Location(**data["location"]),
                      Location(**data["end_location"]), Severity(data["severity"]), fix, data["url"], related)


def cache_folder(root: Path, given: Optional[str] = None) -> Path:
    """Where a project's cache lives: --cache-dir, else $HYBLINT_CACHE_DIR, else in the project root."""
    chosen = given or os.environ.get(CACHE_DIR_VARIABLE)
    return Path(chosen) if chosen else root / CACHE_FOLDER


def clean(folder: Path) -> bool:
    """Remove a cache folder; False when there was none. Only hyblint's own files are removed, so
    that a --cache-dir pointing at the wrong folder costs nothing."""
    if not folder.is_dir():
        return False
    for item in folder.iterdir():
        if item.name == ".gitignore" or (item.name.startswith("diagnostics-") and item.suffix in (".json", ".tmp")):
            item.unlink()
    try:
        folder.rmdir()
    except OSError:
        pass  # something else lives there: leave it
    return True


def _fingerprint(settings: Settings) -> str:
    # sorted: a frozenset's repr changes from one process to the next (string hashing is salted)
    stable = sorted((name, sorted(value) if isinstance(value, frozenset) else value)
                    for name, value in vars(settings).items())
    return hashlib.sha1(repr((__version__, stable)).encode()).hexdigest()[:16]


class Cache:
    def __init__(self, folder: Path, settings: Settings):
        self.file = folder / ("diagnostics-%s.json" % _fingerprint(settings))
        self._settings_keys: Dict[Settings, bytes] = {}
        self.entries: Dict[str, list] = {}
        self.dirty = False
        self._extra, self._extra_key = None, b""
        self._digests: Dict[str, tuple] = {}  # path -> (the text hashed, its hash)
        try:
            with open(self.file, encoding="utf-8") as handle:
                loaded = json.load(handle)
            if isinstance(loaded, dict):
                self.entries = loaded
        except (OSError, ValueError):
            self.entries = {}  # a missing or corrupt cache is an empty one

    def _key(self, text: str, extra: FrozenSet[str], settings: Settings) -> str:
        """What a file's entry holds besides its path: its text and what else its check read."""
        digest = hashlib.sha1(self._settings_key(settings))
        digest.update(b"\0" + text.encode("utf-8", "surrogatepass") + b"\0")
        digest.update(self._classes_key(extra))
        return digest.hexdigest()

    def _settings_key(self, settings: Settings) -> bytes:
        """A file's own settings (its closest configuration's, its per-file ignores), once per set."""
        found = self._settings_keys.get(settings)
        if found is None:
            found = self._settings_keys[settings] = _fingerprint(settings).encode()
        return found

    def _classes_key(self, extra: FrozenSet[str]) -> bytes:
        """The same class set comes with every file of a run: sort it once."""
        if self._extra is not extra:
            plain = sorted(getattr(extra, "plain", ()))
            self._extra, self._extra_key = extra, (",".join(sorted(extra)) + ";" + ",".join(plain)).encode()
        return self._extra_key

    def _digest(self, path: str, texts: Dict[str, str]) -> str:
        """The hash of a file's text in this run ("" when it is not in the run), once per file."""
        text = texts.get(path)
        found = self._digests.get(path)
        if found is None or found[0] is not text:
            digest = "" if text is None else hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()
            found = self._digests[path] = (text, digest)
        return found[1]

    def get(self, path: str, text: str, extra: FrozenSet[str], settings: Settings,
            texts: Dict[str, str] = {}) -> Optional[List[Diagnostic]]:
        """The cached diagnostics, if the file, and every file whose index facts its check read
        (its blocks' callers and children), are as they were."""
        found = self.entries.get(os.path.abspath(path))
        if not isinstance(found, dict) or found.get("hash") != self._key(text, extra, settings):
            return None
        try:
            if any(self._digest(dependency, texts) != digest for dependency, digest in found["deps"].items()):
                return None
            return [_diagnostic_from_json(d) for d in found["diagnostics"]]
        except (AttributeError, KeyError, TypeError, ValueError):
            return None

    def put(self, path: str, text: str, extra: FrozenSet[str], settings: Settings,
            diagnostics: List[Diagnostic], depends: Iterable[str] = (), texts: Dict[str, str] = {}) -> None:
        # one entry per file: a new text replaces the entry of the old one
        self.entries[os.path.abspath(path)] = {
            "hash": self._key(text, extra, settings),
            "diagnostics": [_diagnostic_to_json(d) for d in diagnostics],
            "deps": {dependency: self._digest(dependency, texts) for dependency in depends if dependency != path}}
        self.dirty = True

    def prune(self) -> None:
        """Drop the entries of files that are gone, so that the cache holds what the project has."""
        for path in [p for p in self.entries if not os.path.isfile(p)]:
            del self.entries[path]
            self.dirty = True

    def save(self) -> None:
        self.prune()
        if not self.dirty:
            return
        try:
            self.file.parent.mkdir(parents=True, exist_ok=True)
            gitignore = self.file.parent / ".gitignore"
            if not gitignore.exists():
                gitignore.write_text("*\n")
            descriptor, temporary = tempfile.mkstemp(dir=str(self.file.parent), suffix=".tmp")
            with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
                json.dump(self.entries, handle)
            os.replace(temporary, self.file)
        except OSError:
            pass  # a cache that cannot be written only costs time
