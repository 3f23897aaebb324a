"""`gluon.Trainer`: applies an optimizer to a set of Parameters after each backward pass.

Parameters may hold a copy per context. The key-value store is chosen at the first step, as MXNet
1.9.1 chooses it: none for one context (unless a store object is given), else the store named by
`kvstore`. With a store, `allreduce_grads` sums each parameter's gradients over its contexts;
with `update_on_kvstore` the store also holds the weights and updates them with the optimizer (the
copies pull the result), else each context's updater updates its copy with the summed gradient.
A parameter whose gradient backward did not write since the last step (`_fresh_grad`) stops the
step with MXNet's warning, unless `ignore_stale_grad` skips it.
"""
from __future__ import annotations

import os

import numpy as np

from runtime import kvstore as kvs
from runtime import optimizer as opt
from runtime.gluon.parameter import Parameter, ParameterDict

# 'local' keeps updates off the store when a parameter has more elements than this (MXNet's rule)
_LOCAL_UPDATE_LIMIT = 1024 * 1024 * 16


def _create_kvstore(kvstore, num_device: int, arg_arrays: dict):
    """(store or None, whether to update on it) for a store type or object, as MXNet's
    `model._create_kvstore` decides: one device on one machine needs no store."""
    update_on_kvstore = bool(int(os.getenv("MXNET_UPDATE_ON_KVSTORE", "1")))
    if kvstore is None:
        kv = None
    elif isinstance(kvstore, kvs.KVStoreBase):
        kv = kvstore
    elif isinstance(kvstore, str):
        if num_device == 1 and "dist" not in kvstore:
            kv = None
        else:
            kv = kvs.create(kvstore)
            if kvstore == "local" and \
                    max(int(np.prod(a.shape)) for a in arg_arrays.values()) > _LOCAL_UPDATE_LIMIT:
                update_on_kvstore = False
    else:
        raise TypeError("kvstore must be KVStore, str or None")
    if kv is None:
        return None, False
    return kv, update_on_kvstore and kv.is_capable(kvs.KVStoreBase.OPTIMIZER)


