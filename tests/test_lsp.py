"""The language server, driven end to end over stdio by a real LSP client (pytest-lsp)."""
import asyncio
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

ROOT = Path(__file__).resolve().parents[1]
BROKEN = textwrap.dedent("""\
    # é: a comment with a character outside ASCII before the code
    from mxnet.gluon import nn


    class Net(nn.HybridBlock):
        def hybrid_forward(self, F, a, b):
            a += b  # \u00e9\u00e9
            return a
    """)


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "hyblint", "lsp"],
                                              server_env={**os.environ, "PYTHONPATH": str(ROOT)}))
async def client(lsp_client: LanguageClient, tmp_path_factory):
    folder = tmp_path_factory.mktemp("workspace")
    await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=pytest_lsp.client_capabilities("visual-studio-code"), root_uri=folder.as_uri(),
        workspace_folders=[lsp.WorkspaceFolder(uri=folder.as_uri(), name="workspace")]))
    lsp_client.folder = folder
    yield
    await lsp_client.shutdown_session()


async def open_document(client: LanguageClient, name: str, text: str) -> str:
    path = client.folder / name
    path.write_text(text)
    uri = path.as_uri()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        lsp.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)))
    await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    return uri


async def change(client: LanguageClient, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
        [lsp.TextDocumentContentChangeWholeDocument(text=text)]))
    await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)


def edits_of(action: lsp.CodeAction, uri: str, version: int):
    """The edits of an action, which must be pinned to the document version they were made for."""
    [change] = action.edit.document_changes
    assert change.text_document.uri == uri and change.text_document.version == version
    return change.edits


def apply(text: str, edits) -> str:
    lines = text.splitlines(keepends=True)

    def offset(position):
        line = lines[position.line] if position.line < len(lines) else ""
        before = sum(len(l) for l in lines[:position.line])
        units, chars = 0, 0
        while units < position.character and chars < len(line):
            units += len(line[chars].encode("utf-16-le")) // 2
            chars += 1
        return before + chars
    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[:offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end):]
    return text


@pytest.mark.asyncio
async def test_open_publishes_diagnostics_with_code_link_and_utf16_range(client: LanguageClient):
    uri = await open_document(client, "net.py", BROKEN)
    [diagnostic] = client.diagnostics[uri]
    assert diagnostic.code == "HYB006" and diagnostic.source == "hyblint"
    assert diagnostic.severity == lsp.DiagnosticSeverity.Error
    assert diagnostic.code_description.href.endswith("/docs/rules/HYB006.md")
    assert (diagnostic.range.start.line, diagnostic.range.start.character) == (6, 8)
    assert (diagnostic.range.end.line, diagnostic.range.end.character) == (6, 14)


@pytest.mark.asyncio
async def test_quick_fix_removes_the_diagnostic(client: LanguageClient):
    uri = await open_document(client, "fixme.py", BROKEN)
    [diagnostic] = client.diagnostics[uri]
    actions = await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri), range=diagnostic.range,
        context=lsp.CodeActionContext(diagnostics=[diagnostic])))
    quick = [a for a in actions if a.kind == lsp.CodeActionKind.QuickFix and a.is_preferred]
    assert len(quick) == 1 and quick[0].title.startswith("HYB006")
    fixed = apply(BROKEN, edits_of(quick[0], uri, 1))
    assert "a = a + b  # \u00e9\u00e9" in fixed
    await change(client, uri, 2, fixed)
    assert list(client.diagnostics[uri]) == []


@pytest.mark.asyncio
async def test_disable_for_this_line_and_fix_all(client: LanguageClient):
    uri = await open_document(client, "other.py", BROKEN)
    [diagnostic] = client.diagnostics[uri]
    actions = await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri), range=diagnostic.range,
        context=lsp.CodeActionContext(diagnostics=[diagnostic])))
    disable = next(a for a in actions if a.title == "Disable HYB006 for this line")
    suppressed = apply(BROKEN, edits_of(disable, uri, 1))
    assert "a += b  # \u00e9\u00e9  # noqa: HYB006" in suppressed
    fix_all = next(a for a in actions if a.kind == "source.fixAll.hyblint")
    fix_all = await client.code_action_resolve_async(fix_all)  # computed when it is chosen
    assert "a = a + b" in apply(BROKEN, edits_of(fix_all, uri, 1))
    await change(client, uri, 2, suppressed)
    assert list(client.diagnostics[uri]) == []


