"""`mxnet.mod`: the symbolic Module API of MXNet 1.x, on one device, over the runtime's Executor.

A Module holds a Symbol whose arguments are its data, its labels and its parameters; `bind`
allocates them for given input shapes, `init_params` fills the parameters (a variable's own
initializer first), `init_optimizer` makes the updater, and `forward`/`backward`/`update` train
it; `fit`, `score` and `predict` loop over data iterators. As in MXNet, on one device there is no
key-value store: the updater runs here, on the parameters by their position, and the gradient is
rescaled by 1/batch size unless the optimizer's parameters say otherwise.
"""
from __future__ import annotations

import logging
import time
import warnings
from collections import OrderedDict
from typing import Dict, List, Optional, Tuple

import numpy as np

from runtime import initializer as init_module
from runtime import metric as metric_module
from runtime import optimizer as opt
from runtime.base import MXNetError
from runtime.context import cpu
from runtime.io import DataDesc
from runtime.model import BatchEndParam
from runtime.ndarray import NDArray, zeros



def _descs(shapes) -> List[DataDesc]:
    """DataDescs of `shapes`: DataDescs, or (name, shape) pairs."""
    if shapes is None:
        return []
    return [s if isinstance(s, DataDesc) else DataDesc(s[0], tuple(s[1])) for s in shapes]


def _as_list(value) -> list:
    return value if isinstance(value, (list, tuple)) else [value]


