"""HYB005's rewrites: item assignment as rebinding or F.where with a shape-free mask."""
from __future__ import annotations

from typing import Optional

import libcst as cst

from hyblint.rules.base import CstFix


def item_assignment_fix(node: cst.Assign, target: cst.Subscript, rule) -> Optional[CstFix]:
    return None
