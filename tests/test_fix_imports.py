"""HYB009's fix drops an import only where the name is provably unused and not exported: an
unused import is harmless, a missing one breaks the module or its importers."""
import subprocess
import sys

import pytest

from hyblint.fixer import fix_source
from hyblint.fixes.imports import prune_unused_imports
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


@pytest.mark.parametrize("import_line, left", [
    ("from mxnet import gluon, nd\n", "from mxnet import gluon\n"),
    ("from mxnet import nd, gluon\n", "from mxnet import gluon\n"),
    ("from mxnet import (\n    gluon,  # the model zoo\n    nd,\n)\n", "from mxnet import (\n    gluon,  # the model zoo\n)\n"),
    ("import mxnet.ndarray as nd\n", ""),
])
def test_only_the_unused_name_of_an_import_goes(import_line, left):
    tail = "\n\ndef zoo():\n    return gluon\n" if "gluon" in import_line else ""
    source = "# the model\n" + module(tail, import_line)
    after = fixed(source)
    assert after.startswith("# the model\n")
    assert left in after and import_line not in after
    rest = after.replace(left, "", 1) if left else after
    assert rest == source.replace(import_line, "", 1).replace("return nd.relu(x)", "return F.relu(x)")


def test_line_endings_are_kept():
    source = module().replace("\n", "\r\n")
    after = fixed(source)
    assert IMPORT.replace("\n", "\r\n") not in after and "\n" not in after.replace("\r\n", "")
    assert after == source.replace("from mxnet import nd\r\n", "").replace("nd.relu", "F.relu")


def test_a_byte_order_mark_is_kept():
    before = "\ufeff" + module()
    after = prune_unused_imports(before, before.replace("nd.relu", "F.relu"))
    assert after == "\ufeff" + module().replace(IMPORT, "").replace("nd.relu", "F.relu")


def test_an_import_nested_in_a_statement_is_left_alone():
    source = module("\n\nif True:\n    from mxnet import nd\n")
    after = fixed(source)
    assert IMPORT not in after.split("\n\n")[0] and "if True:\n    from mxnet import nd\n" in after


@pytest.mark.parametrize("import_line, left", [
    ("from mxnet import (\n    gluon,  # the zoo\n    nd\n)\n", "from mxnet import (\n    gluon,  # the zoo\n)\n"),
    ("from mxnet import (gluon,  # the zoo\n                   nd)\n", "from mxnet import (gluon,  # the zoo\n)\n"),
    ("from mxnet import (\n    nd,\n    gluon,  # the zoo\n)\n", "from mxnet import (\n    gluon,  # the zoo\n)\n"),
    ("from mxnet import (gluon, nd)\n", "from mxnet import (gluon)\n"),
])
def test_comments_in_a_parenthesized_import_are_kept(import_line, left):
    after = fixed(module("\n\ndef zoo():\n    return gluon\n", import_line))
    assert left in after
