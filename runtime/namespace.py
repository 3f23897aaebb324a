"""What `runtime.nd` and `runtime.sym` share: both are generated from the registry the same way,
differing only in the function made for each operator and in a few helpers of their own."""
from __future__ import annotations

import types
from typing import Callable, Dict, Tuple

from runtime.registry import REGISTRY

SUBSPACES = ("contrib", "linalg", "random", "image", "op", "_internal")


def operator_functions(function_for: Callable[[str], Callable]) -> Tuple[Dict, Dict[str, Dict]]:
    """(top-level functions, {sub-namespace: functions}) for every registered name and alias:
    `_contrib_box_nms` / `contrib.box_nms` appear as `contrib.box_nms`, `_linalg_gemm2` as `linalg.gemm2`."""
    top: Dict[str, Callable] = {}
    subs: Dict[str, Dict[str, Callable]] = {name: {} for name in SUBSPACES}
    for name in REGISTRY:
        if name.startswith(("_contrib_", "contrib.")):
            subs["contrib"][name.split(".", 1)[1] if "." in name else name[len("_contrib_"):]] = function_for(name)
        elif name.startswith("_image_"):
            subs["image"][name[len("_image_"):]] = function_for(name)
        elif name.startswith(("_linalg_", "linalg.", "linalg_")):
            subs["linalg"][name.split(".", 1)[1] if "." in name else name.split("_", 2)[-1]] = function_for(name)
        if "." not in name:
            top[name] = function_for(name)
            if name.startswith("_"):  # MXNet's `nd._internal` / `sym._internal` hold the underscored operators
                subs["_internal"][name] = top[name]
    top["split_v2"] = _split_v2(function_for)
    return top, subs


def add_composites(top: Dict, subs: Dict[str, Dict], function_for: Callable[[str], Callable], eager: bool) -> None:
    """The front end's compositions of operators (`contrib.isnan`, `hypot`...), see runtime.composites."""
    from runtime import composites
    for sub, functions in composites.shared(function_for, eager).items():
        (subs[sub] if sub else top).update(functions)
    subs["random"].update(composites.random(function_for, eager))
    from runtime import attention
    subs["contrib"].update(attention.functions(function_for))
    if eager:
        top.update(composites.eager_only(function_for))


def _split_v2(function_for):
    def split_v2(ary, indices_or_sections, axis=0, squeeze_axis=False):
        if isinstance(indices_or_sections, int):
            return function_for("_split_v2")(ary, axis=axis, squeeze_axis=squeeze_axis,
                                             sections=indices_or_sections)
        return function_for("_split_v2")(ary, indices=(0,) + tuple(indices_or_sections), axis=axis,
                                         squeeze_axis=squeeze_axis)
    return split_v2


def build_module(name: str, doc: str, top: Dict, subs: Dict[str, Dict]) -> types.ModuleType:
    module = types.ModuleType(name, doc)
    subs["op"].update(top)
    module.__dict__.update(top)
    for sub, functions in subs.items():
        child = types.ModuleType(name + "." + sub)
        child.__dict__.update(functions)
        setattr(module, sub, child)
    return module