@pytest.mark.asyncio
async def test_half_typed_edit_keeps_last_good_diagnostics_and_server_answers(client: LanguageClient):
    uri = await open_document(client, "typing.py", BROKEN)
    await change(client, uri, 2, BROKEN.replace("return a", "return a +"))
    codes = sorted(d.code for d in client.diagnostics[uri])
    assert codes == ["HYB006", "HYB900"]
    actions = await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier("file:///nowhere/missing.py"),
        range=lsp.Range(lsp.Position(0, 0), lsp.Position(0, 1)), context=lsp.CodeActionContext(diagnostics=[])))
    assert not actions
    await change(client, uri, 3, BROKEN)  # still alive
    assert [d.code for d in client.diagnostics[uri]] == ["HYB006"]


@pytest.mark.asyncio
async def test_large_file_still_gets_diagnostics(client: LanguageClient):
    blocks = "".join(textwrap.dedent("""\
        class Net%d(nn.HybridBlock):
            def hybrid_forward(self, F, x):
                y = F.relu(x)
                return y[0] + x.shape[0]


        """) % i for i in range(150))
    uri = await open_document(client, "large.py", "from mxnet.gluon import nn\n\n\n" + blocks)
    assert len(client.diagnostics[uri]) == 300


@pytest.mark.asyncio
async def test_positions_after_a_form_feed_and_a_line_separator(client: LanguageClient):
    text = BROKEN.replace("# é: a comment", "# \f and \u2028 in a comment")
    uri = await open_document(client, "separators.py", text)
    [diagnostic] = client.diagnostics[uri]
    assert (diagnostic.range.start.line, diagnostic.range.start.character) == (6, 8)


def test_bare_noqa_line_offers_no_disable_action():
    from hyblint.diagnostics import Location, Severity
    from hyblint.diagnostics import Diagnostic as HybDiagnostic
    from hyblint.lsp_actions import _disable_action, lsp_lines
    lines = lsp_lines("x = 1\ny += 2  # noqa\n")
    d = HybDiagnostic("HYB006", "m", "f.py", Location(2, 1), Location(2, 7), Severity.ERROR)
    assert _disable_action("file:///f.py", lines, d, None) is None
    extended = _disable_action("file:///f.py", lsp_lines("y += 2  # noqa: HYB001\n"),
                               HybDiagnostic("HYB006", "m", "f.py", Location(1, 1), Location(1, 7), Severity.ERROR),
                               None)
    assert extended.edit.changes["file:///f.py"][0].new_text == "y += 2  # noqa: HYB001, HYB006"


def test_published_json_matches_the_lsprotocol_diagnostic():
    from lsprotocol import converters
    from hyblint.diagnostics import Location, Severity
    from hyblint.diagnostics import Diagnostic as HybDiagnostic
    from hyblint.lsp_actions import lsp_lines, to_lsp, to_lsp_json
    lines = lsp_lines("x = 1\n\u00e9\u00e9 = y[0]  # \U0001f600\n")
    for d in (HybDiagnostic("HYB001", "m", "f.py", Location(2, 6), Location(2, 10), Severity.ERROR, url="https://x/"),
              HybDiagnostic("HYB006", "w", "f.py", Location(1, 1), Location(3, 1), Severity.WARNING)):
        assert to_lsp_json(d, lines) == converters.get_converter().unstructure(to_lsp(d, lines))


async def code_actions(client: LanguageClient, uri: str, diagnostics, only=None):
    whole = lsp.Range(lsp.Position(0, 0), lsp.Position(100, 0))
    return await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri), range=whole,
        context=lsp.CodeActionContext(diagnostics=list(diagnostics), only=only)))


@pytest.mark.asyncio
async def test_last_good_diagnostics_kept_while_the_buffer_does_not_parse_offer_no_edits(client: LanguageClient):
    uri = await open_document(client, "stale.py", BROKEN)
    # the import line is being rewritten: the kept HYB006 now points into other text
    half_typed = BROKEN.replace("from mxnet.gluon import nn", "from mxnet.gluon import (\n\n\n")
    await change(client, uri, 2, half_typed)
    shown = list(client.diagnostics[uri])
    assert sorted(d.code for d in shown) == ["HYB006", "HYB900"]
    actions = await code_actions(client, uri, shown)
    assert [a for a in actions if a.edit is not None] == []


@pytest.mark.asyncio
async def test_code_actions_answer_for_the_text_the_client_sees(client: LanguageClient):
    uri = await open_document(client, "moved.py", BROKEN)
    moved = "# a line above\n" + BROKEN
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        lsp.VersionedTextDocumentIdentifier(uri=uri, version=2), [lsp.TextDocumentContentChangeWholeDocument(moved)]))
    # asked before the edit's diagnostics arrive: the answer waits for them, and is about version 2
    asked = lsp.Diagnostic(range=lsp.Range(lsp.Position(7, 8), lsp.Position(7, 14)), message="", code="HYB006")
    actions = await code_actions(client, uri, [asked], only=[lsp.CodeActionKind.QuickFix])
    quick = next(a for a in actions if a.is_preferred)
    assert "a = a + b  # \u00e9\u00e9" in apply(moved, edits_of(quick, uri, 2))
    # the fix-all action offered for version 2 gives no edit once the text has changed again
    fix_all = next(a for a in await code_actions(client, uri, []) if a.kind == "source.fixAll.hyblint")
    await change(client, uri, 3, moved + "\n")
    assert (await client.code_action_resolve_async(fix_all)).edit is None


