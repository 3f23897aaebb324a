"""`gluon.loss`: MXNet 1.9.1's losses as HybridBlocks, so each runs eagerly and hybridized.

Every loss returns one value per sample (the mean, or for KL divergence and triplets the sum, over
the non-batch axes), weighted by the scalar `weight` and the broadcast `sample_weight`.
"""
from __future__ import annotations

import math
import numbers

from runtime.gluon.block import HybridBlock
from runtime.ndarray import NDArray

__all__ = ["Loss", "L2Loss", "L1Loss", "SigmoidBinaryCrossEntropyLoss", "SigmoidBCELoss", "SoftmaxCrossEntropyLoss",
           "SoftmaxCELoss", "KLDivLoss", "CTCLoss", "HuberLoss", "HingeLoss", "SquaredHingeLoss", "LogisticLoss",
           "TripletLoss", "PoissonNLLLoss", "CosineEmbeddingLoss", "SDMLLoss"]


def _weighted(F, loss, weight=None, sample_weight=None):
    if sample_weight is not None:
        loss = F.broadcast_mul(loss, sample_weight)
    if weight is not None:
        assert isinstance(weight, numbers.Number), "weight must be a number"
        loss = loss * weight
    return loss


def _like(F, x, y):
    """x in y's shape (labels given flat for a (batch, 1) prediction)."""
    if isinstance(x, NDArray):
        return x.reshape(y.shape)
    return F.reshape_like(x, y)


# The names MXNet 1.9.1 gives these helpers: losses written outside MXNet (GluonCV's) import them.
_apply_weighting = _weighted
_reshape_like = _like


def _softrelu_of_minus_abs(F, x):
    """log(1 + exp(-|x|)): the stable tail of the logistic loss."""
    return F.Activation(-F.abs(x), act_type="softrelu")


class Loss(HybridBlock):
    def __init__(self, weight, batch_axis, **kwargs):
        super().__init__(**kwargs)
        self._weight = weight
        self._batch_axis = batch_axis

    def __repr__(self):
        return "%s(batch_axis=%s, w=%s)" % (type(self).__name__, self._batch_axis, self._weight)

    def _per_sample_mean(self, F, loss):
        return F.mean(loss, axis=self._batch_axis, exclude=True)

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError


