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


# Larger files are not read: no source file is this large, and reading /dev/zero-like input
# whole would exhaust memory.
MAX_FILE_BYTES = 10 * 1024 * 1024


def file_kind(mode: int) -> str:
    """What a non-regular file is, in words."""
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def _open(path) -> int:
    # O_NONBLOCK: should the path become a FIFO after it was checked, opening it cannot block
    return os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))


def read_regular(path, shown: str, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file of at most `limit` bytes. Anything else raises InputError,
    without opening it when it is already known not to be one."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise InputError("HYB907", shown, "not a regular file (%s)" % file_kind(os.stat(path).st_mode))
        descriptor = _open(path)
    except FileNotFoundError:
        if os.path.islink(path):
            raise InputError("HYB904", shown, "symbolic link loop or dangling link") from None
        raise InputError("HYB905", shown, "the file vanished before it could be read") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise InputError("HYB904", shown, "symbolic link loop") from None
        raise InputError("HYB903", shown, "cannot read: %s" % (exc.strerror or exc)) from None
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):  # replaced between the check and the open
            raise InputError("HYB907", shown, "not a regular file (%s)" % file_kind(info.st_mode))
        if info.st_size > limit:
            raise InputError("HYB907", shown, "too large: %d bytes, over the limit of %d MB"
                             % (info.st_size, limit // (1024 * 1024)))
        chunks, size = [], 0
        while True:  # a file growing while it is read stops at the limit too
            chunk = os.read(descriptor, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                raise InputError("HYB907", shown, "too large: over the limit of %d MB" % (limit // (1024 * 1024)))
        return b"".join(chunks)
    except OSError as exc:
        raise InputError("HYB903", shown, "cannot read: %s" % (exc.strerror or exc)) from None
    finally:
        os.close(descriptor)


def _utf16_or_32(raw: bytes) -> str:
    """The wide Unicode encoding a file is in, by its byte order mark or by the NUL bytes that
    ASCII characters leave on one side in UTF-16; '' for other files."""
    if raw.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
        return "UTF-32"
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "UTF-16"
    sample = raw[:4096]
    if len(sample) >= 4 and b"\x00" in sample:
        even, odd = sample[0::2], sample[1::2]
        if (even.count(0) == 0 and odd.count(0) >= len(odd) * 0.9) or \
                (odd.count(0) == 0 and even.count(0) >= len(even) * 0.9):
            return "UTF-16"
    return ""


def read_source(path) -> SourceFile:
    shown = str(path)
    raw = read_regular(path, shown)
    wide = _utf16_or_32(raw)
    if wide:
        raise InputError("HYB901", shown, "not UTF-8 (looks like %s); save it as UTF-8" % wide)
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
