"""Block, HybridBlock and SymbolBlock.

A HybridBlock runs `hybrid_forward` eagerly with NDArrays until `hybridize()`. Then the first call
for each input signature (number of inputs, their shapes and dtypes) traces `hybrid_forward` once
with Symbols (`F` = the symbol namespace), so code that only NDArrays support fails there, with
MXNet's errors; every later call runs the bound graph and never enters the Python code again.
"""
from __future__ import annotations

import os
import re
import threading
import warnings
from collections import OrderedDict
from typing import Dict, Optional, Tuple

import numpy as np

from runtime import autograd
from runtime import name as naming
from runtime.base import MXNetError
from runtime.context import current_context
from runtime.gluon.parameter import DeferredInitializationError, Parameter, ParameterDict
from runtime.ndarray import NDArray
from runtime.symbol import Group, Symbol, var

_scope = threading.local()


class _BlockScope:
    """Names children `dense0_`, `dense1_` within a parent, and globally outside of any parent."""

    def __init__(self, block: "Block"):
        self._block = block
        self._counter: Dict[str, int] = {}
        self._old = None
        self._name_scope = None

    @staticmethod
    def create(prefix: Optional[str], params: Optional[ParameterDict], hint: str):
        current = getattr(_scope, "value", None)
        if current is None:
            if prefix is None:
                prefix = naming.current().get(None, hint) + "_"
            return prefix, ParameterDict(prefix) if params is None else ParameterDict(params.prefix, params)
        if prefix is None:
            count = current._counter.get(hint, 0)
            prefix = "%s%d_" % (hint, count)
            current._counter[hint] = count + 1
        if params is None:
            # a child looks up shared parameters where its parent does: a block built with
            # `params=` shares them with its whole subtree
            parent = current._block.params
            return current._block.prefix + prefix, ParameterDict(parent.prefix + prefix, parent._shared)
        # `params=other.params` ties: names are made with the shared dictionary's prefix, so that
        # `get("weight")` finds the other block's weight instead of making a new one
        return current._block.prefix + prefix, ParameterDict(params.prefix, params)

    def __enter__(self):
        if self._block._empty_prefix:
            # a block with prefix='' is transparent: its children and operators are named in the
            # enclosing scope's sequence (`features = HybridSequential(prefix='')`, then dense0, dense1)
            return self
        self._old = getattr(_scope, "value", None)
        _scope.value = self
        self._name_scope = naming.Prefix(self._block.prefix)
        self._name_scope.__enter__()
        return self

    def __exit__(self, *exc):
        if self._block._empty_prefix:
            return
        self._name_scope.__exit__(*exc)
        _scope.value = self._old


def _flatten(value) -> Tuple[list, object]:
    if isinstance(value, (NDArray, Symbol)):
        return [value], 0
    if value is None:  # an optional input left out (a loss's sample_weight): no variable, None in its place
        return [], -1
    if isinstance(value, (list, tuple)):
        flat, formats = [], []
        for item in value:
            inner, fmt = _flatten(item)
            flat.extend(inner)
            formats.append(fmt)
        return flat, formats
    raise TypeError("HybridBlock outputs must be NDArrays, Symbols or nested lists of them, got %s"
                    % type(value).__name__)


def _regroup(values: list, fmt):
    if fmt == -1:
        return None, values
    if isinstance(fmt, int):
        return values[0], values[1:]
    out = []
    for inner in fmt:
        item, values = _regroup(values, inner)
        out.append(item)
    return out, values


class _Hooks:
    """A block's forward hooks, in registration order (absent until the first is registered)."""

    def __init__(self):
        self.pre: "OrderedDict[int, object]" = OrderedDict()
        self.post: "OrderedDict[int, object]" = OrderedDict()


class HookHandle:
    """What register_forward_hook returns: detach() removes the hook; usable as a context manager."""
    _next_id = 0

    def __init__(self, table, hook):
        HookHandle._next_id += 1
        self._id = HookHandle._next_id
        self._table = table
        table[self._id] = hook

    def detach(self) -> None:
        if self._table is not None:
            self._table.pop(self._id, None)
            self._table = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.detach()


