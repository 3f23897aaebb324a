"""Parameters and parameter dictionaries, with MXNet 1.x's naming and deferred initialization."""
from __future__ import annotations

import re
from collections import OrderedDict
from typing import Dict, List, Optional

import numpy as np

from runtime import initializer as init_module
from runtime.base import MXNetError
from runtime.context import Context, current_context
from runtime.ndarray import NDArray


def _tensor_types() -> tuple:
    from runtime.symbol import Symbol  # the symbol module imports gluon's parameters itself
    return (Symbol, NDArray)


class DeferredInitializationError(MXNetError):
    """The parameter's shape is not known until the first forward pass."""


def _context_list(ctx) -> list:
    """MXNet's forms of `ctx` (None for the current context, one Context, or a list) as a list."""
    if ctx is None:
        return [current_context()]
    if isinstance(ctx, Context):
        return [ctx]
    return list(ctx)


class Parameter:
    """A weight with one copy of its data and gradient per context it is initialized on.

    Copies are independent arrays (cpu(0) and cpu(1) do not share memory); gluon.Trainer keeps
    them equal by summing the gradients of every copy and updating each. The private state has
    MXNet's names and forms (`_data` and `_grad` lists, `_ctx_list`, `_ctx_map`), which model code
    copies to wrap a parameter.
    """

    def __init__(self, name, grad_req="write", shape=None, dtype=np.float32, lr_mult=1.0, wd_mult=1.0, init=None,
                 allow_deferred_init=False, differentiable=True, stype="default", grad_stype="default"):
        self.name = name
        self._shape = (shape,) if isinstance(shape, int) else (tuple(shape) if shape is not None else None)
        self._dtype = np.dtype(dtype).type
        self.lr_mult, self.wd_mult = lr_mult, wd_mult
        self.init = init
        self._differentiable_flag = differentiable
        self._grad_req = grad_req if differentiable else "null"
        self.allow_deferred_init = allow_deferred_init
        self._data: Optional[List[NDArray]] = None   # one array per context of _ctx_list
        self._grad: Optional[List[NDArray]] = None
        self._ctx_list: Optional[list] = None
        self._ctx_map = None       # [[index in _ctx_list by device_id] for cpu-like, for gpu] as MXNet keeps it
        self._deferred = None      # (initializer, [contexts], default_init, data) waiting for a shape
        self._var = None
        self._trainer = None
        valid = ("default", "row_sparse", "csr")
        assert grad_stype in valid, "grad_stype for Parameter '%s' must be one of 'default', 'row_sparse', or " \
            "'csr', but got '%s'" % (name, grad_stype)
        assert stype in valid, "stype for Parameter '%s' must be one of 'default', 'row_sparse', or 'csr', but " \
            "got '%s'" % (name, stype)
        self._stype, self._grad_stype = stype, grad_stype
        self._full = None  # a sparse parameter's every row (see _init_impl)

    # MXNet's private state, which model code copies to wrap a parameter (GluonNLP's
    # WeightDropParameter reads `_deferred_init`, `_allow_deferred_init`, `_ctx_list`, ...)
    @property
    def _deferred_init(self) -> tuple:
        """(initializer, [contexts], default initializer, data) while waiting for a shape, else ()."""
        return self._deferred if self._deferred is not None else ()

    @_deferred_init.setter
    def _deferred_init(self, value) -> None:
        if value:
            chosen, ctx, default_init, data = value
            self._deferred = (chosen, _context_list(ctx), default_init, data)
        else:
            self._deferred = None

    @property
    def _allow_deferred_init(self) -> bool:
        return self.allow_deferred_init

    @property
    def _differentiable(self) -> bool:
        return self._differentiable_flag

    @property
    def grad_req(self) -> str:
        return self._grad_req

    @grad_req.setter
    def grad_req(self, req: str) -> None:
        if req not in ("write", "add", "null"):
            raise AssertionError("grad_req must be one of 'write', 'add', or 'null', but got '%s'" % req)
        if not self._differentiable_flag:
            req = "null"
        if req == self._grad_req:
            return
        self._grad_req = req
        if req == "null":
            if self._grad is not None:
                self._grad = None
                if self._data is not None:
                    self._data = [d.detach() for d in self._data]
        elif self._data is not None:
            self._init_grad()

    def _init_impl(self, data, ctx_list) -> None:
        """A copy of `data` (an NDArray or NumPy array) on each context, and their gradients."""
        self._ctx_list = list(ctx_list)
        self._ctx_map = [[], []]
        for i, ctx in enumerate(self._ctx_list):
            devices = self._ctx_map[ctx.device_typeid & 1]
            while len(devices) <= ctx.device_id:
                devices.append(None)
            devices[ctx.device_id] = i
        value = data._data if isinstance(data, NDArray) else np.asarray(data)
        self._data = [NDArray(np.array(value, dtype=self.dtype), ctx) for ctx in self._ctx_list]
        if self._stype != "default":
            # the copies take the parameter's storage; `_full` holds all its rows (what MXNet's
            # key-value store holds), and `row_sparse_data` copies the rows asked for into a copy
            self._data = [d.tostype(self._stype) for d in self._data]
            self._full = self._data[0].copy()
            self._full._kept[:] = True  # every row is stored, as in MXNet's key-value store
        self._init_grad()

    def _init_grad(self) -> None:
        """A zero gradient beside each copy, registered with autograd as that copy's gradient."""
        if self._grad_req == "null":
            self._grad = None
            return
        from runtime import autograd
        if self._grad_stype == "default":
            self._grad = [NDArray(np.zeros(d.shape, dtype=d._data.dtype), d.context) for d in self._data]
        else:  # sparse gradient buffers: backward stores the rows (or elements) it reaches
            from runtime import sparse
            self._grad = [sparse.zeros(self._grad_stype, d.shape, d.context, d._data.dtype) for d in self._data]
        autograd.mark_variables(self._data, self._grad, self._grad_req)

    def _check_and_get(self, arr_list, ctx):
        """The array of `arr_list` (data or gradients) on `ctx`; all of them for ctx=list; with
        ctx=None, the only one, or the current context's."""
        if isinstance(arr_list, NDArray):
            return [arr_list] if ctx is list else arr_list
        if arr_list is not None:
            if ctx is list:
                return arr_list
            if ctx is None:
                if len(arr_list) == 1:
                    return arr_list[0]
                ctx = current_context()
            devices = self._ctx_map[ctx.device_typeid & 1] if self._ctx_map else []
            if ctx.device_id < len(devices) and devices[ctx.device_id] is not None:
                return arr_list[devices[ctx.device_id]]
            raise RuntimeError("Parameter '%s' was not initialized on context %s. It was only initialized on %s."
                               % (self.name, str(ctx), str(self._ctx_list)))
        if self._deferred is not None:
            raise DeferredInitializationError(
                "Parameter '%s' has not been initialized yet because initialization was deferred. Actual "
                "initialization happens during the first forward pass. Please pass one batch of data through "
                "the network before accessing Parameters." % self.name)
        raise MXNetError("Parameter '%s' has not been initialized. Note that you should initialize parameters "
                         "and create Trainer with Block.collect_params() instead of Block.params because the "
                         "later does not include Parameters of nested child Blocks" % self.name)

    def __repr__(self) -> str:
        return "Parameter %s (shape=%s, dtype=%s)" % (self.name, self.shape, np.dtype(self.dtype).name)

    @property
    def shape(self):
        return self._shape

    @shape.setter
    def shape(self, new_shape):
        new_shape = tuple(new_shape)
        if self._shape is not None:
            if len(self._shape) != len(new_shape) or any(o not in (0, n) for o, n in zip(self._shape, new_shape)):
                raise MXNetError("Expected shape %s is incompatible with given shape %s for Parameter %s"
                                 % (new_shape, self._shape, self.name))
        self._shape = new_shape

    def _shape_known(self) -> bool:
        return self._shape is not None and all(d > 0 for d in self._shape)

    def initialize(self, init=None, ctx=None, default_init=None, force_reinit=False):
        if self._data is not None and not force_reinit:
            return
        self._data = self._grad = None
        chosen = init if init is not None else self.init
        default_init = init_module.create(default_init) if default_init is not None else init_module.Uniform()
        self._deferred = (chosen, _context_list(ctx), default_init, None)
        if not self._shape_known():
            if not self.allow_deferred_init:
                self._deferred = None
                raise MXNetError("Cannot initialize Parameter '%s' because it has invalid shape: %s."
                                 % (self.name, self._shape))
            return
        self._finish_deferred_init()

    def _finish_deferred_init(self) -> None:
        if self._deferred is None:
            return
        chosen, ctx_list, default_init, data = self._deferred
        if not self._shape_known():
            raise DeferredInitializationError(
                "Parameter '%s' has not been initialized yet because initialization was deferred. Actual "
                "initialization happens during the first forward pass." % self.name)
        array = NDArray(np.zeros(self._shape, dtype=self.dtype), ctx_list[0])
        if data is not None:
            array[:] = data
        elif chosen is not None:
            # a parameter's own initializer applies whatever the parameter's name says
            init_module.create(chosen)._init_weight(self.name, array)
        else:
            default_init(self.name, array)
        self._deferred = None
        self._init_impl(array, ctx_list)

    def _reduce(self) -> NDArray:
        """The copies' mean on cpu(0), as saving and moving a parameter take it; a row_sparse
        parameter's every row, as MXNet pulls them through its Trainer (in dense storage here: the
        files this runtime writes hold dense arrays, which load into either storage)."""
        if self._stype != "default" and self._data is not None:
            if self._trainer is None:
                raise RuntimeError("Cannot get row_sparse data for Parameter '%s' when no Trainer is created with "
                                   "it." % self.name)
            return NDArray(np.array(self._full.asnumpy()), Context("cpu", 0))
        copies = self.list_data()
        total = copies[0]._data.copy()
        for other in copies[1:]:
            total += other._data
        if len(copies) > 1:
            total /= np.array(len(copies), dtype=total.dtype)
        return NDArray(total, Context("cpu", 0))

    def data(self, ctx=None) -> NDArray:
        if self._stype != "default" and self._data is not None:
            raise RuntimeError("Cannot return a copy of Parameter '%s' on ctx %s via data() because its storage type "
                               "is %s. Please use row_sparse_data() instead." % (self.name, ctx, self._stype))
        return self._check_and_get(self._data, ctx)

    def list_data(self):
        if self._stype != "default" and self._data is not None:
            raise RuntimeError("Cannot return copies of Parameter '%s' on all contexts via list_data() because its "
                               "storage type is %s. Please use row_sparse_data() instead." % (self.name, self._stype))
        return self._check_and_get(self._data, list)

    def row_sparse_data(self, row_id) -> NDArray:
        """The copy on row_id's context holding the rows `row_id` of a row_sparse parameter (the
        others zero)."""
        if self._stype != "row_sparse":
            raise RuntimeError("Cannot return a copy of Parameter %s via row_sparse_data() because its storage type "
                               "is %s. Please use data() instead." % (self.name, self._stype))
        if self._trainer is None:
            raise RuntimeError("Cannot get row_sparse data for Parameter '%s' when no Trainer is created with it."
                               % self.name)
        from runtime import sparse
        copy = self._check_and_get(self._data, row_id.context)
        copy[:] = sparse.retain(self._full, row_id.astype("int64"))
        return copy

    def list_row_sparse_data(self, row_id):
        return [self.row_sparse_data(row_id.as_in_context(ctx)) for ctx in self._ctx_list]

    def list_ctx(self):
        if self._data is None:
            if self._deferred is not None:
                return self._deferred[1]
            raise RuntimeError("Parameter '%s' has not been initialized" % self.name)
        return self._ctx_list

    def set_data(self, data) -> None:
        value = data._data if isinstance(data, NDArray) else np.asarray(data)
        self.shape = value.shape
        if self._data is None:
            if self._deferred is not None:
                chosen, ctx, default_init, _ = self._deferred
                self._deferred = (chosen, ctx, default_init, value)
                self._finish_deferred_init()
                return
            self._init_impl(value, [current_context()])
            return
        trainer = self._trainer
        if trainer is not None and trainer._kv_initialized and trainer._update_on_kvstore \
                and self not in trainer._params_to_init:
            # the key-value store holds the weights it updates: it must take the new ones
            trainer._reset_kvstore()
        for arr in self._data:
            arr._data[...] = value

    def _load_init(self, data, ctx, cast_dtype=False, dtype_source="current") -> None:
        """Take loaded data: initialize on `ctx` (or the deferred contexts) if not initialized, else
        set every copy, which must be on the contexts given. With cast_dtype, data of another dtype
        is cast to the parameter's ('current'), or the parameter is cast to the data's ('saved')."""
        if cast_dtype:
            assert dtype_source in ["current", "saved"]
            value = data._data if isinstance(data, NDArray) else np.asarray(data)
            if np.dtype(self.dtype).type != value.dtype.type:
                if dtype_source == "current":
                    data = value.astype(self.dtype)
                else:
                    self.cast(value.dtype)
        ctx = [ctx] if isinstance(ctx, Context) else ctx
        if self._data is None:
            if self._deferred is not None:
                assert ctx is None or set(ctx) == set(self._deferred[1]), \
                    "Failed to load Parameter '%s' on %s because it was previous initialized on %s." \
                    % (self.name, str(ctx), str(self.list_ctx()))
                ctx = self._deferred[1]
            elif ctx is None:
                ctx = [Context("cpu", 0)]
            value = data._data if isinstance(data, NDArray) else np.asarray(data)
            self.shape = value.shape
            self._deferred = None
            self._init_impl(value, ctx)
            return
        assert ctx is None or set(ctx) == set(self.list_ctx()), \
            "Failed to load Parameter '%s' on %s because it was previous initialized on %s." \
            % (self.name, str(ctx), str(self.list_ctx()))
        self.set_data(data)
        self._deferred = None

    def _set_trainer(self, trainer) -> None:
        # one trainer only for a sparse parameter (MXNet checks the declared storage type)
        if self._stype != "default" and self._trainer and trainer and self._trainer is not trainer:
            raise RuntimeError("Failed to set the trainer for Parameter '%s' because it was already set. More than "
                               "one trainers for a %s Parameter is not supported." % (self.name, self._stype))
        self._trainer = trainer

    def _grads_or_raise(self):
        if self._data is not None and self._grad is None:
            raise RuntimeError("Cannot get gradient array for Parameter '%s' because grad_req='null'" % self.name)
        return self._grad

    def grad(self, ctx=None) -> NDArray:
        return self._check_and_get(self._grads_or_raise(), ctx)

    def list_grad(self):
        return self._check_and_get(self._grads_or_raise(), list)

    def zero_grad(self) -> None:
        for grad in self._grad or ():
            grad._data[...] = 0

    def reset_ctx(self, ctx) -> None:
        ctx = _context_list(ctx)
        if self._data is not None:
            mean = self._reduce()
            if ctx == self._ctx_list:
                # the same contexts: the arrays stay (graphs cached by hybridized blocks are bound to them)
                for arr in self._data:
                    arr._data[...] = mean._data
                return
            self._init_impl(mean, ctx)
        elif self._deferred is not None:
            chosen, _, default_init, data = self._deferred
            self._deferred = (chosen, ctx, default_init, data)
        else:
            raise ValueError("Cannot reset context for Parameter '%s' because it has not been initialized."
                             % self.name)

    @property
    def dtype(self):
        return self._dtype

    @dtype.setter
    def dtype(self, dtype) -> None:
        """Setting the dtype casts the parameter, as in MXNet."""
        self.cast(dtype)

    def cast(self, dtype) -> None:
        self._dtype = np.dtype(dtype).type
        if self._data is None:
            return
        self._data = [NDArray(d._data.astype(dtype), d.context) for d in self._data]
        self._init_grad()

    def var(self):
        from runtime.symbol import var
        if self._var is None:
            # with its initializer, which binding a graph of it (mx.mod.Module) uses before the default
            # (a sparse parameter's variable carries its storage type; kept off dense ones, whose
            # exported graphs this runtime writes without it)
            self._var = var(self.name, shape=self._shape, dtype=self.dtype, lr_mult=self.lr_mult,
                            wd_mult=self.wd_mult, init=self.init,
                            stype=self._stype if self._stype != "default" else None)
        return self._var


