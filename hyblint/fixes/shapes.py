"""HYB002's rewrites: shape idioms as reshape special codes and `*_like` operators."""
from __future__ import annotations

from typing import Optional

import libcst as cst

from hyblint.diagnostics import Applicability
from hyblint.rules.base import CstFix


def shape_fix(node: cst.Attribute, rule) -> Optional[CstFix]:
    return None
