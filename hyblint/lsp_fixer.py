"""The language server's fixing process: reads (source, path, settings) jobs on stdin and answers
each with the fixed text, one at a time, until stdin closes (the server has gone).

A separate process, not a thread: a whole-file fix of a large file holds the interpreter for
hundreds of milliseconds, which in the server would hold up the checks behind the diagnostics.
Its output is a pipe of its own, never the server's: nothing it prints can reach the client.
"""
from __future__ import annotations

import os
import pickle
import signal
import struct
import sys
import traceback
from typing import Any, BinaryIO, Optional

HEADER = struct.Struct(">Q")


def write_message(stream: BinaryIO, value: Any) -> None:
    body = pickle.dumps(value)
    stream.write(HEADER.pack(len(body)) + body)
    stream.flush()


def read_message(stream: BinaryIO) -> Optional[Any]:
    header = stream.read(HEADER.size)
    if len(header) < HEADER.size:
        return None
    return pickle.loads(stream.read(HEADER.unpack(header)[0]))


def _end_with_parent() -> None:
    """The server stops this process while it checks (see FixAllWorker.pause): if the server died
    then, nothing would ever continue it, so on Linux it is killed when its parent goes."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
        if os.getppid() == 1:  # the parent was gone before the call
            sys.exit(0)


def main() -> None:
    try:  # background work: the server's checks, which the user is waiting for, come first
        os.nice(10)
    except (AttributeError, OSError):
        pass
    _end_with_parent()
    from hyblint.fixer import fix_source
    source_in, answers = sys.stdin.buffer, sys.stdout.buffer
    while True:
        job = read_message(source_in)
        if job is None:
            return
        source, path, settings = job
        try:
            result = fix_source(source, path, settings)
            write_message(answers, (True, result.source if result.changed else None))
        except BaseException:  # RecursionError on a pathological file: that job fails, not the process
            write_message(answers, (False, traceback.format_exc()))


if __name__ == "__main__":
    main()
