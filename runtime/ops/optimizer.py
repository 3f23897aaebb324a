"""The fused optimizer update operators of MXNet 1.9.1 (`nd.sgd_update`, `nd.adam_update`...).

Inputs are the weight, its gradient, then the optimizer's states, all of one shape; the states
are updated in place (MXNet's FMutateInputs) and the result is the new weight, which user code
writes back with `out=weight`. Attribute names and defaults are MXNet's; the kernels are in
runtime/kernels/optimizer.py. None has a gradient.
"""
from __future__ import annotations

from runtime.kernels import optimizer as k
from runtime.registry import Attr, bool_, declare, float_, int_

_RESCALE = (Attr("rescale_grad", float_, 1.0), Attr("clip_gradient", float_, -1.0))
_LR = Attr("lr", float_, required=True)
_WD = Attr("wd", float_, 0.0)
_LAZY = Attr("lazy_update", bool_, True)


def _one_shape(in_shapes, attrs):
    """Every input has the weight's shape (MXNet: `Incompatible attr in node at i-th input`)."""
    known = next((s for s in in_shapes if s is not None), None)
    for i, shape in enumerate(in_shapes):
        if shape is None:
            in_shapes[i] = known
        elif tuple(shape) != tuple(known):
            raise ValueError("Incompatible attr at %d-th input: expected [%s], got [%s]"
                             % (i, ",".join(map(str, known)), ",".join(map(str, shape))))
    return in_shapes, [known]


def _weight_dtype(float32_inputs=()):
    """The inputs share the weight's dtype, except the mp_ variants' float32 master weight and momentum."""
    def rule(in_dtypes, attrs, names):
        dtype = in_dtypes[0] or next((d for d, n in zip(in_dtypes, names) if d and n not in float32_inputs), None)
        for i, name in enumerate(names[:len(in_dtypes)]):
            want = "float32" if name in float32_inputs else dtype
            if want is None:
                continue
            if in_dtypes[i] is None:
                in_dtypes[i] = want
            elif in_dtypes[i] != want:
                raise ValueError("Incompatible attr at %d-th input: expected %s, got %s" % (i, want, in_dtypes[i]))
        return in_dtypes, dtype
    return rule


def _update(name, inputs, attrs, float32_inputs=()):
    declare(name, inputs=("weight", "grad") + inputs, attrs=attrs, kernel=getattr(k, name), infer=_one_shape,
            types=_weight_dtype(float32_inputs))


_update("sgd_update", (), [_LR, _WD, *_RESCALE, _LAZY])
_update("sgd_mom_update", ("mom",), [_LR, Attr("momentum", float_, 0.0), _WD, *_RESCALE, _LAZY])
_update("mp_sgd_update", ("weight32",), [_LR, _WD, *_RESCALE, _LAZY], float32_inputs=("weight32",))
_update("mp_sgd_mom_update", ("mom", "weight32"), [_LR, Attr("momentum", float_, 0.0), _WD, *_RESCALE, _LAZY],
        float32_inputs=("mom", "weight32"))
_update("nag_mom_update", ("mom",), [_LR, Attr("momentum", float_, 0.0), _WD, *_RESCALE])
_update("mp_nag_mom_update", ("mom", "weight32"), [_LR, Attr("momentum", float_, 0.0), _WD, *_RESCALE],
        float32_inputs=("mom", "weight32"))
_update("signsgd_update", (), [_LR, _WD, *_RESCALE])
_update("signum_update", ("mom",), [_LR, Attr("momentum", float_, 0.0), _WD, *_RESCALE, Attr("wd_lh", float_, 0.0)])
_update("ftml_update", ("d", "v", "z"), [_LR, Attr("beta1", float_, 0.6), Attr("beta2", float_, 0.999),
                                         Attr("epsilon", float_, 1e-8), Attr("t", int_, required=True), _WD,
                                         Attr("rescale_grad", float_, 1.0), Attr("clip_grad", float_, -1.0)])
_update("adam_update", ("mean", "var"), [_LR, Attr("beta1", float_, 0.9), Attr("beta2", float_, 0.999),
                                         Attr("epsilon", float_, 1e-8), _WD, *_RESCALE, _LAZY])
_update("rmsprop_update", ("n",), [_LR, Attr("gamma1", float_, 0.95), Attr("epsilon", float_, 1e-8), _WD, *_RESCALE,
                                   Attr("clip_weights", float_, -1.0)])
_update("rmspropalex_update", ("n", "g", "delta"), [_LR, Attr("gamma1", float_, 0.95), Attr("gamma2", float_, 0.9),
                                                    Attr("epsilon", float_, 1e-8), _WD, *_RESCALE,
                                                    Attr("clip_weights", float_, -1.0)])
_update("ftrl_update", ("z", "n"), [_LR, Attr("lamda1", float_, 0.01), Attr("beta", float_, 1.0), _WD, *_RESCALE])
