"""MXNet 1.9.1's `_contrib_calibrate_entropy`: the threshold of a symmetric histogram whose
quantization into `num_quantized_bins` loses least information (KL divergence), in float32
as MXNet's CPU loop computes it, each sum taken in order, so that the chosen bin is MXNet's.

For each candidate half-width i (from num_quantized_bins // 2 to the middle bin):
  - p: the 2i + 1 middle bins, the bins outside folded into its first and last;
  - q: those bins (without the folded outliers) merged into num_quantized_bins groups (the
    last group takes the rest), each group's count spread evenly over its non-empty bins,
    wherever p is non-zero;
  - both smoothed (zeros get 0.0001, taken evenly from the non-zeros) and normalized;
  - divergence sum p * log(p / q); the threshold is the bin edge at i's outer end.
The first smallest divergence wins.
"""
from __future__ import annotations

import numba
import numpy as np



@numba.njit(cache=True, nogil=True)
def _smooth(p):
    zeros = 0
    for v in p:
        if v == 0:
            zeros += 1
    nonzeros = p.size - zeros
    if nonzeros == 0:
        return np.empty(0, np.float32)
    eps = np.float32(0.0001)
    eps1 = np.float32(eps * np.float32(zeros)) / np.float32(nonzeros)
    if eps1 >= 1.0:
        return np.empty(0, np.float32)
    out = p.copy()
    for i in range(p.size):
        is_zero = np.float32(1.0) if p[i] == 0 else np.float32(0.0)
        out[i] = out[i] + (eps * is_zero - eps1 * (np.float32(1.0) - is_zero))
    return out


@numba.njit(cache=True, nogil=True)
def _entropy(p, q):
    p_sum = np.float32(0.0)
    q_sum = np.float32(0.0)
    for v in p:
        p_sum += v
    for v in q:
        q_sum += v
    total = np.float32(0.0)
    for i in range(p.size):
        pi = p[i] / p_sum
        qi = q[i] / q_sum
        total += pi * np.log(pi / qi)
    return total


@numba.njit(cache=True, nogil=True)
def threshold(hist, edges, num_quantized_bins):
    """(threshold, its divergence) of a float32 histogram and its float32 edges."""
    num_bins = hist.size
    zero = num_bins // 2
    half = num_quantized_bins // 2
    count = zero + 1 - half
    thresholds = np.zeros(count, np.float32)
    divergence = np.zeros(count, np.float32)
    for i in range(half, zero + 1):
        start = zero - i
        stop = zero + i + 1
        thresholds[i - half] = edges[stop]
        width = stop - start
        sliced = np.zeros(width, np.int64)
        p = np.zeros(width, np.float32)
        for j in range(num_bins):
            if j <= start:
                p[0] += hist[j]
            elif j >= stop:
                p[width - 1] += hist[j]
            else:
                sliced[j - start] = np.int64(hist[j])
                p[j - start] = hist[j]
        merged = width // num_quantized_bins
        quantized = np.zeros(num_quantized_bins, np.float32)
        for j in range(num_quantized_bins):
            total = 0
            for k in range(j * merged, (j + 1) * merged):
                total += sliced[k]
            quantized[j] = np.float32(total)
        rest = 0
        for k in range(num_quantized_bins * merged, width):
            rest += sliced[k]
        quantized[num_quantized_bins - 1] += np.float32(rest)
        q = np.zeros(width, np.float32)
        for j in range(num_quantized_bins):
            first = j * merged
            last = width if j == num_quantized_bins - 1 else (j + 1) * merged
            norm = 0
            for k in range(first, last):
                if sliced[k] != 0:
                    norm += 1
            if norm:
                for k in range(first, last):
                    if p[k] != 0:
                        q[k] = quantized[j] / np.float32(norm)
        p = _smooth(p)
        q = _smooth(q)
        if q.size == 0 or p.size == 0:
            divergence[i - half] = np.inf
        else:
            divergence[i - half] = _entropy(p, q)
    best = 0
    smallest = np.float32(3.4028234663852886e38)
    for i in range(count):
        if divergence[i] < smallest:
            smallest = divergence[i]
            best = i
    return thresholds[best], smallest
