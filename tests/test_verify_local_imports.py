"""A verify answer depends on the project modules a module imports: the result cache keys them,
transitively, and nothing installed or outside the project."""
import textwrap

from hyblint.verify.local_imports import imports_digest, local_imports

from tests.test_verify_scale import counting, verify


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


def test_absolute_relative_and_transitive_imports_are_followed(tmp_path):
    pkg = tmp_path / "pkg"
    write(pkg / "__init__.py", "")
    write(pkg / "layers" / "__init__.py", "from .conv import Conv\n")
    write(pkg / "layers" / "conv.py", "from ..util import helper\n")
    write(pkg / "util.py", "import numpy\nimport os.path\n")
    write(pkg / "other.py", "")
    model = write(pkg / "model.py", "from pkg.layers import conv\nfrom . import missing\nimport mxnet\n")
    found = local_imports(model, model.read_text())
    names = sorted(str(p.relative_to(tmp_path.resolve())) for p in found)
    assert names == ["pkg/__init__.py", "pkg/layers/__init__.py", "pkg/layers/conv.py", "pkg/util.py"]


def test_a_sibling_module_outside_any_package_is_followed(tmp_path):
    write(tmp_path / "helpers.py", "X = 1\n")
    model = write(tmp_path / "net.py", "from helpers import X\n")
    assert local_imports(model, model.read_text()) == [(tmp_path / "helpers.py").resolve()]


def test_the_digest_changes_with_an_imported_file_only(tmp_path):
    helper = write(tmp_path / "helpers.py", "X = 1\n")
    write(tmp_path / "unrelated.py", "Y = 1\n")
    model = write(tmp_path / "net.py", "import helpers\n")
    before = imports_digest(model, model.read_text())
    (tmp_path / "unrelated.py").write_text("Y = 2\n")
    assert imports_digest(model, model.read_text()) == before
    helper.write_text("X = 2\n")
    assert imports_digest(model, model.read_text()) != before


def test_a_module_that_does_not_parse_imports_nothing(tmp_path):
    model = write(tmp_path / "net.py", "import helpers\ndef (\n")
    write(tmp_path / "helpers.py", "")
    assert local_imports(model, model.read_text()) == []


def test_verify_runs_a_module_again_when_what_it_imports_changed(tmp_path, monkeypatch):
    src = tmp_path / "src"
    write(src / "scale.py", "FACTOR = 2\n")
    write(src / "net.py", """\
        from mxnet.gluon import nn
        from scale import FACTOR


        class Net(nn.HybridBlock):
            def hybrid_forward(self, F, x):
                return F.relu(x) * FACTOR
        """)
    args = ["--shapes=Net=2x3", "--cache-dir", tmp_path / "cache"]
    calls = counting(monkeypatch)
    verify(src / "net.py", *args)
    verify(src / "net.py", *args)
    assert calls == ["net.py"]
    (src / "scale.py").write_text("FACTOR = 3\n")
    verify(src / "net.py", *args)
    assert calls == ["net.py", "net.py"]


def test_an_installed_package_follows_only_its_own_modules(tmp_path):
    # site-packages: the package's imports of other distributions are the interpreter's
    site = tmp_path / "site-packages"
    write(site / "textpkg-0.10.0.dist-info" / "METADATA", "Name: textpkg\n")
    write(site / "mxnet" / "__init__.py", "from . import ndarray\n")
    write(site / "mxnet" / "ndarray.py", "")
    write(site / "textpkg" / "__init__.py", "")
    write(site / "textpkg" / "utils.py", "import mxnet\n")
    model = write(site / "textpkg" / "model.py", "import mxnet as mx\nfrom .utils import helper\n")
    names = sorted(str(p.relative_to(site.resolve())) for p in local_imports(model, model.read_text()))
    assert names == ["textpkg/__init__.py", "textpkg/utils.py"]
    # the same tree as a project (no installation records): mxnet/ beside it is the project's
    (site / "textpkg-0.10.0.dist-info" / "METADATA").unlink()
    (site / "textpkg-0.10.0.dist-info").rmdir()
    names = sorted(str(p.relative_to(site.resolve())) for p in local_imports(model, model.read_text()))
    assert names == ["mxnet/__init__.py", "mxnet/ndarray.py", "textpkg/__init__.py", "textpkg/utils.py"]
