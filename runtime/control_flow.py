"""`contrib.foreach`, `contrib.while_loop` and `contrib.cond`, in both namespaces, with MXNet
1.9.1's semantics.

Eagerly (`nd.contrib.*`) they are Python loops and branches over NDArrays, which autograd records
operator by operator. Symbolically (`sym.contrib.*`, a hybridized block) the user's functions are
called once on placeholder variables inside an AttrScope that marks every node they create with
the graph's name (`__subgraph_name__`); the marked nodes reachable from the results are that
graph. Whatever it reads from outside the marked nodes (a block's parameters, a symbol computed
before the loop) is cut: the graph reads a variable named after that output instead, and the
output becomes an input of the control-flow node, as MXNet's cut does. The node then runs the
graph (runtime/ops/control_flow.py).
"""
from __future__ import annotations

import copy
from typing import Dict, List, Tuple

from runtime import attribute
from runtime import name as naming
from runtime.attribute import AttrScope
from runtime.registry import REGISTRY

_SUBGRAPH = "__subgraph_name__"


# ---- nested lists of arrays or symbols, flattened and regrouped (MXNet's `fmt` convention:
# 0 for one item, a count for a Symbol of several outputs, a list for a list)
def _flatten(args, kind, what: str):
    if isinstance(args, kind):
        count = len(args) if _is_symbol(args) else 1
        return [args], int(count if count > 1 else 0)
    if not isinstance(args, (list, tuple)):
        raise AssertionError("%s must be (nested) list of %s, but got %s of type %s"
                             % (what, kind.__name__, args, type(args)))
    flat, fmts = [], []
    for item in args:
        items, fmt = _flatten(item, kind, what)
        flat.extend(items)
        fmts.append(fmt)
    return flat, fmts


def _regroup(args, fmt):
    if isinstance(fmt, int):
        if fmt == 0:
            return args[0], args[1:]
        return args[:fmt], args[fmt:]
    grouped = []
    for inner in fmt:
        item, args = _regroup(args, inner)
        grouped.append(item)
    return grouped, args


def _is_symbol(value) -> bool:
    from runtime.symbol import Symbol
    return isinstance(value, Symbol)


def _check_all(items, kind, message: str) -> None:
    if not all(isinstance(item, kind) for item in items):
        raise AssertionError(message)


def _to_python_scalar(value, type_, what: str):
    if hasattr(value, "asscalar"):
        value = value.asscalar()
    try:
        return type_(value)
    except Exception:  # noqa: BLE001  (MXNet reports any failed conversion so)
        raise ValueError("Cannot convert %s to python %s" % (what, type_.__name__)) from None


def _as_list(value) -> list:
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _step_results(func, loop_vars):
    """func(*loop_vars) as (step outputs, new loop variables): None is no output, tuples are lists."""
    step_output, new_loop_vars = func(*loop_vars)
    step_output = [] if step_output is None else step_output
    new_loop_vars = [] if new_loop_vars is None else new_loop_vars
    if isinstance(step_output, tuple):
        step_output = list(step_output)
    if isinstance(new_loop_vars, tuple):
        new_loop_vars = list(new_loop_vars)
    return step_output, new_loop_vars


# ---- eager: plain Python over NDArrays
def foreach_eager(body, data, init_states):
    import runtime
    from runtime.ndarray import NDArray
    flat, _ = _flatten(data, NDArray, "foreach input")
    _check_all(flat, NDArray, "data should be an NDArray or a nested list of NDArrays")
    flat, _ = _flatten(init_states, NDArray, "foreach states")
    _check_all(flat, NDArray, "init_states should be an NDArray or a nested list of NDArrays")
    single = isinstance(data, NDArray)
    length = data.shape[0] if single else data[0].shape[0]
    states = init_states
    steps = []
    out_fmt = None
    for i in range(length):
        outs, states = body(data[i] if single else [d[i] for d in data], states)
        outs, out_fmt = _flatten(outs, NDArray, "foreach output")
        steps.append(outs)
    outputs = [runtime.nd.stack(*items) for items in zip(*steps)]
    if out_fmt is not None:
        outputs, _ = _regroup(outputs, out_fmt)
    return outputs, states


