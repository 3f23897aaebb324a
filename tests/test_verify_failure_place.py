"""Where a block broke in its package: the last frame of a real file of the package, not a
function compiled from a string, as MXNet 1.9.1 makes its operator functions ("<string>")."""
import os

from hyblint.verify import worker

OPERATOR = "def reshape(x):\n    raise ValueError('Invalid Parameter format for keep_highest')\n"


def test_code_compiled_from_a_string_is_no_file_of_the_package(tmp_path, monkeypatch):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "gn.py").write_text("def forward(reshape, x):\n    return reshape(x)\n")
    namespace = {}
    exec(compile(OPERATOR, "<string>", "exec"), namespace)
    gn = {}
    exec(compile((package / "gn.py").read_text(), str(package / "gn.py"), "exec"), gn)
    monkeypatch.chdir(package)  # verify runs with the package's directory as the current one
    try:
        gn["forward"](namespace["reshape"], 1)
    except ValueError as exc:
        place = worker._package_place(exc, str(package))
    assert place == [os.path.abspath(str(package / "gn.py")), 2]