class Block:
    def __init__(self, prefix: Optional[str] = None, params: Optional[ParameterDict] = None):
        self._empty_prefix = prefix == ""
        self._prefix, self._params = _BlockScope.create(prefix, params, self._alias())
        self._name = self._prefix[:-1] if self._prefix.endswith("_") else self._prefix
        self._scope = _BlockScope(self)
        self._children: "OrderedDict[str, Block]" = OrderedDict()
        self._reg_params: Dict[str, Parameter] = {}

    def _alias(self) -> str:
        return type(self).__name__.lower()

    def __repr__(self) -> str:
        body = "\n".join("  (%s): %s" % (k, repr(v).replace("\n", "\n  ")) for k, v in self._children.items())
        return "%s(\n%s\n)" % (type(self).__name__, body) if body else "%s()" % type(self).__name__

    def __setattr__(self, name, value):
        if isinstance(value, Block):
            self.register_child(value, name)
        elif isinstance(value, Parameter):
            self.__dict__.setdefault("_reg_params", {})[name] = value
        super().__setattr__(name, value)

    @property
    def prefix(self) -> str:
        return self._prefix

    @property
    def name(self) -> str:
        return self._name

    @property
    def params(self) -> ParameterDict:
        return self._params

    def name_scope(self):
        return self._scope

    def register_child(self, block: "Block", name: Optional[str] = None) -> None:
        self._children[name or str(len(self._children))] = block

    def collect_params(self, select: Optional[str] = None) -> ParameterDict:
        result = ParameterDict(self._params.prefix)
        pattern = re.compile(select) if select else None
        for key, value in self._params.items():
            if pattern is None or pattern.match(key):
                result._params[key] = value
        for child in self._children.values():
            result.update(child.collect_params(select))
        return result

    def _collect_params_with_prefix(self, prefix: str = "") -> Dict[str, Parameter]:
        if prefix:
            prefix += "."
        found = {prefix + key: value for key, value in self._reg_params.items()}
        for name, child in self._children.items():
            found.update(child._collect_params_with_prefix(prefix + name))
        return found

    def initialize(self, init=None, ctx=None, verbose=False, force_reinit=False) -> None:
        self.collect_params().initialize(init, ctx, verbose, force_reinit)

    def hybridize(self, active=True, **kwargs) -> None:
        for child in self._children.values():
            child.hybridize(active, **kwargs)

    def cast(self, dtype) -> None:
        for child in self._children.values():
            child.cast(dtype)
        for param in self._params.values():
            param.cast(dtype)

    def apply(self, fn):
        for child in self._children.values():
            child.apply(fn)
        fn(self)
        return self

    def save_parameters(self, filename: str, deduplicate: bool = False) -> None:
        from runtime.serialization import save_arrays
        params = self._collect_params_with_prefix()
        save_arrays(filename, {k: v.data().asnumpy() for k, v in params.items()})

    def save_params(self, filename: str) -> None:
        """MXNet's deprecated form: the parameters by their names less this block's prefix."""
        warnings.warn("save_params is deprecated. Please use save_parameters. Note that if you want load from "
                      "SymbolBlock later, please use export instead.")
        self.collect_params().save(filename, strip_prefix=self.prefix)

    def load_params(self, filename: str, ctx=None, allow_missing=False, ignore_extra=False) -> None:
        warnings.warn("load_params is deprecated. Please use load_parameters.")
        self.load_parameters(filename, ctx, allow_missing, ignore_extra)

    def load_parameters(self, filename: str, ctx=None, allow_missing=False, ignore_extra=False, cast_dtype=False,
                        dtype_source="current") -> None:
        from runtime.serialization import load_arrays
        loaded = load_arrays(filename)
        params = self._collect_params_with_prefix()
        if not any("." in k for k in loaded) and loaded and not any(k in params for k in loaded):
            # a file saved with full parameter names (export), or with this block's prefix left
            # out of them (save_params)
            by_name = {p.name: p for p in params.values()}
            if not any(k in by_name for k in loaded):
                loaded = {self.prefix + k: v for k, v in loaded.items()}
            params = by_name
        for name, param in params.items():
            if name not in loaded:
                if allow_missing:
                    continue
                raise MXNetError("Parameter '%s' is missing in file '%s'" % (name, filename))
            param.set_data(loaded[name])
        extra = set(loaded) - set(params)
        if extra and not ignore_extra:
            raise MXNetError("Parameter '%s' loaded from file '%s' is not present in this block"
                             % (sorted(extra)[0], filename))

    def __call__(self, *args):
        hooks = self.__dict__.get("_hooks")
        if hooks is None:
            return self.forward(*args)
        for hook in list(hooks.pre.values()):
            hook(self, args)
        out = self.forward(*args)
        for hook in list(hooks.post.values()):
            hook(self, args, out)
        return out

    def register_forward_pre_hook(self, hook) -> "HookHandle":
        """hook(block, inputs) before each forward; the handle's detach() removes it."""
        return HookHandle(self._hook_table().pre, hook)

    def register_forward_hook(self, hook) -> "HookHandle":
        """hook(block, inputs, outputs) after each forward; the handle's detach() removes it."""
        return HookHandle(self._hook_table().post, hook)

    def _hook_table(self) -> "_Hooks":
        if "_hooks" not in self.__dict__:
            self.__dict__["_hooks"] = _Hooks()
        return self.__dict__["_hooks"]

    def forward(self, *args):
        raise NotImplementedError

    def summary(self, *inputs) -> None:
        rows = []
        for name, param in self._collect_params_with_prefix().items():
            rows.append((name, str(param.shape), int(np.prod(param.shape)) if param.shape else 0))
        width = max([len(r[0]) for r in rows] + [9])
        print("%-*s  %-20s  %s" % (width, "Parameter", "Shape", "Count"))
        for name, shape, count in rows:
            print("%-*s  %-20s  %d" % (width, name, shape, count))
        print("Total params: %d" % sum(r[2] for r in rows))


