"""`hyblint lsp`: diagnostics and quick fixes for editors, over stdio (pygls + lsprotocol).

Diagnostics are pushed on open, on change and on save. Each fixable diagnostic offers a quick fix
(safe ones preferred, unsafe ones labelled), every diagnostic a "disable for this line" action,
and the file a "fix all" source action (see lsp_actions). A buffer that does not parse keeps its
last good diagnostics, plus one for the syntax error; those offer no edits.

Checks run in one thread beside the event loop, so that the server keeps reading messages while
one runs: an edit to a document whose check is idle is checked at once, and the edits that arrive
during a check are coalesced into one check of the newest text when it ends. Only results for the
newest text are published.
"""
from __future__ import annotations

import asyncio
import gc
import logging
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Dict, List, Optional, Set, Tuple, Union
from urllib.parse import unquote

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol

from hyblint import __version__
from hyblint.config import ConfigError, find_config, load_settings
from hyblint.engine import SYNTAX_ERROR, check_source
from hyblint.lsp_index import WorkspaceIndex
from hyblint.lsp_actions import (FIX_ALL_KIND, Checked, FixAllWorker, PublishedForms, fix_all_action, has_safe_fix,
                                 lsp_lines, quick_fixes)
from hyblint.selection import RULE_CODES
from hyblint.settings import Settings

# Larger documents (generated code, data pasted into a buffer) get one diagnostic saying so: a
# check of several megabytes would keep every other document waiting for many seconds.
MAX_DOCUMENT_CHARACTERS = 2_000_000
# How long a code action request waits for the check of the text it is about.
CHECK_WAIT_SECONDS = 5.0
log = logging.getLogger("hyblint.lsp")


class ConfigCache:
    """Settings per folder, loaded again when a pyproject.toml above the folder appears, changes or
    goes: an editor tells this server about edits of a pyproject.toml only if it watches the file."""

    def __init__(self):
        self.entries: Dict[str, Tuple[tuple, Union[Settings, str]]] = {}

    def settings_for(self, path: Optional[str]) -> Tuple[Union[Settings, str], bool]:
        """The settings of a document, or why they cannot be had; and whether that reason is new."""
        folder = (Path(path).parent if path else Path(".")).resolve()
        stamp = _stamp(folder)
        cached = self.entries.get(str(folder))
        if cached is not None and cached[0] == stamp:
            return cached[1], False
        try:
            found: Union[Settings, str] = load_settings(find_config([str(folder)]))
        except ConfigError as exc:
            found = str(exc)
        except Exception as exc:  # RecursionError, UnicodeDecodeError...: the editor must still answer
            found = "%s: cannot read: %s" % (_config_names(stamp), _reason(exc))
        self.entries[str(folder)] = (stamp, found)
        return found, isinstance(found, str) and (cached is None or cached[1] != found)

    def clear(self) -> None:
        self.entries.clear()


def _stamp(folder: Path) -> tuple:
    """Each pyproject.toml from `folder` upwards, with what changes when it is written."""
    stamp = []
    for parent in (folder, *folder.parents):
        candidate = parent / "pyproject.toml"
        try:
            status = os.stat(candidate)
        except OSError:
            continue
        stamp.append((str(candidate), status.st_mtime_ns, status.st_size, status.st_ino))
    return tuple(stamp)


def _config_names(stamp: tuple) -> str:
    if len(stamp) == 1:
        return stamp[0][0]
    return "pyproject.toml (one of %s)" % ", ".join(entry[0] for entry in stamp) if stamp else "pyproject.toml"


def _reason(exc: Exception) -> str:
    if isinstance(exc, UnicodeDecodeError):
        return "not UTF-8 (byte 0x%02x at offset %d)" % (exc.object[exc.start], exc.start)
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    return "%s: %s" % (type(exc).__name__, exc)


class _PlainNotification:
    """A notification that json encodes as its __dict__ (see HyblintProtocol)."""

    def __init__(self, method: str, params, jsonrpc: str):
        self.method, self.params, self.jsonrpc = method, params, jsonrpc


class HyblintProtocol(LanguageServerProtocol):
    """Diagnostics are published as plain JSON values: converting hundreds of lsprotocol objects
    for each keystroke cost more than the check of the edit (20 ms for 300 diagnostics)."""

    def get_message_type(self, method: str):
        if method == lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS:
            return _PlainNotification
        return super().get_message_type(method)


