"""MXNet's control-flow operators: `_foreach`, `_while_loop` and `_cond`, with MXNet 1.9.1's
attributes. Each node runs graphs of its own (MXNet's `subgraphs`): the declarations here are
templates that `OpDef.with_subgraphs` binds to a node's graphs (runtime/control_flow.py traces
them from the user's Python functions; load_json reads them from the JSON graph).

Shape and type inference run the graphs' own inference. MXNet 1.9.1 infers shapes for _foreach
only (while_loop and cond find theirs when they run); here all three infer what their graphs
decide, and while_loop's stacked outputs have `max_iterations` rows, as its run gives them.
"""
from __future__ import annotations

from typing import List, Optional, Sequence

from runtime.kernels import control_flow as k
from runtime.registry import Attr, declare, int_, shape_


def _locs(name: str) -> Attr:
    return Attr(name, shape_, required=True)


def _gather(values: Sequence, locs: Sequence[int]) -> list:
    return [values[p] for p in locs]


def _completes(known, found) -> bool:
    """Whether what a graph found for an input says more than what the node knew: an unknown
    shape or dtype, or a shape with unknown sizes (0, or -1) that the graph's filled in."""
    if found is None:
        return False
    if known is None:
        return True
    if isinstance(known, tuple) and isinstance(found, (tuple, list)) and len(known) == len(found):
        return any(d in (0, -1) for d in known) and all(d in (0, -1, f) for d, f in zip(known, found))
    return False


def _scatter(completed: list, locs: Sequence[int], found: Sequence) -> None:
    """What a graph found for its inputs, back at the node's input positions it completes."""
    for position, value in zip(locs, found):
        if _completes(completed[position], value):
            completed[position] = tuple(value) if isinstance(value, (tuple, list)) else value


# ---- _foreach
def _foreach_shapes(in_shapes, attrs, graphs=()):
    body, = graphs
    n_data, n_states = len(attrs["in_data_locs"]), len(attrs["in_state_locs"])
    feed: List[Optional[tuple]] = [None] * len(body.names)
    length = None
    for i, loc in enumerate(attrs["in_data_locs"]):
        shape = in_shapes[i]
        if shape is not None:
            length = shape[0]
            feed[loc] = tuple(shape[1:]) if len(shape) > 1 else (1,)  # a 1-D array's steps are (1,)
    for i, loc in enumerate(attrs["in_state_locs"]):
        feed[loc] = in_shapes[n_data + i]
    for i, loc in enumerate(attrs["remain_locs"]):
        feed[loc] = in_shapes[n_data + n_states + i]
    found, out = body.infer_shapes(feed)
    completed = list(in_shapes)
    if length is not None:
        for i, loc in enumerate(attrs["in_data_locs"]):
            if completed[i] is None and found[loc] is not None:
                completed[i] = (length,) + tuple(found[loc])
    for i, loc in enumerate(attrs["in_state_locs"]):
        state = found[loc] if found[loc] is not None else out[attrs["num_out_data"] + i]
        _scatter(completed, [n_data + i], [state])
    _scatter(completed, range(n_data + n_states, len(completed)), [found[loc] for loc in attrs["remain_locs"]])
    num_out_data = attrs["num_out_data"]
    outputs = [None if length is None or shape is None else (length,) + tuple(shape) for shape in out[:num_out_data]]
    outputs += [tuple(s) if s is not None else None for s in out[num_out_data:]]
    return completed, outputs


def _foreach_types(in_dtypes, attrs, names, graphs=()):
    body, = graphs
    n_data, n_states = len(attrs["in_data_locs"]), len(attrs["in_state_locs"])
    feed: List[Optional[str]] = [None] * len(body.names)
    groups = ((attrs["in_data_locs"], 0), (attrs["in_state_locs"], n_data), (attrs["remain_locs"], n_data + n_states))
    for locs, start in groups:
        for i, loc in enumerate(locs):
            feed[loc] = in_dtypes[start + i]
    found, out = body.infer_types(feed)
    completed = list(in_dtypes)
    for locs, start in groups:
        for i, loc in enumerate(locs):
            if completed[start + i] is None:
                completed[start + i] = found[loc]
    return completed, list(out)


