"""`mx.mod.BucketingModule`: one Module per bucket key (e.g. a sentence length), each built by
`sym_gen(key)`, all sharing the default bucket's parameters and optimizer."""
from __future__ import annotations

import logging

from runtime.module import BaseModule, Module


class BucketingModule(BaseModule):
    def __init__(self, sym_gen, default_bucket_key=None, logger=logging, context=None, work_load_list=None,
                 fixed_param_names=None, state_names=None, group2ctxs=None, compression_params=None):
        super().__init__(logger=logger)
        assert default_bucket_key is not None
        self._sym_gen = sym_gen
        self._default_bucket_key = default_bucket_key
        self._context = context
        self._fixed_param_names = fixed_param_names
        self._state_names = state_names
        _, data_names, label_names = self._generate(default_bucket_key)
        self._data_names_default, self._label_names_default = data_names, label_names
        self._buckets = {}
        self._curr_module = None
        self._curr_bucket_key = None
        self._bind_arguments = {}

    def _generate(self, key):
        symbol, data_names, label_names = self._sym_gen(key)
        return symbol, list(data_names or []), list(label_names or [])

    def _module(self, key):
        symbol, data_names, label_names = self._generate(key)
        return Module(symbol, data_names, label_names, logger=self.logger, context=self._context,
                      fixed_param_names=self._fixed_param_names, state_names=self._state_names)

    @property
    def default_bucket_key(self):
        return self._default_bucket_key

    @property
    def symbol(self):
        assert self.binded
        return self._curr_module.symbol

    @property
    def data_names(self):
        return self._curr_module.data_names if self.binded else self._data_names_default

    @property
    def label_names(self):
        return self._curr_module.label_names if self.binded else self._label_names_default

    @property
    def output_names(self):
        if self.binded:
            return self._curr_module.output_names
        return self._generate(self._default_bucket_key)[0].list_outputs()

    @property
    def data_shapes(self):
        return self._curr_module.data_shapes

    @property
    def label_shapes(self):
        return self._curr_module.label_shapes

    @property
    def output_shapes(self):
        return self._curr_module.output_shapes

    # ---- bind and switch
    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False, force_rebind=False,
             shared_module=None, grad_req="write"):
        if force_rebind:
            self.binded = False
            self._buckets = {}
        if self.binded:
            self.logger.warning("Already bound, ignoring bind()")
            return
        assert shared_module is None, "shared_module for BucketingModule is not supported"
        self.for_training, self.inputs_need_grad = for_training, inputs_need_grad
        self._bind_arguments = dict(for_training=for_training, inputs_need_grad=inputs_need_grad, grad_req=grad_req)
        module = self._module(self._default_bucket_key)
        module.bind(data_shapes, label_shapes, **self._bind_arguments)
        self._buckets[self._default_bucket_key] = module
        self._curr_module, self._curr_bucket_key = module, self._default_bucket_key
        self.binded = True
        if self.params_initialized:  # bound again: the parameters stay
            module.params_initialized = True

    def switch_bucket(self, bucket_key, data_shapes, label_shapes=None):
        """Make `bucket_key`'s module the current one, built and bound on first use with the
        default module's parameter arrays (the same arrays: an update reaches every bucket)."""
        assert self.binded, "call bind before switching bucket"
        if bucket_key not in self._buckets:
            module = self._module(bucket_key)
            module.bind(data_shapes, label_shapes, **self._bind_arguments)
            self._buckets[bucket_key] = module
            if self.params_initialized:
                self._share_parameters(module)
        self._curr_module, self._curr_bucket_key = self._buckets[bucket_key], bucket_key

    def _share_parameters(self, module):
        default = self._buckets[self._default_bucket_key]
        for table, source in ((module._exec.arg_dict, default._exec.arg_dict),
                              (module._exec.aux_dict, default._exec.aux_dict)):
            for name in list(table):
                if name in source and (name in module._param_names or name in module._aux_names):
                    table[name] = source[name]
        module._arg_params, module._aux_params = default._arg_params, default._aux_params
        module.params_initialized = True
        if self.optimizer_initialized:
            module._optimizer, module._updater = default._optimizer, default._updater
            module.optimizer_initialized = True

    # ---- parameters and optimizer: the default bucket's
    def init_params(self, initializer=None, arg_params=None, aux_params=None, allow_missing=False,
                    force_init=False, allow_extra=False):
        if self.params_initialized and not force_init:
            return
        assert self.binded, "call bind before initializing the parameters"
        from runtime import initializer as init_module
        default = self._buckets[self._default_bucket_key]
        default.init_params(initializer=initializer if initializer is not None else init_module.Uniform(0.01),
                            arg_params=arg_params, aux_params=aux_params, allow_missing=allow_missing,
                            force_init=force_init, allow_extra=allow_extra)
        self.params_initialized = True
        for key, module in self._buckets.items():
            if key != self._default_bucket_key:
                self._share_parameters(module)

    def set_params(self, arg_params, aux_params, allow_missing=False, force_init=True, allow_extra=False):
        if not self.params_initialized or force_init:
            self._buckets[self._default_bucket_key].set_params(arg_params, aux_params, allow_missing=allow_missing,
                                                                 force_init=True, allow_extra=allow_extra)
            self.params_initialized = True
            for key, module in self._buckets.items():
                if key != self._default_bucket_key:
                    self._share_parameters(module)

    def get_params(self):
        assert self.binded and self.params_initialized
        return self._buckets[self._default_bucket_key].get_params()

    def init_optimizer(self, kvstore="local", optimizer="sgd", optimizer_params=(("learning_rate", 0.01),),
                       force_init=False):
        assert self.binded and self.params_initialized
        if self.optimizer_initialized and not force_init:
            self.logger.warning("optimizer already initialized, ignoring.")
            return
        default = self._buckets[self._default_bucket_key]
        default.init_optimizer(kvstore, optimizer, optimizer_params, force_init=force_init)
        self.optimizer_initialized = True
        for key, module in self._buckets.items():
            if key != self._default_bucket_key:
                self._share_parameters(module)

    # ---- computation: the current bucket's
    def prepare(self, data_batch, sparse_row_id_fn=None):
        pass

    def forward(self, data_batch, is_train=None):
        assert self.binded and self.params_initialized
        self.switch_bucket(data_batch.bucket_key, data_batch.provide_data, data_batch.provide_label)
        self._curr_module.forward(data_batch, is_train=is_train)

    def backward(self, out_grads=None):
        assert self.binded and self.params_initialized
        self._curr_module.backward(out_grads=out_grads)

    def update(self):
        """The optimizer's step for the current bucket's gradients; each parameter keeps the index
        it has in the default bucket, so its optimizer state is one across buckets."""
        assert self.binded and self.params_initialized and self.optimizer_initialized
        default = self._buckets[self._default_bucket_key]
        module = self._curr_module
        index_of = {name: i for i, name in enumerate(default._param_names)}
        for name in module._param_names:
            grad = module._exec.grad_dict.get(name)
            if grad is not None and name in index_of:
                default._updater(index_of[name], grad, module._exec.arg_dict[name])

    def get_outputs(self, merge_multi_context=True):
        return self._curr_module.get_outputs(merge_multi_context)

    def get_input_grads(self, merge_multi_context=True):
        return self._curr_module.get_input_grads(merge_multi_context)

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        self._curr_module.update_metric(eval_metric, labels, pre_sliced)

    def install_monitor(self, mon):
        for module in self._buckets.values():
            module.install_monitor(mon)

    def save_checkpoint(self, prefix, epoch, remove_amp_cast=False):
        """The default bucket's symbol and the shared parameters."""
        self._buckets[self._default_bucket_key].save_checkpoint(prefix, epoch, remove_amp_cast=remove_amp_cast)
