"""Reading source files as text and writing fixed text back, without losing anything of the user's."""
from __future__ import annotations

import codecs
import errno
import os
import re
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

_CODING = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")


class InputError(Exception):
    """A file that cannot be checked: `code` is one of INPUT_ERROR_CODES."""

    def __init__(self, code: str, path: str, reason: str):
        super().__init__("%s: %s" % (path, reason))
        self.code = code
        self.path = path
        self.reason = reason


@dataclass(frozen=True)
class SourceFile:
    path: str
    text: str          # line endings exactly as in the file; no BOM
    encoding: str
    bom: bool


def _declared_encoding(raw: bytes) -> str:
    """PEP 263: a coding cookie on one of the first two lines, else UTF-8."""
    for line in raw.split(b"\n", 2)[:2]:
        match = _CODING.match(line)
        if match:
            name = match.group(1).decode("ascii", "replace")
            try:
                return codecs.lookup(name).name
            except LookupError:
                return name
        if line.strip() and not line.lstrip().startswith(b"#"):
            break
    return "utf-8"


def read_source(path) -> SourceFile:
    shown = str(path)
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        if os.path.islink(path):
            raise InputError("HYB904", shown, "symbolic link loop or dangling link") from None
        raise InputError("HYB905", shown, "the file vanished before it could be read") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise InputError("HYB904", shown, "symbolic link loop") from None
        raise InputError("HYB903", shown, "cannot read: %s" % (exc.strerror or exc)) from None
    if b"\x00" in raw:
        raise InputError("HYB902", shown, "binary file (contains NUL bytes)")
    bom = raw.startswith(codecs.BOM_UTF8)
    if bom:
        raw = raw[len(codecs.BOM_UTF8):]
    encoding = "utf-8" if bom else _declared_encoding(raw)
    try:
        text = raw.decode(encoding)
    except LookupError:
        raise InputError("HYB901", shown, "unknown encoding %r declared" % encoding) from None
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        raise InputError("HYB901", shown, "not valid %s (byte 0x%02x on line %d)"
                         % (encoding.upper() if encoding == "utf-8" else encoding, raw[exc.start], line)) from None
    return SourceFile(shown, text, encoding, bom)


def write_source(path, original: SourceFile, new_text: str) -> None:
    """Write atomically (a temporary file in the same directory, then rename), keeping the file's
    mode bits, encoding and BOM. Line endings are kept because the text was never translated."""
    target = Path(path)
    data = new_text.encode(original.encoding)
    if original.bom:
        data = codecs.BOM_UTF8 + data
    mode = stat.S_IMODE(os.stat(target).st_mode)
    descriptor, temporary = tempfile.mkstemp(dir=str(target.parent), prefix="." + target.name + ".", suffix=".tmp")
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, os.path.realpath(target))
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
