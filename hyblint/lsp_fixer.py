"""The language server's fixing process: reads (source, path, settings) jobs on stdin and answers
each with the fixed text, one at a time, until stdin closes (the server has gone).

A separate process, not a thread: a whole-file fix of a large file holds the interpreter for
hundreds of milliseconds, which in the server would hold up the checks behind the diagnostics.
Its output is a pipe of its own, never the server's: nothing it prints can reach the client.
"""
from __future__ import annotations

import pickle
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


def main() -> None:
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