class HybridBlock(Block):
    def __init__(self, prefix=None, params=None):
        super().__init__(prefix, params)
        self._active = False
        self._flags: Dict = {}
        self._cached: Dict[tuple, "_CachedGraph"] = {}

    def hybridize(self, active=True, static_alloc=False, static_shape=False, **kwargs) -> None:
        self._active = active
        self._flags = dict(static_alloc=static_alloc, static_shape=static_shape)
        self._cached.clear()
        super().hybridize(active, static_alloc=static_alloc, static_shape=static_shape, **kwargs)

    def cast(self, dtype) -> None:
        self._cached.clear()
        super().cast(dtype)

    def register_child(self, block, name=None) -> None:
        if not isinstance(block, HybridBlock):
            raise ValueError("Children of HybridBlock must also be HybridBlock, but %s has type %s. If you are "
                             "using Sequential, please try HybridSequential instead." % (str(block), str(type(block))))
        super().register_child(block, name)
        self._cached.clear()

    def forward(self, x, *args):
        if isinstance(x, NDArray):
            if self._active:
                return self._call_cached(x, *args)
            return self._run_eagerly(x, *args)
        if isinstance(x, (list, tuple)):
            # nested lists and tuples of arrays are inputs too: MXNet flattens them to trace the graph
            flat, _ = _flatten([x, *args])
            if flat and all(isinstance(a, NDArray) for a in flat):
                return self._call_cached(x, *args) if self._active else self._run_eagerly(x, *args)
            if flat and not all(isinstance(a, Symbol) for a in flat):
                raise ValueError("In HybridBlock, we do not support mixed NDArrays and Symbols types for the input.")
        elif not isinstance(x, Symbol):
            raise ValueError("HybridBlock requires the first argument to forward be either Symbol or NDArray, "
                             "but got %s" % type(x))
        from runtime import sym
        params = {k: v.var() for k, v in self._reg_params.items()}
        with self.name_scope():
            return self.hybrid_forward(sym, x, *args, **params)

    def _run_eagerly(self, *args):
        from runtime import nd
        try:
            params = {k: v.data() for k, v in self._reg_params.items()}
        except DeferredInitializationError:
            self._infer_param_shapes(*args)
            params = {k: v.data() for k, v in self._reg_params.items()}
        return self.hybrid_forward(nd, *args, **params)

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError

    # ---- tracing
    def _trace(self, args):
        """(input variables, one per array in `args`, the graph, the outputs' format); `args` may
        nest arrays in lists and tuples, and hybrid_forward gets variables in the same structure."""
        from runtime import sym
        flat, fmt = _flatten(list(args))
        inputs = [var("data")] if len(flat) == 1 else [var("data%d" % i) for i in range(len(flat))]
        grouped, _ = _regroup(inputs, fmt)
        params = {k: v.var() for k, v in self._reg_params.items()}
        with self.name_scope():
            out = self.hybrid_forward(sym, *grouped, **params)
        flat_out, out_fmt = _flatten(out)
        return inputs, Group(flat_out), out_fmt

    def _infer_param_shapes(self, *args) -> None:
        """Deferred initialization: learn parameter shapes from a trace with the inputs' shapes."""
        inputs, graph, _ = self._trace(args)
        known = {i.name: a.shape for i, a in zip(inputs, _flatten(list(args))[0])}
        arg_shapes, _, aux_shapes = graph.infer_shape_partial(**known)
        shapes = dict(zip(graph.list_arguments(), arg_shapes))
        shapes.update(zip(graph.list_auxiliary_states(), aux_shapes))
        for param in self.collect_params().values():
            if param.name in shapes and shapes[param.name] is not None:
                param.shape = shapes[param.name]
            param._finish_deferred_init()

    def _call_cached(self, *args):
        if len(args) == 1 and type(args[0]) is NDArray:  # the common case, without a generator's cost on every call
            data = args[0]._data
            key = ((data.shape, data.dtype),)
            flat = args
        elif all(type(a) is NDArray for a in args):
            key = tuple((a._data.shape, a._data.dtype) for a in args)
            flat = args
        else:  # nested inputs: the structure is part of the signature
            flat, fmt = _flatten(list(args))
            key = (repr(fmt),) + tuple((a._data.shape, a._data.dtype) for a in flat)
        graph = self._cached.get(key)
        if graph is None:
            graph = self._cached[key] = _CachedGraph(self, args)
        return graph(flat)

    def export(self, path: str, epoch: int = 0, remove_amp_cast: bool = True):
        if not self._cached:
            raise RuntimeError("Please first call block.hybridize() and then run forward with this block at least "
                               "once before calling export.")
        graph = next(iter(self._cached.values()))
        graph.symbol.save("%s-symbol.json" % path)
        from runtime.serialization import save_arrays
        arrays = {}
        arg_names = set(graph.symbol.list_arguments())
        for param in self.collect_params().values():
            if param.name in arg_names:
                arrays["arg:%s" % param.name] = param.data().asnumpy()
            elif param.name in graph.symbol.list_auxiliary_states():
                arrays["aux:%s" % param.name] = param.data().asnumpy()
        save_arrays("%s-%04d.params" % (path, epoch), arrays)


