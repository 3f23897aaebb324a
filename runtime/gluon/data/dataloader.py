"""DataLoader: batches of a dataset, assembled in the calling process or in worker processes."""
from __future__ import annotations

import collections
import multiprocessing
import multiprocessing.pool
import multiprocessing.reduction
import time

import numpy as np

from runtime.gluon.data import sampler as _sampler
from runtime.ndarray import NDArray

__all__ = ["DataLoader", "default_batchify_fn", "default_mp_batchify_fn"]


def default_batchify_fn(data):
    """Stack samples into a batch: NDArrays with nd.stack, tuples element by element, anything else
    through NumPy (keeping its dtype)."""
    from runtime import nd
    first = data[0]
    if isinstance(first, NDArray):
        return nd.stack(*data)
    if isinstance(first, tuple):
        return [default_batchify_fn(list(column)) for column in zip(*data)]
    array = np.asarray(data)
    return nd.array(array, dtype=array.dtype)


default_mp_batchify_fn = default_batchify_fn
_END = object()
# what MXNet's workers pickle batches with (GluonNLP's loaders import it from here)
ForkingPickler = multiprocessing.reduction.ForkingPickler


def _as_in_context(data, ctx):
    """`data` (an NDArray, or lists and tuples of them) on `ctx`."""
    if isinstance(data, NDArray):
        return data.as_in_context(ctx)
    if isinstance(data, (list, tuple)):
        return [_as_in_context(item, ctx) for item in data]
    return data


def _to_numpy(batch):
    """Batches cross the process boundary as NumPy arrays."""
    if isinstance(batch, NDArray):
        return ("nd", batch.asnumpy())
    if isinstance(batch, (list, tuple)):
        return ("seq", type(batch) is tuple, [_to_numpy(b) for b in batch])
    return ("raw", batch)


def _from_numpy(packed):
    kind = packed[0]
    if kind == "nd":
        return NDArray(packed[1])
    if kind == "seq":
        items = [_from_numpy(p) for p in packed[2]]
        return tuple(items) if packed[1] else items
    return packed[1]


_worker_state = {}


def _worker_init(dataset, batchify_fn):
    _worker_state["dataset"], _worker_state["batchify_fn"] = dataset, batchify_fn


def _worker_batch(indices):
    dataset, batchify_fn = _worker_state["dataset"], _worker_state["batchify_fn"]
    return _to_numpy(batchify_fn([dataset[i] for i in indices]))


def _thread_batch(args):
    dataset, batchify_fn, indices = args
    return batchify_fn([dataset[i] for i in indices])


def _process_context():
    # fork keeps the dataset (lambdas included) without pickling it, as MXNet's workers do
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else methods[0])


