"""libcst's parser, without validating again what it built.

Every libcst node checks itself when it is made (`CSTNode.__post_init__` calls `_validate`: its
parentheses balance, its whitespace is allowed...), which is for trees built by hand: the parser
only builds nodes of valid code, and the checks cost a check an eighth of its parse (libcst's own
source says so where the check is made). So they are left out while a text is parsed, and only
then. Fixes build their nodes by hand, outside, and are checked as always; a parse on another
thread meanwhile is merely checked too.
"""
from __future__ import annotations

import libcst as cst

_VALIDATE = getattr(cst.CSTNode, "__post_init__", None)


def _trusted(self) -> None:
    pass


def parse_module(text: str) -> cst.Module:
    """`libcst.parse_module(text)` (the same tree, the same errors), minus the nodes' own checks."""
    if _VALIDATE is None:  # pragma: no cover - a libcst that no longer validates so
        return cst.parse_module(text)
    cst.CSTNode.__post_init__ = _trusted
    try:
        return cst.parse_module(text)
    finally:
        cst.CSTNode.__post_init__ = _VALIDATE
