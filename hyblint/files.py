"""Reading source files as text and writing fixed text back, without losing anything of the user's."""
from __future__ import annotations

import codecs
import errno
import os
import re
import stat
import tempfile
from dataclasses import dataclass

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


def _first_lines(raw: bytes, count: int = 2):
    """The first `count` lines, as `raw.split(b"\n")` gives them, without copying the rest of the file."""
    start = 0
    for _ in range(count):
        end = raw.find(b"\n", start)
        yield raw[start:] if end < 0 else raw[start:end]
        if end < 0:
            return
        start = end + 1


def _declared_encoding(raw: bytes) -> str:
    """PEP 263: a coding cookie on one of the first two lines, else UTF-8."""
    for line in _first_lines(raw):
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
    return decode_source(read_regular(path, shown), shown)


def decode_source(raw: bytes, shown: str) -> SourceFile:
    """The text of a source file's bytes (read from disk or from standard input), named `shown`."""
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


class WriteRefused(OSError):
    """A fixed file that was not written: its reason says why, and the file is as it was."""

    def __init__(self, path: str, reason: str):
        super().__init__("%s: %s" % (path, reason))
        self.path = path
        self.reason = reason
        self.strerror = reason


def encoded(original: SourceFile, text: str) -> bytes:
    """`text` as the file stores it: in its encoding, behind its BOM."""
    data = text.encode(original.encoding)
    return codecs.BOM_UTF8 + data if original.bom else data


def write_source(path, original: SourceFile, new_text: str) -> None:
    """Replace the file that `original` was read from with `new_text`, atomically (a temporary file
    in the same directory, then rename), keeping its mode bits, owner, group, encoding and BOM;
    line endings are kept because the text was never translated. Raises WriteRefused, changing
    nothing, when the user could not write the file in place (a rename needs only the directory's
    permission) or when its content is no longer what was read (an edit saved meanwhile)."""
    shown = str(path)
    target = os.path.realpath(path)  # a symbolic link stays one; the file it points to changes
    data = encoded(original, new_text)
    before = encoded(original, original.text)
    try:
        status = os.stat(target)
    except FileNotFoundError:
        raise WriteRefused(shown, "the file vanished after it was read") from None
    if not stat.S_ISREG(status.st_mode):
        raise WriteRefused(shown, "no longer a regular file")
    refusal = _not_writable(status)
    if refusal:
        raise WriteRefused(shown, refusal)
    _unchanged(shown, target, before)
    descriptor, temporary = tempfile.mkstemp(dir=os.path.dirname(target),
                                             prefix="." + os.path.basename(target) + ".", suffix=".tmp")
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            _keep_owner(handle.fileno(), status)
            os.fchmod(handle.fileno(), stat.S_IMODE(status.st_mode))
            os.fsync(handle.fileno())
        _unchanged(shown, target, before)  # again, just before the replace: the fix took a while
        os.replace(temporary, target)
    except BaseException:
        if os.path.lexists(temporary):
            os.unlink(temporary)
        raise


def _unchanged(shown: str, target: str, before: bytes) -> None:
    try:
        with open(target, "rb") as handle:
            now = handle.read(len(before) + 1)
    except FileNotFoundError:
        raise WriteRefused(shown, "the file vanished after it was read") from None
    if now != before:
        raise WriteRefused(shown, "the file changed after it was read (saved meanwhile?); "
                                  "not fixed, run again")


def _not_writable(status: os.stat_result) -> str:
    """Why the effective user could not write this file in place ("" when they could). Judged by
    the mode bits, as the kernel would for them: `os.access` answers for the real user, and for
    root always yes, while a file nobody may write is read-only by intent, root's own included."""
    mode = status.st_mode
    if not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        return "read-only file (mode %04o); not fixed" % stat.S_IMODE(mode)
    user = os.geteuid()
    if user == 0:
        return ""  # root writes any file that someone may write; its owner is kept below
    if status.st_uid == user:
        allowed = mode & stat.S_IWUSR
    elif status.st_gid == os.getegid() or status.st_gid in os.getgroups():
        allowed = mode & stat.S_IWGRP
    else:
        allowed = mode & stat.S_IWOTH
    if not allowed:
        return "not writable by you (mode %04o, owner uid %d); not fixed" % (stat.S_IMODE(mode), status.st_uid)
    if status.st_uid != user:
        # writable through its group or by anyone, but a replaced file would be the user's own
        return "owned by another user (uid %d): replacing it would change its owner; not fixed" % status.st_uid
    return ""


def _keep_owner(descriptor: int, status: os.stat_result) -> None:
    """Give the new file the old one's owner (only root may) and group (where the user is in it)."""
    if os.geteuid() == 0:
        os.fchown(descriptor, status.st_uid, status.st_gid)
        return
    if os.fstat(descriptor).st_gid != status.st_gid:
        try:
            os.fchown(descriptor, -1, status.st_gid)
        except PermissionError:
            pass  # not a member of the file's group: the directory's group it is
