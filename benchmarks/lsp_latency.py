"""Median time from a didChange of a ~1,200-line file holding 150 broken blocks to its
publishDiagnostics, for `hyblint lsp` and, when available, `ruff server` on the same file.

usage: python benchmarks/lsp_latency.py [--rounds N]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BLOCK = textwrap.dedent("""\
    class Net{i}(nn.HybridBlock):
        def __init__(self, **kwargs):
            super(Net{i}, self).__init__(**kwargs)
            self.dense = nn.Dense(4)

        def hybrid_forward(self, F, x):
            y = self.dense(x)
            return y[:, 0] + x.shape[0]


    """)


def source(version: int) -> str:
    """Each version edits the body of one block, as typing does."""
    blocks = [BLOCK.format(i=i) for i in range(150)]
    edited = version % 150
    blocks[edited] = blocks[edited].replace("y[:, 0]", "y[:, %d]" % (version % 7))
    return "from mxnet.gluon import nn\n\n\n" + "".join(blocks)


class Client:
    def __init__(self, command, cwd, env=None):
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, cwd=cwd, env=env)
        self.next_id = 0

    def send(self, message):
        body = json.dumps(dict(message, jsonrpc="2.0")).encode()
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def receive(self):
        length = 0
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError("the server closed its output")
            if line in (b"\r\n", b"\n"):
                break
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
        return json.loads(self.process.stdout.read(length))

    def request(self, method, params):
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})
        while True:
            message = self.receive()
            if message.get("id") == self.next_id and "method" not in message:
                return message

    def wait_for_diagnostics(self, uri):
        while True:
            message = self.receive()
            if message.get("method") == "textDocument/publishDiagnostics" and message["params"]["uri"] == uri:
                return message["params"]["diagnostics"]
            if "id" in message and "method" in message:  # a request from the server: answer it
                self.send({"id": message["id"], "result": None})

    def close(self):
        try:
            self.request("shutdown", None)
            self.send({"method": "exit"})
        finally:
            self.process.kill()


def measure(command, folder: Path, rounds: int, env=None):
    path = folder / "blocks.py"
    path.write_text(source(0))
    uri = path.as_uri()
    client = Client(command, folder, env)
    try:
        client.request("initialize", {"processId": os.getpid(), "rootUri": folder.as_uri(), "capabilities": {}})
        client.send({"method": "initialized", "params": {}})
        client.send({"method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": uri, "languageId": "python", "version": 0, "text": source(0)}}})
        count = len(client.wait_for_diagnostics(uri))
        times = []
        for version in range(1, rounds + 1):
            start = time.perf_counter()
            client.send({"method": "textDocument/didChange", "params": {
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"text": source(version)}]}})
            client.wait_for_diagnostics(uri)
            times.append((time.perf_counter() - start) * 1000)
        return statistics.median(times), count
    finally:
        client.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    lines = source(0).count("\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    with tempfile.TemporaryDirectory() as scratch:
        ours, count = measure([sys.executable, "-m", "hyblint", "lsp"], Path(scratch), args.rounds, env)
        print("file: %d lines, 150 broken blocks; %d rounds" % (lines, args.rounds))
        print("hyblint lsp: median didChange -> publishDiagnostics %.1f ms (%d diagnostics; includes the %d ms"
              " debounce)" % (ours, count, 50))
        ruff = shutil.which("ruff")
        if ruff:
            theirs, ruff_count = measure([ruff, "server"], Path(scratch), args.rounds)
            print("ruff server: median didChange -> publishDiagnostics %.1f ms (%d diagnostics)" % (theirs, ruff_count))
            print("ratio hyblint / ruff: %.2f" % (ours / theirs))


if __name__ == "__main__":
    main()
