"""The code that `dataclasses` generates, compiled once and kept, as Python keeps bytecode.

`dataclasses` writes the source of each class's `__init__`, `__eq__`, `__repr__`, `__hash__`,
`__setattr__`... and compiles it every time the class's module is imported: half of libcst's import
(its two hundred node classes, 0.07 of 0.13 s here), and about 10 ms of hyblint's own modules in
each process of a check. This keeps the compiled code of those functions in hyblint's
`__pycache__`, by the digest of their source text and for this interpreter's bytecode, and hands it
to `dataclasses` instead of the text: the classes are built by `dataclasses` as always; only
compiling the same text again is skipped.

`dataclasses` compiles with the built-in `exec`, looked up in its module's globals first: the
lookup is pointed here while the code of one kind of process is imported (`compiled_once(role)`),
or for a whole process (`begin` ... `end`), each role with a file of its own, so that what one
imports does not push out what another does. Anything unexpected (no cache, a corrupt one, a
read-only install, `PYTHONDONTWRITEBYTECODE`, another hook in place) leaves the plain import.
"""
from __future__ import annotations

import builtins
import importlib.util
import marshal
import os
import sys
import types
TYPE_CHECKING = False  # (typing is not imported: the console script's first step imports this)
try:
    from _blake2 import blake2b  # (hashlib's import loads OpenSSL: 4 ms, for a hash it takes from here)
except ImportError:  # pragma: no cover (an interpreter built without it)
    from hashlib import blake2b

if TYPE_CHECKING:
    from typing import Dict, Optional

# A file keeps what earlier imports compiled (another command of the same role imports other
# modules) unless that is this many times what one import uses: code of an older version is dropped.
_STALE_FACTOR = 3


def cache_path(role: str) -> str:
    folder = os.path.join(os.path.dirname(os.path.abspath(__file__)), "__pycache__")
    if sys.pycache_prefix:  # (as the interpreter does with its own bytecode)
        folder = os.path.join(sys.pycache_prefix, folder.lstrip(os.sep))
    return os.path.join(folder, "%s-dataclasses.%s.bin" % (role, sys.implementation.cache_tag))


def _load(path: str) -> "Dict[bytes, object]":
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


def _save(path: str, codes: "Dict[bytes, object]") -> None:
    """Atomically, as the interpreter writes bytecode: another process reads the old file or the new."""
    if sys.dont_write_bytecode:
        return
    import tempfile
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".dataclasses-", suffix=".tmp")
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


class CompiledOnce:
    """`exec` for `dataclasses`: source text is run from the cached code compiled from it."""

    def __init__(self, path: str):
        self.path = path
        self.codes = _load(path)
        self.used: "Dict[bytes, object]" = {}
        self.compiled = self.reused = 0  # (several classes may generate the same text)

    def __call__(self, source, globals=None, locals=None):
        if type(source) is not str:
            return builtins.exec(source, globals, locals)
        key = blake2b(source.encode("utf-8"), digest_size=16).digest()
        code = self.codes.get(key)
        if code is None:
            # (dont_inherit: this module's `from __future__ import annotations` must not reach it)
            code = self.codes[key] = compile(source, "<string>", "exec", dont_inherit=True)
            self.compiled += 1
        else:
            self.reused += 1
        self.used[key] = code
        return builtins.exec(code, globals, locals)

    def save(self) -> None:
        if self.compiled:
            stale = len(self.codes) > _STALE_FACTOR * len(self.used)
            _save(self.path, self.used if stale else self.codes)


# The hook of a whole process (`begin` ... `end`): the console script's.
_PROCESS: "Optional[compiled_once]" = None


def begin(role: str) -> None:
    """Generated code from here on from the role's cache, until `end`."""
    global _PROCESS
    _PROCESS = compiled_once(role)
    _PROCESS.__enter__()


def end() -> None:
    """`dataclasses` compiles with its own `exec` again; what was compiled is kept."""
    global _PROCESS
    process, _PROCESS = _PROCESS, None
    if process is not None:
        process.__exit__(None, None, None)


class compiled_once:
    """`with compiled_once(role):` imports whose generated code comes from the role's cache. Inside
    another role's, the code goes to this role's file (libcst's code is kept apart, whichever
    process imports it), and the other's hook is back afterwards."""

    def __init__(self, role: str):
        self.role = role
        self.hook: "Optional[CompiledOnce]" = None
        self.previous = None

    def __enter__(self) -> "Optional[CompiledOnce]":
        import dataclasses
        self.previous = dataclasses.__dict__.get("exec")
        if self.previous is not None and not isinstance(self.previous, CompiledOnce):
            return None  # someone else's hook: leave it alone
        self.hook = dataclasses.exec = CompiledOnce(cache_path(self.role))
        return self.hook

    def __exit__(self, *exc_info) -> None:
        if self.hook is None:
            return
        import dataclasses
        if dataclasses.__dict__.get("exec") is self.hook:
            if self.previous is None:
                del dataclasses.exec
            else:
                dataclasses.exec = self.previous
        self.hook.save()