class BaseModule:
    """What every module offers on top of forward/backward/update: the training and scoring loops."""

    def __init__(self, logger=logging):
        self.logger = logger
        self.binded = False
        self.for_training = False
        self.inputs_need_grad = False
        self.params_initialized = False
        self.optimizer_initialized = False
        self._symbol = None

    @property
    def symbol(self):
        return self._symbol

    def forward_backward(self, data_batch) -> None:
        self.forward(data_batch, is_train=True)
        self.backward()

    def score(self, eval_data, eval_metric, num_batch=None, batch_end_callback=None, score_end_callback=None,
              reset=True, epoch=0, sparse_row_id_fn=None):
        """The metric's (name, value) pairs over `eval_data`, run for inference."""
        assert self.binded and self.params_initialized
        if reset:
            eval_data.reset()
        eval_metric = metric_module.create(eval_metric)
        eval_metric.reset()
        nbatch = 0
        for nbatch, batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.forward(batch, is_train=False)
            self.update_metric(eval_metric, batch.label)
            for callback in _as_list(batch_end_callback or []):
                callback(BatchEndParam(epoch, nbatch, eval_metric, locals()))
        for callback in _as_list(score_end_callback or []):
            callback(BatchEndParam(epoch, nbatch, eval_metric, locals()))
        return eval_metric.get_name_value()

    def iter_predict(self, eval_data, num_batch=None, reset=True, sparse_row_id_fn=None):
        """(the outputs without the batch's padding, the batch's index, the batch) per batch."""
        assert self.binded and self.params_initialized
        if reset:
            eval_data.reset()
        for nbatch, batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.forward(batch, is_train=False)
            pad = batch.pad or 0
            outputs = [out[0:out.shape[0] - pad] for out in self.get_outputs()]
            yield outputs, nbatch, batch

    def predict(self, eval_data, num_batch=None, merge_batches=True, reset=True, always_output_list=False,
                sparse_row_id_fn=None):
        """The outputs over `eval_data`: concatenated along the batch axis with `merge_batches`
        (one array when the symbol has one output, unless `always_output_list`)."""
        from runtime import nd
        if isinstance(eval_data, (NDArray, np.ndarray)):
            from runtime.io import NDArrayIter
            eval_data = NDArrayIter(eval_data, batch_size=self.data_shapes[0].shape[0])
        collected = [[out.copy() for out in outputs]
                     for outputs, _, _ in self.iter_predict(eval_data, num_batch=num_batch, reset=reset)]
        if not collected:
            return collected
        if not merge_batches:
            return collected
        count = len(collected[0])
        for outputs in collected:
            assert len(outputs) == count, "Cannot merge batches, as num of outputs is not the same " \
                                          "in mini-batches. Maybe bucketing is used?"
        merged = [nd.concat(*[outputs[i] for outputs in collected], dim=0) for i in range(count)]
        return merged[0] if count == 1 and not always_output_list else merged

    def fit(self, train_data, eval_data=None, eval_metric="acc", epoch_end_callback=None, batch_end_callback=None,
            kvstore="local", optimizer="sgd", optimizer_params=(("learning_rate", 0.01),),
            eval_end_callback=None, eval_batch_end_callback=None, initializer=init_module.Uniform(0.01),
            arg_params=None, aux_params=None, allow_missing=False, force_rebind=False, force_init=False,
            begin_epoch=0, num_epoch=None, validation_metric=None, monitor=None, sparse_row_id_fn=None):
        """Train for `num_epoch` epochs over `train_data`: bind, initialize, then forward, backward
        and update per batch, the metric updated after each; score `eval_data` after each epoch."""
        assert num_epoch is not None, "please specify number of epochs"
        self.bind(data_shapes=train_data.provide_data, label_shapes=train_data.provide_label, for_training=True,
                  force_rebind=force_rebind)
        self.init_params(initializer=initializer, arg_params=arg_params, aux_params=aux_params,
                         allow_missing=allow_missing, force_init=force_init)
        self.init_optimizer(kvstore=kvstore, optimizer=optimizer, optimizer_params=optimizer_params)
        validation_metric = eval_metric if validation_metric is None else validation_metric
        eval_metric = metric_module.create(eval_metric)
        for epoch in range(begin_epoch, num_epoch):
            started = time.time()
            eval_metric.reset()
            nbatch = 0
            for nbatch, batch in enumerate(train_data):
                self.forward_backward(batch)
                self.update()
                self.update_metric(eval_metric, batch.label)
                for callback in _as_list(batch_end_callback or []):
                    callback(BatchEndParam(epoch, nbatch, eval_metric, locals()))
            for name, value in eval_metric.get_name_value():
                self.logger.info("Epoch[%d] Train-%s=%f", epoch, name, value)
            self.logger.info("Epoch[%d] Time cost=%.3f", epoch, time.time() - started)
            arg_params, aux_params = self.get_params()
            self.set_params(arg_params, aux_params)
            for callback in _as_list(epoch_end_callback or []):
                callback(epoch, self.symbol, arg_params, aux_params)
            if eval_data is not None:
                for name, value in self.score(eval_data, validation_metric, score_end_callback=eval_end_callback,
                                              batch_end_callback=eval_batch_end_callback, epoch=epoch):
                    self.logger.info("Epoch[%d] Validation-%s=%f", epoch, name, value)
            train_data.reset()