def _memory_of(array: np.ndarray) -> np.ndarray:
    """The array that owns the memory of `array` (itself, or the one it is a view of)."""
    while isinstance(array.base, np.ndarray):
        array = array.base
    return array


class _CachedGraph:
    """One traced graph, bound to its parameters: runs without entering hybrid_forward again."""

    def __init__(self, block: HybridBlock, args):
        inputs, self.symbol, self.fmt = block._trace(args)
        self.input_names = tuple(i.name for i in inputs)
        params = {p.name: p for p in block.collect_params().values()}
        if any(p._data is None for p in params.values()):
            block._infer_param_shapes(*args)
        args, _ = _flatten(list(args))
        arg_names = self.symbol.list_arguments()
        unknown = [n for n in arg_names if n not in params and n not in self.input_names]
        if unknown:
            raise MXNetError("hybrid_forward uses variables that are neither inputs nor parameters: %s"
                             % ", ".join(unknown))
        bound = {n: params[n].data() for n in arg_names if n in params}
        for name, value in zip(self.input_names, args):
            bound[name] = NDArray(np.array(value._data), value.context)
        aux = {n: params[n].data() for n in self.symbol.list_auxiliary_states()}
        from runtime.executor import Executor
        self.static_alloc = bool(block._flags.get("static_alloc"))
        self.context = current_context()
        self.executor = Executor(self.symbol, self.context, bound, aux, static_alloc=self.static_alloc)
        self.bound_arrays = {id(_memory_of(a._data)) for a in list(bound.values()) + list(aux.values())}
        # under autograd.record(), the whole graph is one node of the tape over inputs and parameters
        self.param_names = [n for n in arg_names if n in params and n not in self.input_names]
        self.param_arrays = [bound[n] for n in self.param_names]

    def __call__(self, args):
        if autograd._state.recording and (autograd.needs_grad(args) or autograd.needs_grad(self.param_arrays)):
            return self._call_recorded(args)
        arrays = [a._data for a in args]
        outputs = self.executor.run_with(self.input_names, arrays, autograd.is_training())
        return self._wrap_outputs(arrays, outputs)

    def _wrap_outputs(self, arrays, outputs):
        # an output that is an input or a parameter must be copied (reused buffers come as copies)
        context = self.context
        own = self.bound_arrays
        wrapped = []
        for o in outputs:
            memory = _memory_of(o)  # an output may be a view (reshape, slice) of an input
            shared = id(memory) in own
            if not shared:
                for i in arrays:  # a loop, not any(): this runs at every call
                    if memory is _memory_of(i):
                        shared = True
                        break
            wrapped.append(NDArray(o.copy() if shared else o, context))
        if self.fmt == 0:  # one output
            return wrapped[0]
        result, _ = _regroup(wrapped, self.fmt)
        return result

    def _call_recorded(self, args):
        """The graph run node by node, every node's outputs kept: its backward is the graph's
        backward over them (BatchNorm's statistics and Dropout's masks as the forward made them)."""
        from runtime.executor import graph_gradients
        executor = self.executor
        is_train = autograd.is_training()
        arrays = [a._data for a in args]
        bound = [executor.arg_dict[name] for name in self.input_names]
        held = [b._data for b in bound]
        try:
            for holder, array in zip(bound, arrays):
                holder._data = array  # read in place for this call
            values = executor._forward_values(is_train)
        finally:
            for holder, array in zip(bound, held):
                holder._data = array
        heads = executor._symbol._outputs
        outputs = [values[id(node)][index] for node, index in heads]
        result = self._wrap_outputs(arrays, outputs)
        variables = {node.name: node for node in executor._order if node.is_variable}
        wanted = [variables.get(name) for name in self.input_names + tuple(self.param_names)]
        order = executor._order
        tracked = list(args) + self.param_arrays
        names = {node.name for node, array in zip(wanted, tracked) if node is not None and array._entry is not None}

        def vjp(out_grads):
            grads = graph_gradients(order, heads, values, out_grads, is_train, names)
            return [None if node is None else grads.get(id(node)) for node in wanted]
        flat, _ = _flatten(result)
        autograd.record_node("_CachedOp", vjp, tracked, flat)
        return result


