"""libcst imported with its dataclasses' code compiled once and kept, as Python keeps bytecode."""
import os
import subprocess
import sys
import textwrap

PROBE = textwrap.dedent("""\
    import hyblint.engine, hyblint.cst_import as c, libcst
    source = "def f(x):\\n    return x[0] + 1  # c\\n"
    module = libcst.parse_module(source)
    assert module.code == source and module.deep_equals(libcst.parse_module(source))
    assert libcst.Name("x").deep_equals(libcst.Name("x")) and "Name" in repr(libcst.Name("x"))
    print(*c.imported)
    """)


def run_probe(prefix, *, write=True):
    env = dict(os.environ, PYTHONPYCACHEPREFIX=str(prefix))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if not write:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    done = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True)
    cached, compiled = map(int, done.stdout.split())
    return cached, compiled


def cache_files(prefix):
    return [os.path.join(d, f) for d, _, files in os.walk(prefix) for f in files if f.startswith("libcst-")]


def test_the_second_import_compiles_nothing(tmp_path):
    reused, compiled = run_probe(tmp_path)
    assert compiled > 100  # (a few hundred functions of libcst's node classes; some generated twice)
    (path,) = cache_files(tmp_path)
    assert run_probe(tmp_path) == (reused + compiled, 0)
    # what one import used is all that is kept: the file does not grow
    size = os.path.getsize(path)
    run_probe(tmp_path)
    assert os.path.getsize(path) == size


def test_a_corrupt_cache_is_compiled_again_and_replaced(tmp_path):
    _, compiled = run_probe(tmp_path)
    (path,) = cache_files(tmp_path)
    with open(path, "r+b") as handle:
        handle.seek(40)
        handle.write(b"\xff" * 64)
    assert run_probe(tmp_path)[1] > 0  # (whatever was still read, the import works)
    assert run_probe(tmp_path)[1] == 0


def test_nothing_is_written_where_python_writes_no_bytecode(tmp_path):
    assert run_probe(tmp_path, write=False)[1] > 100
    assert cache_files(tmp_path) == []


def test_a_cache_of_other_objects_is_not_run(tmp_path):
    import importlib.util
    import marshal
    run_probe(tmp_path)
    (path,) = cache_files(tmp_path)
    with open(path, "rb") as handle:
        codes = marshal.loads(handle.read()[len(importlib.util.MAGIC_NUMBER):])
    with open(path, "wb") as handle:  # every digest now names a string, not code
        handle.write(importlib.util.MAGIC_NUMBER + marshal.dumps({key: "x = 1" for key in codes}))
    assert run_probe(tmp_path)[1] > 100  # compiled again, and the import works
    assert run_probe(tmp_path)[1] == 0
