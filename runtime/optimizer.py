"""`mx.optimizer`: MXNet 1.9.1's optimizers, updating weights in place with NumPy.

Each update follows the arithmetic of MXNet's fused update operator (where weight decay enters,
where the gradient is clipped), in the weight's dtype, so that a run matches MXNet's step by step.
States are NDArrays, so `Updater.get_states` pickles what MXNet's does.
"""
from __future__ import annotations

import functools
import math
import pickle
import warnings

import numpy as np

from runtime.base import MXNetError
from runtime.kernels.optimizer import sgd_momentum_in_place
from runtime.ndarray import NDArray


def _zeros_like(weight: NDArray, dtype=None) -> NDArray:
    """A zero state for the weight, in the weight's storage (MXNet's states of a row_sparse weight are row_sparse)."""
    if weight.stype != "default":
        from runtime import sparse
        return sparse.zeros(weight.stype, weight.shape, weight.context, dtype or weight.dtype)
    return NDArray(np.zeros(weight.shape, dtype=dtype or weight.dtype), weight.context)


def _values(array):
    return array._data if isinstance(array, NDArray) else np.asarray(array)


class Optimizer:
    opt_registry: dict = {}
    # whether a row_sparse gradient updates only its rows (MXNet's sparse update kernels: SGD and
    # Adam by their lazy_update option, AdaGrad and Ftrl always); others update every row
    lazy_update = False

    def _update_operator(self) -> str:
        """MXNet's name for the operator that updates a weight (its error messages name it)."""
        if type(self).__name__ == "SGD":
            return "SGDMomUpdate" if self.momentum else "SGDUpdate"
        return {"Adam": "AdamUpdate", "AdaGrad": "AdagradUpdate", "Ftrl": "FtrlUpdate"}.get(type(self).__name__,
                                                                                           type(self).__name__)

    def __init__(self, rescale_grad=1.0, param_idx2name=None, wd=0.0, clip_gradient=None, learning_rate=None,
                 lr_scheduler=None, sym=None, begin_num_update=0, multi_precision=False, param_dict=None):
        self.rescale_grad = rescale_grad
        self.lr_scheduler = lr_scheduler
        if lr_scheduler is None and learning_rate is None:
            learning_rate = 0.01
        self.lr = learning_rate
        if lr_scheduler is not None and learning_rate is not None and lr_scheduler.base_lr != learning_rate:
            print(UserWarning("learning rate from ``lr_scheduler`` has been overwritten by ``learning_rate`` in "
                              "optimizer."))
            lr_scheduler.base_lr = learning_rate
        self.wd = wd
        self.lr_mult, self.wd_mult = {}, {}
        self.begin_num_update = begin_num_update
        self.num_update = begin_num_update
        self._all_index_update_counts = {0: {}}
        self._index_update_count = self._all_index_update_counts[0]
        self.clip_gradient = clip_gradient
        self.multi_precision = multi_precision
        self.aggregate_num = 0
        if param_idx2name is None:
            param_idx2name = {}
        assert isinstance(param_idx2name, dict), "param_idx2name should be a dict of param indexes to names."
        self.idx2name = dict(param_idx2name)
        self.sym_info = (sym.attr_dict(), sym.list_arguments()) if sym is not None else ()
        self.param_dict = param_dict if param_dict else {}
        self.allow_np_array = False
        self.set_lr_mult({})
        self.set_wd_mult({})

    # ---- registry
    @staticmethod
    def register(klass):
        assert isinstance(klass, type)
        name = klass.__name__.lower()
        if name in Optimizer.opt_registry:
            previous = Optimizer.opt_registry[name]
            warnings.warn("WARNING: New optimizer %s.%s is overriding existing optimizer %s.%s"
                          % (klass.__module__, klass.__name__, previous.__module__, previous.__name__))
        Optimizer.opt_registry[name] = klass
        return klass

    @staticmethod
    def create_optimizer(name, **kwargs):
        klass = Optimizer.opt_registry.get(name.lower())
        if klass is None:
            raise ValueError("Cannot find optimizer %s" % name)
        return klass(**kwargs)

    # ---- learning rate and multipliers
    @property
    def learning_rate(self):
        return self.lr_scheduler(self.num_update) if self.lr_scheduler is not None else self.lr

    def set_learning_rate(self, lr):
        if self.lr_scheduler is not None:
            raise UserWarning("LRScheduler of the optimizer has already been defined. Note that set_learning_rate "
                              "can mutate the value of the learning rate of the optimizer only when the "
                              "LRScheduler of the optimizer is undefined.")
        self.lr = lr

    def set_lr_scale(self, args_lrscale):
        raise DeprecationWarning

    def _symbol_multipliers(self, key):
        found = {}
        if self.sym_info:
            attrs, arg_names = self.sym_info
            for name in arg_names:
                if key in attrs.get(name, {}):
                    found[name] = float(attrs[name][key])
        return found

    def set_lr_mult(self, args_lr_mult):
        self.lr_mult = self._symbol_multipliers("__lr_mult__")
        self.lr_mult.update(args_lr_mult)

    def set_wd_mult(self, args_wd_mult):
        # by MXNet's convention only weights and gammas decay when parameters are known by name
        self.wd_mult = {n: 0.0 for n in self.idx2name.values() if not n.endswith(("_weight", "_gamma"))}
        self.wd_mult.update(self._symbol_multipliers("__wd_mult__"))
        self.wd_mult.update(args_wd_mult)

    def _set_current_context(self, device_id):
        self._index_update_count = self._all_index_update_counts.setdefault(device_id, {})

    def _update_count(self, index):
        for idx in index if isinstance(index, (list, tuple)) else [index]:
            count = self._index_update_count.get(idx, self.begin_num_update) + 1
            self._index_update_count[idx] = count
            self.num_update = max(count, self.num_update)

    def _multiplied(self, base, index, attr, table):
        if index in self.param_dict:
            return base * getattr(self.param_dict[index], attr)
        if index in table:
            return base * table[index]
        if index in self.idx2name:
            return base * table.get(self.idx2name[index], 1.0)
        return base

    def _get_lrs(self, indices):
        lr = self.lr_scheduler(self.num_update) if self.lr_scheduler is not None else self.lr
        return [self._multiplied(lr, i, "lr_mult", self.lr_mult) for i in indices]

    def _get_lr(self, index):
        return self._get_lrs([index])[0]

    def _get_wds(self, indices):
        return [self._multiplied(self.wd, i, "wd_mult", self.wd_mult) for i in indices]

    def _get_wd(self, index):
        return self._get_wds([index])[0]

    # ---- the gradient as the fused operators see it
    def _scaled(self, grad, clip_after=None):
        """rescale_grad * grad (+ `clip_after` added before clipping), clipped to clip_gradient."""
        g = _values(grad) * self.rescale_grad
        if clip_after is not None:
            g = g + clip_after
        if self.clip_gradient is not None and self.clip_gradient >= 0:
            g = np.clip(g, -self.clip_gradient, self.clip_gradient)
        return g.astype(_values(grad).dtype, copy=False)

    # ---- states and updates
    def create_state(self, index, weight):
        return None

    def create_state_multi_precision(self, index, weight):
        if self.multi_precision and weight.dtype == np.float16:
            master = weight.astype(np.float32)
            return (master,) + (self.create_state(index, master),)
        if weight.dtype == np.float16 and not self.multi_precision:
            warnings.warn("Accumulating with float16 in optimizer can lead to poor accuracy or slow convergence. "
                          "Consider using multi_precision=True option of the optimizer")
        return self.create_state(index, weight)

    def update(self, index, weight, grad, state):
        raise NotImplementedError()

    def update_multi_precision(self, index, weight, grad, state):
        """float16 weights with multi_precision: the update runs on a float32 master copy (state
        (master, inner state)), which is then cast into the weight."""
        if isinstance(index, (list, tuple)):
            for item in zip(index, weight, grad, state):
                self.update_multi_precision(*item)
            return
        if self.multi_precision and weight.dtype == np.float16:
            master, inner = state
            self.update(index, master, grad.astype(np.float32), inner)
            weight._data[...] = master._data
        else:
            self.update(index, weight, grad, state)

    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("param_dict", None)  # parameters are the trainer's to give back
        return state

    def __setstate__(self, state):
        self.__dict__ = state
        self.param_dict = {}


