"""`hyblint verify --repro-dir` writes a standalone script per failing or diverging block, which
fails the same way when run: on hyblint's runtime here, and on real MXNet 1.9.1 where the
interpreter named by HYBLINT_MXNET_PYTHON has it."""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

MODULE = textwrap.dedent("""\
    import numpy as np
    from mxnet.gluon import nn


    class Counter(nn.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.step = 0

        def hybrid_forward(self, F, x):
            self.step += 1
            return x * self.step


    class Bias(nn.HybridBlock):
        def hybrid_forward(self, F, x):
            return x + F.ones((1, 3))


    class Draw(nn.HybridBlock):
        def hybrid_forward(self, F, x):
            return x * np.random.uniform()


    class Fine(nn.HybridBlock):
        def hybrid_forward(self, F, x):
            return F.relu(x)


    if __name__ == "__main__":
        raise SystemExit("the module's own main must not run in a reproducer")
    """)
EXPECTED = {
    "repro_blocks_Counter.py": "AssertionError: frozen-state (second call)",
    "repro_blocks_Bias.py": "MXNetError",
    "repro_blocks_Draw.py": "AssertionError: frozen-random (other Python seed)",
}
INTERPRETERS = [("runtime", sys.executable, ["--runtime"])]
if os.environ.get("HYBLINT_MXNET_PYTHON"):
    INTERPRETERS.append(("mxnet", os.environ["HYBLINT_MXNET_PYTHON"], []))


@pytest.fixture(scope="module")
def scripts(tmp_path_factory):
    folder = tmp_path_factory.mktemp("repro")
    (folder / "blocks.py").write_text(MODULE)
    done = subprocess.run([sys.executable, "-m", "hyblint", "verify", "blocks.py", "--repro-dir", "out",
                           "--shapes", "Counter=1x3", "--shapes", "Bias=1x3", "--shapes", "Draw=1x3",
                           "--shapes", "Fine=1x3"], cwd=folder, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "3 reproducers written to out" in done.stderr
    return folder / "out"


def test_one_script_per_block_that_goes_wrong(scripts):
    assert sorted(p.name for p in scripts.iterdir()) == sorted(EXPECTED)


@pytest.mark.parametrize("name, python, extra", INTERPRETERS, ids=[i[0] for i in INTERPRETERS])
def test_each_script_fails_the_way_verify_said(scripts, tmp_path, name, python, extra):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    for script, words in EXPECTED.items():
        # run from elsewhere, on a copy: the script needs nothing beside it
        copy = tmp_path / script
        copy.write_text((scripts / script).read_text())
        done = subprocess.run([python, str(copy), *extra], cwd=tmp_path, capture_output=True, text=True,
                              env=env, timeout=300)
        assert done.returncode == 1, (script, done.stdout, done.stderr)
        last = done.stderr.strip().splitlines()[-1]
        assert words in last, (script, last)
        if script == "repro_blocks_Bias.py":
            assert "Incompatible attr" in last and "expected [3,3], got [1,3]" in last, last


@pytest.mark.parametrize("name,expected", [
    ("Net", "m.Net()"),
    ("get_net()", "m.get_net()"),
    ("resnet18(pretrained=False)", "m.resnet18(pretrained=False)"),
    ("ssd_300(pretrained=False, pretrained_base=False)", "m.ssd_300(pretrained=False, pretrained_base=False)"),
    ("net(x=__import__('os'))", None),  # only the calls discovery makes are written into a script
])
def test_a_candidate_is_built_in_the_script_as_verify_built_it(name, expected):
    from hyblint.verify.repro import build_expression
    assert build_expression(name) == expected
