"""`hyblint verify` on models whose constructor raises: the block could not be built, with the
error, rather than a module that failed to import."""
import json
import subprocess
import sys
import textwrap

BROKEN_MODEL = textwrap.dedent("""\
    from mxnet.gluon import nn


    class Model(nn.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.body = nn.Dense(4)
                raise ValueError("unknown backbone 'resnet9000'")

        def hybrid_forward(self, F, x):
            return self.body(x)
    """)


def verify(*argv, cwd):
    return subprocess.run([sys.executable, "-m", "hyblint", "verify", *map(str, argv)], cwd=cwd,
                          capture_output=True, text=True, timeout=300)


def test_a_factory_whose_model_constructor_raises_reports_the_block_not_built(tmp_path):
    (tmp_path / "zoo.py").write_text(BROKEN_MODEL + "\n\ndef models():\n    return Model()\n")
    done = verify("--factory", "zoo:models", "--format", "json", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    (result,) = json.loads(done.stdout)
    assert result["status"] == "not-built"
    assert result["detail"] == "could not build Model: ValueError: unknown backbone 'resnet9000'"
    assert result["line"] == 9
    text = verify("--factory", "zoo:models", cwd=tmp_path).stdout
    assert "not built" in text and "module failed to import" not in text


def test_a_module_that_builds_a_failing_model_when_imported_names_the_block(tmp_path):
    path = tmp_path / "script.py"
    path.write_text(BROKEN_MODEL + "\n\nnet = Model()\n")
    done = verify(path, cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "module failed to import" not in done.stdout
    assert "could not build Model when the module was imported: ValueError: unknown backbone 'resnet9000'" \
        in done.stdout
    assert done.stdout.rstrip().endswith("1 block: 1 not built.")
