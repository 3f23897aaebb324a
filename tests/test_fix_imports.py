"""HYB009's fix drops an import only where the name is provably unused and not exported: an
unused import is harmless, a missing one breaks the module or its importers."""
import subprocess
import sys

import pytest

from hyblint.fixer import fix_source
from hyblint.rules.base import hybrid_block

IMPORT = "from mxnet import nd\n"


def module(tail="", import_line=IMPORT):
    return hybrid_block("return nd.relu(x)").replace(IMPORT, import_line) + tail


def fixed(source, filename="model.py"):
    result = fix_source(source, filename)
    assert [d.code for d in result.applied] == ["HYB009"]
    assert "return F.relu(x)" in result.source
    return result.source


def test_an_import_only_the_rewritten_calls_used_goes():
    assert IMPORT not in fixed(module())


@pytest.mark.parametrize("tail, import_line", [
    ('\n__all__ = ["Net", "nd"]\n', IMPORT),
    ('\n__all__ = ["Net"]\n__all__ += ["nd"]\n', IMPORT),
    ('\n__all__ = ["Net"]\n__all__.extend(["nd"])\n', IMPORT),
    ("", "from mxnet import nd as nd\n"),
    ("", "from mxnet import nd  # noqa: F401\n"),
    ("", "from mxnet import nd  # noqa\n"),
    ("", "from mxnet import nd  # pylint: disable=unused-import\n"),
    ("\n\ndef get(name):\n    return globals()[name]\n", IMPORT),
    ("\n\ndef get(name):\n    return vars()[name]\n", IMPORT),
    ("\n\ndef run(text):\n    return eval(text)\n", IMPORT),
    ("\n\ndef __getattr__(name):\n    return name\n", IMPORT),
    ("\n\ndef helper(a: 'nd.NDArray') -> 'nd.NDArray':\n    return a\n", IMPORT),
    ("\n\ndef helper(a):\n    return typing.cast('nd.NDArray', a)\n", IMPORT),
    ("\n\ndef helper():\n    return nd.zeros((1,))\n", IMPORT),
])
def test_an_import_that_may_still_be_needed_stays(tail, import_line):
    source = module(tail, import_line)
    assert import_line in fixed(source)


def test_imports_of_a_package_init_are_its_api():
    assert IMPORT in fixed(module(), "pkg/__init__.py")


def test_prose_naming_the_module_does_not_keep_it():
    source = module('\n\ndef helper(a):\n    """Return the nd array a."""\n    return a\n')
    assert IMPORT not in fixed(source)


def test_the_console_script_keeps_an_exported_import(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(module('\n__all__ = ["Net", "nd"]\n'))
    done = subprocess.run([sys.executable, "-m", "hyblint", "--fix", str(path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    text = path.read_text()
    assert "return F.relu(x)" in text and IMPORT in text