declare("_foreach", ("*data",),
        [Attr("num_outputs", int_, required=True), Attr("num_out_data", int_, required=True),
         _locs("in_state_locs"), _locs("in_data_locs"), _locs("remain_locs")],
        kernel=k.foreach, infer=_foreach_shapes, types=_foreach_types, gradient=k.foreach_gradient,
        num_outputs=lambda attrs: attrs["num_outputs"], wants_training=True)


# ---- _while_loop
def _looped(infer: str, given, attrs, graphs, stacked):
    """What while_loop's graphs infer (`infer`: their "infer_shapes" or "infer_types"): the
    inputs completed, and the outputs, the stacked ones through `stacked`."""
    cond, func = graphs
    completed = list(given)
    found, out = getattr(func, infer)(_gather(given, attrs["func_input_locs"]))
    _scatter(completed, attrs["func_input_locs"], found)
    cond_found, _ = getattr(cond, infer)(_gather(completed, attrs["cond_input_locs"]))
    _scatter(completed, attrs["cond_input_locs"], cond_found)
    num_out_data = attrs["num_out_data"]
    outputs = [stacked(value) for value in out[:num_out_data]]
    for i, loc in enumerate(attrs["func_var_locs"]):
        value = out[num_out_data + i]
        outputs.append(tuple(value) if isinstance(value, (tuple, list)) else value if value is not None
                       else completed[attrs["func_input_locs"][loc]])
    return completed, outputs


def _while_shapes(in_shapes, attrs, graphs=()):
    rows = attrs["max_iterations"]
    return _looped("infer_shapes", in_shapes, attrs, graphs, lambda s: None if s is None else (rows,) + tuple(s))


def _while_types(in_dtypes, attrs, names, graphs=()):
    return _looped("infer_types", in_dtypes, attrs, graphs, lambda dtype: dtype)


declare("_while_loop", ("*data",),
        [Attr("num_outputs", int_, required=True, low=1), Attr("num_out_data", int_, required=True, low=0),
         Attr("max_iterations", int_, required=True, low=1), _locs("cond_input_locs"), _locs("func_input_locs"),
         _locs("func_var_locs")],
        kernel=k.while_loop, infer=_while_shapes, types=_while_types, gradient=k.while_loop_gradient,
        num_outputs=lambda attrs: attrs["num_outputs"], wants_training=True)


# ---- _cond
def _branches(infer: str, given, attrs, graphs):
    cond, then_branch, else_branch = graphs
    completed = list(given)
    outputs = [None] * attrs["num_outputs"]
    for graph, locs in ((cond, "cond_input_locs"), (then_branch, "then_input_locs"),
                        (else_branch, "else_input_locs")):
        found, out = getattr(graph, infer)(_gather(completed, attrs[locs]))
        _scatter(completed, attrs[locs], found)
        if graph is not cond:
            outputs = [o if o is not None else (tuple(f) if isinstance(f, (tuple, list)) else f)
                       for o, f in zip(outputs, out)]
    return completed, outputs


def _cond_shapes(in_shapes, attrs, graphs=()):
    return _branches("infer_shapes", in_shapes, attrs, graphs)


def _cond_types(in_dtypes, attrs, names, graphs=()):
    return _branches("infer_types", in_dtypes, attrs, graphs)


declare("_cond", ("*data",),
        [Attr("num_outputs", int_, required=True, low=1), _locs("cond_input_locs"), _locs("then_input_locs"),
         _locs("else_input_locs")],
        kernel=k.cond, infer=_cond_shapes, types=_cond_types, gradient=k.cond_gradient,
        num_outputs=lambda attrs: attrs["num_outputs"], wants_training=True)
