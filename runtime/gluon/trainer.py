"""`gluon.Trainer`: applies an optimizer to a set of Parameters after each backward pass.

One device and no key-value store: gradients are already where the weights are, so
`allreduce_grads` has nothing to reduce and updates run locally (MXNet's `update_on_kvstore=False`).
A parameter whose gradient backward did not write since the last step (`_fresh_grad`) stops the
step with MXNet's warning, unless `ignore_stale_grad` skips it.
"""
from __future__ import annotations

from runtime import optimizer as opt
from runtime.gluon.parameter import Parameter, ParameterDict


class Trainer:
    def __init__(self, params, optimizer, optimizer_params=None, kvstore="device", compression_params=None,
                 update_on_kvstore=None):
        if isinstance(params, (dict, ParameterDict)):
            params = [params[key] for key in sorted(params.keys())]
        if not isinstance(params, (list, tuple)):
            raise ValueError("First argument must be a list or dict of Parameters, got %s." % type(params))
        self._params = []
        self._param2idx = {}
        for i, param in enumerate(params):
            if not isinstance(param, Parameter):
                raise ValueError("First argument must be a list or dict of Parameters, got list of %s."
                                 % type(param))
            self._param2idx[param.name] = i
            self._params.append(param)
            param._set_trainer(self)
        self._compression_params = compression_params
        self._contexts = self._check_contexts()
        self._init_optimizer(optimizer, optimizer_params or {})
        self._scale = self._optimizer.rescale_grad
        self._kvstore_params = {"kvstore": kvstore, "update_on_kvstore": update_on_kvstore}
        self._kvstore = None
        self._update_on_kvstore = None
        self._distributed = False
        self._kv_initialized = False
        self._params_to_init = []

    def _init_kvstore(self):
        """One device: no key-value store. Asking to update on one fails as MXNet 1.9.1 fails then
        (it looks for the store's optimizer capability on None)."""
        if self._kvstore_params["update_on_kvstore"]:
            raise AttributeError("'NoneType' object has no attribute 'is_capable'")
        self._kv_initialized = True

    def _ensure_kvstore(self):
        if not self._kv_initialized:
            self._init_kvstore()

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
        param_dict = dict(enumerate(self._params))
        if isinstance(optimizer, opt.Optimizer):
            assert not optimizer_params, \
                "optimizer_params must be None if optimizer is an instance of Optimizer instead of str"
            self._optimizer = optimizer
            self._optimizer.param_dict = param_dict
        else:
            self._optimizer = opt.create(optimizer, param_dict=param_dict, **optimizer_params)
        # one updater per device; parameters created with deferred shapes still have one device
        self._updaters = [opt.get_updater(self._optimizer)]

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

    def step(self, batch_size, ignore_stale_grad=False):
        """All-reduce the gradients (nothing to do on one device), then update with them scaled by 1/batch_size."""
        self._optimizer.rescale_grad = self._scale / batch_size
        self._ensure_kvstore()
        self._allreduce_grads()
        self._update(ignore_stale_grad)

    def allreduce_grads(self):
        self._ensure_kvstore()
        self._allreduce_grads()

    def _allreduce_grads(self):
        pass  # a single copy of each gradient: the sum over devices is the gradient itself

    def update(self, batch_size, ignore_stale_grad=False):
        self._ensure_kvstore()
        self._optimizer.rescale_grad = self._scale / batch_size
        self._update(ignore_stale_grad)

    def _update(self, ignore_stale_grad=False):
        indices, grads, weights = [], [], []
        for i, param in enumerate(self._params):
            if param.grad_req == "null":
                continue
            # a sparse parameter: the array backward marks is its data, the one updated holds all its rows
            data = [param._data] if param._stype != "default" else param.list_data()
            if not ignore_stale_grad:
                for arr in data:
                    if not arr._fresh_grad:
                        raise UserWarning(
                            "Gradient of Parameter `%s` on context %s has not been updated by backward since last "
                            "`step`. This could mean a bug in your model that made it only use a subset of the "
                            "Parameters (Blocks) for this iteration. If you are intentionally only using a subset, "
                            "call step with ignore_stale_grad=True to suppress this warning and skip updating of "
                            "Parameters with stale gradient" % (param.name, str(arr.context)))
            for arr, grad in zip(data, param.list_grad()):
                if not ignore_stale_grad or arr._fresh_grad:
                    indices.append(i)
                    grads.append(grad)
                    weights.append(param._full if param._stype != "default" else arr)
                    arr._fresh_grad = False
        if indices:
            self._updaters[0](indices, grads, weights)

    def save_states(self, fname):
        """The updater's states and the optimizer, pickled as MXNet writes them."""
        assert self._optimizer is not None
        self._ensure_kvstore()
        with open(fname, "wb") as handle:
            handle.write(self._updaters[0].get_states(dump_optimizer=True))

    def load_states(self, fname):
        self._ensure_kvstore()
        with open(fname, "rb") as handle:
            states = handle.read()
        for updater in self._updaters:
            updater.set_states(states)
            updater.optimizer = self._updaters[0].optimizer
        self._optimizer = self._updaters[0].optimizer
        self._optimizer.param_dict = dict(enumerate(self._params))