register = Optimizer.register
create = Optimizer.create_optimizer


def _momentum_and_master(opt, index, weight):
    """SGD's and NAG's multi-precision state: (momentum or None, float32 master copy)."""
    if opt.multi_precision and weight.dtype == np.float16:
        master = weight.astype(np.float32)
        return opt.create_state(index, master), master
    return Optimizer.create_state_multi_precision(opt, index, weight)


def _update_through_master(opt, index, weight, grad, state):
    if isinstance(index, (list, tuple)):
        if opt.multi_precision and weight and weight[0].dtype == np.float16:
            for item in zip(index, weight, grad, state):
                _update_through_master(opt, *item)
        else:
            opt.update(index, weight, grad, state)
        return
    if opt.multi_precision and weight.dtype == np.float16:
        mom, master = state
        opt.update(index, master, grad.astype(np.float32), mom)
        weight._data[...] = master._data
    else:
        opt.update(index, weight, grad, state)


def _lazy(update):
    """MXNet's lazy update, around an optimizer's `update`: with a row_sparse gradient (and
    `lazy_update` set), only the rows the gradient stores change, in the weight and in every
    state; weight decay and momentum leave the other rows as they are. The update runs on every
    row here, and the other rows are put back."""
    @functools.wraps(update)
    def lazy_update(self, index, weight, grad, state):
        if isinstance(index, (list, tuple)):
            if any(getattr(g, "stype", "") == "row_sparse" for g in grad):
                for item in zip(index, weight, grad, state):
                    lazy_update(self, *item)
                return None
            return update(self, index, weight, grad, state)
        if weight.stype == "row_sparse" and weight.indices.shape[0] != weight.shape[0]:
            raise MXNetError("Check failed: arr.storage_shape()[0] == arr.shape()[0]: %s for RowSparse weights is "
                             "only implemented for RowSparse weights with all rows containing non-zeros. Expects "
                             "weights.data.shape[0] (%d) == weights.shape[0] (%d)."
                             % (self._update_operator(), weight.indices.shape[0], weight.shape[0]))
        if getattr(grad, "stype", "default") != "row_sparse" or not self.lazy_update:
            return update(self, index, weight, grad, state)
        arrays = [weight] + _arrays_in(state)
        saved = [a._data.copy() for a in arrays]
        update(self, index, weight, grad, state)
        untouched = np.ones(weight.shape[0], dtype=bool)
        untouched[grad.indices._data] = False
        for array, before in zip(arrays, saved):
            array._data[untouched] = before[untouched]
            if array is not weight and array.stype == "row_sparse":
                array._kept[:] = True  # MXNet's sparse kernels store every row of a row_sparse state
        return None
    return lazy_update


