"""Median time from a didChange of a ~1,500-line file holding 150 broken blocks to its
publishDiagnostics, for `hyblint lsp` and, when available, `ruff server` on the same file; then
the same with a code action request for the file's fix-all sent just before each edit (as an
editor does on save, or when the user opens the source actions), and how much later the
diagnostics arrive than without it.

usage: python benchmarks/lsp_latency.py [--rounds N] [--no-ruff]
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

    def wait_for_diagnostics(self, uri, answers=None):
        """The next diagnostics of `uri`; responses that come first are kept in `answers`."""
        while True:
            message = self.receive()
            if answers is not None and "id" in message and "method" not in message:
                answers[message["id"]] = message
                continue
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


def edit(client, uri, version):
    client.send({"method": "textDocument/didChange", "params": {
        "textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": source(version)}]}})


def ask_fix_all(client, uri):
    """Send a code action request for the whole file's fix-all; its id."""
    client.next_id += 1
    client.send({"id": client.next_id, "method": "textDocument/codeAction", "params": {
        "textDocument": {"uri": uri}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
        "context": {"diagnostics": [], "only": ["source.fixAll"]}}})
    return client.next_id


def measure(command, folder: Path, rounds: int, env=None):
    """Median ms from an edit to its diagnostics, alone and with a fix-all request just before;
    the delays that request adds (median and largest), and the number of diagnostics."""
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
        alone, with_action = [], []
        answers = {}
        version = 0
        for round_ in range(rounds + 1):  # alternately; the first round starts a fixing process: not counted
            version += 1
            start = time.perf_counter()
            edit(client, uri, version)
            client.wait_for_diagnostics(uri, answers)
            plain = (time.perf_counter() - start) * 1000
            asked = ask_fix_all(client, uri)
            version += 1
            start = time.perf_counter()
            edit(client, uri, version)
            client.wait_for_diagnostics(uri, answers)
            if round_:
                alone.append(plain)
                with_action.append((time.perf_counter() - start) * 1000)
            while asked not in answers:
                message = client.receive()
                if "id" in message and "method" not in message:
                    answers[message["id"]] = message
        base = statistics.median(alone)
        delays = sorted(t - base for t in with_action)
        # how far the slowest edit without a request is from the median: the noise of this machine,
        # against which to read the largest delay
        return base, statistics.median(with_action), statistics.median(delays), delays[-1], count, max(alone) - base
    finally:
        client.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--no-ruff", action="store_true", help="measure hyblint's server only")
    args = parser.parse_args()
    lines = source(0).count("\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    with tempfile.TemporaryDirectory() as scratch:
        results = [("hyblint lsp", measure([sys.executable, "-m", "hyblint", "lsp"], Path(scratch), args.rounds, env))]
        ruff = None if args.no_ruff else (shutil.which("ruff") or
                                          shutil.which("ruff", path=str(Path(sys.executable).parent)))
        if ruff:
            results.append(("ruff server", measure([ruff, "server"], Path(scratch), args.rounds)))
    print("file: %d lines, 150 broken blocks; %d rounds" % (lines, args.rounds))
    for name, (alone, with_action, delay, worst, count, spread) in results:
        print("%s: median didChange -> publishDiagnostics %.1f ms (%d diagnostics); slowest %.1f ms more"
              % (name, alone, count, spread))
        print("%s: with a fix-all code action request before each edit: median %.1f ms; delay added: median"
              " %.1f ms, largest %.1f ms" % (name, with_action, delay, worst))
    if len(results) == 2:
        print("ratio hyblint / ruff: %.2f" % (results[0][1][0] / results[1][1][0]))


if __name__ == "__main__":
    main()
