"""gluon.data, mx.recordio and vision transforms against MXNet 1.9.1 (fixtures/training/data.json,
records.rec/.idx, written by tools/record_data_cases.py)."""
import json
import os
import struct
from pathlib import Path

import numpy as np
import pytest

from runtime import nd, recordio
from runtime.gluon import data as gdata
from runtime.gluon.data.vision import CIFAR10, MNIST
from runtime.gluon.data.vision import transforms as T

FIXTURES = Path(__file__).parent.parent / "fixtures" / "training"
RECORDED = json.loads((FIXTURES / "data.json").read_text())


def _batches(loader):
    out = []
    for batch in loader:
        items = batch if isinstance(batch, list) else [batch]
        out.append([b.asnumpy().tolist() for b in items])
    return out


def _dataset():
    return gdata.ArrayDataset(np.arange(14, dtype="float32").reshape(7, 2), np.arange(7, dtype="int32"))


def test_records_written_by_mxnet_read_back():
    reader = recordio.MXIndexedRecordIO(str(FIXTURES / "records.idx"), str(FIXTURES / "records.rec"), "r")
    assert reader.keys == RECORDED["keys"]
    for key, payload in zip(reader.keys, RECORDED["payloads"]):
        assert reader.read_idx(key) == bytes.fromhex(payload)
    reader.close()
    sequential = recordio.MXRecordIO(str(FIXTURES / "records.rec"), "r")
    assert [sequential.read() for _ in RECORDED["payloads"]] == [bytes.fromhex(p) for p in RECORDED["payloads"]]
    assert sequential.read() is None


def test_records_written_here_are_byte_identical(tmp_path):
    writer = recordio.MXIndexedRecordIO(str(tmp_path / "r.idx"), str(tmp_path / "r.rec"), "w")
    for i, payload in enumerate(RECORDED["payloads"]):
        writer.write_idx(i, bytes.fromhex(payload))
    writer.close()
    assert (tmp_path / "r.rec").read_bytes() == (FIXTURES / "records.rec").read_bytes()
    assert (tmp_path / "r.idx").read_text() == (FIXTURES / "records.idx").read_text()


def test_image_record_header():
    reader = recordio.MXIndexedRecordIO(str(FIXTURES / "records.idx"), str(FIXTURES / "records.rec"), "r")
    header, rest = recordio.unpack(reader.read_idx(7))
    want = RECORDED["vector_header"]
    assert (header.flag, header.id, header.id2) == (want["flag"], want["id"], want["id2"])
    np.testing.assert_array_equal(header.label, want["label"])
    assert rest == bytes.fromhex(want["rest"])
    scalar, body = recordio.unpack(reader.read_idx(6))
    assert (scalar.flag, scalar.label, scalar.id, body) == (0, 3.0, 7, b"image-bytes")
    assert recordio.pack(recordio.IRHeader(0, 3.0, 7, 0), b"image-bytes") == reader.read_idx(6)


def test_record_file_dataset_and_loader_over_it():
    ds = gdata.RecordFileDataset(str(FIXTURES / "records.rec"))
    assert len(ds) == len(RECORDED["payloads"]) and ds[0] == b"plain"
    lengths = [len(b) for b in gdata.DataLoader(ds, batch_size=3, batchify_fn=lambda items: items)]
    assert lengths == [3, 3, 2]


@pytest.mark.parametrize("mode", ["keep", "discard", "rollover"])
def test_last_batch_modes_over_two_epochs(mode):
    want = RECORDED["loader"][mode]
    loader = gdata.DataLoader(_dataset(), batch_size=3, last_batch=mode)
    assert len(loader) == want["len"]
    assert [_batches(loader), _batches(loader)] == want["epochs"]
    assert len(loader) == want["len_after"]


def test_transforms_and_views_of_datasets():
    ds = _dataset()
    loader = RECORDED["loader"]
    assert _batches(gdata.DataLoader(ds.transform_first(lambda a: a * 2), batch_size=4)) == loader["transform_first"]
    assert _batches(gdata.DataLoader(ds.transform(lambda a, b: (a + b, b)), batch_size=4)) == loader["transform"]
    assert [[list(map(float, s[0])) for s in ds.shard(3, i)] for i in range(3)] == loader["shard"]
    assert len(ds.take(4)) == loader["take"]
    assert [int(s[1]) for s in ds.filter(lambda s: s[1] % 2 == 0)] == loader["filter"]
    assert list(gdata.BatchSampler(gdata.SequentialSampler(5, 2), 2, "keep")) == loader["batch_sampler"]
    eager = ds.transform(lambda a, b: (a, b + 1), lazy=False)
    assert isinstance(eager, gdata.SimpleDataset) and eager[6][1] == 7


