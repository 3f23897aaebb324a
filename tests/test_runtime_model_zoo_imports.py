"""The helpers that model-zoo code imports from MXNet (MXNet's own model store, GluonCV's losses):
present in the runtime and answering as MXNet 1.9.1 does (values recorded from it)."""
import os

import numpy as np

import runtime
from runtime import base
from runtime.gluon import loss, utils


def test_data_dir_follows_mxnet_home(monkeypatch):
    monkeypatch.setenv("MXNET_HOME", os.path.join("x", "home"))
    assert base.data_dir() == os.path.join("x", "home")
    monkeypatch.delenv("MXNET_HOME")
    assert base.data_dir() == base.data_dir_default()
    assert base.data_dir_default().endswith(".mxnet") or base.data_dir_default().endswith("mxnet")


def test_repo_url_gets_a_trailing_slash(monkeypatch):
    monkeypatch.setenv("MXNET_GLUON_REPO", "http://repo.example")
    assert utils._get_repo_url() == "http://repo.example/"
    assert utils._get_repo_file_url("gluon/models", "a.zip") == "http://repo.example/gluon/models/a.zip"


def test_brief_print_list_as_mxnet():
    assert utils._brief_print_list(range(10)) == "'0', '1', '2', ..., '6', '7', '8', '9'"
    assert utils._brief_print_list(["a", "b"]) == "'a', 'b'"


def test_replace_file(tmp_path):
    src, dst = tmp_path / "new", tmp_path / "old"
    src.write_text("new")
    dst.write_text("old")
    utils.replace_file(str(src), str(dst))
    assert dst.read_text() == "new" and not src.exists()


def test_loss_helpers_under_mxnet_names():
    nd = runtime.nd
    weighted = loss._apply_weighting(nd, nd.array([[1., 2.], [3., 4.]]), 0.5, nd.array([[1.], [2.]]))
    np.testing.assert_allclose(weighted.asnumpy(), [[0.5, 1.0], [3.0, 4.0]])
    assert loss._reshape_like(nd, nd.array([1., 2.]), nd.zeros((2, 1))).shape == (2, 1)


def test_mxnet_model_store_imports_on_the_runtime():
    with runtime.as_mxnet():
        from mxnet.base import data_dir  # noqa: F401
        from mxnet.gluon.loss import Loss, _apply_weighting, _reshape_like  # noqa: F401
        from mxnet.gluon.utils import _get_repo_url, check_sha1, download, replace_file  # noqa: F401
