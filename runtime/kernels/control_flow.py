"""Kernels of MXNet's control-flow operators (_foreach, _while_loop, _cond) and their gradients.

Each runs graphs of its node (`graphs`: objects with run / values / outputs / gradients, see
runtime/subgraph.py) over NumPy arrays; the locations say which of the node's inputs feeds which
input of a graph, as MXNet's attributes do. Gradients run the forward pass again, keeping every
step's values, then the graphs' gradients from the last step to the first. A forward pass in
training keeps its steps' values for its gradient (with the node's first output: they go when it
does), as MXNet's does, so that a body with Dropout differentiates the masks it drew.
"""
from __future__ import annotations

import weakref
from typing import Dict, List, Optional, Sequence

import numpy as np

from runtime.base import MXNetError


# id of a node's first output -> (a weak reference to it, the values of its forward pass's steps)
_KEPT: Dict[int, tuple] = {}


def _keep(outputs: Sequence[np.ndarray], saved) -> None:
    if outputs:
        key = id(outputs[0])
        _KEPT[key] = (weakref.ref(outputs[0], lambda _, key=key, kept=_KEPT: kept.pop(key, None)), saved)


def _kept(outputs: Sequence[np.ndarray]):
    """The steps' values kept by the forward pass that gave these outputs, if it kept them."""
    entry = _KEPT.get(id(outputs[0])) if len(outputs) else None
    return entry[1] if entry is not None and entry[0]() is outputs[0] else None


def _graphs(graphs, count: int, op_name: str):
    if len(graphs) != count:
        raise MXNetError("Operator %s runs %d subgraph(s), and was given %d" % (op_name, count, len(graphs)))
    return graphs


def _step_slice(array: np.ndarray, step: int) -> np.ndarray:
    """foreach's slice of a data array: row `step` (a 1-D array gives a (1,) slice, as in MXNet)."""
    return array[step:step + 1] if array.ndim == 1 else array[step]


def _add(total: Optional[np.ndarray], grad: Optional[np.ndarray]) -> Optional[np.ndarray]:
    if grad is None:
        return total
    return grad if total is None else total + grad


def _fresh(array: np.ndarray, inputs: Sequence[np.ndarray]) -> np.ndarray:
    """A result is never one of the node's inputs: copied where it is."""
    return array.copy() if any(array is a for a in inputs) else array


def as_condition(array: np.ndarray, what: str) -> bool:
    """A condition graph's output as a truth value: it must hold one element (MXNet's as_bool_scalar)."""
    if array.size != 1:
        raise MXNetError("The output of %s must hold one element, got shape %s" % (what, tuple(array.shape)))
    return bool(array.reshape(-1)[0])


def _step(graph, feed, is_train, outputs: List[list], saved: Optional[list]) -> list:
    """One step of a loop's graph: its results, the first of them (its data outputs) added to
    `outputs`, its values to `saved` (for the gradient) unless that is None."""
    values = graph.values(feed, is_train)
    results = graph.outputs(values)
    if saved is not None:
        saved.append(values)
    for steps, result in zip(outputs, results):
        steps.append(result)
    return results


# ---- foreach
def _foreach_steps(arrays, body, is_train, num_out_data, in_data_locs, in_state_locs, remain_locs, keep):
    n_data, n_states = len(in_data_locs), len(in_state_locs)
    data, states = arrays[:n_data], list(arrays[n_data:n_data + n_states])
    feed: List[Optional[np.ndarray]] = [None] * len(body.names)
    for loc, array in zip(remain_locs, arrays[n_data + n_states:]):
        feed[loc] = array
    length = data[0].shape[0] if data else 0
    outputs: List[list] = [[] for _ in range(num_out_data)]
    saved = []
    for step in range(length):
        for loc, array in zip(in_data_locs, data):
            feed[loc] = _step_slice(array, step)
        for loc, state in zip(in_state_locs, states):
            feed[loc] = state
        states = _step(body, feed, is_train, outputs, saved if keep else None)[num_out_data:]
    return outputs, states, saved


