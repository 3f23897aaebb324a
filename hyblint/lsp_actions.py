"""Code actions of the language server: quick fixes, "disable for this line" and "fix all".

Edits are offered only for a document version whose check has finished, only from diagnostics
computed on that version's text (the last good ones kept while a buffer does not parse point into
an older text), and they name that version where the client understands it, so that a client
applies none of them to a text that has changed since.

The whole-file fix costs hundreds of milliseconds on a large file: it is computed only when a
client asks for that kind of action (or resolves the action it was offered), once per document
version, in a separate process, so that it never holds up the checks behind the diagnostics.
"""
from __future__ import annotations

import asyncio
import logging
import os
import pickle
import signal
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from lsprotocol import types as lsp

from hyblint.diagnostics import Applicability, Diagnostic, Location, physical_lines
from hyblint.docs_links import link
from hyblint.engine import NOQA, SYNTAX_ERROR
from hyblint.lsp_fixer import HEADER
from hyblint.settings import Settings

FIX_ALL_KIND = "source.fixAll.hyblint"
log = logging.getLogger("hyblint.lsp")


@dataclass
class Checked:
    """One finished check of one version of a document."""

    version: Optional[int]
    source: str
    path: str
    settings: Optional[Settings]
    fresh: List[Diagnostic] = field(default_factory=list)  # computed on `source`: only these offer edits
    stale: List[Diagnostic] = field(default_factory=list)  # last good ones, shown while `source` does not parse
    problem: Optional[str] = None  # the file could not be checked: a bad configuration, too large, a bug
    announce: Optional[str] = None  # a configuration error that the user has not been shown yet


def lsp_lines(text: str) -> List[str]:
    """Lines as LSP counts them: only \\n, \\r\\n and \\r end one."""
    return physical_lines(text) or [""]


def _utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def to_lsp_position(lines: List[str], location: Location) -> lsp.Position:
    """hyblint's 1-based rows and character columns -> LSP's 0-based lines and UTF-16 units."""
    line = location.row - 1
    text = lines[line] if 0 <= line < len(lines) else ""
    return lsp.Position(line=max(line, 0), character=_utf16(text[:location.column - 1]))


def to_lsp_range(lines: List[str], start: Location, end: Location) -> lsp.Range:
    return lsp.Range(start=to_lsp_position(lines, start), end=to_lsp_position(lines, end))


def _rule_page(d: Diagnostic) -> Optional[str]:
    """The rule page's URI; None where there is none to open (an installed copy, no base URL set):
    an editor takes a relative path for a broken link. (It takes a file system look-up: the server
    converts each diagnostic once, see PublishedForms.)"""
    href = link(d.url, local=True)
    return href if href and "://" in href else None


def to_lsp(d: Diagnostic, lines: List[str]) -> lsp.Diagnostic:
    severity = lsp.DiagnosticSeverity.Error if d.severity.value == "error" else lsp.DiagnosticSeverity.Warning
    href = _rule_page(d)
    return lsp.Diagnostic(
        range=to_lsp_range(lines, d.location, d.end_location), message=d.message, severity=severity,
        code=d.code, source="hyblint",
        code_description=lsp.CodeDescription(href=href) if href else None,
        data={"row": d.location.row, "column": d.location.column, "code": d.code})


def _json_position(lines: List[str], location: Location) -> dict:
    line = location.row - 1
    text = lines[line] if 0 <= line < len(lines) else ""
    before = text[:location.column - 1]
    return {"line": max(line, 0), "character": len(before) if before.isascii() else _utf16(before)}


def to_lsp_json(d: Diagnostic, lines: List[str]) -> dict:
    """`to_lsp` as the JSON value it serializes to, built directly."""
    shown = {"range": {"start": _json_position(lines, d.location), "end": _json_position(lines, d.end_location)},
             "message": d.message, "severity": 1 if d.severity.value == "error" else 2, "code": d.code,
             "source": "hyblint", "data": {"row": d.location.row, "column": d.location.column, "code": d.code}}
    href = _rule_page(d)
    if href:
        shown["codeDescription"] = {"href": href}
    return shown