class Trainer:
    def __init__(self, params, optimizer, optimizer_params=None, kvstore="device", compression_params=None,
                 update_on_kvstore=None):
        if isinstance(params, (dict, ParameterDict)):
            params = [params[key] for key in sorted(params.keys())]
        if not isinstance(params, (list, tuple)):
            raise ValueError("First argument must be a list or dict of Parameters, got %s." % type(params))
        self._params = []
        self._param2idx = {}
        self._contains_sparse_weight = self._contains_sparse_grad = False
        for i, param in enumerate(params):
            if not isinstance(param, Parameter):
                raise ValueError("First argument must be a list or dict of Parameters, got list of %s."
                                 % type(param))
            self._param2idx[param.name] = i
            self._params.append(param)
            param._set_trainer(self)
            self._contains_sparse_weight |= param._stype != "default"
            self._contains_sparse_grad |= param._grad_stype != "default"
        self._compression_params = compression_params
        self._contexts = self._check_contexts()
        self._init_optimizer(optimizer, optimizer_params or {})
        self._scale = self._optimizer.rescale_grad
        self._kvstore_params = {"kvstore": kvstore, "update_on_kvstore": update_on_kvstore}
        self._reset_kvstore()

    def _check_contexts(self):
        contexts = None
        for param in self._params:
            ctx = param.list_ctx()
            assert contexts is None or contexts == ctx, \
                "All Parameters must be initialized on the same set of contexts, but Parameter %s is initialized " \
                "on %s while previous Parameters are initialized on %s." % (param.name, str(ctx), str(contexts))
            contexts = ctx
        return contexts

    def _init_optimizer(self, optimizer, optimizer_params):
        # the parameters themselves, not copies: lr_mult and wd_mult set later take effect
        param_dict = dict(enumerate(self._params))
        if isinstance(optimizer, opt.Optimizer):
            assert not optimizer_params, \
                "optimizer_params must be None if optimizer is an instance of Optimizer instead of str"
            self._optimizer = optimizer
            self._optimizer.param_dict = param_dict
        else:
            self._optimizer = opt.create(optimizer, param_dict=param_dict, **optimizer_params)
        # one updater per context, each with its own states (momentum) for its copies
        self._updaters = [opt.get_updater(self._optimizer) for _ in (self._contexts or [None])]

    # ---- the key-value store
    def _reset_kvstore(self):
        """Forget the store: the next step chooses it again and gives it every parameter."""
        current = getattr(self, "_kvstore", None)
        if current is not None and "dist" in current.type:
            raise RuntimeError("Cannot reset distributed KVStore.")
        self._kv_initialized = False
        self._kvstore = None
        self._distributed = None
        self._update_on_kvstore = None
        self._params_to_init = list(self._params)

    def _init_kvstore(self):
        """Choose the store and whether it updates the weights, with MXNet's checks on what was asked."""
        config = self._kvstore_params
        # (a sparse parameter's copy: data() refuses it, as MXNet's does)
        arg_arrays = {param.name: param._check_and_get(param._data, self._contexts[0]) for param in self._params}
        kvstore, update_on_kvstore = _create_kvstore(config["kvstore"], len(self._contexts), arg_arrays)
        self._distributed = "dist" in kvstore.type if kvstore else False
        if config["update_on_kvstore"] is not None:
            update_on_kvstore = config["update_on_kvstore"]
        # MXNet asks the store itself, None included (an AttributeError when there is none)
        if update_on_kvstore and not kvstore.is_capable("optimizer"):
            if config["update_on_kvstore"]:
                raise ValueError("Please set update_on_kvstore=False when training with {}".format(type(kvstore)))
            update_on_kvstore = False
        if kvstore:
            if self._compression_params:
                kvstore.set_gradient_compression(self._compression_params)
            if update_on_kvstore:
                kvstore.set_optimizer(self._optimizer)
            self._kvstore = kvstore
            self._update_on_kvstore = update_on_kvstore
        else:
            self._kvstore = None
            self._update_on_kvstore = None
        self._kv_initialized = True

    def _init_params(self):
        """Give the store the parameters it has not got (those still waiting for a shape wait)."""
        assert self._kv_initialized, "Cannot initialize parameters in KVStore when KVStore is not initialized."
        waiting = []
        if self._kvstore:
            for param in self._params_to_init:
                if param._deferred_init:
                    waiting.append(param)
                    continue
                copies = param._check_and_get(param._data, list)
                self._kvstore.broadcast(self._param2idx[param.name], copies[0], copies)
        self._params_to_init = waiting

    def _ensure_kvstore(self):
        if not self._kv_initialized:
            self._init_kvstore()
        if self._params_to_init:
            self._init_params()

    # ---- learning rate
    @property
    def learning_rate(self):
        if not isinstance(self._optimizer, opt.Optimizer):
            raise UserWarning("Optimizer has to be defined before its learning rate can be accessed.")
        return self._optimizer.learning_rate

    @property
    def optimizer(self):
        if isinstance(self._optimizer, opt.Optimizer):
            return self._optimizer
        raise UserWarning("Optimizer has not been initialized yet")

    def set_learning_rate(self, lr):
        if not isinstance(self._optimizer, opt.Optimizer):
            raise UserWarning("Optimizer has to be defined before its learning rate is mutated.")
        self._optimizer.set_learning_rate(lr)

    # ---- steps
    def _check_and_rescale_grad(self, scale):
        if self._update_on_kvstore and self._distributed and self._kv_initialized \
                and self._optimizer.rescale_grad != scale:
            raise UserWarning("Possible change in the `batch_size` from previous `step` detected. Optimizer "
                              "gradient normalizing factor will not change w.r.t new batch_size when "
                              "update_on_kvstore=True and when distributed kvstore is used.")
        self._optimizer.rescale_grad = scale

    def step(self, batch_size, ignore_stale_grad=False):
        """Sum the gradients over contexts, then update with them scaled by 1/batch_size."""
        self._check_and_rescale_grad(self._scale / batch_size)
        self._ensure_kvstore()
        self._allreduce_grads()
        self._update(ignore_stale_grad)

    def allreduce_grads(self):
        self._ensure_kvstore()
        assert not (self._kvstore and self._update_on_kvstore), \
            "allreduce_grads() when parameters are updated on kvstore is not supported. Try setting " \
            "`update_on_kvstore` to False when creating trainer."
        self._allreduce_grads()

    def _allreduce_grads(self):
        if not self._kvstore:
            return  # one copy of each gradient: nothing to sum
        for i, param in enumerate(self._params):
            if param.grad_req == "null":
                continue
            if self._update_on_kvstore:
                # the store sums the gradients, updates its weights, and every copy pulls them
                self._kvstore.pushpull(i, param.list_grad(), out=param.list_data(), priority=-i)
            else:
                self._kvstore.pushpull(i, param.list_grad(), priority=-i)

    def update(self, batch_size, ignore_stale_grad=False):
        self._ensure_kvstore()
        assert not (self._kvstore and self._update_on_kvstore), \
            "update() when parameters are updated on kvstore is not supported. Try setting `update_on_kvstore` " \
            "to False when creating trainer."
        self._check_and_rescale_grad(self._scale / batch_size)
        self._update(ignore_stale_grad)

    def _update(self, ignore_stale_grad=False):
        on_kvstore = bool(self._kvstore and self._update_on_kvstore)
        updates = [[] for _ in self._updaters]
        for i, param in enumerate(self._params):
            if param.grad_req == "null":
                continue
            copies = param._check_and_get(param._data, list)
            if not ignore_stale_grad:
                for arr in copies:
                    if not arr._fresh_grad:
                        raise UserWarning(
                            "Gradient of Parameter `%s` on context %s has not been updated by backward since last "
                            "`step`. This could mean a bug in your model that made it only use a subset of the "
                            "Parameters (Blocks) for this iteration. If you are intentionally only using a subset, "
                            "call step with ignore_stale_grad=True to suppress this warning and skip updating of "
                            "Parameters with stale gradient" % (param.name, str(arr.context)))
            if on_kvstore:
                continue  # the store has updated the weights
            for pending, arr, grad in zip(updates, copies, param.list_grad()):
                if not ignore_stale_grad or arr._fresh_grad:
                    # a sparse parameter: backward marks its copy; what is updated holds all its rows
                    pending.append((i, grad, param._full if param._stype != "default" else arr))
                    arr._fresh_grad = False
        if on_kvstore:
            return
        for updater, pending in zip(self._updaters, updates):
            if pending:
                indices, grads, weights = zip(*pending)
                updater(list(indices), list(grads), list(weights))

    # ---- states
    def save_states(self, fname):
        """The updater's states and the optimizer, pickled as MXNet writes them."""
        assert self._optimizer is not None
        self._ensure_kvstore()
        if self._update_on_kvstore:
            assert not self._params_to_init, \
                "Cannot save trainer states when some parameters are not yet initialized in kvstore."
            self._kvstore.save_optimizer_states(fname, dump_optimizer=True)
        else:
            with open(fname, "wb") as handle:
                handle.write(self._updaters[0].get_states(dump_optimizer=True))

    def load_states(self, fname):
        self._ensure_kvstore()
        if self._update_on_kvstore:
            self._kvstore.load_optimizer_states(fname)
            self._optimizer = self._kvstore._updater.optimizer
        else:
            with open(fname, "rb") as handle:
                states = handle.read()
            for updater in self._updaters:
                updater.set_states(states)
                updater.optimizer = self._updaters[0].optimizer
            self._optimizer = self._updaters[0].optimizer
        self._optimizer.param_dict = dict(enumerate(self._params))