def test_default_batchify_keeps_numpy_dtypes():
    loader = gdata.DataLoader(gdata.SimpleDataset([(i, float(i) / 2) for i in range(5)]), batch_size=2)
    assert _batches(loader) == RECORDED["loader"]["scalars"]["values"]
    assert [np.dtype(b.dtype).name for b in next(iter(loader))] == RECORDED["loader"]["scalars"]["dtypes"]


@pytest.mark.parametrize("thread_pool", [False, True])
def test_workers_give_the_same_batches_in_order(thread_pool):
    ds = _dataset().transform_first(lambda a: a * 2)
    serial = _batches(gdata.DataLoader(ds, batch_size=2))
    loader = gdata.DataLoader(ds, batch_size=2, num_workers=2, thread_pool=thread_pool, pin_memory=True)
    assert _batches(loader) == serial
    assert _batches(loader) == serial  # a second epoch from the same pool


def test_shuffle_visits_everything_once():
    np.random.seed(1)
    seen = sorted(int(v) for b in gdata.DataLoader(_dataset(), batch_size=2, shuffle=True) for v in b[1].asnumpy())
    assert seen == list(range(7))


def test_loader_argument_errors():
    ds = _dataset()
    with pytest.raises(ValueError, match="batch_size must be specified unless batch_sampler is specified"):
        gdata.DataLoader(ds)
    with pytest.raises(ValueError, match="shuffle must not be specified if sampler is specified"):
        gdata.DataLoader(ds, batch_size=2, shuffle=True, sampler=gdata.SequentialSampler(7))
    with pytest.raises(ValueError, match="must not be specified if batch_sampler is specified"):
        gdata.DataLoader(ds, batch_size=2, batch_sampler=gdata.BatchSampler(gdata.SequentialSampler(7), 2))
    with pytest.raises(ValueError, match="last_batch must be one of"):
        len(gdata.DataLoader(ds, batch_size=2, last_batch="sometimes"))
    with pytest.raises(AssertionError, match="All arrays must have the same length"):
        gdata.ArrayDataset(np.ones(3), np.ones(4))


@pytest.mark.parametrize("name", ["to_tensor", "normalize", "resize", "resize_up", "resize_keep", "center_crop",
                                  "cast"])
def test_vision_transforms_match_mxnet(name):
    chains = {
        "to_tensor": T.ToTensor(),
        "normalize": T.Compose([T.ToTensor(), T.Normalize((0.4, 0.5, 0.6), (0.2, 0.25, 0.3))]),
        "resize": T.Resize((5, 4)), "resize_up": T.Resize(12), "resize_keep": T.Resize(4, keep_ratio=True),
        "center_crop": T.CenterCrop((6, 4)), "cast": T.Cast("float16"),
    }
    image = nd.array(np.array(RECORDED["transforms"]["image"]), dtype="uint8")
    want = RECORDED["transforms"][name]
    out = chains[name](image)
    assert list(out.shape) == want["shape"] and np.dtype(out.dtype).name == want["dtype"]
    # OpenCV interpolates uint8 in fixed point: a resized pixel may differ by one level
    atol = 1 if name.startswith("resize") else 1e-6
    np.testing.assert_allclose(out.asnumpy().astype(np.float64), np.array(want["values"]), rtol=1e-5, atol=atol)


def test_transforms_take_numpy_images_and_random_ones_keep_shapes():
    image = np.random.RandomState(0).randint(0, 256, (9, 12, 3)).astype(np.uint8)
    assert T.ToTensor()(image).shape == (3, 9, 12) and isinstance(T.ToTensor()(image), np.ndarray)
    assert T.RandomResizedCrop(5)(image).shape == (5, 5, 3)
    flipped = {T.RandomFlipLeftRight()(image)[0, 0, 0] for _ in range(40)}
    assert flipped == {image[0, 0, 0], image[0, -1, 0]}


