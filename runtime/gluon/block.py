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
import weakref
from collections import OrderedDict
from typing import Dict, Optional, Tuple

import numpy as np

from runtime import autograd
from runtime import name as naming
from runtime.base import MXNetError
from runtime.context import Context, current_context
from runtime.gluon.parameter import DeferredInitializationError, Parameter, ParameterDict
from runtime.ndarray import NDArray
from runtime.symbol import Group, Symbol, var

_scope = threading.local()


class _BlockScope:
    """Names children `dense0_`, `dense1_` within a parent, and globally outside of any parent."""

    def __init__(self, block: "Block"):
        # the block holds its scope: a weak reference back leaves the block free of a reference
        # cycle, so that a network dropped is freed at once with the arrays its graphs hold
        self._block_ref = weakref.ref(block)
        self._counter: Dict[str, int] = {}
        self._old = None
        self._name_scope = None

    @property
    def _block(self) -> "Block":
        return self._block_ref()

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
        # let go of the enclosing scope: a block shared by several parents (one pooling layer in
        # each of a loop's networks) would otherwise keep the last of them, and its cached graph's
        # arrays, alive
        _scope.value, self._old = self._old, None


def _input_context(args) -> Context:
    """The context of the first array among `args` (nested in lists and tuples or not)."""
    for arg in args:
        if isinstance(arg, NDArray):
            return arg._ctx
        if isinstance(arg, (list, tuple)):
            flat, _ = _flatten(list(arg))
            for item in flat:
                if isinstance(item, NDArray):
                    return item._ctx
    return current_context()


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


def _shape_text(value) -> str:
    """Shapes as MXNet's summary prints them: nested lists and tuples kept, the outermost list's
    brackets dropped."""
    def shapes(item):
        if isinstance(item, (list, tuple)):
            return [shapes(i) for i in item]
        return item.shape if isinstance(item, (NDArray, Symbol)) else item
    found = shapes(value)
    return str(found)[1:-1] if isinstance(found, list) else str(found)


def _input_kinds(value, contexts=None) -> Tuple[bool, list]:
    """(whether a Symbol is among the nested inputs, the contexts of the NDArrays among them)."""
    contexts = [] if contexts is None else contexts
    if isinstance(value, NDArray):
        contexts.append(value._ctx)
        return False, contexts
    if isinstance(value, Symbol):
        return True, contexts
    has_symbol = False
    if isinstance(value, (list, tuple)):
        for item in value:
            has_symbol |= _input_kinds(item, contexts)[0]
    return has_symbol, contexts