class L2Loss(Loss):
    """weight/2 * (label - pred)^2."""

    def __init__(self, weight=1.0, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        loss = F.square(_like(F, label, pred) - pred)
        return self._per_sample_mean(F, _weighted(F, loss, self._weight / 2, sample_weight))


class L1Loss(Loss):
    def __init__(self, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        loss = F.abs(_like(F, label, pred) - pred)
        return self._per_sample_mean(F, _weighted(F, loss, self._weight, sample_weight))


class SigmoidBinaryCrossEntropyLoss(Loss):
    """Binary cross entropy of sigmoid(pred) (or of pred itself with from_sigmoid), with an optional
    weight for the positive class."""

    def __init__(self, from_sigmoid=False, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._from_sigmoid = from_sigmoid

    def hybrid_forward(self, F, pred, label, sample_weight=None, pos_weight=None):
        label = _like(F, label, pred)
        if not self._from_sigmoid:
            if pos_weight is None:
                loss = F.relu(pred) - pred * label + _softrelu_of_minus_abs(F, pred)
            else:
                scale = 1 + F.broadcast_mul(pos_weight - 1, label)
                loss = pred - pred * label + scale * (_softrelu_of_minus_abs(F, pred) + F.relu(-pred))
        else:
            eps = 1e-12
            positive = F.log(pred + eps) * label
            if pos_weight is not None:
                positive = F.broadcast_mul(positive, pos_weight)
            loss = -(positive + F.log(1.0 - pred + eps) * (1.0 - label))
        return self._per_sample_mean(F, _weighted(F, loss, self._weight, sample_weight))


SigmoidBCELoss = SigmoidBinaryCrossEntropyLoss


class SoftmaxCrossEntropyLoss(Loss):
    """-log softmax(pred)[label] for class indices (sparse_label), or -sum(label * log softmax(pred))."""

    def __init__(self, axis=-1, sparse_label=True, from_logits=False, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._axis = axis
        self._sparse_label = sparse_label
        self._from_logits = from_logits

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        if not self._from_logits:
            pred = F.log_softmax(pred, axis=self._axis)
        if self._sparse_label:
            loss = -F.pick(pred, label, axis=self._axis, keepdims=True)
        else:
            loss = -F.sum(pred * _like(F, label, pred), axis=self._axis, keepdims=True)
        return self._per_sample_mean(F, _weighted(F, loss, self._weight, sample_weight))


SoftmaxCELoss = SoftmaxCrossEntropyLoss


class KLDivLoss(Loss):
    """label * (log label - pred), pred being log probabilities (or logits when from_logits=False)."""

    def __init__(self, from_logits=True, axis=-1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._from_logits = from_logits
        self._axis = axis

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        if not self._from_logits:
            pred = F.log_softmax(pred, axis=self._axis)
        loss = label * (F.log(label + 1e-12) - pred)
        return F.sum(_weighted(F, loss, self._weight, sample_weight), axis=self._batch_axis, exclude=True)


class CTCLoss(Loss):
    """The CTC loss of unnormalized scores, the blank being the last class."""

    def __init__(self, layout="NTC", label_layout="NT", weight=None, **kwargs):
        assert layout in ("NTC", "TNC"), "Only 'NTC' and 'TNC' layouts for pred are supported. Got: %s" % layout
        assert label_layout in ("NT", "TN"), \
            "Only 'NT' and 'TN' layouts for label are supported. Got: %s" % label_layout
        self._layout = layout
        self._label_layout = label_layout
        super().__init__(weight, label_layout.find("N"), **kwargs)

    def hybrid_forward(self, F, pred, label, pred_lengths=None, label_lengths=None, sample_weight=None):
        if self._layout == "NTC":
            pred = F.swapaxes(pred, 0, 1)
        if self._batch_axis == 1:
            label = F.swapaxes(label, 0, 1)
        loss = F.CTCLoss(pred, label, pred_lengths, label_lengths, use_data_lengths=pred_lengths is not None,
                         use_label_lengths=label_lengths is not None, blank_label="last")
        return _weighted(F, loss, self._weight, sample_weight)


class HuberLoss(Loss):
    """Quadratic within rho of the label, linear beyond."""

    def __init__(self, rho=1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._rho = rho

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        gap = F.abs(_like(F, label, pred) - pred)
        loss = F.where(gap > self._rho, gap - 0.5 * self._rho, (0.5 / self._rho) * F.square(gap))
        return self._per_sample_mean(F, _weighted(F, loss, self._weight, sample_weight))


class HingeLoss(Loss):
    def __init__(self, margin=1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        loss = F.relu(self._margin - pred * _like(F, label, pred))
        return self._per_sample_mean(F, _weighted(F, loss, self._weight, sample_weight))


class SquaredHingeLoss(Loss):
    def __init__(self, margin=1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        loss = F.square(F.relu(self._margin - pred * _like(F, label, pred)))
        return self._per_sample_mean(F, _weighted(F, loss, self._weight, sample_weight))


class LogisticLoss(Loss):
    """log(1 + exp(-pred * label)) for labels in {-1, 1} ('signed') or {0, 1} ('binary')."""

    def __init__(self, weight=None, batch_axis=0, label_format="signed", **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        if label_format not in ("signed", "binary"):
            raise ValueError("label_format can only be signed or binary, recieved %s." % label_format)
        self._label_format = label_format

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _like(F, label, pred)
        if self._label_format == "signed":
            label = (label + 1.0) / 2.0
        loss = F.relu(pred) - pred * label + _softrelu_of_minus_abs(F, pred)
        return self._per_sample_mean(F, _weighted(F, loss, self._weight, sample_weight))


class TripletLoss(Loss):
    """max(0, |pred - positive|^2 - |pred - negative|^2 + margin) per sample."""

    def __init__(self, margin=1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, pred, positive, negative):
        positive, negative = _like(F, positive, pred), _like(F, negative, pred)
        gap = F.sum(F.square(positive - pred) - F.square(negative - pred), axis=self._batch_axis, exclude=True)
        return _weighted(F, F.relu(gap + self._margin), self._weight, None)


class PoissonNLLLoss(Loss):
    """Negative log likelihood of target under Poisson(pred) (pred a log rate with from_logits), averaged
    over every element; compute_full adds Stirling's approximation of log(target!)."""

    def __init__(self, weight=None, from_logits=True, batch_axis=0, compute_full=False, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._from_logits = from_logits
        self._compute_full = compute_full

    def hybrid_forward(self, F, pred, target, sample_weight=None, epsilon=1e-08):
        target = _like(F, target, pred)
        if self._from_logits:
            loss = F.exp(pred) - target * pred
        else:
            loss = pred - target * F.log(pred + epsilon)
        if self._compute_full:
            stirling = target * F.log(target) - target + 0.5 * F.log(2 * target * math.pi)
            stirling *= target > 1  # in place, as MXNet writes it: hybridized, a Symbol refuses it
            loss = loss + stirling
        return F.mean(_weighted(F, loss, self._weight, sample_weight))


class CosineEmbeddingLoss(Loss):
    """1 - cos(x1, x2) for label 1, max(0, cos(x1, x2) - margin) for label -1; shape (batch, 1)."""

    def __init__(self, weight=None, batch_axis=0, margin=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, input1, input2, label, sample_weight=None):
        input1 = _like(F, input1, input2)
        label = label.reshape((-1, 1))
        cosine = self._cosine_similarity(F, input1, input2)
        similar = (1 - cosine) * (label == 1)
        dissimilar = F.broadcast_maximum(F.zeros((1, 1)), (label == -1) * (cosine - self._margin))
        return _weighted(F, similar + dissimilar, self._weight, sample_weight)

    def _cosine_similarity(self, F, x, y, axis=-1):
        norms = F.norm(x, axis=axis).reshape((-1, 1)) * F.norm(y, axis=axis).reshape((-1, 1))
        dot = F.sum(x * y, axis=axis).reshape((-1, 1))
        return dot / F.broadcast_maximum(norms, F.full((1, 1), 1e-12))


class SDMLLoss(Loss):
    """Smoothed deep metric learning (Bonadiman et al. 2019): pairs (x1[i], x2[i]) are positives, every
    other pairing in the batch a negative; KL divergence between the smoothed identity and the softmax
    over negative squared distances."""

    def __init__(self, smoothing_parameter=0.3, weight=1.0, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self.kl_loss = KLDivLoss(from_logits=True)
        self.smoothing_parameter = smoothing_parameter

    def _compute_distances(self, x1, x2):
        assert x1.shape == x2.shape
        batch_size, dim = x1.shape
        left = x1.expand_dims(1).broadcast_to([batch_size, batch_size, dim])
        right = x2.expand_dims(0).broadcast_to([batch_size, batch_size, dim])
        return ((left - right) ** 2).sum(axis=2)

    def _compute_labels(self, F, batch_size):
        gold = F.eye(batch_size)
        return gold * (1 - self.smoothing_parameter) + (1 - gold) * self.smoothing_parameter / (batch_size - 1)

    def _loss(self, F, x1, x2):
        labels = self._compute_labels(F, x1.shape[0])
        distances = self._compute_distances(x1, x2)
        return self.kl_loss(F.log_softmax(-distances, axis=1), labels.as_in_context(distances.context))

    def hybrid_forward(self, F, x1, x2):
        return self._loss(F, x1, x2)
