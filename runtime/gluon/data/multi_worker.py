"""`gluon.data.dataloader._MultiWorkerIter` and `_worker_fn`: the iterator MXNet's DataLoader uses
over a worker pool. Libraries subclass it (GluonCV's RandomTransformDataLoader overrides
`_push_next` and calls `self._worker_fn(samples, transform, batchify_fn)`), so its attributes and
the worker's contract (a batch returned as pickled bytes) are MXNet's."""
from __future__ import annotations

import io
import pickle

from runtime.gluon.data import dataloader as _dataloader


def _worker_fn(samples, batchify_fn, dataset=None):
    """The batch of the items `samples` of `dataset` (the pool's own, set at its start, if None),
    pickled as MXNet's workers send it."""
    source = dataset if dataset is not None else _dataloader._worker_state["dataset"]
    batch = batchify_fn([source[i] for i in samples])
    buffer = io.BytesIO()
    _dataloader.ForkingPickler(buffer, pickle.HIGHEST_PROTOCOL).dump(batch)
    return buffer.getvalue()


class _MultiWorkerIter:
    """Batches assembled by `worker_pool` (asynchronously, `prefetch` ahead), returned in order."""

    def __init__(self, worker_pool, batchify_fn, batch_sampler, pin_memory=False, pin_device_id=0,
                 worker_fn=_worker_fn, prefetch=0, dataset=None, data_loader=None, timeout=120):
        self._worker_pool = worker_pool
        self._batchify_fn = batchify_fn
        self._batch_sampler = batch_sampler
        self._data_buffer = {}
        self._rcvd_idx = 0
        self._sent_idx = 0
        self._iter = iter(self._batch_sampler)
        self._worker_fn = worker_fn
        self._pin_memory = pin_memory
        self._pin_device_id = pin_device_id
        self._dataset = dataset
        self._data_loader = data_loader  # kept alive while its pool works for this iterator
        self._timeout = timeout
        for _ in range(prefetch):
            self._push_next()

    def __len__(self):
        return len(self._batch_sampler)

    def _push_next(self):
        indices = next(self._iter, None)
        if indices is None:
            return
        self._data_buffer[self._sent_idx] = self._worker_pool.apply_async(
            self._worker_fn, (indices, self._batchify_fn, self._dataset))
        self._sent_idx += 1

    def __next__(self):
        self._push_next()
        if self._rcvd_idx == self._sent_idx:
            assert not self._data_buffer, "Data buffer should be empty at this moment"
            raise StopIteration
        pending = self._data_buffer.pop(self._rcvd_idx)
        batch = pickle.loads(pending.get(self._timeout))
        if self._pin_memory:
            from runtime.context import cpu_pinned
            batch = _dataloader._as_in_context(batch, cpu_pinned(self._pin_device_id))
        self._rcvd_idx += 1
        return batch

    next = __next__

    def __iter__(self):
        return self