class Module(BaseModule):
    def __init__(self, symbol, data_names=("data",), label_names=("softmax_label",), logger=logging,
                 context=None, work_load_list=None, fixed_param_names=None, state_names=None, group2ctxs=None,
                 compression_params=None):
        super().__init__(logger)
        contexts = _as_list(context if context is not None else cpu())
        if len(contexts) > 1:
            raise MXNetError("Module: one device is supported, got %d" % len(contexts))
        self._context = contexts[0]
        self._symbol = symbol
        data_names = list(data_names or [])
        label_names = list(label_names or [])
        state_names = list(state_names or [])
        arguments = symbol.list_arguments()
        for name in data_names + state_names:
            if name not in arguments:
                raise ValueError("You created Module with Module(..., data_names=%s) but input with name '%s' "
                                 "is not found in symbol.list_arguments()." % (data_names, name))
        missing = [name for name in label_names if name not in arguments]
        if missing:
            warnings.warn("You created Module with Module(..., label_names=%s) but input with name '%s' is not "
                          "found in symbol.list_arguments()." % (label_names, missing[0]))
        inputs = set(data_names + label_names + state_names)
        self._data_names, self._label_names, self._state_names = data_names, label_names, state_names
        self._fixed_param_names = list(fixed_param_names or [])
        self._param_names = [name for name in arguments if name not in inputs]
        self._aux_names = symbol.list_auxiliary_states()
        self._output_names = symbol.list_outputs()
        self._arg_params: Optional[Dict[str, NDArray]] = None
        self._aux_params: Optional[Dict[str, NDArray]] = None
        self._exec = None
        self._data_shapes: List[DataDesc] = []
        self._label_shapes: List[DataDesc] = []
        self._grad_req = "write"
        self._optimizer = self._updater = None
        self._preload_opt_states = None

    # ---- what it is
    @property
    def data_names(self):
        return self._data_names

    @property
    def label_names(self):
        return self._label_names

    @property
    def output_names(self):
        return self._output_names

    @property
    def data_shapes(self):
        assert self.binded
        return self._data_shapes

    @property
    def label_shapes(self):
        assert self.binded
        return self._label_shapes

    @property
    def output_shapes(self):
        assert self.binded
        return list(zip(self._output_names, [out.shape for out in self._exec.outputs]))

    # ---- bind
    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False, force_rebind=False,
             shared_module=None, grad_req="write"):
        """Allocate the inputs, parameters and gradients for these input shapes."""
        if force_rebind:
            self.binded = False
        if self.binded:
            self.logger.warning("Already bound, ignoring bind()")
            return
        self.for_training, self.inputs_need_grad, self._grad_req = for_training, inputs_need_grad, grad_req
        self._data_shapes = _descs(data_shapes)
        self._label_shapes = [d for d in _descs(label_shapes) if d.name in self._symbol.list_arguments()]
        self._exec = self._bind_executor()
        self.binded = True
        if self.params_initialized:  # bound again (force_rebind): the parameters stay
            self._copy_params_into_executor()

    def _requests(self) -> Dict[str, str]:
        # as MXNet's executor group: a string grad_req is the data's too when inputs need gradients
        # ('null' then leaves get_input_grads() None); a dict names exceptions to 'write'
        given = self._grad_req
        if isinstance(given, (list, tuple)):  # one request per argument, in order
            return dict(zip(self._symbol.list_arguments(), given))
        requests = {}
        for name in self._symbol.list_arguments():
            if name in self._param_names:
                wanted = self.for_training and name not in self._fixed_param_names
                requests[name] = (given if isinstance(given, str) else given.get(name, "write")) if wanted else "null"
            elif name in self._data_names:
                requests[name] = ((given if isinstance(given, str) else given.get(name, "write"))
                                  if self.inputs_need_grad else "null")
            else:
                requests[name] = "null"
        return requests

    def _bind_executor(self):
        shapes = {d.name: d.shape for d in self._data_shapes + self._label_shapes}
        types = {d.name: d.dtype for d in self._data_shapes + self._label_shapes}
        return self._symbol.simple_bind(self._context, grad_req=self._requests(), type_dict=types, **shapes)

    def reshape(self, data_shapes, label_shapes=None) -> None:
        """Bind again for other input shapes, the parameters kept."""
        assert self.binded
        self._data_shapes = _descs(data_shapes)
        self._label_shapes = [d for d in _descs(label_shapes) if d.name in self._symbol.list_arguments()]
        keep = self._exec
        self._exec = self._bind_executor()
        self._exec._monitor = keep._monitor  # an installed monitor stays, as MXNet's reshaped executors keep it
        for table, kept in ((self._exec.arg_dict, keep.arg_dict), (self._exec.aux_dict, keep.aux_dict)):
            for name in self._param_names + self._aux_names:
                if name in table and name in kept:
                    table[name][:] = kept[name]

    # ---- parameters
    def init_params(self, initializer=init_module.Uniform(0.01), arg_params=None, aux_params=None,
                    allow_missing=False, force_init=False, allow_extra=False):
        """Fill the parameters: from `arg_params`/`aux_params` where they hold them, else with a
        variable's own initializer, else `initializer`."""
        if self.params_initialized and not force_init:
            warnings.warn("Parameters already initialized and force_init=False. init_params call ignored.",
                          stacklevel=2)
            return
        assert self.binded, "call bind before initializing the parameters"
        attributes = self._symbol.attr_dict()
        if self._arg_params is None:
            self._arg_params = {n: zeros(self._exec.arg_dict[n].shape, dtype=self._exec.arg_dict[n].dtype)
                                for n in self._param_names}
            self._aux_params = {n: zeros(self._exec.aux_dict[n].shape, dtype=self._exec.aux_dict[n].dtype)
                                for n in self._aux_names}

        def fill(name, array, given):
            if given is not None and name in given:
                if given[name] is not array:
                    array[:] = given[name]
            elif given is not None and not allow_missing:
                raise RuntimeError("%s is not presented" % name)
            elif initializer is not None:
                initializer(init_module.InitDesc(name, attributes.get(name), global_init=initializer), array)

        for name, array in sorted(self._arg_params.items()):
            fill(name, array, arg_params)
        for name, array in sorted(self._aux_params.items()):
            fill(name, array, aux_params)
        if not allow_extra:
            for given, known in ((arg_params, self._arg_params), (aux_params, self._aux_params)):
                extra = sorted(set(given or {}) - set(known))
                if extra:
                    raise ValueError("Found extra parameters not in the module: %s" % ", ".join(extra))
        self.params_initialized = True
        self._copy_params_into_executor()

    def set_params(self, arg_params, aux_params, allow_missing=False, force_init=True, allow_extra=False):
        if not allow_missing:
            self.init_params(initializer=None, arg_params=arg_params, aux_params=aux_params,
                             allow_missing=allow_missing, force_init=force_init, allow_extra=allow_extra)
            return
        if self.params_initialized and not force_init:
            warnings.warn("Parameters already initialized and force_init=False. set_params call ignored.",
                          stacklevel=2)
            return
        self.init_params(initializer=None, arg_params=arg_params, aux_params=aux_params, allow_missing=True,
                         force_init=force_init, allow_extra=allow_extra)

    def _copy_params_into_executor(self) -> None:
        for name, value in self._arg_params.items():
            self._exec.arg_dict[name][:] = value
        for name, value in self._aux_params.items():
            self._exec.aux_dict[name][:] = value

    def get_params(self) -> Tuple[Dict[str, NDArray], Dict[str, NDArray]]:
        """Copies of the parameters and auxiliary states, as the executor has them now."""
        assert self.binded and self.params_initialized
        for name in self._param_names:
            self._arg_params[name][:] = self._exec.arg_dict[name]
        for name in self._aux_names:
            self._aux_params[name][:] = self._exec.aux_dict[name]
        return self._arg_params, self._aux_params

    # ---- optimizer
    def init_optimizer(self, kvstore="local", optimizer="sgd", optimizer_params=(("learning_rate", 0.01),),
                       force_init=False):
        assert self.binded and self.params_initialized
        if self.optimizer_initialized and not force_init:
            self.logger.warning("optimizer already initialized, ignoring...")
            return
        batch_size = self._data_shapes[0].shape[0] if self._data_shapes else 1
        if isinstance(kvstore, str) and kvstore.startswith("dist"):
            raise MXNetError("Module: distributed key-value stores are not supported")
        if isinstance(optimizer, str):
            parameters = dict(optimizer_params)
            parameters.setdefault("rescale_grad", 1.0 / batch_size)
            optimizer = opt.Optimizer.create_optimizer(
                optimizer, sym=self._symbol, param_idx2name=dict(enumerate(self._param_names)), **parameters)
        elif optimizer.rescale_grad != 1.0 / batch_size:
            warnings.warn("Optimizer created manually outside Module but rescale_grad is not normalized to "
                          "1.0/batch_size/num_workers (%s vs. %s). Is this intended?"
                          % (optimizer.rescale_grad, 1.0 / batch_size), stacklevel=2)
        self._optimizer = optimizer
        self._updater = opt.get_updater(optimizer)
        self.optimizer_initialized = True
        if self._preload_opt_states is not None:
            self.load_optimizer_states(self._preload_opt_states)
            self._preload_opt_states = None

    # ---- computation
    def forward(self, data_batch, is_train=None) -> None:
        assert self.binded and self.params_initialized
        data = _as_list(data_batch.data)
        labels = _as_list(data_batch.label) if data_batch.label is not None else []
        shapes = [tuple(a.shape) for a in data]
        if shapes != [tuple(d.shape) for d in self._data_shapes]:
            provided = getattr(data_batch, "provide_data", None) or [
                DataDesc(d.name, s, d.dtype) for d, s in zip(self._data_shapes, shapes)]
            provided_labels = getattr(data_batch, "provide_label", None) or (
                [DataDesc(d.name, tuple(a.shape), d.dtype) for d, a in zip(self._label_shapes, labels)]
                if labels else None)
            self.reshape(provided, provided_labels)
        for desc, array in zip(self._data_shapes, data):
            self._exec.arg_dict[desc.name][:] = array
        for desc, array in zip(self._label_shapes, labels):
            self._exec.arg_dict[desc.name][:] = array
        self._exec.forward(is_train=self.for_training if is_train is None else is_train)

    def backward(self, out_grads=None) -> None:
        assert self.binded and self.params_initialized
        self._exec.backward(out_grads=out_grads)

    def update(self) -> None:
        """One step of the optimizer on every parameter with a gradient, by its position."""
        assert self.binded and self.params_initialized and self.optimizer_initialized
        for index, name in enumerate(self._param_names):
            grad = self._exec.grad_dict.get(name)
            if grad is not None:
                self._updater(index, grad, self._exec.arg_dict[name])

    def get_outputs(self, merge_multi_context=True) -> List[NDArray]:
        assert self.binded and self.params_initialized
        return list(self._exec.outputs)

    def get_input_grads(self, merge_multi_context=True) -> List[NDArray]:
        assert self.binded and self.params_initialized and self.inputs_need_grad
        return [self._exec.grad_dict.get(name) for name in self._data_names]

    def update_metric(self, eval_metric, labels, pre_sliced=False) -> None:
        labels = OrderedDict(zip([d.name for d in self._label_shapes], _as_list(labels) if labels is not None else []))
        outputs = OrderedDict(zip(self._output_names, self.get_outputs()))
        eval_metric.update_dict(labels, outputs)

    @property
    def _exec_group(self):
        """MXNet's executor group, of this runtime's one executor (code reaches `execs[0]`)."""
        return _ExecutorGroup([self._exec])

    def install_monitor(self, mon) -> None:
        assert self.binded
        mon.install(self._exec)

    # ---- checkpoints
    def save_checkpoint(self, prefix, epoch, save_optimizer_states=False, remove_amp_cast=True) -> None:
        """prefix-symbol.json, prefix-EPOCH.params and, with the optimizer's states, prefix-EPOCH.states."""
        from runtime.model import save_checkpoint
        arg_params, aux_params = self.get_params()
        save_checkpoint(prefix, epoch, self._symbol, arg_params, aux_params)
        if save_optimizer_states:
            self.save_optimizer_states("%s-%04d.states" % (prefix, epoch))

    @staticmethod
    def load(prefix, epoch, load_optimizer_states=False, **kwargs) -> "Module":
        from runtime.model import load_checkpoint
        symbol, arg_params, aux_params = load_checkpoint(prefix, epoch)
        module = Module(symbol=symbol, **kwargs)
        module._arg_params, module._aux_params = arg_params, aux_params
        module.params_initialized = True
        if load_optimizer_states:
            module._preload_opt_states = "%s-%04d.states" % (prefix, epoch)
        return module

    def save_optimizer_states(self, fname) -> None:
        assert self.optimizer_initialized
        with open(fname, "wb") as handle:
            handle.write(self._updater.get_states())

    def load_optimizer_states(self, fname) -> None:
        assert self.optimizer_initialized
        with open(fname, "rb") as handle:
            self._updater.set_states(handle.read())


# mx.mod.BucketingModule: a module per bucket over Module (defined there, importing this one)
from runtime.bucketing_module import BucketingModule  # noqa: E402,F401


class _ExecutorGroup:
    """What code reads of MXNet's DataParallelExecutorGroup: the executors, one per device."""

    def __init__(self, execs):
        self.execs = execs