def _check_graph_inputs(value, name: str) -> None:
    """A hybridized block's inputs are arrays (or None) in lists and tuples: a Python value cannot
    be a graph input (MXNet 1.9.1's words)."""
    if value is None or isinstance(value, (NDArray, Symbol)):
        return
    if not isinstance(value, (list, tuple)):
        raise ValueError("When hybridized, the input of HybridBlock %s must be (nested) list of Symbol or NDArray, "
                         "but got %s of type %s" % (name, value, type(value)))
    for item in value:
        _check_graph_inputs(item, name)


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
        existing = self.__dict__.get(name)
        if isinstance(existing, (Parameter, Block)) and not isinstance(value, type(existing)):
            raise TypeError("Changing attribute type for {name} from {type1} to {type2}is not allowed."
                            .format(name=name, type1=type(existing), type2=type(value)))
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

    def _warn_unregistered_containers(self) -> None:
        """MXNet 1.9.1 warns when an attribute holds Blocks in a list, tuple or dict: those are
        not children, so their parameters are not collected."""
        children = set(map(id, self._children.values()))

        def holds_stray_block(data) -> bool:
            if isinstance(data, dict):
                data = list(data.values())
            if isinstance(data, (list, tuple)):
                return any(holds_stray_block(item) for item in data)
            return isinstance(data, Block) and id(data) not in children
        for key, value in self.__dict__.items():
            if isinstance(value, (list, tuple, dict)) and not (key.startswith("__") or key == "_children") \
                    and holds_stray_block(value):
                warnings.warn('"%s.%s" is an unregistered container with Blocks. Note that Blocks inside the list, '
                              "tuple or dict will not be registered automatically. Make sure to register them using "
                              "register_child() or switching to nn.Sequential/nn.HybridSequential instead. "
                              % (type(self).__name__, key), stacklevel=3)

    def collect_params(self, select: Optional[str] = None) -> ParameterDict:
        self._warn_unregistered_containers()
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

    def register_op_hook(self, callback, monitor_all=False) -> None:
        """`callback(name, op_name, array)` for the operators that hybridized blocks below run
        (a Block itself runs none: it passes the hook to its children)."""
        for child in self._children.values():
            child.register_op_hook(callback, monitor_all)

    def apply(self, fn):
        for child in self._children.values():
            child.apply(fn)
        fn(self)
        return self

    def save_parameters(self, filename: str, deduplicate: bool = False) -> None:
        from runtime.serialization import save_arrays
        params = self._collect_params_with_prefix()
        if deduplicate:
            # a parameter shared by several blocks once, under the last of its names (as MXNet keeps it)
            last_name = {id(p): k for k, p in params.items()}
            params = {k: p for k, p in params.items() if last_name[id(p)] == k}
        save_arrays(filename, {k: v._reduce().asnumpy() for k, v in params.items()})

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
        names = {}  # every name of each parameter: a shared one may be saved under any of them
        for name, param in params.items():
            names.setdefault(id(param), []).append(name)
        for name, param in params.items():
            saved_as = [n for n in names[id(param)] if n in loaded]
            if not saved_as:
                if allow_missing:
                    continue
                raise MXNetError("Parameter '%s' is missing in file '%s'" % (name, filename))
            param._load_init(loaded[saved_as[0]], ctx, cast_dtype=cast_dtype, dtype_source=dtype_source)
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
        """Runs the model on `inputs` and prints, as MXNet 1.9.1 does, each layer (containers aside)
        with its output shape and parameter count, then the totals (shared parameters counted
        once in the unique count). The model must be initialized and not hybridized."""
        rows = [("Input", _shape_text(inputs), 0, 0, 0)]
        seen = set()
        hooks = []

        def record(block, _, outputs):
            total = trainable = shared = 0
            for param in block.params.values():
                size = param.data().size
                total += size
                trainable += 0 if param.grad_req == "null" else size
                if id(param) in seen:
                    shared += size
                seen.add(id(param))
            rows.append(("%s-%d" % (type(block).__name__, len(rows)), _shape_text(outputs), total, trainable, shared))

        def hook(block):
            if isinstance(block, HybridBlock) and block._active:
                raise AssertionError('"%s" must not be hybridized to print summary.' % block.name)
            from runtime.gluon.nn.basic_layers import HybridSequential, Sequential
            if not isinstance(block, (Sequential, HybridSequential)):
                hooks.append(block.register_forward_hook(record))
        try:
            self.apply(hook)
            self(*inputs)
            line = "{:>20}  {:>42} {:>15}"
            print("-" * 80)
            print(line.format("Layer (type)", "Output Shape", "Param #"))
            print("=" * 80)
            for name, shape, total, _, _ in rows:
                print(line.format(name, shape, total))
            total, trainable, shared = (sum(r[i] for r in rows) for i in (2, 3, 4))
            print("=" * 80)
            print("Parameters in forward computation graph, duplicate included")
            print("   Total params: %d" % total)
            print("   Trainable params: %d" % trainable)
            print("   Non-trainable params: %d" % (total - trainable))
            print("Shared params in forward computation graph: %d" % shared)
            print("Unique parameters in model: %d" % (total - shared))
            print("-" * 80)
        finally:
            for handle in hooks:
                handle.detach()