def foreach(*arrays, graphs=(), is_train=False, num_outputs, num_out_data, in_data_locs, in_state_locs,
            remain_locs, num_args=None):
    body, = _graphs(graphs, 1, "_foreach")
    outputs, states, saved = _foreach_steps(arrays, body, is_train, num_out_data, in_data_locs, in_state_locs,
                                            remain_locs, keep=is_train)
    if any(not steps for steps in outputs):
        raise MXNetError("foreach over a data array of length 0 has no outputs to stack")
    results = tuple([np.stack(steps) for steps in outputs] + [_fresh(s, arrays) for s in states])
    if is_train:
        _keep(results, saved)
    return results


def foreach_gradient(inputs, outputs, out_grads, graphs=(), is_train=True, num_outputs=None, num_out_data=0,
                     in_data_locs=(), in_state_locs=(), remain_locs=(), num_args=None):
    body, = _graphs(graphs, 1, "_foreach")
    saved = _kept(outputs)
    if saved is None:
        _, _, saved = _foreach_steps(inputs, body, is_train, num_out_data, in_data_locs, in_state_locs,
                                     remain_locs, keep=True)
    n_data = len(in_data_locs)
    data = inputs[:n_data]
    data_grads = [np.zeros(d.shape, np.result_type(d.dtype, np.float32) if d.dtype.kind in "iub" else d.dtype)
                  for d in data]
    state_grads = list(out_grads[num_out_data:])
    rest_grads: List[Optional[np.ndarray]] = [None] * len(remain_locs)
    for step in range(len(saved) - 1, -1, -1):
        heads = [out_grads[i][step] for i in range(num_out_data)] + state_grads
        grads = body.gradients(saved[step], heads, is_train)
        for k, loc in enumerate(in_data_locs):
            if grads[loc] is not None:
                target = data_grads[k][step:step + 1] if data[k].ndim == 1 else data_grads[k][step]
                target += np.asarray(grads[loc]).reshape(target.shape)
        state_grads = [grads[loc] for loc in in_state_locs]
        for k, loc in enumerate(remain_locs):
            rest_grads[k] = _add(rest_grads[k], grads[loc])
    return data_grads + state_grads + rest_grads


# ---- while_loop
def _while_steps(arrays, cond, func, is_train, max_iterations, num_out_data, cond_input_locs, func_input_locs,
                 func_var_locs, keep):
    cond_in = [arrays[p] for p in cond_input_locs]
    func_in = [arrays[p] for p in func_input_locs]
    # a loop variable that the condition reads too: where it sits among the condition's inputs
    in_cond = []
    for loc in func_var_locs:
        position = func_input_locs[loc]
        in_cond.append([j for j, p in enumerate(cond_input_locs) if p == position])
    outputs: List[list] = [[] for _ in range(num_out_data)]
    saved = []
    for _ in range(max_iterations):
        if not as_condition(cond.run(cond_in, is_train)[0], "while_loop's condition"):
            break
        results = _step(func, func_in, is_train, outputs, saved if keep else None)
        func_in = list(func_in)
        for k, loc in enumerate(func_var_locs):
            func_in[loc] = results[num_out_data + k]
            for j in in_cond[k]:
                cond_in[j] = results[num_out_data + k]
    return outputs, func_in, saved