@pytest.mark.asyncio
async def test_fix_all_is_computed_only_when_asked_for_and_never_before_diagnostics(client: LanguageClient):
    uri = await open_document(client, "slow.py", BROKEN)
    [diagnostic] = client.diagnostics[uri]
    quick_only = await code_actions(client, uri, [diagnostic], only=[lsp.CodeActionKind.QuickFix])
    assert all(a.kind == lsp.CodeActionKind.QuickFix for a in quick_only)
    # asked for explicitly: the fix is computed in another process while edits are still checked
    fixing = asyncio.ensure_future(code_actions(client, uri, [], only=["source.fixAll"]))
    await asyncio.sleep(0)
    await change(client, uri, 2, BROKEN + "\n")
    assert not fixing.done()
    [fix_all] = await fixing
    assert fix_all.kind == "source.fixAll.hyblint" and fix_all.edit is not None


def _rpc(messages, env=None, cwd=None) -> int:
    """Run the server on a fixed list of messages; its exit code."""
    body = b"".join(b"Content-Length: %d\r\n\r\n%s" % (len(m), m)
                    for m in (json.dumps(dict(message, jsonrpc="2.0")).encode() for message in messages))
    done = subprocess.run([sys.executable, "-m", "hyblint", "lsp"], input=body, capture_output=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=cwd)
    return done.returncode


INITIALIZE = [{"id": 1, "method": "initialize", "params": {"processId": None, "rootUri": None, "capabilities": {}}},
              {"method": "initialized", "params": {}}]


def test_exit_code_is_0_after_shutdown_and_1_without():
    assert _rpc(INITIALIZE + [{"id": 2, "method": "shutdown"}, {"method": "exit"}]) == 0
    assert _rpc(INITIALIZE + [{"method": "exit"}]) == 1


@pytest.mark.asyncio
@pytest.mark.parametrize("config, reason", [
    (b'[tool.hyblint]\nselect = ["HYB0\xff"]\n', "UTF-8"),
    (b"[tool.hyblint]\nselect = " + b"[" * 3000 + b"]" * 3000 + b"\n", ""),
    (b"[tool.hyblint]\nselect = 5\n", "select"),
])
async def test_a_bad_pyproject_is_shown_and_the_server_recovers_when_it_is_fixed(client, config, reason):
    pyproject = client.folder / "pyproject.toml"
    pyproject.write_bytes(config)
    uri = await open_document(client, "configured.py", BROKEN)
    [shown] = client.diagnostics[uri]
    assert str(pyproject) in shown.message and reason in shown.message
    assert any(str(pyproject) in m.message for m in client.messages)
    pyproject.write_text('[tool.hyblint]\nselect = ["HYB006"]\n')
    await change(client, uri, 2, BROKEN + "\n")
    assert [d.code for d in client.diagnostics[uri]] == ["HYB006"]


@pytest.mark.asyncio
async def test_malformed_traffic_never_kills_the_server(client: LanguageClient):
    nowhere = "file:///nowhere/missing.py"
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(  # a document that was never opened
        lsp.VersionedTextDocumentIdentifier(uri=nowhere, version=2), [lsp.TextDocumentContentChangeWholeDocument("x")]))
    client.text_document_did_close(lsp.DidCloseTextDocumentParams(lsp.TextDocumentIdentifier(nowhere)))
    await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert not await code_actions(client, nowhere, [])
    uri = await open_document(client, "ranges.py", BROKEN)
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(  # a range far past the end
        lsp.VersionedTextDocumentIdentifier(uri=uri, version=2), [lsp.TextDocumentContentChangePartial(
            range=lsp.Range(lsp.Position(500, 3), lsp.Position(900, 0)), text="y = 1\n")]))
    await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    untitled = "untitled:Untitled-1"
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        lsp.TextDocumentItem(uri=untitled, language_id="python", version=1, text=BROKEN)))
    await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert [d.code for d in client.diagnostics[untitled]] == ["HYB006"]
    huge = "huge.py"
    text = "x = 1\n" * 400_000
    huge_uri = (client.folder / huge).as_uri()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        lsp.TextDocumentItem(uri=huge_uri, language_id="python", version=1, text=text)))
    await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    [too_large] = client.diagnostics[huge_uri]
    assert "not checked" in too_large.message
    await change(client, uri, 3, BROKEN)  # still alive
    assert [d.code for d in client.diagnostics[uri]] == ["HYB006"]


