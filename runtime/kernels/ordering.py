"""The order MXNet's CPU topk, sort and argsort give equal values.

MXNet 1.9.1 orders each lane's indices with the C++ standard library's unstable algorithms: a
partial sort (a heap) when k is at most an eighth of the lane, a full introsort otherwise, comparing
values only. Equal values then come out in the order those algorithms leave them, which is not the
order of their positions: untrained detectors (CenterNet's saturated heatmaps) rank many equal
scores, and their boxes follow that order. These kernels perform the same steps as GNU libstdc++'s
`std::partial_sort` and `std::sort` (the library MXNet's Linux wheels are built with), on indices.
"""
from __future__ import annotations

import numba
import numpy as np

_THRESHOLD = 16  # libstdc++'s size under which introsort leaves a range to insertion sort


@numba.njit(cache=True, nogil=True, inline="always")
def _before(vals, a, b, ascend):
    return vals[a] < vals[b] if ascend else vals[a] > vals[b]


@numba.njit(cache=True, nogil=True)
def _push_heap(idx, first, hole, top, value, vals, ascend):
    parent = (hole - 1) // 2
    while hole > top and _before(vals, idx[first + parent], value, ascend):
        idx[first + hole] = idx[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    idx[first + hole] = value


@numba.njit(cache=True, nogil=True)
def _adjust_heap(idx, first, hole, length, value, vals, ascend):
    top = hole
    child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if _before(vals, idx[first + child], idx[first + child - 1], ascend):
            child -= 1
        idx[first + hole] = idx[first + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        idx[first + hole] = idx[first + child - 1]
        hole = child - 1
    _push_heap(idx, first, hole, top, value, vals, ascend)


@numba.njit(cache=True, nogil=True)
def _pop_heap(idx, first, last, result, vals, ascend):
    value = idx[result]
    idx[result] = idx[first]
    _adjust_heap(idx, first, 0, last - first, value, vals, ascend)


@numba.njit(cache=True, nogil=True)
def _partial_sort(idx, first, middle, last, vals, ascend):
    length = middle - first
    if length > 1:  # make_heap
        parent = (length - 2) // 2
        while True:
            _adjust_heap(idx, first, parent, length, idx[first + parent], vals, ascend)
            if parent == 0:
                break
            parent -= 1
    for i in range(middle, last):  # heap select
        if _before(vals, idx[i], idx[first], ascend):
            _pop_heap(idx, first, middle, i, vals, ascend)
    end = middle
    while end - first > 1:  # sort_heap
        end -= 1
        _pop_heap(idx, first, end, end, vals, ascend)


@numba.njit(cache=True, nogil=True)
def _swap(idx, a, b):
    idx[a], idx[b] = idx[b], idx[a]


@numba.njit(cache=True, nogil=True)
def _median_to_first(idx, result, a, b, c, vals, ascend):
    if _before(vals, idx[a], idx[b], ascend):
        if _before(vals, idx[b], idx[c], ascend):
            _swap(idx, result, b)
        elif _before(vals, idx[a], idx[c], ascend):
            _swap(idx, result, c)
        else:
            _swap(idx, result, a)
    elif _before(vals, idx[a], idx[c], ascend):
        _swap(idx, result, a)
    elif _before(vals, idx[b], idx[c], ascend):
        _swap(idx, result, c)
    else:
        _swap(idx, result, b)


@numba.njit(cache=True, nogil=True)
def _partition(idx, first, last, pivot, vals, ascend):
    while True:
        while _before(vals, idx[first], idx[pivot], ascend):
            first += 1
        last -= 1
        while _before(vals, idx[pivot], idx[last], ascend):
            last -= 1
        if not first < last:
            return first
        _swap(idx, first, last)
        first += 1


@numba.njit(cache=True, nogil=True)
def _introsort_loop(idx, first, last, depth, vals, ascend):
    # libstdc++ recurses on the right part and loops on the left; the parts are disjoint, so a
    # stack of pending ranges gives the same result (numba's cache cannot hold a recursive function)
    stack = np.empty((128, 3), dtype=np.int64)
    stack[0, 0], stack[0, 1], stack[0, 2] = first, last, depth
    pending = 1
    while pending:
        pending -= 1
        first, last, depth = stack[pending, 0], stack[pending, 1], stack[pending, 2]
        while last - first > _THRESHOLD:
            if depth == 0:
                _partial_sort(idx, first, last, last, vals, ascend)
                break
            depth -= 1
            _median_to_first(idx, first, first + 1, first + (last - first) // 2, last - 1, vals, ascend)
            cut = _partition(idx, first + 1, last, first, vals, ascend)
            stack[pending, 0], stack[pending, 1], stack[pending, 2] = cut, last, depth
            pending += 1
            last = cut


@numba.njit(cache=True, nogil=True)
def _linear_insert(idx, last, vals, ascend):
    value = idx[last]
    while _before(vals, value, idx[last - 1], ascend):
        idx[last] = idx[last - 1]
        last -= 1
    idx[last] = value


@numba.njit(cache=True, nogil=True)
def _insertion_sort(idx, first, last, vals, ascend):
    for i in range(first + 1, last):
        if _before(vals, idx[i], idx[first], ascend):
            value = idx[i]
            for j in range(i, first, -1):
                idx[j] = idx[j - 1]
            idx[first] = value
        else:
            _linear_insert(idx, i, vals, ascend)


@numba.njit(cache=True, nogil=True)
def _sort(idx, first, last, vals, ascend):
    n = last - first
    if n < 2:
        return
    depth = 0
    while (1 << (depth + 1)) <= n:  # floor(log2(n))
        depth += 1
    _introsort_loop(idx, first, last, 2 * depth, vals, ascend)
    if n > _THRESHOLD:
        _insertion_sort(idx, first, first + _THRESHOLD, vals, ascend)
        for i in range(first + _THRESHOLD, last):
            _linear_insert(idx, i, vals, ascend)
    else:
        _insertion_sort(idx, first, last, vals, ascend)


@numba.njit(cache=True, nogil=True)
def _order_lanes(lanes, k, ascend):
    m, n = lanes.shape
    out = np.empty((m, k), dtype=np.int64)
    idx = np.empty(n, dtype=np.int64)
    for row in range(m):
        for j in range(n):
            idx[j] = j
        vals = lanes[row]
        if k * 8 > n:
            _sort(idx, 0, n, vals, ascend)
        else:
            _partial_sort(idx, 0, k, n, vals, ascend)
        out[row, :] = idx[:k]
    return out


def mxnet_order(x: np.ndarray, axis: int, k: int, ascend: bool) -> np.ndarray:
    """The positions of the first `k` values along `axis` in MXNet's order (ties included)."""
    axis = axis % x.ndim
    moved = np.moveaxis(x, axis, -1)
    lanes = np.ascontiguousarray(moved.reshape(-1, moved.shape[-1]))
    if lanes.dtype == np.float16:  # compared as MXNet compares them; the order of float16 is float32's
        lanes = lanes.astype(np.float32)
    order = _order_lanes(lanes, k, ascend).reshape(moved.shape[:-1] + (k,))
    return np.moveaxis(order, -1, axis)