class PublishedForms:
    """`to_lsp_json` of each diagnostic, kept while the diagnostic object lives: a keystroke checks
    one method again and the engine hands back the same objects for the others, whose JSON would
    be built again for every publication. An entry holds only while the lines it was computed on
    are the same (its columns count UTF-16 units of them)."""

    LIMIT = 50_000

    def __init__(self):
        self.entries: Dict[int, Tuple[Diagnostic, str, str, dict]] = {}

    def of(self, d: Diagnostic, lines: List[str]) -> dict:
        first, last = _line(lines, d.location.row), _line(lines, d.end_location.row)
        entry = self.entries.get(id(d))
        if entry is not None and entry[0] is d and entry[1] == first and entry[2] == last:
            return entry[3]
        shown = to_lsp_json(d, lines)
        if len(self.entries) >= self.LIMIT:
            self.entries.clear()
        self.entries[id(d)] = (d, first, last, shown)  # the object is kept: its id is not reused meanwhile
        return shown


def _line(lines: List[str], row: int) -> str:
    return lines[row - 1] if 0 < row <= len(lines) else ""


def workspace_edit(uri: str, edits: List[lsp.TextEdit], version: Optional[int]) -> lsp.WorkspaceEdit:
    """Edits of one document; with a version, a client applies them only to that version."""
    if version is None:
        return lsp.WorkspaceEdit(changes={uri: edits})
    return lsp.WorkspaceEdit(document_changes=[lsp.TextDocumentEdit(
        text_document=lsp.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version), edits=edits)])


def quick_fixes(uri: str, checked: Checked, asked: List[lsp.Diagnostic],
                version: Optional[int]) -> List[lsp.CodeAction]:
    """The fix and the "disable" action of each diagnostic the client asks about."""
    wanted = {(d.code, d.range.start.line) for d in asked}
    lines = lsp_lines(checked.source)
    actions: List[lsp.CodeAction] = []
    for d in checked.fresh:
        if (d.code, d.location.row - 1) not in wanted:
            continue
        shown = to_lsp(d, lines)
        if d.fix is not None:
            unsafe = d.fix.applicability is Applicability.UNSAFE
            edits = [lsp.TextEdit(to_lsp_range(lines, e.location, e.end_location), e.content) for e in d.fix.edits]
            actions.append(lsp.CodeAction(
                title="%s: %s%s" % (d.code, d.fix.message, " (unsafe)" if unsafe else ""),
                kind=lsp.CodeActionKind.QuickFix, diagnostics=[shown], is_preferred=not unsafe,
                edit=workspace_edit(uri, edits, version)))
        disable = _disable_action(uri, lines, d, shown, version) if d.code != SYNTAX_ERROR else None
        if disable is not None:  # (a comment does not make a file parse)
            actions.append(disable)
    return actions


def _disable_action(uri: str, lines: List[str], d: Diagnostic, shown: Optional[lsp.Diagnostic],
                    version: Optional[int] = None) -> Optional[lsp.CodeAction]:
    row = d.location.row - 1
    text = lines[row] if row < len(lines) else ""
    match = NOQA.search(text)
    if match is None:
        new_text = text.rstrip() + "  # noqa: %s" % d.code
    elif match.group("codes") is None:
        return None  # a bare noqa comment already suppresses every code
    else:
        codes = [c.strip() for c in match.group("codes").split(",")]
        if d.code not in codes:
            codes.append(d.code)
        new_text = text[:match.start()] + "# noqa: " + ", ".join(codes) + text[match.end():]
    edit = lsp.TextEdit(lsp.Range(lsp.Position(row, 0), lsp.Position(row, _utf16(text))), new_text)
    return lsp.CodeAction(title="Disable %s for this line" % d.code, kind=lsp.CodeActionKind.QuickFix,
                          diagnostics=[shown] if shown is not None else None,
                          edit=workspace_edit(uri, [edit], version))


def has_safe_fix(checked: Checked) -> bool:
    return any(d.fix is not None and d.fix.applicability is Applicability.SAFE for d in checked.fresh)


def fix_all_action(uri: str, checked: Checked, fixed: Optional[str] = None,
                   version: Optional[int] = None) -> lsp.CodeAction:
    """The "fix all" action: with the fixed text, its edit; without, data to resolve it later."""
    action = lsp.CodeAction(title="hyblint: fix all safe fixes", kind=FIX_ALL_KIND,
                            data={"uri": uri, "version": checked.version})
    if fixed is not None:
        action.edit = workspace_edit(uri, [changed_lines(checked.source, fixed)], version)
    return action


