"""Names of MXNet that GluonCV and GluonNLP import and build on: the pool iterator DataLoader subclasses
extend, the encoded-image datasets, the C API's handle names."""
import multiprocessing.pool
import struct
import zlib

import numpy as np
import pytest

import runtime
from runtime import nd


@pytest.fixture(scope="module")
def mx():
    with runtime.as_mxnet() as module:
        yield module


def png(pixels):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    height, width = pixels.shape[:2]
    rows = b"".join(b"\x00" + pixels[y].tobytes() for y in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def test_multi_worker_iter_subclass(mx):
    from mxnet.gluon.data import ArrayDataset, BatchSampler, SequentialSampler
    from mxnet.gluon.data.dataloader import _MultiWorkerIter, default_batchify_fn

    class EveryOther(_MultiWorkerIter):  # as GluonCV's loader does: its own _push_next
        def _push_next(self):
            indices = next(self._iter, None)
            if indices is None:
                return
            self._data_buffer[self._sent_idx] = self._worker_pool.apply_async(
                self._worker_fn, (indices[::2], self._batchify_fn, self._dataset))
            self._sent_idx += 1

    dataset = ArrayDataset(np.arange(10, dtype="float32"))
    with multiprocessing.pool.ThreadPool(2) as pool:
        plain = _MultiWorkerIter(pool, default_batchify_fn, BatchSampler(SequentialSampler(10), 4, "keep"),
                                 prefetch=2, dataset=dataset)
        assert len(plain) == 3
        assert [b.asnumpy().tolist() for b in plain] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
        halves = EveryOther(pool, default_batchify_fn, BatchSampler(SequentialSampler(10), 4, "keep"),
                            dataset=dataset)
        assert [b.asnumpy().tolist() for b in halves] == [[0, 2], [4, 6], [8]]


def test_image_folder_dataset(mx, tmp_path):
    rng = np.random.RandomState(0)
    pictures = {}
    for label, folder in enumerate(["cat", "dog"]):
        (tmp_path / folder).mkdir()
        for index in range(2):
            pixels = rng.randint(0, 256, (3, 4, 3)).astype("uint8")
            (tmp_path / folder / ("%d.png" % index)).write_bytes(png(pixels))
            pictures[(label, index)] = pixels
    (tmp_path / "dog" / "notes.txt").write_text("not an image")
    with pytest.warns(UserWarning, match="Ignoring"):
        dataset = mx.gluon.data.vision.ImageFolderDataset(str(tmp_path))
    assert dataset.synsets == ["cat", "dog"] and len(dataset) == 4
    picture, label = dataset[3]
    assert label == 1 and np.array_equal(picture.asnumpy(), pictures[(1, 1)])
    with pytest.warns(UserWarning, match="Ignoring"):
        gray = mx.gluon.data.vision.ImageFolderDataset(str(tmp_path), flag=0,
                                                       transform=lambda x, y: (x.astype("float32"), y + 10))
    picture, label = gray[0]
    assert picture.shape == (3, 4, 1) and picture.dtype == np.float32 and label == 10


def test_image_record_dataset(mx, tmp_path):
    rec, idx = str(tmp_path / "data.rec"), str(tmp_path / "data.idx")
    writer = mx.recordio.MXIndexedRecordIO(idx, rec, "w")
    pixels = [np.full((2, 3, 3), 40 * i, "uint8") for i in range(3)]
    for i, image in enumerate(pixels):
        writer.write_idx(i, mx.recordio.pack(mx.recordio.IRHeader(0, float(i), i, 0), png(image)))
    writer.close()
    dataset = mx.gluon.data.vision.ImageRecordDataset(rec)
    assert len(dataset) == 3
    picture, label = dataset[2]
    assert label == 2.0 and np.array_equal(picture.asnumpy(), pixels[2])


def test_handle_names(mx):
    import ctypes
    from mxnet.base import NDArrayHandle, py_str
    assert NDArrayHandle is ctypes.c_void_p and py_str(b"x") == "x"
    assert nd.contrib.adamw_update is mx.nd.contrib.adamw_update
