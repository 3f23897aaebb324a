"""The code `dataclasses` generates, kept per role of process (hyblint.compiled_once)."""
import os
import subprocess
import sys
import textwrap

from hyblint.compiled_once import CompiledOnce, cache_path, compiled_once

PROBE = textwrap.dedent("""\
    import dataclasses, sys
    from hyblint.compiled_once import compiled_once

    with compiled_once("outer") as outer:
        @dataclasses.dataclass(frozen=True)
        class A:
            x: int
        with compiled_once("inner") as inner:
            @dataclasses.dataclass(order=True)
            class B:
                y: str
                z: tuple = ()
        assert dataclasses.exec is outer  # the outer role's hook is back
    assert "exec" not in vars(dataclasses)
    assert A(1) == A(1) and hash(A(1)) == hash(A(1)) and B("a") < B("b") and repr(B("a")) == "B(y='a', z=())"
    print(outer.compiled, outer.reused, inner.compiled, inner.reused)
    """)


def run_probe(prefix):
    env = dict(os.environ, PYTHONPYCACHEPREFIX=str(prefix))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    done = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True)
    return tuple(map(int, done.stdout.split()))


def role_files(prefix):
    return sorted(f for _, _, files in os.walk(prefix) for f in files if "-dataclasses." in f)


def test_each_role_keeps_its_own_code_and_the_second_start_compiles_nothing(tmp_path):
    outer_compiled, _, inner_compiled, _ = run_probe(tmp_path)
    assert outer_compiled >= 3 and inner_compiled >= 5  # (__init__, __repr__, __eq__, order...)
    tag = sys.implementation.cache_tag
    assert role_files(tmp_path) == ["inner-dataclasses.%s.bin" % tag, "outer-dataclasses.%s.bin" % tag]
    assert run_probe(tmp_path) == (0, outer_compiled, 0, inner_compiled)


def test_a_file_keeps_what_other_imports_of_its_role_compiled_until_it_is_mostly_stale(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "pycache_prefix", str(tmp_path))
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    path = cache_path("probe")
    first = CompiledOnce(path)
    for number in range(2):
        first("def f%d(): pass" % number, {})
    first.save()
    second = CompiledOnce(path)
    second("def g(): pass", {})  # another command of the role: what the first used stays
    second.save()
    assert len(CompiledOnce(path).codes) == 3
    third = CompiledOnce(path)
    third("def h(): pass", {})  # four entries, one used: the old ones go
    third.save()
    assert len(CompiledOnce(path).codes) == 1


def test_another_hook_is_left_alone(monkeypatch):
    import dataclasses

    def theirs(source, globals=None, locals=None):
        return exec(source, globals, locals)
    monkeypatch.setattr(dataclasses, "exec", theirs, raising=False)
    with compiled_once("anything") as hook:
        assert hook is None and dataclasses.exec is theirs
    assert dataclasses.exec is theirs


def test_the_console_script_keeps_its_processes_code(tmp_path):
    """A check of a tree large enough for worker processes: the main process's and the checker's
    files are written once; the next run reads them and writes nothing."""
    tree = tmp_path / "tree"
    tree.mkdir()
    for number in range(30):
        (tree / ("m%d.py" % number)).write_text(
            "from mxnet.gluon import HybridBlock\n\nclass B%d(HybridBlock):\n"
            "    def hybrid_forward(self, F, x):\n        return x.shape[0]\n" % number)
    prefix = tmp_path / "cache"
    env = dict(os.environ, PYTHONPYCACHEPREFIX=str(prefix))
    env.pop("PYTHONDONTWRITEBYTECODE", None)

    def check():
        done = subprocess.run([sys.executable, "-m", "hyblint", "check", "--no-cache", str(tree)], env=env,
                              capture_output=True, text=True, cwd=str(tmp_path))
        assert done.returncode == 1 and done.stdout.count("HYB002") == 30, done.stdout + done.stderr
        return {f: os.stat(os.path.join(d, f)).st_mtime_ns for d, _, files in os.walk(prefix)
                for f in files if "-dataclasses." in f}
    first = check()
    tag = sys.implementation.cache_tag
    assert {"main-dataclasses.%s.bin" % tag, "checker-dataclasses.%s.bin" % tag,
            "libcst-dataclasses.%s.bin" % tag} <= set(first)
    assert check() == first