class Collector:
    """When Python's cyclic garbage collector runs in the server: never during a check (a full
    collection of a warm server takes tens of milliseconds, which the diagnostics would wait for),
    but once they are published; and what the server holds after its first check (the modules it
    imported, the first results) is frozen out of the collections' scans."""

    def __init__(self):
        self.checks = 0
        self.frozen = False

    def pause(self) -> None:
        self.checks += 1
        gc.disable()

    def resume(self) -> None:
        """After a check's diagnostics are published."""
        self.checks -= 1
        if self.checks:
            return
        if not self.frozen:
            self.frozen = True
            gc.collect()
            gc.freeze()
        gc.enable()


class HyblintServer(LanguageServer):
    def __init__(self):
        super().__init__("hyblint", __version__, protocol_cls=HyblintProtocol)
        self.checked: Dict[str, Checked] = {}    # the published check of each open document
        self.last_good: Dict[str, Checked] = {}  # its newest check that parsed
        self.running: Dict[str, asyncio.Task] = {}
        self.again: Set[str] = set()             # documents edited while their check runs
        self.checker = ThreadPoolExecutor(1, thread_name_prefix="hyblint-check")  # the engine's caches are not shared
        self.configs = ConfigCache()
        self.index: Optional[WorkspaceIndex] = None  # made in the check thread, when first needed
        self.fixes = FixAllWorker()
        self.collector = Collector()
        self.forms = PublishedForms()
        self.shutdown_requested = False
        self.editor_codes: Dict[str, Tuple[str, ...]] = {}  # "select"/"ignore" of the editor's settings

    def open_document(self, uri: str):
        """The document the client opened (None for any other URI: nothing is read from disk)."""
        try:
            return self.workspace.text_documents.get(unquote(uri))
        except Exception:  # no workspace before `initialize`
            return None

    def schedule(self, uri: str) -> None:
        if uri in self.running:
            self.again.add(uri)
            return
        self.running[uri] = asyncio.ensure_future(self._check_until_current(uri))

    async def _check_until_current(self, uri: str) -> None:
        loop = asyncio.get_running_loop()
        try:
            while True:
                self.again.discard(uri)
                document = self.open_document(uri)
                if document is None:
                    return
                version, source, path = document.version, document.source, document.path
                self.fixes.pause()
                self.collector.pause()
                dependents: Set[str] = set()
                published = False
                try:
                    try:
                        checked, dependents = await loop.run_in_executor(self.checker, self.check, source, version,
                                                                         path, uri)
                    except Exception as exc:  # a bug in a rule must not silence the editor
                        log.exception("checking %s failed", uri)
                        checked = Checked(version, source, path or uri, None,
                                          problem="hyblint could not check this file (%s: %s); please report it"
                                          % (type(exc).__name__, exc))
                    if uri not in self.again:
                        self.publish(uri, checked)
                        published = True
                finally:  # after publishing: neither the fixing process nor the collector delays it
                    self.fixes.resume()
                    self.collector.resume()
                if published:
                    self.recheck(dependents, uri)
                    return
        finally:
            self.running.pop(uri, None)

    def check(self, source: str, version: Optional[int], path: Optional[str], uri: str) -> Tuple[Checked, Set[str]]:
        """Runs in the check thread: the check, and the paths of the files whose checks read facts
        from this one's previous text (to check again: they may read otherwise now)."""
        settings, new = self.configs.settings_for(path)
        if isinstance(settings, str):
            problem = "hyblint: cannot use the configuration: %s" % settings
            return Checked(version, source, path or uri, None, problem=problem,
                           announce=problem if new else None), set()
        if "select" in self.editor_codes:  # as --select and --ignore apply over each file's pyproject.toml
            settings = replace(settings, select=self.editor_codes["select"])
        if self.editor_codes.get("ignore"):
            settings = replace(settings, ignore=settings.ignore + self.editor_codes["ignore"])
        if len(source) > MAX_DOCUMENT_CHARACTERS:
            return Checked(version, source, path or uri, settings, problem=(
                "hyblint: not checked in the editor: %d characters, more than %d; run `hyblint` on the file"
                % (len(source), MAX_DOCUMENT_CHARACTERS))), set()
        if path is None:  # not a file: nothing else in the workspace can refer to it
            return Checked(version, source, uri, settings, fresh=check_source(source, uri, settings)), set()
        index = self.workspace_index()
        package, changed = index.package(path, source)
        fresh = check_source(source, path, settings, package=package)
        if any(d.code == SYNTAX_ERROR for d in fresh):
            index.rejected(path)
            changed = False
        else:
            index.checked(path, package)
        return Checked(version, source, path, settings, fresh=fresh), index.dependents(path) if changed else set()

    def workspace_index(self) -> WorkspaceIndex:
        """The index of the workspace folders (read in the check thread, when first needed)."""
        if self.index is None:
            try:
                roots = [folder.uri for folder in self.workspace.folders.values()] or \
                        ([self.workspace.root_uri] if self.workspace.root_uri else [])
            except Exception:  # no workspace before `initialize`
                roots = []
            self.index = WorkspaceIndex(_path_of(uri) for uri in roots if uri.startswith("file:"))
        return self.index

    def recheck(self, paths: Set[str], changed_uri: str) -> None:
        """Check the open documents at `paths` again (their checks read facts from another file)."""
        if not paths:
            return
        for uri in list(self.checked):
            document = self.open_document(uri)
            if uri != changed_uri and document is not None and document.path \
                    and os.path.abspath(document.path) in paths:
                self.schedule(uri)

    async def after_close(self, path: str, uri: str) -> None:
        """The index reads the closed document's file again; what read its buffer is checked again."""
        if self.index is None:
            return
        loop = asyncio.get_running_loop()
        self.recheck(await loop.run_in_executor(self.checker, self.index.closed, path), uri)

    def publish(self, uri: str, checked: Checked) -> None:
        if self.open_document(uri) is None:
            return  # closed while it was checked
        if checked.announce:
            self.window_show_message(lsp.ShowMessageParams(lsp.MessageType.Error, checked.announce))
        if any(d.code == SYNTAX_ERROR for d in checked.fresh):
            good = self.last_good.get(uri)
            checked.stale = good.fresh if good is not None else []  # a half-typed edit keeps the last good results
        elif checked.problem is None:
            self.last_good[uri] = checked
        self.checked[uri] = checked
        lines = lsp_lines(checked.source)
        if checked.problem is not None:
            shown = [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
                      "message": checked.problem, "severity": lsp.DiagnosticSeverity.Error.value, "source": "hyblint"}]
        else:
            shown = [self.forms.of(d, lines) for d in checked.stale + checked.fresh]
        self.protocol.notify(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS,
                             {"uri": uri, "version": checked.version, "diagnostics": shown})

    def forget(self, uri: str) -> None:
        for table in (self.checked, self.last_good):
            table.pop(uri, None)
        self.fixes.forget(uri)

    def edit_version(self, version: Optional[int]) -> Optional[int]:
        """The version to pin edits to, where the client takes versioned edits."""
        try:
            if self.client_capabilities.workspace.workspace_edit.document_changes:
                return version
        except AttributeError:
            pass
        return None

    def resolves_edits(self) -> bool:
        try:
            return "edit" in self.client_capabilities.text_document.code_action.resolve_support.properties
        except AttributeError:
            return False


