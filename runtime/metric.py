"""`mx.metric`: evaluation metrics with MXNet 1.9.1's accumulation rules.

A metric keeps a local running sum (cleared by `reset_local`, e.g. every logging interval) and a
global one (cleared only by `reset`). Labels and predictions are lists of NDArrays, or one NDArray.
"""
from __future__ import annotations

import json
import math
from collections import OrderedDict

import numpy

from runtime.ndarray import NDArray

_REGISTRY: dict = {}


def check_label_shapes(labels, preds, wrap=False, shape=False):
    label_shape, pred_shape = (labels.shape, preds.shape) if shape else (len(labels), len(preds))
    if label_shape != pred_shape:
        raise ValueError("Shape of labels {} does not match shape of predictions {}".format(label_shape, pred_shape))
    if wrap:
        labels = [labels] if isinstance(labels, NDArray) else labels
        preds = [preds] if isinstance(preds, NDArray) else preds
    return labels, preds


def register(klass):
    _REGISTRY[klass.__name__.lower()] = klass
    return klass


def alias(*aliases):
    def decorate(klass):
        for name in aliases:
            _REGISTRY[name.lower()] = klass
        return klass
    return decorate


def create(metric, *args, **kwargs):
    """A metric from a name (or alias), an instance, a callable (a CustomMetric), a list (a
    CompositeEvalMetric), a config dict or its JSON text."""
    if callable(metric) and not isinstance(metric, EvalMetric):
        return CustomMetric(metric, *args, **kwargs)
    if isinstance(metric, list):
        composite = CompositeEvalMetric()
        for child in metric:
            composite.add(create(child, *args, **kwargs))
        return composite
    if isinstance(metric, EvalMetric):
        assert not args and not kwargs, "metric is already an instance. Additional arguments are invalid"
        return metric
    if isinstance(metric, dict):
        config = dict(metric)
        return create(config.pop("metric"), **config)
    assert isinstance(metric, str), "metric must be of string type"
    if metric.startswith("["):
        name, config = json.loads(metric)
        return create(name, **config)
    if metric.startswith("{"):
        return create(json.loads(metric))
    name = metric.lower()
    assert name in _REGISTRY, "%s is not registered. Please register with metric.register first" % name
    return _REGISTRY[name](*args, **kwargs)


def _as_pairs(name, value):
    names = name if isinstance(name, list) else [name]
    values = value if isinstance(value, list) else [value]
    return list(zip(names, values))


class EvalMetric:
    def __init__(self, name, output_names=None, label_names=None, **kwargs):
        self.name = str(name)
        self.output_names = output_names
        self.label_names = label_names
        self._has_global_stats = kwargs.pop("has_global_stats", False)
        self._kwargs = kwargs
        self.reset()

    def __str__(self):
        return "EvalMetric: {}".format(dict(self.get_name_value()))

    def get_config(self):
        config = dict(self._kwargs)
        config.update({"metric": type(self).__name__, "name": self.name, "output_names": self.output_names,
                       "label_names": self.label_names})
        return config

    def update_dict(self, label, pred):
        preds = [pred[n] for n in self.output_names] if self.output_names is not None else list(pred.values())
        labels = [label[n] for n in self.label_names] if self.label_names is not None else list(label.values())
        self.update(labels, preds)

    def update(self, labels, preds):
        raise NotImplementedError()

    def _add(self, total, count):
        total = float(total)  # sums in float64, as MXNet's do under NumPy 1 (NumPy 2 would keep float32)
        self.sum_metric += total
        self.global_sum_metric += total
        self.num_inst += count
        self.global_num_inst += count

    def reset(self):
        self.num_inst = 0
        self.sum_metric = 0.0
        self.global_num_inst = 0
        self.global_sum_metric = 0.0

    def reset_local(self):
        self.num_inst = 0
        self.sum_metric = 0.0

    def get(self):
        if self.num_inst == 0:
            return self.name, float("nan")
        return self.name, self.sum_metric / self.num_inst

    def get_global(self):
        if not self._has_global_stats:
            return self.get()
        if self.global_num_inst == 0:
            return self.name, float("nan")
        return self.name, self.global_sum_metric / self.global_num_inst

    def get_name_value(self):
        return _as_pairs(*self.get())

    def get_global_name_value(self):
        return _as_pairs(*self.get_global()) if self._has_global_stats else self.get_name_value()


