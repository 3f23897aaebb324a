"""`hyblint lsp`: diagnostics and quick fixes for editors, over stdio (pygls + lsprotocol).

Diagnostics are pushed on open, on change (debounced) and on save. Each fixable diagnostic offers
a quick fix (safe ones preferred, unsafe ones labelled), every diagnostic a "disable for this
line" action, and the file a "fix all" source action. A buffer that does not parse keeps its last
good diagnostics, plus one for the syntax error.
"""
from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Dict, List, Optional

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer

from hyblint import __version__
from hyblint.config import ConfigError, find_config, load_settings
from hyblint.diagnostics import Applicability, Diagnostic, Location, physical_lines
from hyblint.engine import NOQA, SYNTAX_ERROR, check_source
from hyblint.settings import Settings

DEBOUNCE_SECONDS = 0.05
FIX_ALL_KIND = "source.fixAll.hyblint"
log = logging.getLogger("hyblint.lsp")


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


class HyblintServer(LanguageServer):
    def __init__(self):
        super().__init__("hyblint", __version__)
        self.last_good: Dict[str, List[Diagnostic]] = {}
        self.current: Dict[str, List[Diagnostic]] = {}
        self.pending: Dict[str, asyncio.Task] = {}
        self.settings_cache: Dict[str, Settings] = {}

    def settings_for(self, path: Optional[str]) -> Settings:
        folder = str(Path(path).parent) if path else "."
        if folder not in self.settings_cache:
            try:
                self.settings_cache[folder] = load_settings(find_config([folder]))
            except ConfigError as exc:
                self.window_log_message(lsp.LogMessageParams(lsp.MessageType.Error, "hyblint: %s" % exc))
                self.settings_cache[folder] = Settings()
        return self.settings_cache[folder]

    def lint(self, uri: str) -> None:
        try:
            document = self.workspace.get_text_document(uri)
            source = document.source
        except Exception as exc:  # an unknown URI, a file outside the workspace that cannot be read
            log.warning("cannot read %s: %s", uri, exc)
            return
        path = document.path or uri
        try:
            found = check_source(source, path, self.settings_for(document.path))
        except Exception:  # a bug in a rule must not silence the editor: keep what was shown
            log.exception("checking %s failed", uri)
            return
        errors = [d for d in found if d.code == SYNTAX_ERROR]
        if errors:
            found = self.last_good.get(uri, []) + errors  # a half-typed edit keeps the last good results
        else:
            self.last_good[uri] = found
        self.current[uri] = found
        lines = lsp_lines(source)
        self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(
            uri=uri, version=document.version, diagnostics=[self.to_lsp(d, lines, uri) for d in found]))

    @staticmethod
    def to_lsp(d: Diagnostic, lines: List[str], uri: str = "") -> lsp.Diagnostic:
        severity = lsp.DiagnosticSeverity.Error if d.severity.value == "error" else lsp.DiagnosticSeverity.Warning
        return lsp.Diagnostic(
            range=to_lsp_range(lines, d.location, d.end_location), message=d.message, severity=severity,
            code=d.code, source="hyblint",
            related_information=[lsp.DiagnosticRelatedInformation(
                lsp.Location(uri, to_lsp_range(lines, r.location, r.location)),  # (in the same file)
                r.message) for r in d.related] or None,
            code_description=lsp.CodeDescription(href=d.url) if d.url else None,
            data={"row": d.location.row, "column": d.location.column, "code": d.code})

    def schedule(self, uri: str) -> None:
        previous = self.pending.pop(uri, None)
        if previous is not None:
            previous.cancel()

        async def later():
            await asyncio.sleep(DEBOUNCE_SECONDS)
            self.pending.pop(uri, None)
            self.lint(uri)
        self.pending[uri] = asyncio.ensure_future(later())


server = HyblintServer()


@server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: HyblintServer, params: lsp.DidOpenTextDocumentParams) -> None:
    ls.lint(params.text_document.uri)


@server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: HyblintServer, params: lsp.DidChangeTextDocumentParams) -> None:
    ls.schedule(params.text_document.uri)