server = HyblintServer()


@server.feature(lsp.SHUTDOWN)
def on_shutdown(ls: HyblintServer, *args) -> None:
    ls.shutdown_requested = True


@server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: HyblintServer, params: lsp.DidOpenTextDocumentParams) -> None:
    ls.forget(params.text_document.uri)
    ls.schedule(params.text_document.uri)


@server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: HyblintServer, params: lsp.DidChangeTextDocumentParams) -> None:
    ls.schedule(params.text_document.uri)


@server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: HyblintServer, params: lsp.DidSaveTextDocumentParams) -> None:
    ls.configs.clear()  # the save may have been of a pyproject.toml
    ls.schedule(params.text_document.uri)


@server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: HyblintServer, params: lsp.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    ls.forget(uri)
    ls.protocol.notify(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, {"uri": uri, "diagnostics": []})
    if uri.startswith("file:"):
        asyncio.ensure_future(ls.after_close(_path_of(uri), uri))


@server.feature(lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def did_change_watched_files(ls: HyblintServer, params) -> None:
    ls.configs.clear()
    if ls.index is not None:
        ls.checker.submit(ls.index.reload)  # files changed on disk: read them again, in the check thread
    for uri in list(ls.checked):
        ls.schedule(uri)


@server.feature(lsp.TEXT_DOCUMENT_CODE_ACTION, lsp.CodeActionOptions(
    code_action_kinds=[lsp.CodeActionKind.QuickFix, FIX_ALL_KIND], resolve_provider=True))
async def code_actions(ls: HyblintServer, params: lsp.CodeActionParams) -> List[lsp.CodeAction]:
    uri = params.text_document.uri
    document = ls.open_document(uri)
    if document is None:
        return []
    ls.fixes.warm()
    running = ls.running.get(uri)
    if running is not None:  # answer about the text the client sees, once it is checked
        await asyncio.wait({running}, timeout=CHECK_WAIT_SECONDS)
    checked = ls.checked.get(uri)
    if checked is None or checked.version != document.version or checked.problem is not None:
        return []  # no edits computed on another text
    version = ls.edit_version(checked.version)
    wanted = params.context.only
    actions: List[lsp.CodeAction] = []
    if not wanted or lsp.CodeActionKind.QuickFix in wanted:
        actions += quick_fixes(uri, checked, params.context.diagnostics, version)
    asked_for_fix_all = bool(wanted) and any(_includes(kind, FIX_ALL_KIND) for kind in wanted)
    if asked_for_fix_all or (not wanted and has_safe_fix(checked)):
        if not asked_for_fix_all and ls.resolves_edits():
            actions.append(fix_all_action(uri, checked))  # its edit is computed if it is chosen
        else:
            fixed = await ls.fixes.fixed(uri, checked)
            if fixed is not None:
                actions.append(fix_all_action(uri, checked, fixed, version))
    return actions


def _path_of(uri: str) -> str:
    from pygls.uris import to_fs_path
    return to_fs_path(uri) or uri


def _includes(kind, wanted: str) -> bool:
    """Whether asking for `kind` asks for `wanted`: "source" includes "source.fixAll.hyblint"."""
    name = getattr(kind, "value", kind)
    return wanted == name or wanted.startswith("%s." % name)


@server.feature(lsp.CODE_ACTION_RESOLVE)
async def resolve_code_action(ls: HyblintServer, action: lsp.CodeAction) -> lsp.CodeAction:
    data = action.data if isinstance(action.data, dict) else {}
    uri, version = data.get("uri"), data.get("version")
    document = ls.open_document(uri) if isinstance(uri, str) else None
    checked = ls.checked.get(uri) if document is not None else None
    if checked is None or checked.version != version or document.version != version:
        return action  # the text has changed since: no edit
    fixed = await ls.fixes.fixed(uri, checked)
    if fixed is not None:
        action.edit = fix_all_action(uri, checked, fixed, ls.edit_version(version)).edit
    return action


def editor_codes(options) -> Tuple[Dict[str, Tuple[str, ...]], List[str]]:
    """`select` and `ignore` of the editor's settings (`{"select": [...], "ignore": [...]}`, an empty
    select meaning the configuration's), and what is wrong with them."""
    if options is None:
        return {}, []
    if not isinstance(options, dict):
        return {}, ["hyblint: the editor's settings must be an object, not %r" % (options,)]
    found: Dict[str, Tuple[str, ...]] = {}
    problems: List[str] = []
    for key in ("select", "ignore"):
        codes = options.get(key)
        if codes is None or codes == []:
            continue
        if not isinstance(codes, list) or not all(isinstance(code, str) for code in codes):
            problems.append("hyblint: the editor setting %s must be a list of rule codes, not %r" % (key, codes))
            continue
        found[key] = tuple(code.strip().upper() for code in codes if code.strip())
        unknown = [code for code in found[key] if code != "ALL" and not any(c.startswith(code) for c in RULE_CODES)]
        if unknown:
            problems.append("hyblint: the editor setting %s names no rule: %s" % (key, ", ".join(unknown)))
    return found, problems


@server.feature(lsp.INITIALIZE)
def on_initialize(ls: HyblintServer, params: lsp.InitializeParams) -> None:
    use_editor_settings(ls, params.initialization_options)


@server.feature(lsp.WORKSPACE_DID_CHANGE_CONFIGURATION)
def did_change_configuration(ls: HyblintServer, params: lsp.DidChangeConfigurationParams) -> None:
    """VS Code's client sends `{"hyblint": {...}}`; other clients may send the section itself."""
    settings = params.settings
    if isinstance(settings, dict) and "hyblint" in settings:
        settings = settings["hyblint"]
    elif not (isinstance(settings, dict) and {"select", "ignore"} & set(settings)):
        return  # other servers' settings, or a null asking to pull them: the codes in force stay
    if use_editor_settings(ls, settings):
        for uri in list(ls.checked):
            ls.schedule(uri)


def use_editor_settings(ls: HyblintServer, options) -> bool:
    """Whether the codes changed. A wrong setting is shown and left out; the other one applies."""
    codes, problems = editor_codes(options)
    for problem in problems:
        ls.window_show_message(lsp.ShowMessageParams(lsp.MessageType.Error, problem))
    changed = codes != ls.editor_codes
    ls.editor_codes = codes
    return changed


def serve() -> int:
    """Serve until `exit`; the exit code is 0 after a `shutdown` request, 1 without one."""
    try:
        server.start_io()
    finally:
        server.fixes.close()
    return 0 if server.shutdown_requested else 1


if __name__ == "__main__":
    raise SystemExit(serve())