def while_loop_eager(cond, func, loop_vars, max_iterations=None):
    import runtime
    from runtime.ndarray import NDArray
    if max_iterations is None:
        raise ValueError("max_iterations should be specified")
    max_iterations = _to_python_scalar(max_iterations, int, "max_iteration")
    if len(loop_vars) == 0:
        raise ValueError("loop_vars should contain at least one element")
    single = isinstance(loop_vars, NDArray)
    loop_vars = _as_list(loop_vars)
    steps: List[list] = []
    out_fmt = None
    while len(steps) < max_iterations and _to_python_scalar(cond(*loop_vars), bool, "Return value of cond"):
        step_output, new_loop_vars = _step_results(func, loop_vars)
        new_loop_vars = _as_list(new_loop_vars)
        if len(loop_vars) != len(new_loop_vars):
            raise ValueError("The length of loop_vars should be consistent during the loop")
        loop_vars = new_loop_vars
        step_output, out_fmt = _flatten(step_output, NDArray, "while output")
        steps.append(step_output)
        if len(step_output) != len(steps[0]):
            raise ValueError("Number of elements in step_output should be the same in each step")
    stacked = []
    for i, items in enumerate(zip(*steps), 1):
        rows = [x.expand_dims(0) for x in items]
        if len(steps) != max_iterations:
            # MXNet's rows after the last step are undefined; here they are zeros
            rows.append(runtime.nd.zeros((max_iterations - len(steps),) + tuple(items[0].shape), items[0].context,
                                         dtype=items[0].dtype))
        try:
            stacked.append(runtime.nd.concat(*rows, dim=0))
        except Exception:  # noqa: BLE001  (MXNet says which step disagrees)
            raise ValueError("\n".join(
                ["Shapes of %d-th elements in step_outputs are inconsistent, which are:" % i]
                + ["  Step %d, shape is %s" % (j, str(x.shape)) for j, x in enumerate(rows)])) from None
    if out_fmt is not None:
        stacked, _ = _regroup(stacked, out_fmt)
    return stacked, (loop_vars[0] if single else loop_vars)


def cond_eager(pred, then_func, else_func):
    return then_func() if _to_python_scalar(pred, bool, "pred") else else_func()


# ---- symbolic: graphs traced from the functions, cut out, run by one node
def _unique_graph_name(name: str) -> str:
    """foreach0, foreach1... (inside another control-flow graph: OUTER$foreach0), counted in
    AttrScope._subgraph_names as MXNet does."""
    outer = attribute.current()._attr.get(_SUBGRAPH, "")
    if outer:
        name = outer + "$" + name
    AttrScope._subgraph_names[name] += 1
    return name + str(AttrScope._subgraph_names[name] - 1)


def _placeholder_name(symbol) -> str:
    """The name of the variable standing for an input inside a graph: NAME-INDEX, unlike any the
    cut gives (MXNet's)."""
    node, index = symbol._outputs[0]
    return "%s-%d" % (node.name, index)


def _marked(node, name: str) -> bool:
    return node.extra.get(_SUBGRAPH, "") == name


def _outputs_of_graph(outputs, name: str, states=()) -> list:
    """The graph's outputs then its states: each that is an input of the graph, or not made inside
    it, or a state that is also an output, through an identity (made inside the graph's AttrScope),
    so that the graph's outputs are nodes of its own, distinct from its inputs."""
    import runtime
    from runtime.symbol import Group
    everything = list(outputs) + list(states)
    inputs = set(Group(everything).list_inputs()) if everything else set()
    output_names = {o.name for o in outputs}

    def own(symbol, also=()):
        if symbol.name in inputs or symbol.name in also or not _marked(symbol._outputs[0][0], name):
            return runtime.sym.identity(symbol)
        return symbol
    return [own(o) for o in outputs] + [own(s, output_names) for s in states]


def _cut(graph, name: str):
    """(the graph made of the nodes marked `name`, its cut inputs by variable name: the outputs
    outside that it reads, its variables made inside by name: the original nodes). The user's
    graph is left as it is: the marked nodes are copied."""
    from runtime.symbol import Node, Symbol
    copies: Dict[int, Node] = {}
    cut: Dict[Tuple[int, int], Node] = {}
    outside: Dict[str, tuple] = {}
    originals: Dict[str, Node] = {}

    def edge(child, index):
        if _marked(child, name):
            return copies[id(child)], index
        key = (id(child), index)
        if key not in cut:
            variable = Symbol([(child, index)]).list_outputs()[0]
            cut[key] = Node(None, variable, {}, [])
            outside[variable] = (child, index)
        return cut[key], 0

    for node in _marked_order(graph._outputs, name):
        if node.is_variable:
            copies[id(node)] = Node(None, node.name, {}, [], dict(node.extra))
            originals[node.name] = node
        else:
            copies[id(node)] = Node(node.op, node.name, node.attrs, [edge(c, i) for c, i in node.inputs],
                                    dict(node.extra))
    return Symbol([edge(n, i) for n, i in graph._outputs]), outside, originals