@register
@alias("composite")
class CompositeEvalMetric(EvalMetric):
    def __init__(self, metrics=None, name="composite", output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names, has_global_stats=True)
        self.metrics = [create(m) for m in (metrics or [])]

    def add(self, metric):
        self.metrics.append(create(metric))

    def get_metric(self, index):
        try:
            return self.metrics[index]
        except IndexError:
            return ValueError("Metric index {} is out of range 0 and {}".format(index, len(self.metrics)))

    def update_dict(self, labels, preds):
        if self.label_names is not None:
            labels = OrderedDict(i for i in labels.items() if i[0] in self.label_names)
        if self.output_names is not None:
            preds = OrderedDict(i for i in preds.items() if i[0] in self.output_names)
        for metric in self.metrics:
            metric.update_dict(labels, preds)

    def update(self, labels, preds):
        for metric in self.metrics:
            metric.update(labels, preds)

    def reset(self):
        for metric in getattr(self, "metrics", []):  # the base constructor resets before metrics exist
            metric.reset()

    def reset_local(self):
        for metric in self.metrics:
            metric.reset_local()

    def _collect(self, getter):
        names, values = [], []
        for metric in self.metrics:
            name, value = getter(metric)
            names.extend([name] if isinstance(name, str) else name)
            values.extend(value if isinstance(value, list) else [value])
        return names, values

    def get(self):
        return self._collect(lambda m: m.get())

    def get_global(self):
        return self._collect(lambda m: m.get_global())

    def get_config(self):
        config = super().get_config()
        config["metrics"] = [m.get_config() for m in self.metrics]
        return config


@register
@alias("acc")
class Accuracy(EvalMetric):
    """The fraction of predictions equal to the label; scores are reduced by argmax over `axis`."""

    def __init__(self, axis=1, name="accuracy", output_names=None, label_names=None):
        super().__init__(name, axis=axis, output_names=output_names, label_names=label_names, has_global_stats=True)
        self.axis = axis

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            scores = pred.asnumpy()
            if pred.shape != label.shape:
                scores = numpy.argmax(scores, axis=self.axis)
            predicted = scores.astype("int32").ravel()
            truth = label.asnumpy().astype("int32").ravel()
            check_label_shapes(truth, predicted)
            self._add((predicted == truth).sum(), len(predicted))


@register
@alias("top_k_accuracy", "top_k_acc")
class TopKAccuracy(EvalMetric):
    def __init__(self, top_k=1, name="top_k_accuracy", output_names=None, label_names=None):
        super().__init__(name, top_k=top_k, output_names=output_names, label_names=label_names, has_global_stats=True)
        self.top_k = top_k
        assert self.top_k > 1, "Please use Accuracy if top_k is no more than 1"
        self.name += "_%d" % self.top_k

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            assert len(pred.shape) <= 2, "Predictions should be no more than 2 dims"
            ranked = numpy.argpartition(pred.asnumpy().astype("float32"), -self.top_k)
            truth = label.asnumpy().astype("int32")
            check_label_shapes(truth, ranked)
            samples = ranked.shape[0]
            if ranked.ndim == 1:
                # MXNet counts these in the local sum only
                self.sum_metric += (ranked.ravel() == truth.ravel()).sum()
            else:
                classes = ranked.shape[1]
                for j in range(min(classes, self.top_k)):
                    hits = (ranked[:, classes - 1 - j].ravel() == truth.ravel()).sum()
                    self.sum_metric += hits
                    self.global_sum_metric += hits
            self.num_inst += samples
            self.global_num_inst += samples


