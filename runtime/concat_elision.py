"""Concatenations elided from predict-mode plans: the steps producing a channel Concat's operands
write straight into their place in the concatenated array, so that the Concat copies nothing.
This is done for chains of Concats, where each one's output is an operand of the next: DenseNet
concatenates its growing features after every layer, about 47 MB copied per pass of DenseNet-121
at batch 1 (see `elide` for why a lone Concat is left as it is).

The Concats of a chain live in the outermost one's array (a `Region`), each inner one's output a
part of it. An operand is written in place only where its part of that array is contiguous, as
the kernels write: for a batch of one image, whose channels are the outermost axis that differs.

Nothing is assumed of shapes: the places come from the operands' channel counts that each Concat
saw at the previous call, and each Concat checks where its operands lie and copies those not in
their place. A first call, a call with other shapes or a kernel that did not take the place it was
offered gives the same values, only without the saving.
"""
from __future__ import annotations

import threading
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from runtime.kernels import conv as conv_kernels
from runtime.kernels import nn as nn_kernels

# kernels that write their output where their `buffer(shape, dtype)` argument says
_TAKES_BUFFER = (conv_kernels.convolution_chain, conv_kernels.batch_norm_chain, nn_kernels.convolution)


class Region:
    """The array of one outermost Concat, and where the Concats of its chain put their operands.
    Concats are numbered by their step; `parent[t]` is (the Concat reading t's output, the operand
    it is there), absent for the outermost. The places come from the last call in which every
    Concat of the chain ran (`sizes`, replaced whole), so the places offered in a call never
    overlap; the array and what this call's Concats saw are the calling thread's. With `keep`
    (a static_alloc plan, which returns copies of what its reused buffers hold) the array is
    kept from call to call, as the arena's buffers are, instead of paying a new one's page
    faults at each call."""

    def __init__(self, outermost: int, parent: Dict[int, Tuple[int, int]], count: int, keep: bool):
        self.outermost, self.parent, self.count, self.keep = outermost, parent, count, keep
        self.sizes: Dict[int, Tuple[int, ...]] = {}  # each Concat's operands' channels
        # the calling thread's: .array (allocated when a step first asks), .seen (this call's
        # sizes), .taken (whether a part of the array was handed out in this call)
        self.call = threading.local()

    def start(self) -> None:
        if not self.keep:
            self.call.array = None
        self.call.seen, self.call.taken = {}, False

    def offset(self, concat: int) -> Optional[int]:
        """The first channel of `concat`'s output in the outermost array."""
        at = 0
        while concat != self.outermost:
            outer, operand = self.parent[concat]
            sizes = self.sizes.get(outer)
            if sizes is None:
                return None
            at += sum(sizes[:operand])
            concat = outer
        return at

    def part(self, concat: int, operand: int, shape: Tuple[int, ...], dtype) -> Optional[np.ndarray]:
        """Where operand `operand` of `concat`, of this shape, goes in this call's array, if it
        is a contiguous part of it (the array is allocated by the first step asking)."""
        sizes, start, whole = self.sizes.get(concat), self.offset(concat), self.sizes.get(self.outermost)
        if sizes is None or start is None or whole is None or len(shape) != 4 or sizes[operand] != shape[1] \
                or (shape[0] != 1 and shape[1] != sum(whole)):  # a part of several images is not contiguous
            return None
        need = (shape[0], sum(whole), shape[2], shape[3])
        array = getattr(self.call, "array", None)
        if array is None or (array.shape != need or array.dtype != dtype) and not getattr(self.call, "taken", False):
            array = self.call.array = np.empty(need, dtype)  # the first part asked for in this call
        elif array.shape != need or array.dtype != dtype:
            return None
        start += sum(sizes[:operand])
        self.call.taken = True
        return array[:, start:start + shape[1]]

    def output(self, concat: int, shape: Tuple[int, ...], dtype) -> np.ndarray:
        """The memory of `concat`'s output in this call: its place in the outermost array if that
        is where the outer Concat will look for it, else an array of its own."""
        if concat == self.outermost:  # the kept array only if a part of it was written in this call
            array = getattr(self.call, "array", None)
            placed = getattr(self.call, "taken", False) and array is not None
            return array if placed and array.shape == shape and array.dtype == dtype else np.empty(shape, dtype)
        outer, operand = self.parent[concat]
        placed = self.part(outer, operand, shape, dtype)
        return placed if placed is not None else np.empty(shape, dtype)

    def saw(self, concat: int, sizes: Tuple[int, ...]) -> None:
        """Records a Concat's operands in this call; the outermost's, last, makes them the places
        of the next calls if every Concat of the chain ran."""
        seen = getattr(self.call, "seen", None)
        if seen is None:
            return
        seen[concat] = sizes
        if concat == self.outermost and len(seen) == self.count:
            self.sizes = dict(seen)