@server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: HyblintServer, params: lsp.DidSaveTextDocumentParams) -> None:
    ls.settings_cache.clear()  # the save may have been of a pyproject.toml
    ls.lint(params.text_document.uri)


@server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: HyblintServer, params: lsp.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    for table in (ls.last_good, ls.current):
        table.pop(uri, None)
    ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


@server.feature(lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def did_change_watched_files(ls: HyblintServer, params) -> None:
    ls.settings_cache.clear()


@server.feature(lsp.TEXT_DOCUMENT_CODE_ACTION,
                lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix, FIX_ALL_KIND]))
def code_actions(ls: HyblintServer, params: lsp.CodeActionParams) -> List[lsp.CodeAction]:
    uri = params.text_document.uri
    try:
        document = ls.workspace.get_text_document(uri)
        lines = lsp_lines(document.source)
    except Exception:
        return []
    wanted = params.context.only
    actions: List[lsp.CodeAction] = []
    if not wanted or lsp.CodeActionKind.QuickFix in wanted:
        asked = {(d.code, d.range.start.line) for d in params.context.diagnostics}
        for d in ls.current.get(uri, []):
            key = (d.code, d.location.row - 1)
            if key not in asked:
                continue
            shown = ls.to_lsp(d, lines, uri)
            if d.fix is not None:
                unsafe = d.fix.applicability is Applicability.UNSAFE
                edits = [lsp.TextEdit(to_lsp_range(lines, e.location, e.end_location), e.content) for e in d.fix.edits]
                actions.append(lsp.CodeAction(
                    title="%s: %s%s" % (d.code, d.fix.message, " (unsafe)" if unsafe else ""),
                    kind=lsp.CodeActionKind.QuickFix, diagnostics=[shown], is_preferred=not unsafe,
                    edit=lsp.WorkspaceEdit(changes={uri: edits})))
            disable = _disable_action(uri, lines, d, shown)
            if disable is not None:
                actions.append(disable)
    if not wanted or any(str(k).startswith("source.fixAll") or k == lsp.CodeActionKind.Source for k in wanted):
        fixed = _fix_all(ls, uri, document)
        if fixed is not None:
            actions.append(fixed)
    return actions


def _disable_action(uri: str, lines: List[str], d: Diagnostic, shown: lsp.Diagnostic) -> Optional[lsp.CodeAction]:
    row = d.location.row - 1
    text = lines[row] if row < len(lines) else ""
    match = NOQA.search(text)
    if match is None:
        new_text, start = text.rstrip() + "  # noqa: %s" % d.code, 0
    elif match.group("codes") is None:
        return None  # a bare noqa comment already suppresses every code
    else:
        codes = [c.strip() for c in match.group("codes").split(",")]
        if d.code not in codes:
            codes.append(d.code)
        new_text = text[:match.start()] + "# noqa: " + ", ".join(codes) + text[match.end():]
        start = 0
    edit = lsp.TextEdit(lsp.Range(lsp.Position(row, start), lsp.Position(row, _utf16(text))), new_text)
    return lsp.CodeAction(title="Disable %s for this line" % d.code, kind=lsp.CodeActionKind.QuickFix,
                          diagnostics=[shown], edit=lsp.WorkspaceEdit(changes={uri: [edit]}))


def _fix_all(ls: HyblintServer, uri: str, document) -> Optional[lsp.CodeAction]:
    from hyblint.fixer import fix_source
    source = document.source
    result = fix_source(source, document.path or uri, ls.settings_for(document.path))
    if not result.changed:
        return None
    lines = lsp_lines(source)
    whole = lsp.Range(lsp.Position(0, 0), lsp.Position(len(lines), 0))
    return lsp.CodeAction(title="hyblint: fix all safe fixes", kind=FIX_ALL_KIND,
                          edit=lsp.WorkspaceEdit(changes={uri: [lsp.TextEdit(whole, result.source)]}))


def serve() -> None:
    server.start_io()


if __name__ == "__main__":
    serve()