def _marked_order(heads, name: str) -> list:
    """The marked nodes that the heads reach through marked nodes, inputs before their readers."""
    from runtime.symbol import topological
    return topological(heads, keep=lambda node: _marked(node, name))


def _control_node(op_name: str, graphs, inputs, attrs) -> list:
    """The node running `graphs` over `inputs` (node, index pairs): its outputs as Symbols."""
    from runtime.subgraph import Subgraph
    from runtime.symbol import Node, Symbol
    op = REGISTRY[op_name].with_subgraphs([Subgraph(g) for g in graphs])
    parsed = op.parse_attrs(dict(attrs, num_args=len(inputs) + len(graphs)))
    node = Node(op, naming.current().get(None, op_name), parsed, list(inputs), attribute.current().get({}))
    return [Symbol([(node, i)]) for i in range(op.outputs(parsed))]


def foreach_symbolic(body, data, init_states, name="foreach"):
    from runtime.symbol import Group, Symbol, var
    flat_data, data_fmt = _flatten(data, Symbol, "foreach input")
    _check_all(flat_data, Symbol, "data should be a symbol or a nested list of symbols")
    flat_states, state_fmt = _flatten(init_states, Symbol, "foreach states")
    _check_all(flat_states, Symbol, "init_states should be a symbol or a nested list of symbols")
    name = _unique_graph_name(name)
    with AttrScope(**{_SUBGRAPH: name}):
        in_data, _ = _regroup([var(_placeholder_name(s)) for s in flat_data], data_fmt)
        in_states, _ = _regroup([var(_placeholder_name(s)) for s in flat_states], copy.deepcopy(state_fmt))
        outs, states = body(in_data, in_states)
        outs, out_fmt = _flatten(outs, Symbol, "foreach output")
        states, new_state_fmt = _flatten(states, Symbol, "foreach loop_vars")
        if state_fmt != new_state_fmt:
            raise AssertionError("The input and output loop_vars have different format")
        _check_all(outs, Symbol, "the output should be an NDArray or a nested list of NDArrays")
        _check_all(states, Symbol, "the output states should be an NDArray or a nested list of NDArrays")
        graph = Group(_outputs_of_graph(outs, name, states))
    graph, outside, originals = _cut(graph, name)
    names = graph.list_inputs()
    if len(set(names)) != len(names):
        raise AssertionError("The inputs of the subgraph don't have unique names: " + str(names))
    data_names = [_placeholder_name(s) for s in flat_data]
    state_names = [_placeholder_name(s) for s in flat_states]
    for wanted, what in ((data_names, "data"), (state_names, "state")):
        if any(n not in names for n in wanted):
            raise AssertionError("the %s arrays have to be used in the loop body" % what)
    inputs = [s._outputs[0] for s in flat_data + flat_states]
    remain_locs = []
    for loc, input_name in enumerate(names):
        if input_name in outside:
            inputs.append(outside[input_name])
        elif input_name not in data_names and input_name not in state_names:
            inputs.append((originals[input_name], 0))  # a variable made inside the body (a parameter)
        else:
            continue
        remain_locs.append(loc)
    result = _control_node("_foreach", [graph], inputs, dict(
        num_outputs=len(outs) + len(states), num_out_data=len(outs), in_data_locs=[names.index(n) for n in data_names],
        in_state_locs=[names.index(n) for n in state_names], remain_locs=remain_locs))
    outputs, _ = _regroup(result[:len(outs)], out_fmt)
    final_states, _ = _regroup(result[len(outs):], new_state_fmt)
    return outputs, final_states


def _traced(graph_func, args, name: str):
    """(graph, number of data outputs, outputs' format, the graph's name) of graph_func(args)
    -> (outputs, states, outputs' format), traced inside a fresh AttrScope."""
    from runtime.symbol import Group
    name = _unique_graph_name(name)
    with AttrScope(**{_SUBGRAPH: name}):
        outputs, states, out_fmt = graph_func(args)
        graph = Group(_outputs_of_graph(outputs + states, name))
    return graph, len(outputs), out_fmt, name


