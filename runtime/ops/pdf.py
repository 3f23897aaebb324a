"""MXNet's `random_pdf_*` operators (`_random_pdf_normal`...): the density, or with is_log its
log, of samples under distributions whose parameters are arrays shaped as the samples' leading
axes (each parameter set serves the samples along the remaining axes). Dirichlet samples are
vectors along the last axis, which the output drops. Gradients for the samples (zero for the
discrete distributions, as in MXNet) and for the parameters (summed over their samples)."""
from __future__ import annotations

import numpy as np

from runtime.kernels import pdf as k
from runtime.registry import Attr, bool_, declare, gradient_of

# name: (parameter names, log-density, samples are vectors)
_PDFS = {
    "uniform": (("low", "high"), k.log_uniform, False),
    "normal": (("mu", "sigma"), k.log_normal, False),
    "gamma": (("alpha", "beta"), k.log_gamma, False),
    "exponential": (("lam",), k.log_exponential, False),
    "poisson": (("lam",), k.log_poisson, False),
    "negative_binomial": (("k", "p"), k.log_negative_binomial, False),
    "generalized_negative_binomial": (("mu", "alpha"), k.log_generalized_negative_binomial, False),
    "dirichlet": (("alpha",), k.log_dirichlet, True),
}


def _shapes(vector):
    def infer(in_shapes, attrs):
        sample, first = tuple(in_shapes[0]), tuple(in_shapes[1])
        if len(first) > len(sample):
            raise ValueError("dimension of input samples (%d) must be at least dimension of distribution "
                             "parameters (%d)" % (len(sample), len(first)))
        param = sample[:len(first)]
        if vector:
            param = param[:-1] + sample[-1:]
        for shape in in_shapes[1:]:
            if tuple(shape) != param:
                raise ValueError("Shape inconsistent: the distribution parameters must have shape %s, got %s"
                                 % (param, tuple(shape)))
        out = ((1,) if len(sample) == 1 else sample[:-1]) if vector else sample
        return in_shapes, [out]
    return infer


def _gradient(log_density, vector):
    def gradient(inputs, outputs, out_grads, is_log=False):
        sample, params = inputs[0], inputs[1:]
        x = np.asarray(sample, np.float64)
        log_p, derivatives = log_density(x, *k.broadcast_params(x, params, vector))
        scale = np.asarray(out_grads[0], np.float64) * (1.0 if is_log else np.exp(log_p))
        if vector:
            scale = scale[..., None]
        grads = [np.zeros_like(sample) if derivatives[0] is None
                 else (scale * derivatives[0]).astype(sample.dtype)]
        for param, derivative in zip(params, derivatives[1:]):
            full = np.broadcast_to(scale * derivative, x.shape)
            if vector:  # sum the samples' axes between the leading ones and the vector's
                summed = full.sum(axis=tuple(range(param.ndim - 1, x.ndim - 1)))
            else:
                summed = full.sum(axis=tuple(range(param.ndim, x.ndim)))
            grads.append(summed.reshape(param.shape).astype(param.dtype))
        return grads
    return gradient


for _name, (_params, _log_density, _vector) in _PDFS.items():
    declare("_random_pdf_" + _name, inputs=("sample",) + _params, attrs=[Attr("is_log", bool_, False)],
            kernel=k.pdf(_log_density, _vector), infer=_shapes(_vector), aliases=("random_pdf_" + _name,))
    gradient_of("_random_pdf_" + _name)(_gradient(_log_density, _vector))