class Constant(Parameter):
    def __init__(self, name, value):
        value = value.asnumpy() if isinstance(value, NDArray) else np.asarray(value, dtype=np.float32)
        super().__init__(name, grad_req="null", shape=value.shape, dtype=value.dtype,
                         init=init_module.Constant(0.0))
        self.value = value
        self._init_impl(value, [current_context()])

    def initialize(self, init=None, ctx=None, default_init=None, force_reinit=False):
        """Its value, on the contexts asked for (it holds one from its creation)."""
        contexts = _context_list(ctx)
        if contexts != self._ctx_list:
            self._init_impl(self.value, contexts)


class ParameterDict:
    def __init__(self, prefix: str = "", shared: Optional["ParameterDict"] = None):
        self._prefix = prefix
        self._params: "OrderedDict[str, Parameter]" = OrderedDict()
        self._shared = shared

    @property
    def prefix(self) -> str:
        return self._prefix

    def __getitem__(self, key: str) -> Parameter:
        return self._params[key]

    def __contains__(self, key) -> bool:
        return key in self._params

    def __iter__(self):
        return iter(self._params)

    def __len__(self) -> int:
        return len(self._params)

    def keys(self):
        return self._params.keys()

    def values(self):
        return self._params.values()

    def items(self):
        return self._params.items()

    def __repr__(self) -> str:
        body = "\n".join("  " + repr(p) for p in self._params.values())
        # MXNet's header: the prefix and a space, or nothing
        return "%s(\n%s\n)" % (self._prefix + " " if self._prefix else "", body)

    def get(self, name: str, **kwargs) -> Parameter:
        full = self._prefix + name
        param = self._params.get(full)
        if param is None and self._shared is not None and full in self._shared:
            param = self._shared[full]
            self._params[full] = param
        if param is None:
            param = Parameter(full, **kwargs)
            self._params[full] = param
        elif "shape" in kwargs and kwargs["shape"] is not None:
            shape = (kwargs["shape"],) if isinstance(kwargs["shape"], int) else tuple(kwargs["shape"])
            known = param.shape
            if known is not None and len(known) == len(shape) and \
                    all(a == b or a <= 0 or b <= 0 for a, b in zip(shape, known)):
                # a shared parameter asked for with unknown dimensions (a tied decoder's (vocab, 0))
                # keeps the dimensions it knows
                param._shape = tuple(b if a <= 0 else a for a, b in zip(shape, known))
            else:
                param.shape = shape
        return param

    def get_constant(self, name: str, value=None) -> Parameter:
        full = self._prefix + name
        if full not in self._params:
            self._params[full] = Constant(full, value)
        return self._params[full]

    def update(self, other: "ParameterDict") -> None:
        for k, v in other.items():
            self._params[k] = v

    def initialize(self, init=None, ctx=None, verbose=False, force_reinit=False) -> None:
        default = init_module.create(init)
        for param in self._params.values():
            param.initialize(None, ctx, default, force_reinit=force_reinit)

    def zero_grad(self) -> None:
        for param in self._params.values():
            param.zero_grad()

    def reset_ctx(self, ctx) -> None:
        for p in self._params.values():
            p.reset_ctx(ctx)

    def list_ctx(self):
        """Every context some parameter is initialized on (in no particular order, as MXNet's set)."""
        contexts = set()
        for param in self._params.values():
            contexts.update(param.list_ctx())
        return list(contexts)

    def setattr(self, name, value) -> None:
        for p in self._params.values():
            setattr(p, name, value)

    def select(self, pattern: str) -> "ParameterDict":
        selected = ParameterDict(self._prefix)
        regex = re.compile(pattern)
        for k, v in self._params.items():
            if regex.match(k):
                selected._params[k] = v
        return selected

    def save(self, filename: str, strip_prefix: str = "") -> None:
        from runtime.serialization import save_arrays
        arrays: Dict[str, np.ndarray] = {}
        for name, param in self._params.items():
            key = name[len(strip_prefix):] if strip_prefix and name.startswith(strip_prefix) else name
            arrays[key] = param._reduce().asnumpy()
        save_arrays(filename, arrays)

    def load(self, filename: str, ctx=None, allow_missing: bool = False, ignore_extra: bool = False,
             restore_prefix: str = "", cast_dtype: bool = False, dtype_source: str = "current") -> None:
        """Read a file of `save` (or an export's `arg:`/`aux:` file), names prefixed with `restore_prefix`."""
        from runtime.serialization import load_arrays
        if restore_prefix:
            for name in self._params:
                if not name.startswith(restore_prefix):
                    raise MXNetError("restore_prefix is '%s' but Parameter name '%s' does not start with it"
                                     % (restore_prefix, name))
        loaded = load_arrays(filename)
        if not isinstance(loaded, dict):
            raise MXNetError("%s: holds arrays without names, not parameters" % filename)
        arrays = {restore_prefix + (key.split(":", 1)[1] if key.startswith(("arg:", "aux:")) else key): value
                  for key, value in loaded.items()}
        if not allow_missing:
            for name in self._params:
                if name not in arrays:
                    raise MXNetError("Parameter '%s' is missing in file '%s', which contains parameters: %s. Please "
                                     "make sure source and target networks have the same prefix."
                                     % (name, filename, ", ".join(sorted(arrays))))
        for name, value in arrays.items():
            if name not in self._params:
                if not ignore_extra:
                    raise MXNetError("Parameter '%s' loaded from file '%s' is not present in ParameterDict, choices "
                                     "are: %s. Set ignore_extra to True to ignore." % (name, filename,
                                                                                      ", ".join(self._params)))
                continue
            param = self._params[name]
            param._load_init(value, ctx, cast_dtype=cast_dtype, dtype_source=dtype_source)


# MXNet's gluon modules test "an array or a symbol" with this tuple (`from mxnet.gluon import tensor_types`)
tensor_types = _tensor_types()