def while_loop_symbolic(cond, func, loop_vars, max_iterations=None, name="while_loop"):
    from runtime.symbol import Symbol, var
    flat_vars, var_fmt = _flatten(loop_vars, Symbol, "while loop_vars")
    _check_all(flat_vars, Symbol, "loop_vars should be a symbol or a nested list of symbols")
    if max_iterations is None:
        raise ValueError("max_iterations should be specified")
    max_iterations = _to_python_scalar(max_iterations, int, "max_iteration")
    if len(loop_vars) == 0:
        raise ValueError("loop_vars should contain at least one element")

    def placeholders():
        grouped, _ = _regroup([var(_placeholder_name(s)) for s in flat_vars], copy.deepcopy(var_fmt))
        return grouped

    def cond_graph(_):
        result = cond(*placeholders())
        if not isinstance(result, Symbol):
            raise ValueError("Return of cond must be a Symbol")
        return [], [result], None

    def func_graph(_):
        current = placeholders()
        step_output, new_loop_vars = _step_results(func, current)
        step_output, out_fmt = _flatten(step_output, Symbol, "while output")
        new_loop_vars, _ = _flatten(new_loop_vars, Symbol, "while loop_vars")
        if len(current) != len(new_loop_vars):
            raise ValueError("The number of loop_vars should be consistent during the loop")
        return step_output, new_loop_vars, out_fmt

    cond_g, _, _, cond_name = _traced(cond_graph, None, name + "_cond")
    func_g, num_out_data, out_fmt, func_name = _traced(func_graph, None, name + "_func")
    var_index = {_placeholder_name(s): i for i, s in enumerate(flat_vars)}
    inputs: List[tuple] = []
    position: Dict[object, int] = {}
    locs = []
    graphs = []
    for which, (graph, graph_name) in enumerate(((cond_g, cond_name), (func_g, func_name))):
        graph, outside, originals = _cut(graph, graph_name)
        graphs.append(graph)
        input_locs, var_locs = [], [-1] * len(flat_vars)
        for input_name in graph.list_inputs():
            if input_name in var_index:  # a loop variable: one input of the node for both graphs
                key, entry = ("var", var_index[input_name]), flat_vars[var_index[input_name]]._outputs[0]
                var_locs[var_index[input_name]] = len(input_locs)
            elif input_name in outside:
                key, entry = ("cut", which, input_name), outside[input_name]
            else:
                key, entry = ("made", which, input_name), (originals[input_name], 0)
            if key not in position:
                position[key] = len(inputs)
                inputs.append(entry)
            input_locs.append(position[key])
        locs.append((input_locs, var_locs))
    (cond_locs, _), (func_locs, func_var_locs) = locs
    for i, loc in enumerate(func_var_locs, 1):
        if loc == -1:
            raise ValueError("The %d-th loop_var doesn't involve into the computation" % i)
    num_outputs = num_out_data + len(flat_vars)
    result = _control_node("_while_loop", graphs, inputs, dict(
        max_iterations=max_iterations, cond_input_locs=cond_locs, func_input_locs=func_locs,
        func_var_locs=func_var_locs, num_out_data=num_out_data, num_outputs=num_outputs))
    outputs, _ = _regroup(result[:num_out_data], out_fmt) if out_fmt is not None else ([], None)
    final_vars, _ = _regroup(result[num_out_data:], var_fmt)
    return outputs, final_vars


def cond_symbolic(pred, then_func, else_func, name="cond"):
    from runtime.symbol import Symbol

    def traced(function, graph_name):
        def graph_func(_):
            outputs, fmt = _flatten(function(), Symbol, "cond outputs")
            return outputs, [], fmt
        return _traced(graph_func, None, graph_name)

    cond_g, cond_count, _, cond_name = traced(lambda: pred, name + "_pred")
    if cond_count != 1:
        raise ValueError("pred should always be a single output")
    then_g, then_count, then_fmt, then_name = traced(then_func, name + "_then")
    else_g, else_count, _, else_name = traced(else_func, name + "_else")
    if then_count != else_count:
        raise ValueError("Number of outputs differs between then-branch and else-branch")
    inputs: List[tuple] = []
    locs = []
    graphs = []
    for graph, graph_name in ((cond_g, cond_name), (then_g, then_name), (else_g, else_name)):
        graph, outside, originals = _cut(graph, graph_name)
        graphs.append(graph)
        # an input already taken whose node has the variable's name is shared (a variable of the
        # enclosing graph read by several branches), as in MXNet
        taken = {entry[0].name: i for i, entry in enumerate(inputs)}
        input_locs = []
        for input_name in graph.list_inputs():
            if input_name in taken:
                input_locs.append(taken[input_name])
                continue
            inputs.append(outside[input_name] if input_name in outside else (originals[input_name], 0))
            input_locs.append(len(inputs) - 1)
        locs.append(input_locs)
    result = _control_node("_cond", graphs, inputs, dict(
        num_outputs=then_count, cond_input_locs=locs[0], then_input_locs=locs[1], else_input_locs=locs[2]))
    outputs, _ = _regroup(result, then_fmt)
    return outputs


EAGER = {"foreach": foreach_eager, "while_loop": while_loop_eager, "cond": cond_eager}
SYMBOLIC = {"foreach": foreach_symbolic, "while_loop": while_loop_symbolic, "cond": cond_symbolic}