STEM = textwrap.dedent("""\
    from mxnet.gluon import nn


    class Stem(nn.HybridBlock):
        def hybrid_forward(self, F, x):
            return F.relu(x)
    """)
USES_STEM = textwrap.dedent("""\
    from mxnet.gluon import nn
    from stem import Stem


    class Net(nn.HybridBlock):
        def __init__(self):
            super().__init__()
            self.stem = Stem()

        def hybrid_forward(self, F, x):
            y = self.stem(x)
            return y[0]
    """)


async def published(client: LanguageClient, uri: str, codes) -> None:
    """Wait until the diagnostics of `uri` have `codes` (sorted)."""
    async def until():
        while sorted(d.code for d in client.diagnostics.get(uri, [])) != codes:
            await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    await asyncio.wait_for(until(), 20)


@pytest.mark.asyncio
async def test_editing_a_childs_file_rechecks_the_open_parent(client: LanguageClient):
    (client.folder / "stem.py").write_text(STEM)
    # the child, not open, is read from the workspace folder: its call gives one tensor
    parent = await open_document(client, "net.py", USES_STEM)
    await published(client, parent, ["HYB001"])
    [diagnostic] = client.diagnostics[parent]
    assert diagnostic.range.start.line == 11
    child = await open_document(client, "stem.py", STEM)
    # the child's buffer now returns two outputs: `y[0]` selects one of them, in the parent,
    # which is checked again without being touched
    two = STEM.replace("return F.relu(x)", "return F.relu(x), F.sigmoid(x)")
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        lsp.VersionedTextDocumentIdentifier(uri=child, version=2), [lsp.TextDocumentContentChangeWholeDocument(text=two)]))
    await published(client, parent, [])
    # a half-typed edit of the child changes nothing in the parent
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        lsp.VersionedTextDocumentIdentifier(uri=child, version=3),
        [lsp.TextDocumentContentChangeWholeDocument(text=STEM + "    return (\n")]))
    await published(client, child, ["HYB900"])
    assert list(client.diagnostics[parent]) == []
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        lsp.VersionedTextDocumentIdentifier(uri=child, version=4), [lsp.TextDocumentContentChangeWholeDocument(text=STEM)]))
    await published(client, parent, ["HYB001"])
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        lsp.VersionedTextDocumentIdentifier(uri=child, version=5), [lsp.TextDocumentContentChangeWholeDocument(text=two)]))
    await published(client, parent, [])
    # closed, the child is its file again, which returns one tensor
    client.text_document_did_close(lsp.DidCloseTextDocumentParams(lsp.TextDocumentIdentifier(child)))
    await published(client, parent, ["HYB001"])


def test_the_collector_runs_after_the_diagnostics_are_published():
    import gc

    from hyblint.lsp import Collector
    collector = Collector()
    try:
        collector.pause()
        collector.pause()  # two documents checked at once
        assert not gc.isenabled()
        collector.resume()
        assert not gc.isenabled()
        collector.resume()
        assert gc.isenabled() and gc.get_freeze_count() > 0  # what the first check left is frozen
        frozen = gc.get_freeze_count()
        collector.pause()
        collector.resume()
        assert gc.isenabled() and gc.get_freeze_count() == frozen  # once
    finally:
        gc.unfreeze()
        gc.enable()


@pytest.mark.asyncio
async def test_a_deep_expression_gets_its_diagnostics(client: LanguageClient):
    """Defect 8: an expression of hundreds of terms (valid Python) exceeded the recursion limit and
    the editor showed nothing."""
    deep = BROKEN.replace("a += b  # \u00e9\u00e9", "c = a[0] + " + " + ".join(["b"] * 600))
    uri = await open_document(client, "deep.py", deep)
    codes = [d.code for d in client.diagnostics[uri]]
    assert "HYB001" in codes and not any(code.startswith("HYB9") for code in codes), codes


def test_a_diagnostic_is_converted_once_while_its_lines_stay():
    from hyblint.diagnostics import Diagnostic as HybDiagnostic
    from hyblint.diagnostics import Location, Severity
    from hyblint.lsp_actions import PublishedForms, lsp_lines, to_lsp_json
    forms = PublishedForms()
    d = HybDiagnostic("HYB006", "m", "f.py", Location(2, 3), Location(2, 7), Severity.ERROR)
    lines = lsp_lines("x = 1\né y += 2\n")
    shown = forms.of(d, lines)
    assert shown == to_lsp_json(d, lines) and shown["range"]["start"]["character"] == 2
    assert forms.of(d, lsp_lines("z = 0\né y += 2\n")) is shown  # another line changed
    moved = forms.of(d, lsp_lines("x = 1\n😀 y += 2\n"))  # its own line changed: UTF-16 columns differ
    assert moved["range"]["start"]["character"] == 3