class Place:
    """A producing step's `buffer`: its place among a Concat's operands, else memory of its own."""
    __slots__ = ("region", "concat", "operand")

    def __init__(self, region: Region, concat: int, operand: int):
        self.region, self.concat, self.operand = region, concat, operand

    def __call__(self, shape, dtype):
        shape = tuple(shape)
        placed = self.region.part(self.concat, self.operand, shape, np.dtype(dtype))
        return placed if placed is not None else np.empty(shape, dtype)


def _starting(region: Region, function):
    """`function`, after starting the region's call (for the step that runs first of the chain's)."""
    def run(*arrays, **attrs):
        region.start()
        return function(*arrays, **attrs)
    run.__name__ = getattr(function, "__name__", "step")
    return run


def _same_memory(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and a.strides == b.strides and a.dtype == b.dtype \
        and a.__array_interface__["data"][0] == b.__array_interface__["data"][0]


def _concat_into(region: Region, index: int, plain):
    """The Concat step `index`: its operands copied into its output's memory (see Region.output),
    each unless it is there already; what the region cannot take goes to the plain kernel."""
    def concat(*arrays, **attrs):
        first = arrays[0]
        if first.ndim != 4 or any(a.ndim != 4 or a.dtype != first.dtype or a.shape[0] != first.shape[0]
                                  or a.shape[2:] != first.shape[2:] for a in arrays):
            return plain(*arrays, **attrs)  # its checks and errors, or its type promotion
        sizes = tuple(a.shape[1] for a in arrays)
        out = region.output(index, (first.shape[0], sum(sizes), first.shape[2], first.shape[3]), first.dtype)
        at = 0
        for array, size in zip(arrays, sizes):
            target = out[:, at:at + size]
            if not _same_memory(array, target):
                np.copyto(target, array)
            at += size
        region.saw(index, sizes)
        return out
    return concat


def elide(steps: List, heads: Sequence[int], keep: bool = False) -> int:
    """Rewrites the chains of channel Concats of a predict-mode plan (a Concat whose output is an
    operand of another, and so on: DenseNet's blocks) and the steps producing their operands as
    described above; returns the number of Concats taken. A lone Concat stays as it is: it saves
    one copy, but its operands' producers would write into memory that the cache no longer holds
    (the kept array), which cost as much on SqueezeNet's fire modules and GoogLeNet's branches
    (1% slower, measured); a chain saves a copy of all that came before at each link. With `keep`
    (static_alloc), each chain's array is kept from call to call, and its steps are marked `reused`
    (the plan returns copies of their outputs). Runs before the arena is shared out
    (inference.share_buffers leaves steps that have a buffer already)."""
    head_slots = set(heads)
    readers: Dict[int, List[int]] = {}
    for index, step in enumerate(steps):
        for slot in step.inputs:
            readers.setdefault(slot, []).append(index)
    concats = {index for index, step in enumerate(steps)
               if step.node.op is not None and step.node.op.name == "Concat" and step.count == 1
               and step.attrs.get("dim") == 1 and step.function is step.node.op.kernel}

    def sole_concat_reader(slot: int) -> Optional[Tuple[int, int]]:
        """(the Concat reading `slot`, the operand it is there) if one Concat reads it, once."""
        if slot in head_slots:
            return None
        found = [(r, steps[r].inputs.index(slot)) for r in readers.get(slot, []) if r in concats]
        if len(found) != 1 or steps[found[0][0]].inputs.count(slot) != 1:
            return None
        return found[0]

    parent = {index: sole_concat_reader(steps[index].output) for index in concats}
    parent = {index: place for index, place in parent.items() if place is not None}

    def outermost(index: int) -> int:
        while index in parent:
            index = parent[index][0]
        return index

    chains: Dict[int, List[int]] = {}
    for index in sorted(concats):
        chains.setdefault(outermost(index), []).append(index)
    regions = {top: Region(top, {i: parent[i] for i in chain if i in parent}, len(chain), keep)
               for top, chain in chains.items() if len(chain) > 1}
    members = {top: list(chains[top]) for top in regions}
    for index, step in enumerate(steps):
        if index in concats or step.count != 1 or step.function not in _TAKES_BUFFER or "buffer" in step.attrs:
            continue
        place = sole_concat_reader(step.output)
        if place is not None and outermost(place[0]) in regions:
            top = outermost(place[0])
            step.attrs["buffer"] = Place(regions[top], *place)
            members[top].append(index)
    for top, region in regions.items():
        for index in members[top]:
            steps[index].reused = steps[index].reused or keep
            if index in concats:
                steps[index].function = _concat_into(region, index, steps[index].function)
        first = min(members[top])
        steps[first].function = _starting(region, steps[first].function)
    return sum(region.count for region in regions.values())