class HybridBlock(Block):
    def __init__(self, prefix=None, params=None):
        super().__init__(prefix, params)
        self._active = False
        self._flags: Dict = {}
        self._cached: Dict[tuple, "_CachedGraph"] = {}
        self._in_format: Optional[list] = None  # the inputs' structure the cached graphs take
        self._op_hook = None  # (callback, monitor_all) of register_op_hook

    def hybridize(self, active=True, static_alloc=False, static_shape=False, **kwargs) -> None:
        self._active = active
        self._flags = dict(static_alloc=static_alloc, static_shape=static_shape,
                           inline_limit=int(kwargs.get("inline_limit", 2)))
        self._cached.clear()
        super().hybridize(active, static_alloc=static_alloc, static_shape=static_shape, **kwargs)

    def cast(self, dtype) -> None:
        self._cached.clear()
        super().cast(dtype)

    def _clear_cached_op(self) -> None:
        """Forget this block's traced graphs, so that the next call traces hybrid_forward again
        (MXNet 1.9.1's private method, which GluonCV's set_nms and reset_class call after changing
        what hybrid_forward reads)."""
        self._cached.clear()

    def register_op_hook(self, callback, monitor_all=False) -> None:
        """`callback(name, op_name, array)` for each operator the hybridized block runs: its outputs
        named NODE_OUTPUT, and with `monitor_all` its inputs first, NODE_INPUT (input0, input1... for
        the operators MXNet registers without input names); names as bytes, as MXNet passes them.
        As in MXNet 1.9.1, the block and its direct children take the hook."""
        for block in (self, *self._children.values()):
            if isinstance(block, HybridBlock):
                block._op_hook = (callback, monitor_all)

    def register_child(self, block, name=None) -> None:
        if not isinstance(block, HybridBlock):
            raise ValueError("Children of HybridBlock must also be HybridBlock, but %s has type %s. If you are "
                             "using Sequential, please try HybridSequential instead." % (str(block), str(type(block))))
        super().register_child(block, name)
        self._cached.clear()

    def forward(self, x, *args):
        if type(x) is NDArray and all(type(a) is NDArray and a._ctx == x._ctx for a in args):  # the common case
            return self._call_cached(x, *args) if self._active else self._run_eagerly(x, *args)
        # any nesting of lists and tuples; None and (until hybridized) Python values alongside
        has_symbol, contexts = _input_kinds([x, *args])
        if has_symbol and contexts:
            raise ValueError("In HybridBlock, we do not support mixed NDArrays and Symbols types for the input. "
                             "Please check the type of the args.\n")
        if not has_symbol and not contexts:
            raise ValueError("In HybridBlock, there must be one NDArray or one Symbol in the input. "
                             "Please check the type of the args.\n")
        if contexts:
            if not self._active:
                return self._run_eagerly(x, *args)
            if len(set(contexts)) > 1:
                raise ValueError("Find multiple contexts in the input, After hybridized, the HybridBlock only "
                                 "supports one input context. You can print the ele.ctx in the input arguments to "
                                 "inspect their contexts. Find all contexts = %s" % set(contexts))
            _check_graph_inputs([x, *args], self.name)
            return self._call_cached(x, *args)
        from runtime import sym
        params = {k: v.var() for k, v in self._reg_params.items()}
        with self.name_scope():
            return self.hybrid_forward(sym, x, *args, **params)

    def _run_eagerly(self, *args):
        """hybrid_forward on NDArrays, with the parameters' copies on the first input's context,
        which is the current context meanwhile (as MXNet runs it)."""
        from runtime import nd
        ctx = _input_context(args)
        # the current context for this call: set on the thread directly (a `with` on the input's
        # Context object would keep the previous one on that object, which other arrays share)
        scope = Context._default
        previous = getattr(scope, "value", None)
        scope.value = ctx
        try:
            try:
                params = {k: v.data(ctx) for k, v in self._reg_params.items()}
            except DeferredInitializationError:
                self._infer_param_shapes(*args)
                params = {k: v.data(ctx) for k, v in self._reg_params.items()}
            return self.hybrid_forward(nd, *args, **params)
        finally:
            scope.value = previous

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
        from runtime.executor import infer_shapes
        arg_shapes, _, aux_shapes = infer_shapes(graph, known, partial=True)
        shapes = dict(zip(graph.list_arguments(), arg_shapes))
        shapes.update(zip(graph.list_auxiliary_states(), aux_shapes))
        for param in self.collect_params().values():
            if param.name in shapes and shapes[param.name] is not None:
                param.shape = shapes[param.name]
            param._finish_deferred_init()

    def _infer_attrs(self, infer: str, attribute: str, *args) -> None:
        """Each parameter's `attribute` (shape or dtype) from the graph traced with the inputs'."""
        inputs, graph, _ = self._trace(args)
        given = [a for a in _flatten(list(args))[0] if a is not None]
        arg_values, _, aux_values = getattr(graph, infer)(**{i.name: getattr(a, attribute)
                                                             for i, a in zip(inputs, given)})
        if arg_values is None:
            raise ValueError("cannot infer the parameters' %s from inputs of %s"
                             % (attribute, [getattr(a, attribute) for a in given]))
        found = dict(zip(graph.list_arguments(), arg_values))
        found.update(zip(graph.list_auxiliary_states(), aux_values))
        for param in self.collect_params().values():
            setattr(param, attribute, found[param.name])

    def infer_shape(self, *args) -> None:
        """Sets the parameters' shapes from the shapes of inputs (arrays or Symbols), as MXNet's."""
        self._infer_attrs("infer_shape", "shape", *args)

    def infer_type(self, *args) -> None:
        """Sets the parameters' dtypes from the dtypes of inputs."""
        self._infer_attrs("infer_type", "dtype", *args)

    def _call_cached(self, *args):
        # one graph per input signature and context: each context binds its own copies of the parameters
        if len(args) == 1 and type(args[0]) is NDArray:  # the common case, without a generator's cost on every call
            data = args[0]._data
            key = ((data.shape, data.dtype), args[0]._ctx)
            flat = args
        elif all(type(a) is NDArray for a in args):
            key = tuple((a._data.shape, a._data.dtype) for a in args) + (args[0]._ctx,)
            flat = args
        else:  # nested inputs: the structure is part of the signature
            flat, fmt = _flatten(list(args))
            key = (repr(fmt),) + tuple((a._data.shape, a._data.dtype) for a in flat) + \
                ((flat[0]._ctx,) if flat else ())
        graph = self._cached.get(key)
        if graph is None:
            self._check_structure(_flatten(list(args))[1])
            graph = self._cached[key] = _CachedGraph(self, args)
        if self._op_hook is not None:
            # MXNet 1.9.1 warns at every hooked call of a hybridized block (its test of the flags is
            # true whatever their values)
            import warnings
            warnings.warn("register_op_hook is experimental when static_alloc=True / static_shape=True  and may not "
                          "work correctly")
            return graph.with_op_hook(flat, self._op_hook)
        return graph(flat)

    def _check_structure(self, fmt: list) -> None:
        """A hybridized block takes its inputs in the structure of its first call (other shapes are
        fine); only Nones trailing one or the other may differ, as defaults left out (MXNet 1.9.1)."""
        if not self._cached or self._in_format is None:
            self._in_format = fmt
            return
        stored = self._in_format
        if fmt == stored:
            return
        shorter, longer = (fmt, stored) if len(fmt) < len(stored) else (stored, fmt)
        if len(shorter) == len(longer) or longer[:len(shorter)] != shorter \
                or any(item != -1 for item in longer[len(shorter):]):
            raise ValueError("The argument structure of HybridBlock does not match the cached version. "
                             "Stored format = %s, input format = %s" % (fmt, stored))

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
                arrays["arg:%s" % param.name] = param._reduce().asnumpy()
            elif param.name in graph.symbol.list_auxiliary_states():
                arrays["aux:%s" % param.name] = param._reduce().asnumpy()
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
        ctx = _input_context(args)
        bound = {n: params[n].data(ctx) for n in arg_names if n in params}
        for name, value in zip(self.input_names, args):
            # a holder of the input's shape and type, one read-only zero: each call reads its own
            # inputs in place, so the holder's values are never the data. A copy of the first input
            # here would be kept as long as the block is, a 512 MiB batch included
            zero = np.zeros((), value._data.dtype)
            bound[name] = NDArray(np.broadcast_to(zero, value._data.shape), value.context)
        aux = {n: params[n].data(ctx) for n in self.symbol.list_auxiliary_states()}
        from runtime.executor import Executor
        self.static_alloc = bool(block._flags.get("static_alloc"))
        # MXNet records a graph of at most inline_limit operators (2 unless hybridize says) as its
        # operators, a larger one as one _CachedOp node: what autograd.get_symbol shows
        operators = sum(1 for node in self.symbol._order() if not node.is_variable)
        self.inlined = not self.static_alloc and operators <= block._flags.get("inline_limit", 2)
        self.context = ctx
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

    def with_op_hook(self, args, hook):
        """A call with register_op_hook's callback: the graph run node by node (as under
        autograd, where the recorded path runs so too), the callback given each operator's
        arrays."""
        from runtime.executor import _entry_name
        callback, monitor_all = hook

        def report(node, inputs, results):
            op_name = node.op.name.encode()
            if monitor_all:
                names = node.op.input_names(node.attrs)
                if getattr(node.op, "unnamed_inputs", False):
                    names = ["input%d" % i for i in range(len(names))]
                for name, array in zip(names, inputs):
                    callback(("%s_%s" % (node.name, name)).encode(), op_name, NDArray(array, self.context))
            for index, array in enumerate(results):
                callback(_entry_name(node, index).encode(), op_name, NDArray(array, self.context))
        self.executor._op_hook = report
        try:
            if autograd._state.recording and (autograd.needs_grad(args) or autograd.needs_grad(self.param_arrays)):
                return self._call_recorded(args)
            return self._call_recorded(args, record=False)
        finally:
            self.executor._op_hook = None

    def _call_recorded(self, args, record=True):
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
        if not record:
            return result
        variables = {node.name: node for node in executor._order if node.is_variable}
        wanted = [variables.get(name) for name in self.input_names + tuple(self.param_names)]
        order = executor._order
        tracked = list(args) + self.param_arrays
        names = {node.name for node, array in zip(wanted, tracked) if node is not None and array._entry is not None}

        def vjp(out_grads):
            grads = graph_gradients(order, heads, values, out_grads, is_train, names, executor._backward_schedules)
            return [None if node is None else grads.get(id(node)) for node in wanted]
        flat, _ = _flatten(result)
        # (a name of its own: `vjp` reads `names`, the variables that need gradients, when called)
        inputs = self.input_names + tuple(self.param_names)
        autograd.record_node("_CachedOp", vjp, tracked, flat,
                             symbol_info=autograd.GraphCall(self.symbol, inputs, tracked, self.inlined))
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
            out = self._outputs(**mapping)
            # several outputs come back as a list of Symbols, as MXNet regroups them (and as the
            # arrays come eagerly): GluonCV's FPN features go on one by one into the RPN
            return out if len(out) == 1 else [out[i] for i in range(len(out))]
        return self._call_cached(x, *args)

    def hybridize(self, active=True, **kwargs):
        self._active = True

    def reset_ctx(self, ctx):
        """Its parameters on other contexts; the graphs bound to the old copies are dropped."""
        self._cached.clear()
        self.collect_params().reset_ctx(ctx)