def _arrays_in(state):
    if isinstance(state, NDArray):
        return [state]
    if isinstance(state, (list, tuple)):
        return [a for s in state for a in _arrays_in(s)]
    return []


def _each(index, weight, grad, state):
    """MXNet's aggregated calls pass lists; single calls pass one of each."""
    if isinstance(index, (list, tuple)):
        return list(zip(index, weight, grad, state))
    return [(index, weight, grad, state)]


class _MomentumOptimizer(Optimizer):
    """SGD and NAG: one momentum buffer per weight (none without momentum), and a float32 master
    copy beside it under multi_precision."""

    def __init__(self, momentum=0.0, **kwargs):
        super().__init__(**kwargs)
        self.momentum = momentum

    def create_state(self, index, weight):
        return _zeros_like(weight) if self.momentum != 0.0 else None

    def create_state_multi_precision(self, index, weight):
        return _momentum_and_master(self, index, weight)

    def update_multi_precision(self, index, weight, grad, state):
        _update_through_master(self, index, weight, grad, state)


@register
class SGD(_MomentumOptimizer):
    """w -= lr * (clip(rescale * g) + wd * w), through a momentum buffer when momentum > 0."""

    def __init__(self, momentum=0.0, lazy_update=True, **kwargs):
        super().__init__(momentum=momentum, **kwargs)
        self.lazy_update = lazy_update  # row_sparse gradients update only their rows (see _lazily)
        self.aggregate_num = 4

    @_lazy
    def update(self, index, weight, grad, state):
        items = _each(index, weight, grad, state)
        indices = [i for i, *_ in items]
        self._update_count(indices)
        for (i, w, g, mom), lr, wd in zip(items, self._get_lrs(indices), self._get_wds(indices)):
            if mom is not None and type(g) is NDArray and type(w) is NDArray and type(mom) is NDArray \
                    and sgd_momentum_in_place(w._data, g._data, mom._data, lr, self.momentum, wd,
                                              self.rescale_grad, self.clip_gradient):
                continue  # the steps below, fused (dense float arrays)
            step = lr * self._scaled(g)
            if mom is not None:
                mom._data *= self.momentum
                mom._data -= lr * wd * w._data
                mom._data -= step
                w._data += mom._data
            else:
                w._data *= 1 - lr * wd
                w._data -= step


