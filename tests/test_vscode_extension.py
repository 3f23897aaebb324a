"""The VS Code extension (editors/vscode) and the language server agree on settings and names.

The extension itself runs end to end in code-server through editors/vscode/test.sh, which takes
minutes; these checks read its package.json and sources only."""
import json
import re
from pathlib import Path

from hyblint.lsp import editor_codes

EXTENSION = Path(__file__).resolve().parents[1] / "editors" / "vscode"
MANIFEST = json.loads((EXTENSION / "package.json").read_text())
SETTINGS = MANIFEST["contributes"]["configuration"]["properties"]
SOURCE = (EXTENSION / "src" / "extension.ts").read_text()
# What the server reads from the editor's settings, and what only the extension reads.
FOR_THE_SERVER = {"hyblint.select", "hyblint.ignore"}
FOR_THE_EXTENSION = {"hyblint.path", "hyblint.interpreter", "hyblint.fixAll"}


def test_the_settings_contributed_are_those_the_server_and_the_extension_read():
    assert set(SETTINGS) == FOR_THE_SERVER | FOR_THE_EXTENSION
    for name in FOR_THE_EXTENSION:
        key = name.split(".", 1)[1]
        assert re.search(r"""(hyblintSetting\(|getConfiguration\("hyblint".*\.get<\w+>\()"%s"[,)]""" % key, SOURCE), name


def test_the_server_reads_each_setting_passed_to_it_by_its_name():
    for name in FOR_THE_SERVER:
        setting = SETTINGS[name]
        assert setting["type"] == "array" and setting["items"] == {"type": "string"} and setting["default"] == []
        key = name.split(".", 1)[1]
        assert editor_codes({key: ["hyb002"]}) == ({key: ("HYB002",)}, [])
        assert '%s: settings.get<string[]>("%s", [])' % (key, key) in SOURCE  # in initializationOptions


def test_the_whole_section_with_its_defaults_changes_nothing_and_is_not_an_error():
    """The client sends every hyblint.* setting in workspace/didChangeConfiguration."""
    section = {name.split(".", 1)[1]: setting["default"] for name, setting in SETTINGS.items()}
    assert editor_codes(section) == ({}, [])
    assert 'configurationSection: "hyblint"' in SOURCE


def test_commands_activation_and_entry_point():
    commands = {command["command"] for command in MANIFEST["contributes"]["commands"]}
    assert commands == {"hyblint.restart", "hyblint.showOutput"}
    for command in commands:
        assert 'registerCommand("%s"' % command in SOURCE
    assert "onLanguage:python" in MANIFEST["activationEvents"]
    assert "--outfile=%s" % MANIFEST["main"].lstrip("./") in MANIFEST["scripts"]["compile"]
    assert 'FIX_ALL_KIND = "source.fixAll.hyblint"' in SOURCE
    from hyblint.lsp_actions import FIX_ALL_KIND
    assert FIX_ALL_KIND == "source.fixAll.hyblint"


def test_build_output_and_downloads_are_not_committed():
    ignored = (EXTENSION / ".gitignore").read_text().split()
    assert {"node_modules/", "dist/", "*.vsix", ".e2e/"} <= set(ignored)
