"""`mx.image.ImageIter`: batches of encoded images (a RecordIO file, an image list file, or a Python
list), decoded, augmented and laid out as NCHW float batches with their labels, as MXNet 1.9.1's.

Sources: `path_imgrec` (with `path_imgidx` for random access: needed to shuffle or to split into
parts), `path_imglist` (lines "index<TAB>label...<TAB>path", paths under `path_root`), or `imglist`
([label..., path] items). The last incomplete batch is padded by reading from the start again
('pad', the batch's `pad` says how many), dropped ('discard'), or kept to start the next epoch
('roll_over').
"""
from __future__ import annotations

import logging
import os
import random

from runtime import recordio
from runtime.base import numeric_types
from runtime.io import DataBatch, DataIter


class ImageIter(DataIter):
    """Image batches with labels; augmenters `aug_list`, or CreateAugmenter(data_shape, **kwargs)."""

    def __init__(self, batch_size, data_shape, label_width=1, path_imgrec=None, path_imglist=None, path_root=None,
                 path_imgidx=None, shuffle=False, part_index=0, num_parts=1, aug_list=None, imglist=None,
                 data_name="data", label_name="softmax_label", dtype="float32", last_batch_handle="pad", **kwargs):
        super().__init__()
        from runtime import nd
        from runtime.image.image import CreateAugmenter
        assert path_imgrec or path_imglist or isinstance(imglist, list)
        assert dtype in ["int32", "float32", "int64", "float64"], dtype + " label not supported"
        name = type(self).__name__
        self.imgidx = None
        self.imgrec = None
        if path_imgrec:
            logging.info("%s: loading recordio %s...", name, path_imgrec)
            if path_imgidx:
                self.imgrec = recordio.MXIndexedRecordIO(path_imgidx, path_imgrec, "r")
                self.imgidx = list(self.imgrec.keys)
            else:
                self.imgrec = recordio.MXRecordIO(path_imgrec, "r")
        keys = []
        self.imglist = None
        if path_imglist:
            logging.info("%s: loading image list %s...", name, path_imglist)
            self.imglist = {}
            with open(path_imglist) as handle:
                for line in handle:
                    fields = line.strip().split("\t")
                    key = int(fields[0])
                    self.imglist[key] = (nd.array([float(v) for v in fields[1:-1]], dtype=dtype), fields[-1])
                    keys.append(key)
        elif isinstance(imglist, list):
            logging.info("%s: loading image list...", name)
            self.imglist = {}
            for index, item in enumerate(imglist, start=1):
                key = str(index)
                if len(item) > 2:
                    label = nd.array(item[:-1], dtype=dtype)
                elif isinstance(item[0], numeric_types):
                    label = nd.array([item[0]], dtype=dtype)
                else:
                    label = nd.array(item[0], dtype=dtype)
                self.imglist[key] = (label, item[-1])
                keys.append(key)
        self.path_root = path_root
        self.check_data_shape(data_shape)
        self.provide_data = [(data_name, (batch_size,) + tuple(data_shape))]
        label_shape = (batch_size, label_width) if label_width > 1 else (batch_size,)
        self.provide_label = [(label_name, label_shape)]
        self.batch_size = batch_size
        self.data_shape = data_shape
        self.label_width = label_width
        self.shuffle = shuffle
        if self.imgrec is None:
            self.seq = keys
        elif shuffle or num_parts > 1 or path_imgidx:
            assert self.imgidx is not None
            self.seq = self.imgidx
        else:
            self.seq = None  # the record file read in order
        if num_parts > 1:
            assert part_index < num_parts
            share = len(self.seq) // num_parts
            self.seq = self.seq[part_index * share:(part_index + 1) * share]
        self.auglist = CreateAugmenter(data_shape, **kwargs) if aug_list is None else aug_list
        self.cur = 0
        self._allow_read = True
        self.last_batch_handle = last_batch_handle
        self.num_image = len(self.seq) if self.seq is not None else None
        self._cache_data = self._cache_label = self._cache_idx = None
        self.reset()

    def reset(self):
        """Back to the first image (reshuffled); a rolled-over batch stays to start the next epoch."""
        if self.seq is not None and self.shuffle:
            random.shuffle(self.seq)
        if self.last_batch_handle != "roll_over" or self._cache_data is None:
            if self.imgrec is not None:
                self.imgrec.reset()
            self.cur = 0
            self._allow_read = True

    def hard_reset(self):
        """Back to the first image, dropping a rolled-over batch."""
        if self.seq is not None and self.shuffle:
            random.shuffle(self.seq)
        if self.imgrec is not None:
            self.imgrec.reset()
        self.cur = 0
        self._allow_read = True
        self._cache_data = self._cache_label = self._cache_idx = None

    def next_sample(self):
        """The next (label, encoded image bytes)."""
        if not self._allow_read:
            raise StopIteration
        if self.seq is None:
            record = self.imgrec.read()
            if record is None:
                if self.last_batch_handle != "discard":
                    self.imgrec.reset()
                raise StopIteration
            header, data = recordio.unpack(record)
            return header.label, data
        if self.cur >= self.num_image:
            if self.last_batch_handle != "discard":
                self.cur = 0
            raise StopIteration
        idx = self.seq[self.cur]
        self.cur += 1
        if self.imgrec is not None:
            header, data = recordio.unpack(self.imgrec.read_idx(idx))
            return (header.label if self.imglist is None else self.imglist[idx][0]), data
        label, fname = self.imglist[idx]
        return label, self.read_image(fname)

    def _batchify(self, batch_data, batch_label, start=0):
        """Fills the batch from position `start`; the number of positions filled."""
        i = start
        try:
            while i < self.batch_size:
                label, encoded = self.next_sample()
                data = self.imdecode(encoded)
                try:
                    self.check_valid_image(data)
                except RuntimeError as error:
                    logging.debug("Invalid image, skipping:  %s", str(error))
                    continue
                data = self.augmentation_transform(data)
                assert i < self.batch_size, "Batch size must be multiples of augmenter output length"
                batch_data[i] = self.postprocess_data(data)
                batch_label[i] = label
                i += 1
        except StopIteration:
            if not i:
                raise
        return i

    def next(self):
        from runtime import nd
        c, h, w = self.data_shape
        if self._cache_data is not None:  # the batch rolled over from the last epoch
            assert self._cache_label is not None, "_cache_label didn't have values"
            assert self._cache_idx is not None, "_cache_idx didn't have values"
            batch_data, batch_label, i = self._cache_data, self._cache_label, self._cache_idx
        else:
            batch_data = nd.zeros((self.batch_size, c, h, w))
            batch_label = self._label_batch()
            i = self._batchify(batch_data, batch_label)
        pad = self.batch_size - i
        if pad != 0:
            if self.last_batch_handle == "discard":
                raise StopIteration
            if self.last_batch_handle == "roll_over" and self._cache_data is None:
                self._cache_data, self._cache_label, self._cache_idx = batch_data, batch_label, i
                raise StopIteration
            self._batchify(batch_data, batch_label, i)
            if self.last_batch_handle == "pad":
                self._allow_read = False
            else:
                self._cache_data = self._cache_label = self._cache_idx = None
        return DataBatch([batch_data], [batch_label], pad=pad)

    def _label_batch(self):
        from runtime import nd
        return nd.empty(self.provide_label[0][1])

    def check_data_shape(self, data_shape):
        if not len(data_shape) == 3:
            raise ValueError("data_shape should have length 3, with dimensions CxHxW")
        if not data_shape[0] == 3:
            raise ValueError("This iterator expects inputs to have 3 channels.")

    def check_valid_image(self, data):
        if len(data[0].shape) == 0:
            raise RuntimeError("Data shape is wrong")

    def imdecode(self, s):
        """The decoded image; a RuntimeError naming the broken image otherwise."""
        from runtime.image.image import imdecode
        try:
            return imdecode(s)
        except Exception as error:  # whatever the decoder raises, reported with the image's name
            raise RuntimeError("%s, %s" % (self._locate(), error)) from None

    def _locate(self):
        idx = self.seq[(self.cur % self.num_image) - 1] if self.seq is not None else \
            (self.cur % self.num_image) - 1 if self.num_image else None
        if self.imglist is not None:
            return "Broken image filename: {}".format(self.imglist[idx][1])
        return "Broken image index: {}".format(idx)

    def read_image(self, fname):
        with open(os.path.join(self.path_root, fname), "rb") as handle:
            return handle.read()

    def augmentation_transform(self, data):
        for aug in self.auglist:
            data = aug(data)
        return data

    def postprocess_data(self, datum):
        """HWC to CHW."""
        from runtime import nd
        return nd.transpose(datum, axes=(2, 0, 1))
