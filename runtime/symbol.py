"""Symbol: a deferred graph of operators, with MXNet 1.x's API, quirks and errors."""
from __future__ import annotations

import json
import numbers
from typing import Dict, List, Optional, Tuple

import numpy as np

from runtime import attribute
from runtime import name as naming
from runtime.base import MXNetError, NotImplementedForSymbol
from runtime.invoke import present_inputs, split_arguments
from runtime.registry import REGISTRY, OpDef

MXNET_VERSION = 10901


class Node:
    """One operator application (or a variable, when `op` is None)."""

    __slots__ = ("op", "name", "attrs", "inputs", "extra")

    def __init__(self, op: Optional[OpDef], name: str, attrs: Dict, inputs: List[Tuple["Node", int]],
                 extra: Optional[Dict[str, str]] = None):
        self.op = op
        self.name = name
        self.attrs = attrs                 # parsed attributes
        self.inputs = inputs
        self.extra = extra or {}           # string attributes: __shape__, __dtype__, __init__, ...

    @property
    def is_variable(self) -> bool:
        return self.op is None

    def num_outputs(self) -> int:
        return 1 if self.op is None else self.op.outputs(self.attrs)

    def visible_outputs(self) -> int:
        return 1 if self.op is None else self.op.visible(self.attrs)


