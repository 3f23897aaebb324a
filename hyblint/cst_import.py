"""Import libcst with the code its dataclasses generate compiled once, not on every start.

libcst declares its two hundred node classes as frozen dataclasses: compiling the functions that
`dataclasses` writes for them is half of libcst's import (0.07 of 0.13 s here), which every check
that reaches libcst would pay again (a pre-commit hook on a few files, each checker process of a
large run, the language server's start). See `hyblint.compiled_once`: libcst's code has a cache file
of its own, whichever process imports it.
"""
from __future__ import annotations

import sys

from hyblint.compiled_once import compiled_once

# How this process imported libcst: (functions whose code came from the cache, functions compiled).
imported = (0, 0)


def import_libcst() -> None:
    """Imports libcst (once per process), its dataclasses' code from the cache when it is there."""
    global imported
    if "libcst" in sys.modules:
        return
    with compiled_once("libcst") as hook:
        import libcst  # noqa: F401
    if hook is not None:
        imported = (hook.reused, hook.compiled)


import_libcst()  # (importing this module is what imports libcst: see the modules that import it first)
