"""The helpers that model-zoo code imports from MXNet (MXNet's own model store, GluonCV's losses):
present in the runtime and answering as MXNet 1.9.1 does (values recorded from it)."""
import os

import numpy as np
import pytest

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


def test_amp_state_as_before_amp_init():
    # MXNet 1.9.1: `from mxnet.contrib.amp import amp` -> amp._amp_initialized is False
    with runtime.as_mxnet() as mx:
        from mxnet.contrib.amp import amp
        assert amp._amp_initialized is False and amp._amp_loss_scale_initialized is False
        assert mx.contrib.amp.amp is amp
        with pytest.raises(mx.base.MXNetError):
            amp.init()


# MXNet 1.9.1's answers to the calls in test_class_registry_as_mxnet, recorded with its `mxnet.registry`
REGISTRY_RECORDED = [["a", "aa", "bee"], 3, 4, 5, 6, 7, True,
                     "zz is not registered. Please register with thing.register first",
                     "thing is already an instance. Additional arguments are invalid",
                     "Can only register subclass of Base", 1]


def test_class_registry_as_mxnet():
    import warnings

    with runtime.as_mxnet():
        from mxnet import registry

    class Base:
        pass

    class A(Base):
        def __init__(self, x=1):
            self.x = x

    register = registry.get_register_func(Base, "thing")
    create = registry.get_create_func(Base, "thing")
    register(A)
    registry.get_alias_func(Base, "thing")("aa", "Bee")(A)
    got = [sorted(registry.get_registry(Base)), create("A", 3).x, create(thing="a", x=4).x,
           create({"thing": "bee", "x": 5}).x, create('["aa", {"x": 6}]').x, create('{"thing": "a", "x": 7}').x]
    a = A()
    got.append(create(a) is a)
    for bad in (lambda: create("zz"), lambda: create(a, 1), lambda: register(int)):
        with pytest.raises(AssertionError) as caught:
            bad()
        got.append(str(caught.value))
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        register(A, "aa")
    got.append(len(seen))
    assert got == REGISTRY_RECORDED


def test_what_gluonnlp_takes_from_mxnet_at_import():
    # GluonNLP 0.10 registers its models' checksums, an initializer of its own, and pickles batches
    import pickle

    from runtime import initializer, nd
    from runtime.gluon.data import dataloader
    from runtime.gluon.model_zoo import model_store
    model_store._model_sha1.update({"tiny_lm": "0123456789abcdef"})
    assert model_store.short_hash("tiny_lm") == "01234567"

    @initializer.register
    class Halves(initializer.Initializer):
        def _init_weight(self, name, array):
            array[:] = 0.5
    made = initializer.create('["halves", {}]')
    assert isinstance(made, Halves) and isinstance(initializer.create("halves"), Halves)
    batch = [nd.ones((2,)), (nd.zeros((1,)), 3)]
    moved = dataloader._as_in_context(batch, runtime.cpu_pinned())
    assert moved[0].context == runtime.cpu_pinned() and moved[1][1] == 3
    assert pickle.loads(pickle.dumps(moved[0])).asnumpy().tolist() == [1, 1]
    assert dataloader.ForkingPickler is not None


def test_the_names_mxnets_own_gluon_modules_import():
    # mxnet/gluon/rnn and nn import these (values recorded from MXNet 1.9.1: _indent('a\nb', 2) is
    # 'a\n  b', a single line is left alone, tensor_types is (Symbol, NDArray))
    from runtime.gluon import nn, tensor_types
    from runtime.gluon.nn import activations
    assert utils._indent("a\nb", 2) == "a\n  b" and utils._indent("a", 2) == "a"
    assert tensor_types == (runtime.sym.Symbol, runtime.nd.NDArray)
    assert activations.LeakyReLU is nn.LeakyReLU and activations.Activation is nn.Activation
