"""The rule registry: one module per rule, in code order."""
from __future__ import annotations

from typing import Dict, Type

from hyblint.rules.base import Rule
from hyblint.rules.hyb001_tensor_indexing import TensorIndexing
from hyblint.rules.hyb002_shape_access import ShapeAccess
from hyblint.rules.hyb003_dtype_access import DtypeAccess
from hyblint.rules.hyb004_context_access import ContextAccess
from hyblint.rules.hyb005_item_assignment import ItemAssignment
from hyblint.rules.hyb006_inplace_operator import InplaceOperator
from hyblint.rules.hyb007_numpy_conversion import NumpyConversion
from hyblint.rules.hyb008_tensor_control_flow import TensorControlFlow
from hyblint.rules.hyb009_imperative_namespace import ImperativeNamespace
from hyblint.rules.hyb010_print_tensor import PrintTensor
from hyblint.rules.hyb011_reshape_positional import ReshapePositional
from hyblint.rules.hyb012_implicit_broadcast import ImplicitBroadcast
from hyblint.rules.hyb013_trace_time_branch import TraceTimeBranch
from hyblint.rules.hyb014_clipped_index import ClippedIndex

ALL_RULES: Dict[str, Type[Rule]] = {
    rule.code: rule
    for rule in (TensorIndexing, ShapeAccess, DtypeAccess, ContextAccess, ItemAssignment, InplaceOperator,
                 NumpyConversion, TensorControlFlow, ImperativeNamespace, PrintTensor, ReshapePositional,
                 ImplicitBroadcast, TraceTimeBranch, ClippedIndex)
}


def get_rule(code: str) -> Type[Rule]:
    """The rule with this code (case-insensitive) or by its name; KeyError if there is none."""
    wanted = code.strip()
    for rule in ALL_RULES.values():
        if rule.code == wanted.upper() or rule.name == wanted.lower():
            return rule
    raise KeyError(code)