@register
class NAG(_MomentumOptimizer):
    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        if state is None:
            weight._data *= 1 - lr * wd
            weight._data -= lr * self._scaled(grad)
            return
        g = self._scaled(grad)
        mom, w = state._data, weight._data
        mom *= self.momentum
        w += (self.momentum + 1) * (mom - lr * (g + wd * w)) - mom
        # MXNet's kernel writes the weight in place first: the momentum sees the new weight's decay
        mom -= lr * (g + wd * w)


@register
class Adam(Optimizer):
    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, lazy_update=True, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1, self.beta2, self.epsilon = beta1, beta2, epsilon
        self.lazy_update = lazy_update

    def create_state(self, index, weight):
        return _zeros_like(weight), _zeros_like(weight)

    @_lazy
    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        t = self._index_update_count[index]
        lr *= math.sqrt(1.0 - self.beta2 ** t) / (1.0 - self.beta1 ** t)
        g = self._scaled(grad, clip_after=wd * weight._data)
        mean, var = state[0]._data, state[1]._data
        # MXNet's kernel for a row_sparse weight takes 1 - beta in the weight's dtype
        precision = weight._data.dtype.type if weight.stype == "row_sparse" else float
        mean *= self.beta1
        mean += (precision(1.0) - precision(self.beta1)) * g
        var *= self.beta2
        var += (precision(1.0) - precision(self.beta2)) * np.square(g)
        weight._data -= lr * mean / (np.sqrt(var) + self.epsilon)


@register
class AdaGrad(Optimizer):
    lazy_update = True
    def __init__(self, eps=1e-7, **kwargs):
        super().__init__(**kwargs)
        self.float_stable_eps = eps

    def create_state(self, index, weight):
        return _zeros_like(weight, np.float32)

    @_lazy
    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        g = self._scaled(grad)
        state._data += np.square(g)
        div = g / np.sqrt(state._data + self.float_stable_eps)
        weight._data += (div + weight._data * wd) * -lr


@register
class AdaDelta(Optimizer):
    def __init__(self, rho=0.90, epsilon=1e-5, **kwargs):
        super().__init__(**kwargs)
        self.rho, self.epsilon = rho, epsilon

    def create_state(self, index, weight):
        return (NDArray(np.zeros(weight.shape, dtype=np.float32), weight.context),
                NDArray(np.zeros(weight.shape, dtype=np.float32), weight.context))

    def update(self, index, weight, grad, state):
        wd = self._get_wd(index)
        self._update_count(index)
        grad._data *= self.rescale_grad  # MXNet scales the gradient array itself
        g = grad._data
        if self.clip_gradient is not None:
            g = np.clip(g, -self.clip_gradient, self.clip_gradient)
        acc_g, acc_delta = state[0]._data, state[1]._data
        acc_g *= self.rho
        acc_g += (1.0 - self.rho) * g * g
        delta = np.sqrt(acc_delta + self.epsilon) / np.sqrt(acc_g + self.epsilon) * g
        acc_delta *= self.rho
        acc_delta += (1.0 - self.rho) * delta * delta
        weight._data -= delta + wd * weight._data