def _write_mnist(root, count=3):
    rng = np.random.RandomState(0)
    images = rng.randint(0, 256, (count, 28, 28)).astype(np.uint8)
    labels = rng.randint(0, 10, count).astype(np.uint8)
    import gzip
    with gzip.open(os.path.join(root, "t10k-images-idx3-ubyte.gz"), "wb") as handle:
        handle.write(struct.pack(">IIII", 2051, count, 28, 28) + images.tobytes())
    with gzip.open(os.path.join(root, "t10k-labels-idx1-ubyte.gz"), "wb") as handle:
        handle.write(struct.pack(">II", 2049, count) + labels.tobytes())
    return images, labels


def test_mnist_reads_local_files(tmp_path):
    images, labels = _write_mnist(str(tmp_path))
    ds = MNIST(root=str(tmp_path), train=False, transform=lambda x, y: (x.astype("float32") / 255, y))
    assert len(ds) == 3
    image, label = ds[1]
    assert image.shape == (28, 28, 1) and label == labels[1]
    np.testing.assert_allclose(image.asnumpy()[..., 0], images[1] / np.float32(255), rtol=1e-6)


def test_datasets_without_files_say_so_and_do_not_download(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not download datasets"):
        MNIST(root=str(tmp_path))
    with pytest.raises(FileNotFoundError, match="data_batch_1.bin"):
        CIFAR10(root=str(tmp_path))


def test_cifar10_reads_the_binary_batches(tmp_path):
    folder = tmp_path / "cifar-10-batches-bin"
    folder.mkdir()
    rows = np.random.RandomState(2).randint(0, 256, (4, 3073)).astype(np.uint8)
    (folder / "test_batch.bin").write_bytes(rows.tobytes())
    ds = CIFAR10(root=str(tmp_path), train=False)
    image, label = ds[2]
    assert len(ds) == 4 and image.shape == (32, 32, 3) and label == rows[2, 0]
    np.testing.assert_array_equal(image.asnumpy()[:, :, 1], rows[2, 1 + 1024:1 + 2048].reshape(32, 32))


def test_pin_memory_places_batches_on_cpu_pinned_and_auto_reload_is_accepted():
    import runtime
    loader = gdata.DataLoader(_dataset(), batch_size=4, pin_memory=True, auto_reload=True)
    for data, label in loader:
        assert data.context == runtime.cpu_pinned(0) and label.context == runtime.cpu_pinned(0)
    assert next(iter(gdata.DataLoader(_dataset(), batch_size=4)))[0].context == runtime.cpu(0)


_LEFT_EARLY = r"""
import numpy as np
from runtime.gluon import data as gdata
dataset = gdata.ArrayDataset(np.ones((1000, 2000)))  # batches of 128 kB: more than a pipe holds
for _ in range(10):
    loader = gdata.DataLoader(dataset, batch_size=8, num_workers=8)
    for batch in loader:
        break  # an epoch of 125 batches left at its first
    del loader
print("deleted")
"""


def test_a_loop_left_early_leaves_a_loader_that_is_deleted_at_once():
    """Eight workers, each with batches ahead: deleting the loader must not wait on them."""
    import subprocess
    import sys
    done = subprocess.run([sys.executable, "-c", _LEFT_EARLY], capture_output=True, text=True, timeout=60,
                          cwd=Path(__file__).parent.parent)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "deleted"


class _Counted:
    """A dataset that counts the samples read (threads share it)."""

    def __init__(self, size):
        self.size, self.read = size, 0

    def __len__(self):
        return self.size

    def __getitem__(self, index):
        self.read += 1
        return np.float32(index)


def test_workers_assemble_only_prefetch_batches_ahead():
    dataset = _Counted(100)
    loader = gdata.DataLoader(dataset, batch_size=1, num_workers=2, thread_pool=True, prefetch=3)
    batches = iter(loader)
    next(batches)
    import time
    time.sleep(0.2)  # the pool has had time to assemble all it was given
    assert dataset.read <= 1 + 3 + 1  # the batch taken, `prefetch` ahead, and the next one asked for


def _fails_at_three(index):
    if index == 3:
        raise ValueError("sample 3 is broken")
    return np.float32(index)


def test_a_workers_error_reaches_the_loop():
    dataset = gdata.SimpleDataset(list(range(6))).transform(_fails_at_three)
    with pytest.raises(ValueError, match="sample 3 is broken"):
        for _ in gdata.DataLoader(dataset, batch_size=1, num_workers=2):
            pass


def test_the_timeout_must_be_positive():
    with pytest.raises(AssertionError, match="timeout must be positive, given 0"):
        gdata.DataLoader(_dataset(), batch_size=2, timeout=0)