class DataLoader:
    """Batches of `dataset`: in order, shuffled, or as a (batch) sampler says; `num_workers` > 0
    assembles batches in a pool of processes (threads with `thread_pool=True`), in order.
    `pin_memory` is accepted: there is no device memory to pin."""

    def __init__(self, dataset, batch_size=None, shuffle=False, sampler=None, last_batch=None, batch_sampler=None,
                 batchify_fn=None, num_workers=0, pin_memory=False, pin_device_id=0, prefetch=None,
                 thread_pool=False, timeout=120, try_nopython=None, auto_reload=False):
        self._dataset = dataset
        self._pin_memory = pin_memory
        self._pin_device_id = pin_device_id
        self._thread_pool = thread_pool
        if not timeout > 0:
            raise AssertionError("timeout must be positive, given {}".format(timeout))
        self._timeout = timeout
        self.auto_reload = auto_reload  # the pool lives as long as the loader either way
        if batch_sampler is None:
            if batch_size is None:
                raise ValueError("batch_size must be specified unless batch_sampler is specified")
            if sampler is None:
                sampler = _sampler.RandomSampler(len(dataset)) if shuffle else \
                    _sampler.SequentialSampler(len(dataset))
            elif shuffle:
                raise ValueError("shuffle must not be specified if sampler is specified")
            batch_sampler = _sampler.BatchSampler(sampler, batch_size, last_batch if last_batch else "keep")
        elif batch_size is not None or shuffle or sampler is not None or last_batch is not None:
            raise ValueError("batch_size, shuffle, sampler and last_batch must not be specified if batch_sampler "
                             "is specified.")
        self._batch_sampler = batch_sampler
        self._num_workers = num_workers if num_workers >= 0 else 0
        self._prefetch = max(0, int(prefetch) if prefetch is not None else 2 * self._num_workers)
        self._batchify_fn = batchify_fn if batchify_fn is not None else default_batchify_fn
        self._worker_pool = None
        self._in_flight = set()  # batches given to the pool and not yet taken
        if self._num_workers > 0:
            if thread_pool:
                self._worker_pool = multiprocessing.pool.ThreadPool(self._num_workers)
            else:
                self._worker_pool = _process_context().Pool(
                    self._num_workers, initializer=_worker_init, initargs=(self._dataset, self._batchify_fn))

    def __iter__(self):
        for batch in self._batches():
            yield self._pinned(batch) if self._pin_memory else batch

    def _batches(self):
        if self._worker_pool is None:
            for indices in self._batch_sampler:
                yield self._batchify_fn([self._dataset[i] for i in indices])
            return
        if self._thread_pool:
            work = ((self._dataset, self._batchify_fn, indices) for indices in self._batch_sampler)
            yield from self._in_order(_thread_batch, work)
            return
        for packed in self._in_order(_worker_batch, self._batch_sampler):
            yield _from_numpy(packed)

    def _in_order(self, function, work):
        """`function` of each item of `work` on the pool, in order, with `prefetch` more in flight
        than the one awaited, as MXNet's loader keeps them: an epoch is not assembled ahead of its
        consumer (the pool's imap would queue every batch, and a worker blocked on a full result
        pipe could not be stopped when the loader is deleted)."""
        work = iter(work)
        pending = collections.deque()

        def submit() -> None:
            item = next(work, _END)
            if item is not _END:
                pending.append(self._worker_pool.apply_async(function, (item,)))
                self._in_flight.add(pending[-1])

        for _ in range(self._prefetch):
            submit()
        while True:
            submit()
            if not pending:
                return
            awaited = pending.popleft()
            self._in_flight.discard(awaited)
            try:
                result = awaited.get(self._timeout)
            except multiprocessing.TimeoutError:
                print("Worker timed out after %s seconds. This might be caused by slow transform: please "
                      "increase timeout to allow slower data loading in each worker." % self._timeout)
                raise
            except Exception:
                self._worker_pool.terminate()
                raise
            yield result

    def _pinned(self, batch):
        """The batch's arrays on cpu_pinned(pin_device_id), as MXNet places them (same memory here)."""
        if isinstance(batch, NDArray):
            from runtime.context import cpu_pinned
            return batch.as_in_context(cpu_pinned(self._pin_device_id))
        if isinstance(batch, (list, tuple)):
            return type(batch)(self._pinned(b) for b in batch)
        return batch

    def __len__(self):
        return len(self._batch_sampler)

    def __del__(self):
        pool = getattr(self, "_worker_pool", None)
        if pool is not None:
            # A worker writing a batch larger than the pipe holds the result queue's lock until
            # it is read, and terminating the pool stops the reader and then takes that lock:
            # the batches still in flight (a loop left early leaves `prefetch` of them) are
            # waited for first, up to the loader's timeout.
            deadline = time.monotonic() + self._timeout
            for result in list(self._in_flight):
                result.wait(max(0.0, deadline - time.monotonic()))
            pool.terminate()
            self._worker_pool = None


# the pool iterator MXNet's module offers to subclasses (defined apart: it needs the names above)
from runtime.gluon.data.multi_worker import _MultiWorkerIter, _worker_fn  # noqa: E402,F401
