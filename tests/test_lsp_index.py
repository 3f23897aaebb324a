"""The language server's workspace index reads the files a check of the folders would check."""
import os

from hyblint.lsp_index import WorkspaceIndex

BLOCK = "from mxnet.gluon import nn\n\n\nclass {name}(nn.HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x\n"


def _write(root, files):
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _indexed(root):
    package, _ = WorkspaceIndex([str(root)]).package(str(root / "open.py"), BLOCK.format(name="Open"))
    return sorted(os.path.relpath(path, root) for path in package.texts)


def test_each_project_excludes_its_own_folders(tmp_path):
    _write(tmp_path, {
        "pyproject.toml": '[tool.hyblint]\nextend-exclude = ["build"]\n',
        "build/generated.py": BLOCK.format(name="Generated"),
        "model.py": BLOCK.format(name="Model"),
        "sub/pyproject.toml": '[tool.hyblint]\nexclude = ["vendor"]\n',
        "sub/vendor/copied.py": BLOCK.format(name="Copied"),
        "sub/net.py": BLOCK.format(name="Net"),
    })
    assert _indexed(tmp_path) == ["model.py", "open.py", os.path.join("sub", "net.py")]


def test_a_configuration_that_cannot_be_read_excludes_only_the_defaults(tmp_path):
    _write(tmp_path, {
        "pyproject.toml": "[tool.hyblint\n",  # not TOML
        ".venv/lib/site.py": BLOCK.format(name="Installed"),
        "model.py": BLOCK.format(name="Model"),
    })
    assert _indexed(tmp_path) == ["model.py", "open.py"]
