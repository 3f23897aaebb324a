"""Import libcst with the code its dataclasses generate compiled once, not on every start.

libcst declares its two hundred node classes as frozen dataclasses, and `dataclasses` writes the
source of each class's `__init__`, `__eq__`, `__repr__`, `__hash__`, `__setattr__`... and compiles
it every time the module is imported: half of the import (0.07 of 0.13 s here), which every check
that reaches libcst pays again (a pre-commit hook on a few files, each checker process of a large
run, the language server's start). As Python keeps compiled modules in `__pycache__`, this keeps
the compiled code of those functions there, by the digest of their source text and for this
interpreter's bytecode, and hands it to `dataclasses` instead of the text: the classes are built
by `dataclasses` as always; only compiling the same text again is skipped.

`dataclasses` compiles with the built-in `exec`, looked up in its module's globals first: the
lookup is pointed here while libcst is imported, and back once it is. Anything unexpected (no
cache, a corrupt one, a read-only install, `PYTHONDONTWRITEBYTECODE`) leaves the plain import.
"""
from __future__ import annotations

import builtins
import hashlib
import importlib.util
import marshal
import os
import sys
import tempfile
import types
from typing import Dict

_NAME = "libcst-dataclasses.%s.bin" % sys.implementation.cache_tag
# How this process imported libcst: (functions whose code came from the cache, functions compiled).
imported = (0, 0)


def _cache_path() -> str:
    folder = os.path.join(os.path.dirname(os.path.abspath(__file__)), "__pycache__")
    if sys.pycache_prefix:  # (as the interpreter does with its own bytecode)
        folder = os.path.join(sys.pycache_prefix, folder.lstrip(os.sep))
    return os.path.join(folder, _NAME)


def _load(path: str) -> Dict[bytes, object]:
    try:
        with open(path, "rb") as handle:
            data = handle.read()
        if not data.startswith(importlib.util.MAGIC_NUMBER):
            return {}
        codes = marshal.loads(data[len(importlib.util.MAGIC_NUMBER):])
    except (OSError, ValueError, EOFError, TypeError):
        return {}
    if type(codes) is not dict:
        return {}
    # (a damaged file may still unmarshal: only code objects under digests are taken)
    return {key: code for key, code in codes.items()
            if type(key) is bytes and len(key) == 16 and type(code) is types.CodeType}


def _save(path: str, codes: Dict[bytes, object]) -> None:
    """Atomically, as the interpreter writes bytecode: another process reads the old file or the new."""
    if sys.dont_write_bytecode:
        return
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".libcst-", suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(importlib.util.MAGIC_NUMBER + marshal.dumps(codes))
            os.chmod(temporary, 0o644)  # (mkstemp's 0600 would keep it from other users of the install)
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError:
        pass  # a read-only install: every start compiles, as without this module


class _CompiledOnce:
    """`exec` for `dataclasses`: source text is run from the cached code compiled from it."""

    def __init__(self, codes: Dict[bytes, object]):
        self.codes = codes
        self.used: Dict[bytes, object] = {}
        self.compiled = self.reused = 0  # (several classes may generate the same text)

    def __call__(self, source, globals=None, locals=None):
        if type(source) is not str:
            return builtins.exec(source, globals, locals)
        key = hashlib.blake2b(source.encode("utf-8"), digest_size=16).digest()
        code = self.codes.get(key)
        if code is None:
            # (dont_inherit: this module's `from __future__ import annotations` must not reach it)
            code = self.codes[key] = compile(source, "<string>", "exec", dont_inherit=True)
            self.compiled += 1
        else:
            self.reused += 1
        self.used[key] = code
        return builtins.exec(code, globals, locals)


def import_libcst() -> None:
    """Imports libcst (once per process), its dataclasses' code from the cache when it is there."""
    global imported
    if "libcst" in sys.modules:
        return
    import dataclasses
    if hasattr(dataclasses, "exec"):  # someone else's hook: leave it alone
        import libcst  # noqa: F401
        return
    path = _cache_path()
    hook = _CompiledOnce(_load(path))
    dataclasses.exec = hook
    try:
        import libcst  # noqa: F401
    finally:
        del dataclasses.exec
    imported = (hook.reused, hook.compiled)
    if hook.compiled:
        # only what this import used: code for the dataclasses of an older libcst is dropped
        _save(path, hook.used)


import_libcst()  # (importing this module is what imports libcst: see the modules that import it first)