class _BinaryCounts:
    """Confusion counts of a binary classifier (positive = class 1 of the argmax), local and global."""

    _FIELDS = ("true_positives", "false_positives", "false_negatives", "true_negatives")

    def __init__(self):
        self.reset_stats()

    def update_binary_stats(self, label, pred):
        scores = pred.asnumpy()
        truth = label.asnumpy().astype("int32")
        predicted = numpy.argmax(scores, axis=1)
        check_label_shapes(truth, scores)
        if len(numpy.unique(truth)) > 2:
            raise ValueError("%s currently only supports binary classification." % type(self).__name__)
        pred_pos, label_pos = predicted == 1, truth == 1
        counts = {"true_positives": (pred_pos & label_pos).sum(), "false_positives": (pred_pos & ~label_pos).sum(),
                  "false_negatives": (~pred_pos & label_pos).sum(), "true_negatives": (~pred_pos & ~label_pos).sum()}
        for field, count in counts.items():
            setattr(self, field, getattr(self, field) + count)
            setattr(self, "global_" + field, getattr(self, "global_" + field) + count)

    def _counts(self, use_global):
        prefix = "global_" if use_global else ""
        return [float(getattr(self, prefix + f)) for f in self._FIELDS]

    def _fscore(self, use_global):
        tp, fp, fn, _ = self._counts(use_global)
        precision = tp / (tp + fp) if tp + fp > 0 else 0.0
        recall = tp / (tp + fn) if tp + fn > 0 else 0.0
        return 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0

    @property
    def fscore(self):
        return self._fscore(False)

    @property
    def global_fscore(self):
        return self._fscore(True)

    def matthewscc(self, use_global=False):
        tp, fp, fn, tn = self._counts(use_global)
        if not tp + fp + fn + tn:
            return 0.0
        denominator = 1.0
        for term in (tp + fp, tp + fn, tn + fp, tn + fn):
            if term != 0.0:  # a zero margin leaves the coefficient defined (and 0) rather than NaN
                denominator *= term
        return (tp * tn - fp * fn) / math.sqrt(denominator)

    @property
    def total_examples(self):
        return sum(getattr(self, f) for f in self._FIELDS)

    @property
    def global_total_examples(self):
        return sum(getattr(self, "global_" + f) for f in self._FIELDS)

    def local_reset_stats(self):
        for field in self._FIELDS:
            setattr(self, field, 0)

    def reset_stats(self):
        for field in self._FIELDS:
            setattr(self, field, 0)
            setattr(self, "global_" + field, 0)


class _BinaryMetric(EvalMetric):
    """F1 and MCC: 'macro' averages the score of each update, 'micro' scores the pooled counts."""

    def __init__(self, name, output_names, label_names, average):
        self.average = average
        self.metrics = _BinaryCounts()
        super().__init__(name, output_names=output_names, label_names=label_names, has_global_stats=True)

    def _score(self, use_global):
        raise NotImplementedError

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            self.metrics.update_binary_stats(label, pred)
        if self.average == "macro":
            self.sum_metric += self._score(False)
            self.global_sum_metric += self._score(True)
            self.num_inst += 1
            self.global_num_inst += 1
            self.metrics.reset_stats()
        else:
            self.sum_metric = self._score(False) * self.metrics.total_examples
            self.global_sum_metric = self._score(True) * self.metrics.global_total_examples
            self.num_inst = self.metrics.total_examples
            self.global_num_inst = self.metrics.global_total_examples

    def reset(self):
        super().reset()
        self.metrics.reset_stats()

    def reset_local(self):
        super().reset_local()
        self.metrics.local_reset_stats()


@register
class F1(_BinaryMetric):
    def __init__(self, name="f1", output_names=None, label_names=None, average="macro"):
        super().__init__(name, output_names, label_names, average)

    def _score(self, use_global):
        return self.metrics.global_fscore if use_global else self.metrics.fscore


@register
class MCC(_BinaryMetric):
    def __init__(self, name="mcc", output_names=None, label_names=None, average="macro"):
        super().__init__(name, output_names, label_names, average)

    @property
    def _average(self):
        return self.average

    @property
    def _metrics(self):
        return self.metrics

    def _score(self, use_global):
        return self.metrics.matthewscc(use_global=use_global)