class SymbolBlock(HybridBlock):
    """A block made from a Symbol and its parameters, e.g. loaded from an exported model."""

    def __init__(self, outputs, inputs, params=None):
        super().__init__(prefix=None, params=None)
        self._prefix, self._name = "", ""
        self._params = ParameterDict("", params)
        self._outputs = outputs if isinstance(outputs, Symbol) else Group(list(outputs))
        self._inputs = inputs if isinstance(inputs, (list, tuple)) else [inputs]
        input_names = {i.name for i in self._inputs}
        # MXNet's SymbolBlock takes dense parameters only
        stypes = self._outputs._argument_stypes()
        for name, (stype, _) in stypes.items():
            assert name in input_names or stype == "default", \
                "SymbolBlock doesn't support Parameter '%s' because its storage type is '%s'." % (name, stype)
        for name in self._outputs.list_arguments() + self._outputs.list_auxiliary_states():
            if name not in input_names:
                self._params._params[name] = params[name] if params is not None and name in params \
                    else Parameter(name, allow_deferred_init=True)
        # registered under their names less the prefix they share, as MXNet does: a parent's
        # save_parameters writes `features.dense0_weight`, and files MXNet wrote load by these keys
        common = len(os.path.commonprefix(list(self._params.keys()))) if len(self._params) else 0
        self._reg_params = {key[common:]: value for key, value in self._params.items()}
        self._active = True

    @staticmethod
    def imports(symbol_file: str, input_names, param_file: Optional[str] = None, ctx=None) -> "SymbolBlock":
        from runtime.symbol import load
        graph = load(symbol_file)
        names = [input_names] if isinstance(input_names, str) else list(input_names)
        block = SymbolBlock(graph, [var(n) for n in names])
        if param_file is not None:
            from runtime.serialization import load_arrays
            for key, value in load_arrays(param_file).items():
                name = key.split(":", 1)[1] if ":" in key else key
                if name in block._params:
                    block._params[name].set_data(value)
        return block

    def _trace(self, args):
        # the "format" of the outputs, as _regroup reads it: 0 for one array, a list for several
        fmt = 0 if len(self._outputs) == 1 else [0] * len(self._outputs)
        return list(self._inputs), self._outputs, fmt

    def forward(self, x, *args):
        if isinstance(x, Symbol):
            mapping = {i.name: a for i, a in zip(self._inputs, (x,) + args)}
            return self._outputs(**mapping)
        return self._call_cached(x, *args)

    def hybridize(self, active=True, **kwargs):
        self._active = True