def changed_lines(before: str, after: str) -> lsp.TextEdit:
    """One edit replacing only the lines between the common head and tail, so that an editor keeps
    its cursor, folds and marks on the lines that did not change."""
    old, new = lsp_lines(before), lsp_lines(after)
    head = 0
    while head < min(len(old), len(new)) and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < min(len(old), len(new)) - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    end = len(old) - tail
    if end < len(old):
        end_position = lsp.Position(end, 0)  # the start of the first unchanged line
    elif old[-1].endswith(("\n", "\r")):
        end_position = lsp.Position(len(old), 0)
    else:
        end_position = lsp.Position(len(old) - 1, _utf16(old[-1]))
    return lsp.TextEdit(lsp.Range(lsp.Position(head, 0), end_position), "".join(new[head:len(new) - tail]))


class FixAllWorker:
    """The fixing process (lsp_fixer), started at the first code action request, and its answers
    per document version."""

    def __init__(self):
        self.process: Optional[asyncio.subprocess.Process] = None
        self.lock: Optional[asyncio.Lock] = None
        self.results: Dict[str, Tuple[Optional[int], "asyncio.Future[Optional[str]]"]] = {}
        self.busy = False  # a job is in flight
        self.checks = 0    # checks running or waiting: while there are any, the process is stopped

    def pause(self) -> None:
        """A check starts: on a machine with few cores a fix computed beside it would delay its
        diagnostics by tens of milliseconds, so the fixing process waits until no check runs."""
        self.checks += 1
        if self.checks == 1 and self.busy:
            self._signal(getattr(signal, "SIGSTOP", None))

    def resume(self) -> None:
        self.checks -= 1
        if self.checks == 0:
            self._signal(getattr(signal, "SIGCONT", None))

    def _signal(self, number) -> None:
        if number is not None and self.process is not None and self.process.returncode is None:
            try:
                os.kill(self.process.pid, number)
            except OSError:
                pass

    def warm(self) -> None:
        """Start the process now, so that it is ready when a fix is asked for."""
        if self.process is None:
            asyncio.ensure_future(self._locked(self._spawn))

    async def _locked(self, work, *args):
        if self.lock is None:
            self.lock = asyncio.Lock()
        async with self.lock:  # one job at a time: answers come back in order
            return await work(*args)

    async def _spawn(self) -> asyncio.subprocess.Process:
        if self.process is None or self.process.returncode is not None:
            package_parent = str(Path(__file__).resolve().parents[1])
            env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [package_parent,
                                                                             os.environ.get("PYTHONPATH")])))
            self.process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "hyblint.lsp_fixer", stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL, env=env)
        return self.process

    async def _fix(self, source: str, path: str, settings: Settings) -> Optional[str]:
        process = await self._spawn()
        try:
            body = pickle.dumps((source, path, settings))
            self.busy = True
            if self.checks:
                self._signal(getattr(signal, "SIGSTOP", None))
            process.stdin.write(HEADER.pack(len(body)) + body)
            await process.stdin.drain()
            size = HEADER.unpack(await process.stdout.readexactly(HEADER.size))[0]
            ok, value = pickle.loads(await process.stdout.readexactly(size))
        except (OSError, EOFError, asyncio.IncompleteReadError):  # it died: start another next time
            self.close()
            raise RuntimeError("the fixing process ended") from None
        finally:
            self.busy = False
        if not ok:
            raise RuntimeError(value)
        return value

    async def fixed(self, uri: str, checked: Checked) -> Optional[str]:
        """The fixed text of `checked` (None: nothing to fix, or the fix failed)."""
        cached = self.results.get(uri)
        if cached is None or cached[0] != checked.version or checked.version is None:
            job = asyncio.ensure_future(self._locked(self._fix, checked.source, checked.path, checked.settings))
            cached = self.results[uri] = (checked.version, job)
        try:
            return await asyncio.shield(cached[1])  # a cancelled request leaves the job to finish for the next
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("fixing %s failed", uri)
            return None

    def forget(self, uri: str) -> None:
        self.results.pop(uri, None)

    def close(self) -> None:
        process, self.process = self.process, None
        if process is not None and process.returncode is None:
            try:
                process.kill()  # (a stopped process is killed too)
            except (ProcessLookupError, RuntimeError):  # gone already, or its event loop is
                pass
