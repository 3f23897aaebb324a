"""The editor's `select` and `ignore` settings (the VS Code extension's hyblint.select/hyblint.ignore),
given to the language server at initialize and changed with workspace/didChangeConfiguration."""
import os
import sys
import textwrap
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

ROOT = Path(__file__).resolve().parents[1]
TWO_RULES = textwrap.dedent("""\
    from mxnet.gluon import nn


    class Net(nn.HybridBlock):
        def hybrid_forward(self, F, a, b):
            a += b
            return a.reshape((a.shape[0], -1))
    """)
SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "hyblint", "lsp"],
                            server_env={**os.environ, "PYTHONPATH": str(ROOT)})


async def start(client: LanguageClient, folder: Path, options) -> None:
    await client.initialize_session(lsp.InitializeParams(
        capabilities=pytest_lsp.client_capabilities("visual-studio-code"), root_uri=folder.as_uri(),
        workspace_folders=[lsp.WorkspaceFolder(uri=folder.as_uri(), name="workspace")],
        initialization_options=options))
    client.folder = folder


@pytest_lsp.fixture(config=SERVER)
async def ignoring(lsp_client: LanguageClient, tmp_path_factory):
    """A server started as the extension starts it with hyblint.ignore = ["HYB006"]."""
    await start(lsp_client, tmp_path_factory.mktemp("workspace"), {"select": [], "ignore": ["HYB006"]})
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=SERVER)
async def plain(lsp_client: LanguageClient, tmp_path_factory):
    await start(lsp_client, tmp_path_factory.mktemp("workspace"), None)
    yield
    await lsp_client.shutdown_session()


async def open_document(client: LanguageClient, name: str, text: str) -> str:
    path = client.folder / name
    path.write_text(text)
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        lsp.TextDocumentItem(uri=path.as_uri(), language_id="python", version=1, text=text)))
    await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    return path.as_uri()


async def configure(client: LanguageClient, settings) -> None:
    client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(settings=settings))


def codes(client: LanguageClient, uri: str):
    return sorted(d.code for d in client.diagnostics[uri])


@pytest.mark.asyncio
async def test_initialization_options_ignore_and_a_configuration_change_rechecks(ignoring):
    client = ignoring
    uri = await open_document(client, "net.py", TWO_RULES)
    assert codes(client, uri) == ["HYB002"]
    await configure(client, {"hyblint": {"path": "", "select": [], "ignore": [], "fixAll": False}})
    await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert codes(client, uri) == ["HYB002", "HYB006"]
    await configure(client, {"hyblint": {"select": ["HYB006"], "ignore": []}})
    await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert codes(client, uri) == ["HYB006"]
    assert client.messages == []


@pytest.mark.asyncio
async def test_other_servers_settings_leave_the_codes_in_force(ignoring):
    client = ignoring
    await configure(client, {"python": {"analysis": {}}})
    await configure(client, None)
    uri = await open_document(client, "net.py", TWO_RULES)
    assert codes(client, uri) == ["HYB002"]


@pytest.mark.asyncio
async def test_editor_select_replaces_the_pyproject_selection_and_ignore_adds_to_it(plain):
    client = plain
    (client.folder / "pyproject.toml").write_text('[tool.hyblint]\nselect = ["HYB006"]\nignore = ["HYB001"]\n')
    uri = await open_document(client, "net.py", TWO_RULES)
    assert codes(client, uri) == ["HYB006"]
    await configure(client, {"hyblint": {"select": ["hyb002"]}})
    await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert codes(client, uri) == ["HYB002"]
    await configure(client, {"hyblint": {"select": ["HYB0"], "ignore": ["HYB002"]}})
    await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert codes(client, uri) == ["HYB006"]


@pytest.mark.asyncio
@pytest.mark.parametrize("settings, shown", [
    ({"select": "HYB002"}, "the editor setting select must be a list of rule codes, not 'HYB002'"),
    ({"ignore": ["HBY001"]}, "the editor setting ignore names no rule: HBY001"),
    ({"hyblint": 3}, "the editor's settings must be an object, not 3"),
])
async def test_a_wrong_editor_setting_is_shown_and_the_server_goes_on(plain, settings, shown):
    client = plain
    await configure(client, settings)
    uri = await open_document(client, "net.py", TWO_RULES)
    assert [m.message for m in client.messages] == ["hyblint: " + shown]
    assert client.messages[0].type == lsp.MessageType.Error
    assert codes(client, uri) == ["HYB002", "HYB006"]