def while_loop(*arrays, graphs=(), is_train=False, max_iterations, num_outputs, num_out_data, cond_input_locs,
               func_input_locs, func_var_locs, num_args=None):
    cond, func = _graphs(graphs, 2, "_while_loop")
    outputs, func_in, saved = _while_steps(arrays, cond, func, is_train, max_iterations, num_out_data,
                                           cond_input_locs, func_input_locs, func_var_locs, keep=is_train)
    stacked = []
    for i, steps in enumerate(outputs):
        if steps:
            first = steps[0]
            # MXNet's outputs have max_iterations rows whatever the number of steps: the rest are padding
            out = np.zeros((max_iterations,) + first.shape, first.dtype)
            out[:len(steps)] = np.stack(steps)
        else:  # no step ran: the rows' shape and dtype as the body's inference gives them
            shapes, dtypes = _step_signature(func, [arrays[p] for p in func_input_locs])
            if shapes[i] is None:
                raise MXNetError("while_loop ran no step and cannot infer the shape of output %d" % i)
            out = np.zeros((max_iterations,) + tuple(shapes[i]), dtypes[i] or np.float32)
        stacked.append(out)
    results = tuple(stacked + [_fresh(func_in[loc], arrays) for loc in func_var_locs])
    if is_train:
        _keep(results, saved)
    return results


def _step_signature(func, arrays):
    _, shapes = func.infer_shapes([a.shape for a in arrays])
    _, dtypes = func.infer_types([a.dtype.name for a in arrays])
    return shapes, dtypes


def while_loop_gradient(inputs, outputs, out_grads, graphs=(), is_train=True, max_iterations=1, num_outputs=None,
                        num_out_data=0, cond_input_locs=(), func_input_locs=(), func_var_locs=(), num_args=None):
    cond, func = _graphs(graphs, 2, "_while_loop")
    saved = _kept(outputs)
    if saved is None:
        _, _, saved = _while_steps(inputs, cond, func, is_train, max_iterations, num_out_data, cond_input_locs,
                                   func_input_locs, func_var_locs, keep=True)
    in_grads: List[Optional[np.ndarray]] = [None] * len(inputs)
    var_grads = list(out_grads[num_out_data:])
    variables = set(func_var_locs)
    for step in range(len(saved) - 1, -1, -1):
        heads = [out_grads[i][step] for i in range(num_out_data)] + var_grads
        grads = func.gradients(saved[step], heads, is_train)
        for loc, grad in enumerate(grads):
            if loc not in variables:  # a free input: its gradient adds up over the steps
                in_grads[func_input_locs[loc]] = _add(in_grads[func_input_locs[loc]], grad)
        var_grads = [grads[loc] for loc in func_var_locs]  # (None: zeros, for the step before)
    for k, loc in enumerate(func_var_locs):
        in_grads[func_input_locs[loc]] = _add(in_grads[func_input_locs[loc]], var_grads[k])
    return in_grads


# ---- cond
def _branch(arrays, graphs, is_train, cond_input_locs, then_input_locs, else_input_locs):
    cond, then_branch, else_branch = graphs
    taken = as_condition(cond.run([arrays[p] for p in cond_input_locs], is_train)[0], "cond's condition")
    return (then_branch, then_input_locs) if taken else (else_branch, else_input_locs)


def cond(*arrays, graphs=(), is_train=False, num_outputs, cond_input_locs, then_input_locs, else_input_locs,
         num_args=None):
    graphs = _graphs(graphs, 3, "_cond")
    branch, locs = _branch(arrays, graphs, is_train, cond_input_locs, then_input_locs, else_input_locs)
    values = branch.values([arrays[p] for p in locs], is_train)
    results = tuple(_fresh(o, arrays) for o in branch.outputs(values))
    if is_train:
        _keep(results, (branch, locs, values))
    return results


def cond_gradient(inputs, outputs, out_grads, graphs=(), is_train=True, num_outputs=None, cond_input_locs=(),
                  then_input_locs=(), else_input_locs=(), num_args=None):
    graphs = _graphs(graphs, 3, "_cond")
    kept = _kept(outputs)
    if kept is not None:
        branch, locs, values = kept
    else:
        branch, locs = _branch(inputs, graphs, is_train, cond_input_locs, then_input_locs, else_input_locs)
        values = branch.values([inputs[p] for p in locs], is_train)
    in_grads: List[Optional[np.ndarray]] = [None] * len(inputs)
    for position, grad in zip(locs, branch.gradients(values, out_grads, is_train)):
        in_grads[position] = _add(in_grads[position], grad)
    return in_grads
