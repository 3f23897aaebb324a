"""Calibration for MXNet 1.9.1's quantization flow: the float (fused) model runs over the
calibration data and each tensor that a quantize_v2, requantize or quantized BatchNorm needs a
range for is measured, as MXNet's executor monitor reports it:
  - 'naive': the smallest and largest value over all batches;
  - 'entropy': a histogram of 8001 bins over [-m, m] (m the largest magnitude of the first
    batch), widened by whole bins as later batches need; then the threshold of least KL
    divergence (runtime.kernels.calibrate_entropy), 255 quantized bins, or 511 for a tensor
    that is never negative when the quantized type is uint8 or auto (range (0, t), else (-t, t)).
MXNet's monitor reports a variable once for every operator input reading it, so a histogram of
the data counts it as many times; this does too.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

import numpy as np

from runtime.kernels.calibrate_entropy import threshold as _entropy_threshold


def _numpy(array) -> np.ndarray:
    return array.asnumpy() if hasattr(array, "asnumpy") else np.asarray(array)


class _Collector:
    """What MXNet's collectors share: the tensors they take (all, or those in include_layer),
    and a logger."""

    def __init__(self, include_layer=None, logger=None):
        self.include_layer = include_layer
        self.logger = logger

    def _data(self, name, arr) -> Optional[np.ndarray]:
        """The tensor as NumPy, or None when it is not one this collector takes."""
        if self.include_layer is not None and name not in self.include_layer:
            return None
        return _numpy(arr)


class LayerOutputMinMaxCollector(_Collector):
    """'naive' calibration: the running min and max of each included tensor."""

    def __init__(self, quantized_dtype="int8", include_layer=None, logger=None):
        super().__init__(include_layer, logger)
        self.min_max_dict: Dict[str, Tuple[float, float]] = {}
        self.quantized_dtype = quantized_dtype

    def collect(self, name, arr):
        data = self._data(name, arr)
        if data is None:
            return
        low, high = data.min(), data.max()
        if name in self.min_max_dict:
            old_low, old_high = self.min_max_dict[name]
            low, high = min(old_low, low), max(old_high, high)
        self.min_max_dict[name] = (low, high)
        if self.logger:
            self.logger.debug("Collecting layer %s min_range=%f, max_range=%f" % (name, low, high))


def histogram(data, bins: int, th):
    """np.histogram(data, bins, range=(-th, th)) as NumPy 1.x computes it for float32 data (MXNet
    1.9.1 runs on NumPy < 2): float32 edges rounded from float64 steps (NumPy 2 steps in float32,
    which moves edges by an ulp), each value's bin from its scaled offset, moved by one where it
    falls on the wrong side of its edges."""
    data = np.asarray(data).reshape(-1)
    low, high = -th, th
    if low == high:
        low, high = low - 0.5, high + 0.5
    edge_type = np.result_type(np.asarray(low).dtype, data.dtype)
    if not np.issubdtype(edge_type, np.floating):
        edge_type = np.dtype(np.float64)
    edges = (np.arange(bins + 1, dtype=np.float64) * ((float(high) - float(low)) / bins) + float(low)).astype(edge_type)
    edges[-1] = high
    values = data[(data >= low) & (data <= high)].astype(edge_type, copy=False)
    norm = bins / (np.asarray(high, edge_type) - np.asarray(low, edge_type))
    indices = ((values - np.asarray(low, edge_type)) * norm).astype(np.intp)
    indices[indices == bins] -= 1
    indices[values < edges[indices]] -= 1
    indices[(values >= edges[indices + 1]) & (indices != bins - 1)] += 1
    return np.bincount(indices, minlength=bins).astype(np.int64), edges


def combine_histogram(old_hist, arr, new_min, new_max, new_th):
    """A histogram (counts, edges, min, max, threshold) with `arr` added: over the old bins when
    they cover it, else over the old bins with whole bins added each side to cover it."""
    counts, edges, old_min, old_max, old_th = old_hist
    if new_th <= old_th:
        added, _ = histogram(arr, len(counts), old_th)
        return counts + added, edges, min(old_min, new_min), max(old_max, new_max), old_th
    step = 2 * old_th / len(counts)
    extra = int((new_th - old_th) // step + 1)
    bins = 2 * extra + len(counts)
    widened = extra * step + old_th
    added, added_edges = histogram(arr, bins, widened)
    added[extra:bins - extra] += counts
    return added, added_edges, min(old_min, new_min), max(old_max, new_max), widened


class LayerHistogramCollector(_Collector):
    """'entropy' calibration: a histogram of each included tensor."""

    def __init__(self, num_bins=8001, include_layer=None, logger=None):
        super().__init__(include_layer, logger)
        self.hist_dict: Dict[str, tuple] = {}
        self.num_bins = num_bins

    def collect(self, name, arr):
        data = self._data(name, arr)
        if data is None:
            return
        low, high = np.min(data), np.max(data)
        th = max(abs(low), abs(high))
        if name in self.hist_dict:
            self.hist_dict[name] = combine_histogram(self.hist_dict[name], data, low, high, th)
        else:
            counts, edges = histogram(data, self.num_bins, th)
            self.hist_dict[name] = (counts, edges, low, high, th)


def optimal_threshold(hist_data, quantized_dtype: str, num_quantized_bins: int = 255):
    """(min, max, threshold, divergence) of one collected histogram."""
    counts, edges, low, high, _ = hist_data
    if len(counts) % 2 != 1:
        raise ValueError("entropy calibration needs an odd number of histogram bins, got %d" % len(counts))
    if low >= 0 and quantized_dtype in ("auto", "uint8"):
        num_quantized_bins = num_quantized_bins * 2 + 1
    th, divergence = _entropy_threshold(np.asarray(counts, np.float32), np.asarray(edges, np.float32),
                                        num_quantized_bins)
    return low, high, np.float32(th), np.float32(divergence)


def optimal_thresholds(hist_dict, quantized_dtype: str, num_quantized_bins: int = 255, logger=None):
    """{name: (min, max)} from the histograms (each histogram is dropped once used)."""
    if logger is not None:
        logger.info("Calculating optimal thresholds for quantization using KL divergence"
                    " with num_quantized_bins=%d" % num_quantized_bins)
    table = {}
    for name in list(hist_dict):
        low, high, th, divergence = optimal_threshold(hist_dict[name], quantized_dtype, num_quantized_bins)
        table[name] = (0, th) if low >= 0 and quantized_dtype in ("auto", "uint8") else (-th, th)
        del hist_dict[name]
        if logger:
            logger.debug("layer=%s, min_val=%f, max_val=%f, th=%f, divergence=%f"
                         % (name, low, high, th, divergence))
    return table


def run_float_model(graph_json: str, arg_params, aux_params, data_names: List[str], batches, collector,
                    include: List[str], max_examples: Optional[int] = None, logger=None) -> int:
    """Runs the float graph over the batches (each a list of arrays, the data first) and hands
    each tensor named in `include` to `collector.collect`; the examples seen."""
    from runtime import nd
    from runtime.context import cpu
    from runtime.contrib.graph_nodes import from_json, post_order
    from runtime.symbol import Group, load_json

    graph = load_json(graph_json)
    internals = graph.get_internals()
    available = set(internals.list_outputs())
    heads, _ = from_json(graph_json)
    reads: Dict[str, int] = {}
    for node in post_order(heads):
        for child, _ in node.inputs:
            if child.is_variable:
                reads[child.name] = reads.get(child.name, 0) + 1
    wanted = [n for n in dict.fromkeys(include) if n in available and n not in data_names]
    outputs = Group([internals[n] for n in wanted]) if wanted else None
    executor = None
    examples = batches_seen = 0
    for batch in batches:
        arrays = [a if hasattr(a, "asnumpy") else nd.array(a) for a in batch[:len(data_names)]]
        feed = dict(zip(data_names, arrays))
        if outputs is not None:
            if executor is None or any(executor.arg_dict[n].shape != feed[n].shape for n in data_names):
                args = dict(arg_params)
                args.update(feed)
                args = {k: v for k, v in args.items() if k in outputs.list_arguments()}
                executor = outputs.bind(cpu(), args, aux_states={k: v for k, v in aux_params.items()
                                                                 if k in outputs.list_auxiliary_states()},
                                        grad_req="null")
            else:
                for name in data_names:
                    executor.arg_dict[name][:] = feed[name]
            values = executor.forward(is_train=False)
            produced = dict(zip(wanted, values))
        else:
            produced = {}
        for name in include:
            if name in feed:
                for _ in range(max(1, reads.get(name, 1))):
                    collector.collect(name, feed[name])
            elif name in produced:
                collector.collect(name, produced[name])
        batches_seen += 1
        examples += arrays[0].shape[0]
        if max_examples is not None and examples >= max_examples:
            break
    if logger is not None:
        logger.info("Collected statistics from %d batches" % batches_seen)
    return examples