@register
class Perplexity(EvalMetric):
    """exp of the mean negative log probability of the labels, skipping `ignore_label`."""

    def __init__(self, ignore_label, axis=-1, name="perplexity", output_names=None, label_names=None):
        super().__init__(name, ignore_label=ignore_label, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self.ignore_label = ignore_label
        self.axis = axis

    def update(self, labels, preds):
        assert len(labels) == len(preds)
        loss, count = 0.0, 0
        for label, pred in zip(labels, preds):
            assert label.size == pred.size / pred.shape[-1], "shape mismatch: %s vs. %s" % (label.shape, pred.shape)
            scores = pred.asnumpy()
            flat = label.asnumpy().reshape(-1)
            index = numpy.expand_dims(flat.astype("int32").reshape(numpy.delete(scores.shape, self.axis % scores.ndim))
                                      if scores.ndim > 1 else flat.astype("int32"), self.axis)
            # out-of-range labels are clipped, as `pick` does by default
            picked = numpy.take_along_axis(scores, numpy.clip(index, 0, scores.shape[self.axis] - 1), self.axis)
            picked = picked.reshape(-1)
            if self.ignore_label is not None:
                ignore = (flat == self.ignore_label).astype(picked.dtype)
                count -= ignore.sum()
                picked = picked * (1 - ignore) + ignore
            loss -= numpy.log(numpy.maximum(picked, numpy.float32(1e-10))).sum(dtype=numpy.float32)
            count += picked.size
        self._add(float(loss), count)

    def get(self):
        if self.num_inst == 0:
            return self.name, float("nan")
        return self.name, math.exp(self.sum_metric / self.num_inst)

    def get_global(self):
        if self.global_num_inst == 0:
            return self.name, float("nan")
        return self.name, math.exp(self.global_sum_metric / self.global_num_inst)


class _Regression(EvalMetric):
    """A per-batch error between label and prediction (vectors taken as columns), averaged over batches."""

    def __init__(self, name, output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names, has_global_stats=True)

    @staticmethod
    def _error(label, pred):
        raise NotImplementedError

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            label, pred = label.asnumpy(), pred.asnumpy()
            label = label.reshape(label.shape[0], 1) if label.ndim == 1 else label
            pred = pred.reshape(pred.shape[0], 1) if pred.ndim == 1 else pred
            self._add(self._error(label, pred), 1)


@register
class MAE(_Regression):
    def __init__(self, name="mae", output_names=None, label_names=None):
        super().__init__(name, output_names, label_names)

    @staticmethod
    def _error(label, pred):
        return numpy.abs(label - pred).mean()


@register
class MSE(_Regression):
    def __init__(self, name="mse", output_names=None, label_names=None):
        super().__init__(name, output_names, label_names)

    @staticmethod
    def _error(label, pred):
        return ((label - pred) ** 2.0).mean()


@register
class RMSE(_Regression):
    def __init__(self, name="rmse", output_names=None, label_names=None):
        super().__init__(name, output_names, label_names)

    @staticmethod
    def _error(label, pred):
        return numpy.sqrt(((label - pred) ** 2.0).mean())


class _LabelProbability(EvalMetric):
    """The mean of -log(p[label] + eps) over samples, p being predicted probabilities (batch, classes)."""

    def __init__(self, eps, name, output_names, label_names):
        super().__init__(name, eps=eps, output_names=output_names, label_names=label_names, has_global_stats=True)
        self.eps = eps

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            truth, probs = label.asnumpy().ravel(), pred.asnumpy()
            assert truth.shape[0] == probs.shape[0], (truth.shape[0], probs.shape[0])
            picked = probs[numpy.arange(truth.shape[0], dtype=numpy.int64), numpy.int64(truth)]
            self._add((-numpy.log(picked + self.eps)).sum(), truth.shape[0])


@register
@alias("ce")
class CrossEntropy(_LabelProbability):
    def __init__(self, eps=1e-12, name="cross-entropy", output_names=None, label_names=None):
        super().__init__(eps, name, output_names, label_names)


@register
@alias("nll_loss")
class NegativeLogLikelihood(_LabelProbability):
    def __init__(self, eps=1e-12, name="nll-loss", output_names=None, label_names=None):
        super().__init__(eps, name, output_names, label_names)


@register
@alias("pearsonr")
class PearsonCorrelation(EvalMetric):
    """'macro': the mean of each batch's correlation; 'micro': the correlation of everything seen,
    from running means and sums of squares (Welford)."""

    def __init__(self, name="pearsonr", output_names=None, label_names=None, average="macro"):
        self.average = average
        super().__init__(name, output_names=output_names, label_names=label_names, has_global_stats=True)

    def reset_micro(self):
        self._sse_p = self._mean_p = self._sse_l = self._mean_l = 0
        self._pred_nums = self._label_nums = 0
        self._conv = 0

    def reset(self):
        super().reset()
        if self.average == "micro":
            self.reset_micro()

    @staticmethod
    def update_variance(new_values, count, mean, m_2):
        count += len(new_values)
        delta = new_values - mean
        mean += numpy.sum(delta / count)
        m_2 += numpy.sum(delta * (new_values - mean))
        return count, mean, m_2

    def update_cov(self, label, pred):
        # with the label mean already updated and the prediction mean not yet, as MXNet pairs them
        self._conv = self._conv + numpy.sum((label - self._mean_l) * (pred - self._mean_p))

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            check_label_shapes(label, pred, False, True)
            label = label.asnumpy().ravel().astype(numpy.float64)
            pred = pred.asnumpy().ravel().astype(numpy.float64)
            if self.average == "macro":
                self._add(numpy.corrcoef(pred, label)[0, 1], 1)
                continue
            self.num_inst += 1
            self.global_num_inst += 1
            self._label_nums, self._mean_l, self._sse_l = self.update_variance(
                label, self._label_nums, self._mean_l, self._sse_l)
            self.update_cov(label, pred)
            self._pred_nums, self._mean_p, self._sse_p = self.update_variance(
                pred, self._pred_nums, self._mean_p, self._sse_p)

    def get(self):
        if self.num_inst == 0:
            return self.name, float("nan")
        if self.average == "macro":
            return self.name, self.sum_metric / self.num_inst
        n = self._label_nums
        spread = (n - 1) * numpy.sqrt(self._sse_p / (n - 1)) * numpy.sqrt(self._sse_l / (n - 1))
        return self.name, self._conv / spread


@register
class PCC(EvalMetric):
    """Multiclass Matthews correlation from a confusion matrix that grows with the classes seen."""

    def __init__(self, name="pcc", output_names=None, label_names=None, has_global_stats=True):
        self.k = 2
        super().__init__(name=name, output_names=output_names, label_names=label_names,
                         has_global_stats=has_global_stats)

    def _grow(self, extra):
        self.lcm = numpy.pad(self.lcm, ((0, extra), (0, extra)), "constant")
        self.gcm = numpy.pad(self.gcm, ((0, extra), (0, extra)), "constant")
        self.k += extra

    @staticmethod
    def _calc_mcc(cmat):
        n = cmat.sum()
        x, y = cmat.sum(axis=1), cmat.sum(axis=0)
        cov_xx, cov_yy = numpy.sum(x * (n - x)), numpy.sum(y * (n - y))
        if cov_xx == 0 or cov_yy == 0:
            return float("nan")
        return numpy.sum(cmat.diagonal() * n - x * y) / (cov_xx * cov_yy) ** 0.5

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            truth = label.asnumpy().astype("int32")
            scores = pred.asnumpy()
            predicted = scores.argmax(axis=1) if scores.shape != truth.shape else scores.astype("int32")
            top = max(predicted.max(), truth.max())
            if top >= self.k:
                self._grow(top + 1 - self.k)
            batch = numpy.zeros((self.k, self.k))
            numpy.add.at(batch, (predicted, truth), 1)
            self.lcm += batch
            self.gcm += batch
        self.num_inst += 1
        self.global_num_inst += 1

    @property
    def sum_metric(self):
        return self._calc_mcc(self.lcm) * self.num_inst

    @sum_metric.setter
    def sum_metric(self, value):
        pass  # derived from the confusion matrix

    @property
    def global_sum_metric(self):
        return self._calc_mcc(self.gcm) * self.global_num_inst

    @global_sum_metric.setter
    def global_sum_metric(self, value):
        pass

    def reset(self):
        self.global_num_inst = 0.0
        self.gcm = numpy.zeros((self.k, self.k))
        self.reset_local()

    def reset_local(self):
        self.num_inst = 0.0
        self.lcm = numpy.zeros((self.k, self.k))


@register
class Loss(EvalMetric):
    """The mean of loss values (the predictions; labels are ignored)."""

    def __init__(self, name="loss", output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names, has_global_stats=True)

    def update(self, _, preds):
        for pred in [preds] if isinstance(preds, NDArray) else preds:
            self._add(float(pred.asnumpy().sum(dtype=numpy.float32)), pred.size)


@register
class Torch(Loss):
    def __init__(self, name="torch", output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names)


@register
class Caffe(Loss):
    def __init__(self, name="caffe", output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names)


@register
class CustomMetric(EvalMetric):
    """A metric from `feval(label, pred)` on NumPy arrays, returning a value or (sum, count)."""

    def __init__(self, feval, name=None, allow_extra_outputs=False, output_names=None, label_names=None):
        if name is None:
            name = feval.__name__
            if "<" in name:
                name = "custom(%s)" % name
        super().__init__(name, feval=feval, allow_extra_outputs=allow_extra_outputs, output_names=output_names,
                         label_names=label_names, has_global_stats=True)
        self._feval = feval
        self._allow_extra_outputs = allow_extra_outputs

    def update(self, labels, preds):
        if not self._allow_extra_outputs:
            labels, preds = check_label_shapes(labels, preds, True)
        for pred, label in zip(preds, labels):
            result = self._feval(label.asnumpy(), pred.asnumpy())
            if isinstance(result, tuple):
                self._add(*result)
            else:
                self._add(result, 1)

    def get_config(self):
        raise NotImplementedError("CustomMetric cannot be serialized")


def np(numpy_feval, name=None, allow_extra_outputs=False):
    """A CustomMetric from a function of NumPy arrays."""
    def feval(label, pred):
        return numpy_feval(label, pred)
    feval.__name__ = numpy_feval.__name__
    return CustomMetric(feval, name, allow_extra_outputs)