def topological(heads: List[Tuple[Node, int]], keep=None) -> List[Node]:
    """The nodes the heads reach, inputs before their readers; with `keep`, only the nodes it
    accepts, reached through such nodes."""
    order: List[Node] = []
    seen = set()
    stack = [(node, False) for node, _ in reversed(heads) if keep is None or keep(node)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.append((node, True))
        for child, _ in reversed(node.inputs):
            if id(child) not in seen and (keep is None or keep(child)):
                stack.append((child, False))
    return order


def _aux_variables(order: List[Node]) -> set:
    aux = set()
    for node in order:
        if node.op is not None and node.op.aux:
            names = node.op.input_names(node.attrs)
            for input_name, (child, _) in zip(names, node.inputs):
                if input_name in node.op.aux and child.is_variable:
                    aux.add(id(child))
    return aux


class Symbol:
    __slots__ = ("_outputs",)

    def __init__(self, outputs: List[Tuple[Node, int]]):
        self._outputs = outputs

    # ---- structure
    @property
    def name(self) -> Optional[str]:
        return self._outputs[0][0].name if len(self._outputs) == 1 else None

    def _order(self) -> List[Node]:
        return topological(self._outputs)

    def list_arguments(self) -> List[str]:
        order = self._order()
        aux = _aux_variables(order)
        return [n.name for n in order if n.is_variable and id(n) not in aux]

    def list_auxiliary_states(self) -> List[str]:
        order = self._order()
        aux = _aux_variables(order)
        return [n.name for n in order if n.is_variable and id(n) in aux]

    def list_inputs(self) -> List[str]:
        return [n.name for n in self._order() if n.is_variable]

    def list_outputs(self) -> List[str]:
        names = []
        for node, index in self._outputs:
            if node.is_variable:
                names.append(node.name)
            else:
                if node.op.output_names:  # named outputs: `bn_output` even though BatchNorm has three
                    output = node.op.output_names[index]
                else:
                    output = "output" if node.num_outputs() == 1 else "output%d" % index
                # a node without a name (an atomic symbol) gives the output's name alone
                names.append("%s_%s" % (node.name, output) if node.name else output)
        return names

    def get_internals(self) -> "Symbol":
        outputs = []
        for node in self._order():
            outputs.extend((node, i) for i in range(node.visible_outputs()))
        return Symbol(outputs)

    def _gen_atomic_symbol(self) -> "Symbol":
        """The head operator alone: its operator and attributes, no inputs and no name (MXNet's
        atomic symbol, which the graph passes start from), with all its visible outputs."""
        head = self._outputs[0][0]
        node = Node(head.op, "", dict(head.attrs), [])
        return Symbol([(node, i) for i in range(node.visible_outputs())])

    def get_children(self) -> Optional["Symbol"]:
        node = self._outputs[0][0]
        return Symbol(list(node.inputs)) if node.inputs else None

    def attr(self, key: str) -> Optional[str]:
        node = self._outputs[0][0]
        if key in HIDDEN_KEYS:  # kept as __lr_mult__, read under either name (MXNet's C API)
            key = "__%s__" % key
        if key in node.extra:
            return node.extra[key]
        value = node.attrs.get(key)
        return None if value is None else str(value)

    def list_attr(self) -> Dict[str, str]:
        node = self._outputs[0][0]
        out = {k: str(v) for k, v in node.attrs.items()}
        out.update(_shown(node.extra))
        return out

    def attr_dict(self) -> Dict[str, Dict[str, str]]:
        """Every node's attributes by its name (those with any)."""
        found = {}
        for node in self._order():
            attrs = {k: str(v) for k, v in node.attrs.items()}
            attrs.update(_shown(node.extra))
            if attrs:
                found[node.name] = attrs
        return found

    def _set_attr(self, **kwargs) -> None:
        self._outputs[0][0].extra.update({k: str(v) for k, v in kwargs.items()})

    # ---- MXNet's output-selection quirks
    def __len__(self) -> int:
        return len(self._outputs)

    def __iter__(self):
        return (Symbol([o]) for o in self._outputs)

    def __getitem__(self, index):
        if isinstance(index, str):
            names = self.list_outputs()
            if index not in names:
                raise ValueError("There is no output named %s" % index)
            return Symbol([self._outputs[names.index(index)]])
        if isinstance(index, slice):
            return Symbol(self._outputs[index])  # a slice selects outputs, not elements
        if isinstance(index, (int, np.integer)) and not isinstance(index, bool):
            if not -len(self._outputs) <= index < len(self._outputs):
                raise IndexError("Symbol index out of range")
            return Symbol([self._outputs[index]])
        raise TypeError("Symbol only support integer index to fetch i-th output")

    def __setitem__(self, key, value):
        raise TypeError("'Symbol' object does not support item assignment")

    def __bool__(self):
        raise NotImplementedForSymbol(self.__bool__, "bool")

    def asnumpy(self):
        raise NotImplementedForSymbol(self.asnumpy, None)

    def asscalar(self):
        raise NotImplementedForSymbol(self.asscalar, None)

    def wait_to_read(self):
        raise NotImplementedForSymbol(self.wait_to_read, None)

    def __repr__(self) -> str:
        name = self.name
        return "<Symbol %s>" % name if name else "<Symbol group [%s]>" % ", ".join(
            n.name for n, _ in self._outputs)

    # ---- arithmetic: a Symbol's operators never broadcast
    def _binary(self, other, op_name, scalar_op):
        if isinstance(other, Symbol):
            return _call(op_name, self, other)
        if isinstance(other, numbers.Number):
            return _call(scalar_op, self, scalar=float(other))
        raise TypeError("type %s not supported" % type(other).__name__)

    def __add__(self, other):
        return self._binary(other, "_Plus", "_PlusScalar")

    __radd__ = __add__

    def __sub__(self, other):
        return self._binary(other, "_Minus", "_MinusScalar")

    def __rsub__(self, other):
        return self._binary(other, "_Minus", "_RMinusScalar") if not isinstance(other, Symbol) else _call(
            "_Minus", other, self)

    def __mul__(self, other):
        return self._binary(other, "_Mul", "_MulScalar")

    __rmul__ = __mul__

    def __truediv__(self, other):
        return self._binary(other, "_Div", "_DivScalar")

    def __rtruediv__(self, other):
        return _call("_RDivScalar", self, scalar=float(other))

    def __mod__(self, other):
        return self._binary(other, "_Mod", "_ModScalar")

    def __rmod__(self, other):
        return _call("_RModScalar", self, scalar=float(other))

    def __pow__(self, other):
        return self._binary(other, "_Power", "_PowerScalar")

    def __rpow__(self, other):
        return _call("_RPowerScalar", self, scalar=float(other))

    def __neg__(self):
        return self.__mul__(-1.0)

    def __abs__(self):
        return _call("abs", self)

    def __eq__(self, other):
        return self._binary(other, "_Equal", "_EqualScalar")

    def __ne__(self, other):
        return self._binary(other, "_NotEqual", "_NotEqualScalar")

    def __gt__(self, other):
        return self._binary(other, "_Greater", "_GreaterScalar")

    def __ge__(self, other):
        return self._binary(other, "_GreaterEqual", "_GreaterEqualScalar")

    def __lt__(self, other):
        return self._binary(other, "_Lesser", "_LesserScalar")

    def __le__(self, other):
        return self._binary(other, "_LesserEqual", "_LesserEqualScalar")

    __hash__ = object.__hash__

    def __iadd__(self, other):
        raise NotImplementedForSymbol(self.__iadd__, "+=", other, 1)

    def __isub__(self, other):
        raise NotImplementedForSymbol(self.__isub__, "-=", other, 1)

    def __imul__(self, other):
        raise NotImplementedForSymbol(self.__imul__, "*=", other, 1)

    def __itruediv__(self, other):
        raise NotImplementedForSymbol(self.__itruediv__, "/=", other, 1)

    def __imod__(self, other):
        raise NotImplementedForSymbol(self.__imod__, "%=", other, 1)

    # ---- fluent methods: positional arguments bind to the operator's attributes in order
    def reshape(self, *args, **kwargs):
        return _call("reshape", self, *args, **kwargs)

    def astype(self, dtype):
        return _call("cast", self, dtype=dtype)

    def __getattr__(self, name: str):
        from runtime.ndarray import _FLUENT
        if name in _FLUENT:
            def method(*args, **kwargs):
                return _call(_FLUENT[name], self, *args, **kwargs)
            method.__name__ = name
            return method
        raise AttributeError("'Symbol' object has no attribute '%s'" % name)

    # ---- shapes and types
    def infer_shape(self, *args, **kwargs):
        from runtime.executor import infer_shapes
        return infer_shapes(self, self._known(args, kwargs), partial=False)

    def infer_shape_partial(self, *args, **kwargs):
        """As infer_shape, with `()` for the shapes the given ones do not decide (MXNet's answer)."""
        from runtime.executor import infer_shapes
        found = infer_shapes(self, self._known(args, kwargs), partial=True)
        return tuple([shape if shape is not None else () for shape in shapes] for shapes in found)

    def _known(self, args, kwargs) -> Dict[str, Tuple]:
        known = dict(zip(self.list_arguments(), args)) if args else {}
        known.update(kwargs)
        return {k: tuple(v) for k, v in known.items() if v is not None}

    def infer_type(self, *args, **kwargs):
        found = self.infer_type_partial(*args, **kwargs)
        if any(t is None for types in found for t in types):
            return None, None, None
        return found

    def infer_type_partial(self, *args, **kwargs):
        """As infer_type, with None for the dtypes the given ones do not decide."""
        from runtime.executor import infer_types
        given = dict(zip(self.list_arguments(), args))
        given.update(kwargs)
        found = infer_types(self, {k: v for k, v in given.items() if v is not None})
        return tuple([None if t is None else np.dtype(t).type for t in types] for types in found)

    # ---- execution
    def bind(self, ctx=None, args=None, args_grad=None, grad_req="write", aux_states=None, group2ctx=None,
             shared_exec=None):
        from runtime.executor import Executor
        return Executor(self, ctx, args, aux_states, args_grad=args_grad, grad_req=grad_req)

    def simple_bind(self, ctx=None, grad_req="write", type_dict=None, stype_dict=None, group2ctx=None,
                    shared_arg_names=None, shared_exec=None, shared_buffer=None, **kwargs):
        try:
            return self._simple_bind(ctx, grad_req, type_dict, stype_dict, **kwargs)
        except MXNetError as exc:
            # MXNet 1.9.1's front end turns the backend's error into a RuntimeError naming the shapes given
            raise RuntimeError("simple_bind error. Arguments:\n" + "".join("%s: %s\n" % item for item in kwargs.items())
                               + str(exc)) from None

    def _simple_bind(self, ctx, grad_req, type_dict, stype_dict, **kwargs):
        from runtime.executor import Executor
        from runtime.ndarray import zeros
        # as MXNet, only shapes count: other keywords (test code passes axis=, mode=, force_rebind=True) are ignored
        kwargs = {k: v for k, v in kwargs.items() if isinstance(v, (tuple, list))}
        arg_shapes, _, aux_shapes = self.infer_shape(**kwargs)
        if arg_shapes is None:
            raise MXNetError("simple_bind: cannot infer the shapes of every argument from %s" % sorted(kwargs))
        from runtime.executor import infer_types
        # dtypes: type_dict, then each Variable's own dtype, then what inference makes of them
        arg_types, _, aux_types = infer_types(self, {k: np.dtype(v).name for k, v in (type_dict or {}).items()})
        stypes = self._argument_stypes(stype_dict)
        args = {n: zeros(s, ctx, dtype=t, stype=stypes[n][0])
                for n, s, t in zip(self.list_arguments(), arg_shapes, arg_types)}
        aux = {n: zeros(s, ctx, dtype=t) for n, s, t in zip(self.list_auxiliary_states(), aux_shapes, aux_types)}
        names = self.list_arguments()
        requests = grad_req if isinstance(grad_req, (dict, str)) else dict(zip(names, grad_req))
        wanted = [n for n in names if (requests if isinstance(requests, str) else requests.get(n, "null")) != "null"]
        grads = {n: zeros(args[n].shape, ctx, dtype=args[n].dtype, stype=stypes[n][1]) for n in wanted}
        return Executor(self, ctx, args, aux, args_grad=grads, grad_req=grad_req)

    def _argument_stypes(self, stype_dict=None):
        """{argument: (storage of its array, storage of its gradient)}: the array's from stype_dict or
        the variable's __storage_type__; the gradient is row_sparse where the argument is the weight
        of an Embedding with sparse_grad (MXNet's backward storage inference), else dense."""
        from runtime.ndarray import _STORAGE_TYPE_ID_TO_STR
        stypes = {}
        sparse_grads = set()
        for node in self._order():
            if node.is_variable:
                given = (stype_dict or {}).get(node.name)
                if given is None and "__storage_type__" in node.extra:
                    given = _STORAGE_TYPE_ID_TO_STR[int(node.extra["__storage_type__"])]
                stypes[node.name] = given or "default"
            elif node.op.name == "Embedding" and str(node.attrs.get("sparse_grad")) in ("True", "true", "1") \
                    and node.inputs[1][0].is_variable:
                sparse_grads.add(node.inputs[1][0].name)
        return {name: (stype, "row_sparse" if name in sparse_grads else "default") for name, stype in stypes.items()}

    def gradient(self, wrt):
        """MXNet 1.x declares Symbol.gradient but its C API does not implement it."""
        raise MXNetError("not implemented")

    def eval(self, ctx=None, **kwargs):
        return self.bind(ctx, kwargs).forward()

    def __call__(self, *args, **kwargs):
        """Compose: replace this symbol's variables by the given symbols."""
        name_map = dict(zip(self.list_arguments(), args))
        name_map.update({k: v for k, v in kwargs.items() if isinstance(v, Symbol)})
        return _substitute(self, {k: v._outputs[0] for k, v in name_map.items()})

    def debug_str(self) -> str:
        """The graph as text, in MXNet 1.9.1's layout: the outputs, then each variable and each
        operator (its name, inputs and the attributes it was given) in topological order."""
        lines = ["Symbol Outputs:"]
        lines += ["\toutput[%d]=%s(%d)" % (i, node.name, index) for i, (node, index) in enumerate(self._outputs)]
        for node in self._order():
            if node.is_variable:
                lines.append("Variable:%s" % node.name)
                continue
            lines += ["-" * 20, "Op:%s, Name=%s" % (node.op.name, node.name), "Inputs:"]
            lines += ["\targ[%d]=%s(%d)%s" % (i, child.name, index, " version=0" if child.is_variable else "")
                      for i, (child, index) in enumerate(node.inputs)]
            attrs = {k: _attr_text(v) for k, v in node.attrs.items()
                     if v is not None and not _is_default(node.op, k, v)}
            if attrs:
                lines.append("Attrs:")
                lines += ["\t%s=%s" % item for item in sorted(attrs.items())]
        return "\n".join(lines) + "\n"

    # ---- serialization (MXNet's JSON graph format)
    def tojson(self) -> str:
        graph = _graph_dict(self)
        graph["attrs"] = {"mxnet_version": ["int", MXNET_VERSION]}
        from runtime.util import is_np_shape
        if is_np_shape():  # MXNet marks graphs made under NumPy shape semantics
            graph["attrs"]["is_np_shape"] = ["int", 1]
        return json.dumps(graph, indent=2)

    # ---- pickling: the JSON graph, as MXNet pickles a Symbol; rebuilt by this module's load_json
    # whatever module name the class carries (runtime.as_mxnet() names it mxnet.symbol.symbol)
    def __reduce__(self):
        return load_json, (self.tojson(),)

    def __setstate__(self, state):  # a pickle in MXNet's own form: {"handle": JSON}
        self._outputs = load_json(state["handle"])._outputs

    def save(self, fname: str) -> None:
        with open(fname, "w") as handle:
            handle.write(self.tojson())


def _graph_dict(symbol: Symbol) -> Dict:
    """MXNet's JSON form of the graph (without the file's attributes): a control-flow node's own
    graphs go under its `subgraphs`, in the same form."""
    order = symbol._order()
    index = {id(n): i for i, n in enumerate(order)}
    nodes = []
    for node in order:
        entry = {"op": "null" if node.is_variable else node.op.name, "name": node.name}
        attrs = {} if node.is_variable else {k: _attr_text(v) for k, v in node.attrs.items()
                                             if v is not None and not _is_default(node.op, k, v)}
        attrs.update(node.extra)
        if attrs:
            entry["attrs"] = attrs
        entry["inputs"] = [[index[id(child)], i, 0] for child, i in node.inputs]
        if not node.is_variable and node.op.subgraphs:
            entry["subgraphs"] = [_graph_dict(graph.symbol) for graph in node.op.subgraphs]
        nodes.append(entry)
    row_ptr = [0]
    for node in order:
        row_ptr.append(row_ptr[-1] + node.num_outputs())
    return {"nodes": nodes, "arg_nodes": [i for i, n in enumerate(order) if n.is_variable],
            "node_row_ptr": row_ptr, "heads": [[index[id(n)], i, 0] for n, i in symbol._outputs]}


def _attr_text(value) -> str:
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, tuple):
        return "(" + ", ".join("None" if v is None else str(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    return str(value)


def _is_default(op: OpDef, key: str, value) -> bool:
    spec = op.attrs.get(key)
    return spec is not None and not spec.required and spec.default == value and key != "num_args"


def _substitute(symbol: Symbol, mapping: Dict[str, Tuple[Node, int]]) -> Symbol:
    """A copy of `symbol` whose variables named in `mapping` are replaced by the given outputs (a
    replacement keeps its own output index: `relu(b)(b=split(x)[2])` reads split's third output).
    Iterative, over the topological order, so that graphs thousands of operators deep compose."""
    def replaced(node: Node) -> bool:
        return node.is_variable and node.name in mapping

    copies: Dict[int, Node] = {}

    def edge(child: Node, index: int) -> Tuple[Node, int]:
        return mapping[child.name] if replaced(child) else (copies[id(child)], index)

    for node in topological(symbol._outputs):
        if not replaced(node):
            copies[id(node)] = Node(node.op, node.name, node.attrs,
                                    [edge(child, i) for child, i in node.inputs], dict(node.extra))
    return Symbol([edge(n, i) for n, i in symbol._outputs])


# ---- composition
# Keys a composed operator takes as attributes of its node (and of the variables composing it
# creates) rather than as parameters: `FullyConnected(..., lr_mult=0)` (MXNet 1.9.1's C API).
HIDDEN_KEYS = ("ctx_group", "lr_mult", "wd_mult", "force_mirroring", "mirror_stage", "profiler_scope")


def _hidden(extra: Dict[str, str]) -> Dict[str, str]:
    """A node's string attributes as MXNet keeps them: a hidden key given plainly (`lr_mult`,
    `force_mirroring`) is stored as `__lr_mult__`, which is what its JSON holds."""
    for key in [k for k in extra if k in HIDDEN_KEYS]:
        extra["__%s__" % key] = extra.pop(key)
    return extra


def _shown(extra: Dict[str, str]) -> Dict[str, str]:
    """A node's string attributes as MXNet lists them: each hidden key under both its names."""
    shown = dict(extra)
    for key in HIDDEN_KEYS:
        if "__%s__" % key in extra:
            shown[key] = extra["__%s__" % key]
    return shown


def _node_attributes(attrs: Dict, attr) -> Dict[str, str]:
    """The node's own attributes: `attr=`, and the hidden keys taken out of `attrs` (as MXNet
    keeps them: `__lr_mult__`)."""
    extra = {k: str(v) for k, v in (attr or {}).items()}
    for key in list(attrs):
        for hidden in HIDDEN_KEYS:
            if key == hidden:
                extra["__%s__" % key] = str(attrs.pop(key))
            elif key.endswith("_" + hidden):
                raise MXNetError("setting variable attributes with %s is deprecated. please instead use\n"
                                 "w = Variable(%s=%s)\nsym = YourSymbolName(%s=w)"
                                 % (key, hidden, attrs[key], key[:-len(hidden) - 1]))
    return extra


def compose(op: OpDef, public_name: str, args, kwargs) -> Symbol:
    name = kwargs.pop("name", None)
    attr = kwargs.pop("attr", None)
    stray = [key for key, value in kwargs.items() if isinstance(value, Symbol) and key not in op.inputs]
    if stray and not op.variadic:
        if op.inputs:
            raise MXNetError("Symbol.ComposeKeyword argument name %s not found." % stray[0])
        kwargs = {k: v for k, v in kwargs.items() if k not in stray}  # as MXNet: an operator without inputs drops them
    inputs, attrs = split_arguments(op, args, kwargs, lambda v: isinstance(v, Symbol))
    extra = _hidden(attribute.current().get(_node_attributes(attrs, attr)))  # the AttrScope's, then the node's own
    parsed = op.parse_attrs(attrs)
    # (MXNet names a node after its front-end function: `contrib.div_sqrt_dim`, not the operator)
    hint = public_name.rsplit(".", 1)[-1].lower().replace("_contrib_", "", 1)
    node_name = naming.current().get(name, hint)
    # a variable that composing creates carries the node's attributes, as in MXNet (an operator's
    # lr_mult reaches its weight so)
    inherited = dict({k: str(v) for k, v in attrs.items()}, **extra)
    edges = []
    for input_name, value in present_inputs(op, inputs, parsed):
        if value is None:
            value = var("%s_%s" % (node_name, input_name), attr=inherited)
        if not isinstance(value, Symbol):
            raise TypeError("%s: input %s must be a Symbol, got %s" % (public_name, input_name, type(value).__name__))
        if len(value._outputs) != 1:
            raise MXNetError("%s: input %s is a group of %d outputs; select one" % (public_name, input_name,
                                                                                   len(value._outputs)))
        init = op.input_inits.get(input_name)
        if init is not None and value._outputs[0][0].is_variable:
            value._outputs[0][0].extra.setdefault("__init__", init)  # as MXNet, on the variable itself
        edges.append(value._outputs[0])
    node = Node(op, node_name, parsed, edges, extra)
    return Symbol([(node, i) for i in range(op.visible(parsed))])


def _call(op_name: str, *args, **kwargs) -> Symbol:
    if op_name not in REGISTRY:  # a front-end function of the namespace (`split_v2`), not an operator
        import runtime
        return getattr(runtime.sym, op_name)(*args, **kwargs)
    return compose(REGISTRY[op_name], op_name, args, kwargs)


def var(name: str, attr=None, shape=None, lr_mult=None, wd_mult=None, dtype=None, init=None, stype=None,
        **kwargs) -> Symbol:
    if not isinstance(name, str):
        raise TypeError("Expect a string for variable `name`")
    extra = _hidden(attribute.current().get({k: str(v) for k, v in (attr or {}).items()}))  # the AttrScope's too
    if shape is not None:
        extra["__shape__"] = str(tuple(shape))
    if dtype is not None:
        from runtime.serialization import type_flag
        extra["__dtype__"] = str(type_flag(dtype))  # MXNet writes its numeric type flag here
    if init is not None:
        extra["__init__"] = init if isinstance(init, str) else init.dumps()
    if lr_mult is not None:
        extra["__lr_mult__"] = str(lr_mult)
    if wd_mult is not None:
        extra["__wd_mult__"] = str(wd_mult)
    if stype is not None:
        from runtime.ndarray import _STORAGE_TYPE_STR_TO_ID
        extra["__storage_type__"] = str(_STORAGE_TYPE_STR_TO_ID[stype])
    return Symbol([(Node(None, name, {}, [], extra), 0)])


Variable = var


def Group(symbols: List[Symbol]) -> Symbol:
    outputs = []
    for s in symbols:
        outputs.extend(s._outputs)
    return Symbol(outputs)


def load_json(text: str) -> Symbol:
    return _graph_from_dict(json.loads(text))


def _graph_from_dict(graph: Dict) -> Symbol:
    nodes: List[Node] = []
    for entry in graph["nodes"]:
        raw = dict(entry.get("attrs") or entry.get("attr") or entry.get("param") or {})
        if entry["op"] == "null":
            nodes.append(Node(None, entry["name"], {}, [], raw))
            continue
        if entry["op"] not in REGISTRY:
            raise MXNetError("Cannot find operator %s" % entry["op"])
        op = REGISTRY[entry["op"]]
        if entry.get("subgraphs"):  # a control-flow or fused node: its operator runs these graphs
            from runtime.subgraph import Subgraph
            op = op.with_subgraphs([Subgraph(_graph_from_dict(g)) for g in entry["subgraphs"]])
        extra = {k: v for k, v in raw.items() if k.startswith("__")}
        parsed = op.parse_attrs({k: v for k, v in raw.items() if not k.startswith("__")})
        inputs = [(nodes[i], out) for i, out, *_ in entry["inputs"]]
        if op.variadic and parsed.get("num_args") is None:
            parsed["num_args"] = len(inputs)
        nodes.append(Node(op, entry["name"], parsed, inputs, extra))
    return Symbol([(nodes[i], out) for i, out, *_ in graph["heads"]])


def load(fname: str) -> Symbol:
    with open(fname) as handle:
        return load_json(handle.read())