@register
class RMSProp(Optimizer):
    """Tieleman & Hinton's RMSProp; `centered=True` is Graves's variant with a mean-gradient term."""

    def __init__(self, learning_rate=0.001, gamma1=0.9, gamma2=0.9, epsilon=1e-8, centered=False,
                 clip_weights=None, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.gamma1, self.gamma2, self.epsilon = gamma1, gamma2, epsilon
        self.centered, self.clip_weights = centered, clip_weights

    def create_state(self, index, weight):
        count = 3 if self.centered else 1
        return tuple(_zeros_like(weight) for _ in range(count))

    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        g = self._scaled(grad, clip_after=wd * weight._data)
        n = state[0]._data
        n *= self.gamma1
        n += (1.0 - self.gamma1) * np.square(g)
        if not self.centered:
            weight._data -= lr * g / np.sqrt(n + self.epsilon)
        else:
            mean, delta = state[1]._data, state[2]._data
            mean *= self.gamma1
            mean += (1.0 - self.gamma1) * g
            delta *= self.gamma2
            delta -= lr * g / np.sqrt(n - np.square(mean) + self.epsilon)
            weight._data += delta
        if self.clip_weights:
            np.clip(weight._data, -self.clip_weights, self.clip_weights, out=weight._data)


@register
class FTML(Optimizer):
    def __init__(self, beta1=0.6, beta2=0.999, epsilon=1e-8, **kwargs):
        super().__init__(**kwargs)
        self.beta1, self.beta2, self.epsilon = beta1, beta2, epsilon

    def create_state(self, index, weight):
        return _zeros_like(weight), _zeros_like(weight), _zeros_like(weight)

    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        t = self._index_update_count[index]
        g = self._scaled(grad, clip_after=wd * weight._data)
        prev_d, v, z = state[0]._data, state[1]._data, state[2]._data
        v *= self.beta2
        v += (1.0 - self.beta2) * np.square(g)
        d_t = (1.0 - self.beta1 ** t) / lr * (np.sqrt(v / (1.0 - self.beta2 ** t)) + self.epsilon)
        z *= self.beta1
        z += (1.0 - self.beta1) * g - (d_t - self.beta1 * prev_d) * weight._data
        prev_d[...] = d_t
        weight._data[...] = -z / d_t


@register
class Signum(Optimizer):
    """Sign of the momentum (signSGD when momentum is 0); `wd_lh` decays the weight directly."""

    def __init__(self, learning_rate=0.01, momentum=0.9, wd_lh=0.0, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.momentum, self.wd_lh = momentum, wd_lh

    def create_state(self, index, weight):
        return _zeros_like(weight) if self.momentum != 0.0 else None

    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        g = self._scaled(grad)
        if state is None:
            weight._data *= 1 - lr * wd
            weight._data -= lr * np.sign(g)
            return
        mom = state._data
        mom *= self.momentum
        mom -= (1 - self.momentum) * wd * weight._data
        mom -= (1 - self.momentum) * g
        weight._data *= 1 - lr * self.wd_lh
        weight._data += lr * np.sign(mom)


@register
class LAMB(Optimizer):
    """Adam's direction scaled per tensor by the ratio of the weight's norm to the direction's."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-6, lower_bound=None,
                 upper_bound=None, bias_correction=True, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1, self.beta2, self.epsilon = beta1, beta2, epsilon
        self.lower_bound, self.upper_bound = lower_bound, upper_bound
        self.bias_correction = bias_correction
        self.aggregate_num = 45

    def create_state(self, index, weight):
        return _zeros_like(weight), _zeros_like(weight)

    def update(self, index, weight, grad, state):
        items = _each(index, weight, grad, state)
        self._update_count([i for i, *_ in items])
        for i, w, grad_i, (mean_nd, var_nd) in items:
            lr, wd = self._get_lr(i), self._get_wd(i)
            t = self._index_update_count[i]
            g = self._scaled(grad_i)
            mean, var = mean_nd._data, var_nd._data
            mean *= self.beta1
            mean += (1.0 - self.beta1) * g
            var *= self.beta2
            var += (1.0 - self.beta2) * np.square(g)
            if self.bias_correction:
                direction = (mean / (1.0 - self.beta1 ** t)) / (np.sqrt(var / (1.0 - self.beta2 ** t)) + self.epsilon)
            else:
                direction = mean / (np.sqrt(var) + self.epsilon)
            direction = direction + wd * w._data
            # the norms, their ratio and the scaled rate in float32, as MXNet's NDArray arithmetic has them
            r1 = np.float32(np.sqrt(np.sum(np.square(w._data.astype(np.float64)))))
            r2 = np.float32(np.sqrt(np.sum(np.square(direction.astype(np.float64)))))
            if self.lower_bound:
                r1 = max(r1, np.float32(self.lower_bound))
            if self.upper_bound:
                r1 = min(r1, np.float32(self.upper_bound))
            ratio = r1 / r2 if r1 != 0 and r2 != 0 else np.float32(1.0)
            w._data -= (np.float32(lr) * ratio) * direction


@register
class Adamax(Optimizer):
    def __init__(self, learning_rate=0.002, beta1=0.9, beta2=0.999, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1, self.beta2 = beta1, beta2

    def create_state(self, index, weight):
        return _zeros_like(weight), _zeros_like(weight)

    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        lr /= 1.0 - self.beta1 ** self._index_update_count[index]
        g = self._scaled(grad, clip_after=wd * weight._data)
        m, u = state[0]._data, state[1]._data
        m *= self.beta1
        m += (1.0 - self.beta1) * g
        u[...] = np.maximum(self.beta2 * u, np.abs(g))
        weight._data -= lr * m / u


@register
class Nadam(Optimizer):
    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, schedule_decay=0.004, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1, self.beta2, self.epsilon = beta1, beta2, epsilon
        self.schedule_decay = schedule_decay
        self.m_schedule = 1.0

    def create_state(self, index, weight):
        return _zeros_like(weight), _zeros_like(weight)

    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        t = self._index_update_count[index]
        g = self._scaled(grad, clip_after=wd * weight._data)
        momentum_t = self.beta1 * (1.0 - 0.5 * pow(0.96, t * self.schedule_decay))
        momentum_next = self.beta1 * (1.0 - 0.5 * pow(0.96, (t + 1) * self.schedule_decay))
        self.m_schedule *= momentum_t
        schedule_next = self.m_schedule * momentum_next
        m, v = state[0]._data, state[1]._data
        m *= self.beta1
        m += (1.0 - self.beta1) * g
        v *= self.beta2
        v += (1.0 - self.beta2) * g * g
        m_bar = (1.0 - momentum_t) * (g / (1.0 - self.m_schedule)) + momentum_next * (m / (1.0 - schedule_next))
        weight._data -= lr * m_bar / (np.sqrt(v / (1.0 - pow(self.beta2, t))) + self.epsilon)


@register
class Ftrl(Optimizer):
    lazy_update = True
    def __init__(self, lamda1=0.01, learning_rate=0.1, beta=1, **kwargs):
        super().__init__(**kwargs)
        self.lamda1, self.beta = lamda1, beta
        self.lr = learning_rate

    def create_state(self, index, weight):
        return _zeros_like(weight, np.float32), _zeros_like(weight, np.float32)

    @_lazy
    def update(self, index, weight, grad, state):
        self._update_count(index)
        wd, lr = self._get_wd(index), self._get_lr(index)
        g = self._scaled(grad)
        z, n = state[0]._data, state[1]._data
        z += g - (np.sqrt(n + g * g) - np.sqrt(n)) * weight._data / lr
        n += g * g
        weight._data[...] = ((np.sign(z) * self.lamda1 - z) / ((self.beta + np.sqrt(n)) / lr + wd)
                             * (np.abs(z) > self.lamda1))


@register
class SGLD(Optimizer):
    """Stochastic gradient Langevin dynamics: half an SGD step plus Gaussian noise of variance lr."""

    def update(self, index, weight, grad, state):
        from runtime import random as _random
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        weight._data += -lr / 2 * (self._scaled(grad) + wd * weight._data)
        noise = _random.generator().normal(0, math.sqrt(lr), size=weight.shape)
        weight._data += noise.astype(weight._data.dtype)


@register
class DCASGD(Optimizer):
    """Delay-compensated SGD: the gradient corrected by lamda * g^2 * (w - previous w)."""

    def __init__(self, momentum=0.0, lamda=0.04, **kwargs):
        super().__init__(**kwargs)
        self.momentum, self.lamda = momentum, lamda
        self.weight_previous = {}

    def create_state(self, index, weight):
        return (_zeros_like(weight) if self.momentum != 0.0 else None), weight.copy()

    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        g = self._scaled(grad)
        mom, previous = state
        step = -lr * (g + wd * weight._data + self.lamda * g * g * (weight._data - previous._data))
        if mom is not None:
            mom._data *= self.momentum
            mom._data += step
            step = mom._data
        previous._data[...] = weight._data
        weight._data += step


class Updater:
    """Applies an optimizer by index, creating each index's state on first use."""

    def __init__(self, optimizer):
        self.optimizer = optimizer
        self.states = {}
        self.states_synced = {}
        self.aggregate_updates = optimizer.aggregate_num > 0

    def __call__(self, index, grad, weight):
        indices, grads, weights = (index, grad, weight) if isinstance(index, (list, tuple)) else \
            ([index], [grad], [weight])
        if weights:
            self.optimizer._set_current_context(weights[0].context.device_id)
        for idx, w in zip(indices, weights):
            if idx not in self.states:
                self.states[idx] = self.optimizer.create_state_multi_precision(idx, w)
                self.states_synced[idx] = True
            elif not self.states_synced[idx]:
                self.states[idx] = self.sync_state_context(self.states[idx], w.context)
                self.states_synced[idx] = True
        if self.aggregate_updates:
            # groups of aggregate_num per dtype, as MXNet's multi-tensor updates see them
            by_dtype = {}
            for idx, w, g in zip(indices, weights, grads):
                by_dtype.setdefault(w.dtype, []).append((idx, w, g))
            size = self.optimizer.aggregate_num
            for group in by_dtype.values():
                for start in range(0, len(group), size):
                    chunk = group[start:start + size]
                    self.optimizer.update_multi_precision([c[0] for c in chunk], [c[1] for c in chunk],
                                                          [c[2] for c in chunk],
                                                          [self.states[c[0]] for c in chunk])
        else:
            for idx, w, g in zip(indices, weights, grads):
                self.optimizer.update_multi_precision(idx, w, g, self.states[idx])

    def sync_state_context(self, state, context):
        if isinstance(state, NDArray):
            return state.as_in_context(context)
        if isinstance(state, (tuple, list)):
            synced = [self.sync_state_context(s, context) for s in state]
            return tuple(synced) if isinstance(state, tuple) else synced
        return state

    def set_states(self, states):
        from runtime.pickling import loads
        states = loads(states)
        if isinstance(states, tuple) and len(states) == 2:
            self.states, self.optimizer = states
        else:
            self.states = states
        self.states_synced = dict.fromkeys(self.states, False)

    def get_states(self, dump_optimizer=False):
        from runtime.pickling import dumps
        return dumps((self.states, self.optimizer) if dump_optimizer else self.states)


def get_updater(optimizer):
    return Updater(optimizer)
