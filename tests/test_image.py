"""`mx.image` on the runtime against values recorded from MXNet 1.9.1 (tools/record_image_cases.py):
decoding, OpenCV's resize at each interpolation, border padding, the crops, and every augmenter
with Python's and NumPy's generators seeded as they were there."""
import base64
import json
import random
from pathlib import Path

import numpy as np
import pytest

import runtime
from runtime import nd

CASES = json.loads((Path(__file__).parent / "data" / "image_cases.json").read_text())


@pytest.fixture(scope="module")
def mx():
    with runtime.as_mxnet() as module:
        yield module


def decode(entry):
    if "b64" in entry:
        return np.frombuffer(base64.b64decode(entry["b64"]), np.uint8).reshape(entry["shape"])
    return np.array(entry["data"], dtype=entry["dtype"]).reshape(entry["shape"])


def assert_image(got, expected):
    got = got.asnumpy() if hasattr(got, "asnumpy") else got
    assert got.shape == expected.shape and got.dtype == expected.dtype
    if expected.dtype == np.uint8:
        np.testing.assert_array_equal(got, expected)
    else:
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-3)


def image(seed, height, width, dtype="uint8", channels=3):
    """The recorder's seeded random image."""
    rng = np.random.RandomState(seed)
    shape = (height, width, channels) if channels else (height, width)
    if dtype == "uint8":
        return rng.randint(0, 256, shape).astype("uint8")
    return rng.uniform(0, 255, shape).astype(dtype)


def _ids(cases, *keys):
    return ["-".join(str(case.get(k)) for k in keys) for case in cases]


@pytest.mark.parametrize("case", CASES["decode"], ids=_ids(CASES["decode"], "source", "kwargs"))
def test_imdecode(mx, case):
    data = base64.b64decode(case["png"])
    assert_image(mx.image.imdecode(data, **case["kwargs"]), decode(case["out"]))


def test_imread_and_bad_input(mx, tmp_path):
    case = CASES["decode"][0]
    path = tmp_path / "picture.png"
    path.write_bytes(base64.b64decode(case["png"]))
    assert_image(mx.image.imread(str(path)), decode(case["out"]))
    with pytest.raises(ValueError, match="buf must be of type bytes"):
        mx.image.imdecode("not bytes")
    with pytest.raises(mx.base.MXNetError):
        mx.image.imdecode(b"not an image")


@pytest.mark.parametrize("case", CASES["resize"], ids=_ids(CASES["resize"], "interp", "w", "h"))
def test_imresize(mx, case):
    src = image(*case["src"])
    out = mx.image.imresize(nd.array(src, dtype=src.dtype), case["w"], case["h"], interp=case["interp"])
    assert_image(out, decode(case["out"]))


@pytest.mark.parametrize("case", CASES["border"], ids=_ids(CASES["border"], "margins", "kwargs"))
def test_copy_make_border(mx, case):
    src = decode(case["src"])
    out = mx.image.copyMakeBorder(nd.array(src, dtype="uint8"), *case["margins"], **case["kwargs"])
    assert_image(out, decode(case["out"]))


def _crop_source():
    return np.random.RandomState(8).randint(0, 256, (20, 30, 3)).astype("uint8")


@pytest.mark.parametrize("case", CASES["crop"], ids=_ids(CASES["crop"], "fn", "args", "seed"))
def test_crops(mx, case):
    fn = getattr(mx.image, case["fn"])
    if case["fn"] == "scale_down":
        assert list(fn(*case["args"])) == case["out"]
        return
    src = nd.array(_crop_source(), dtype="uint8")
    random.seed(case.get("seed", 0))
    if case["fn"] == "fixed_crop" and len(case["args"]) == 4:
        result = fn(src, *case["args"])
    else:
        result = fn(src, *case["args"], interp=case["interp"])
    if "box" in case:
        result, box = result
        assert list(box) == case["box"]
    assert_image(result, decode(case["out"]))


def _augmenter_args(case):
    if case["name"] in ("LightingAug", "ColorNormalizeAug"):
        return [np.array(a) if isinstance(a, list) else a for a in case["args"]]
    return case["args"]


@pytest.mark.parametrize("case", CASES["augmenter"], ids=_ids(CASES["augmenter"], "name", "args", "seed"))
def test_augmenters(mx, case):
    random.seed(case["seed"])
    np.random.seed(case["seed"])
    aug = getattr(mx.image, case["name"])(*_augmenter_args(case))
    src = np.random.RandomState(9).randint(0, 256, (14, 18, 3)).astype("uint8")
    if case["float_input"]:
        src = src.astype("float32")
    assert_image(aug(nd.array(src, dtype=src.dtype)), decode(case["out"]))
    assert aug.dumps() == case["dumps"]


@pytest.mark.parametrize("case", CASES["create"], ids=[str(i) for i in range(len(CASES["create"]))])
def test_create_augmenter(mx, case):
    random.seed(5)
    np.random.seed(5)
    augs = mx.image.CreateAugmenter(**case["kwargs"])
    assert [type(a).__name__ for a in augs] == case["augmenters"]
    value = nd.array(np.random.RandomState(10).randint(0, 256, (14, 18, 3)).astype("uint8"), dtype="uint8")
    for aug in augs:
        value = aug(value)
    assert_image(value, decode(case["out"]))


def test_interp_choice(mx):
    from mxnet.image.image import _get_interp_method
    assert _get_interp_method(9, (10, 10, 20, 20)) == 2
    assert _get_interp_method(9, (10, 10, 5, 5)) == 3
    assert _get_interp_method(9, (10, 10, 5, 20)) == 1
    assert _get_interp_method(9) == 2
    assert 0 <= _get_interp_method(10) <= 4
    with pytest.raises(ValueError, match="Unknown interp method 7"):
        _get_interp_method(7)


def test_module_paths(mx):
    import importlib
    assert importlib.import_module("mxnet.image").imresize is mx.image.imresize
    assert mx.img is mx.image
    from mxnet import image
    from mxnet.image import CreateAugmenter  # noqa: F401
    assert image.image.resize_short is mx.image.resize_short


def detection_label():
    return np.array([[0, 0.1, 0.2, 0.5, 0.6], [1, 0.4, 0.3, 0.9, 0.95], [2, 0.0, 0.7, 0.2, 1.0]], "float32")


DETECTION = [c for c in CASES["detection"] if c["name"] != "CreateDetAugmenter"]
CREATE_DET = [c for c in CASES["detection"] if c["name"] == "CreateDetAugmenter"]


def _det_kwargs(kwargs):
    return {k: tuple(v) if isinstance(v, list) and "range" in k and not isinstance(v[0], list) else v
            for k, v in kwargs.items()}


@pytest.mark.parametrize("case", DETECTION, ids=_ids(DETECTION, "name", "kwargs", "seed"))
def test_detection_augmenters(mx, case):
    random.seed(case["seed"])
    aug = getattr(mx.image.det, case["name"])(**_det_kwargs(case["kwargs"]))
    result, label = aug(nd.array(image(11, 24, 32), dtype="uint8"), detection_label())
    assert_image(result, decode(case["out"]))
    np.testing.assert_allclose(label, decode(case["label"]), rtol=1e-6, atol=1e-7)
    assert aug.dumps() == case["dumps"]


@pytest.mark.parametrize("case", CREATE_DET, ids=[str(i) for i in range(len(CREATE_DET))])
def test_create_det_augmenter(mx, case):
    random.seed(4)
    np.random.seed(4)
    augs = mx.image.CreateDetAugmenter(**case["kwargs"])
    assert [type(a).__name__ for a in augs] == case["augmenters"]
    value, label = nd.array(image(11, 24, 32), dtype="uint8"), detection_label()
    for aug in augs:
        value, label = aug(value, label)
    assert_image(value, decode(case["out"]))
    np.testing.assert_allclose(label, decode(case["label"]), rtol=1e-6, atol=1e-7)


def test_detection_module_paths(mx):
    import mxnet.image.detection as detection
    assert mx.image.det is detection and mx.image.detection is detection
    from mxnet.image import DetRandomCropAug  # noqa: F401
    with pytest.raises(TypeError, match="Borrowing from invalid Augmenter"):
        detection.DetBorrowAug(object())


def _png(pixels):
    import struct
    import zlib

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    height, width = pixels.shape[:2]
    rows = b"".join(b"\x00" + pixels[y].tobytes() for y in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


@pytest.fixture(scope="module")
def image_files(mx, tmp_path_factory):
    folder = tmp_path_factory.mktemp("images")
    imglist = []
    writer = mx.recordio.MXIndexedRecordIO(str(folder / "d.idx"), str(folder / "d.rec"), "w")
    for i in range(5):
        encoded = _png(image(20 + i, 6, 8))
        (folder / ("%d.png" % i)).write_bytes(encoded)
        imglist.append([float(i), 10.0 + i, "%d.png" % i])
        writer.write_idx(i, mx.recordio.pack(mx.recordio.IRHeader(0, float(i) * 2, i, 0), encoded))
    writer.close()
    return folder, imglist


@pytest.mark.parametrize("case", CASES["iterator"], ids=_ids(CASES["iterator"], "source", "last_batch_handle"))
def test_image_iter(mx, image_files, case):
    folder, imglist = image_files
    if case["source"] == "list":
        it = mx.image.ImageIter(2, (3, 4, 4), label_width=2, imglist=imglist, path_root=str(folder),
                                last_batch_handle=case["last_batch_handle"])
    else:
        it = mx.image.ImageIter(2, (3, 4, 4), path_imgrec=str(folder / "d.rec"), path_imgidx=str(folder / "d.idx"),
                                last_batch_handle=case["last_batch_handle"], resize=5)
    for expected in case["epochs"]:
        batches = list(it)
        assert [b.pad for b in batches] == [e["pad"] for e in expected]
        for batch, want in zip(batches, expected):
            assert_image(batch.data[0], decode(want["data"]))
            np.testing.assert_array_equal(batch.label[0].asnumpy(), decode(want["label"]))
        it.reset()
    assert [[name, list(shape)] for name, shape in it.provide_data] == case["provide_data"]
    assert [[name, list(shape)] for name, shape in it.provide_label] == case["provide_label"]


def test_image_iter_checks(mx, image_files):
    folder, imglist = image_files
    with pytest.raises(ValueError, match="3 channels"):
        mx.image.ImageIter(2, (1, 4, 4), imglist=imglist, path_root=str(folder))
    (folder / "broken.png").write_bytes(b"not a picture")
    it = mx.image.ImageIter(1, (3, 4, 4), imglist=[[0.0, "broken.png"]], path_root=str(folder))
    with pytest.raises(RuntimeError, match="Broken image filename: broken.png"):
        it.next()


@pytest.mark.parametrize("case", CASES["detection_iterator"], ids=[str(c["kwargs"]) for c in CASES["detection_iterator"]])
def test_image_det_iter(mx, tmp_path, case):
    objects = [[[0, 0.1, 0.1, 0.5, 0.6]], [[1, 0.2, 0.3, 0.9, 0.8], [2, 0.0, 0.0, 0.3, 0.3]],
               [[0, 0.5, 0.5, 0.9, 0.9], [1, 0.3, 0.3, 0.3, 0.6], [2, 0.1, 0.6, 0.4, 0.95]]]
    imglist = []
    for i, boxes in enumerate(objects):
        (tmp_path / ("%d.png" % i)).write_bytes(_png(image(30 + i, 12, 16)))
        imglist.append([2.0, 5.0] + [v for box in boxes for v in box] + ["%d.png" % i])
    random.seed(7)
    it = mx.image.ImageDetIter(2, (3, 8, 8), imglist=imglist, path_root=str(tmp_path), **case["kwargs"])
    assert [[name, list(shape)] for name, shape in it.provide_label] == case["provide_label"]
    batches = list(it)
    assert [b.pad for b in batches] == [e["pad"] for e in case["batches"]]
    for batch, want in zip(batches, case["batches"]):
        assert_image(batch.data[0], decode(want["data"]))
        np.testing.assert_allclose(batch.label[0].asnumpy(), decode(want["label"]), rtol=1e-6, atol=1e-7)
    other = mx.image.ImageDetIter(1, (3, 8, 8), imglist=imglist[:1], path_root=str(tmp_path))
    it.sync_label_shape(other)
    assert other.provide_label[0][1] == (1, 2, 5)
    with pytest.raises(ValueError, match="reduce label count"):
        it.reshape(label_shape=(1, 5))


@pytest.mark.parametrize("case", CASES["transforms"], ids=_ids(CASES["transforms"], "size", "keep_ratio", "interpolation"))
def test_vision_transforms_resize(mx, case):
    from mxnet.gluon.data.vision import transforms
    src = nd.array(image(*case["src"]), dtype=case["src"][3])
    size = case["size"] if isinstance(case["size"], int) else tuple(case["size"])
    transform = transforms.Resize(size, keep_ratio=case["keep_ratio"], interpolation=case["interpolation"])
    assert_image(transform(src), decode(case["out"]))
    assert_image(transform(nd.stack(src, src[::-1])), decode(case["batch"]))


@pytest.mark.parametrize("case", CASES["rotate"], ids=_ids(CASES["rotate"], "fn", "batch", "kwargs"))
def test_rotate(mx, case):
    single = nd.array(image(16, 3, 6, "float32", 8))
    batch = nd.array(np.stack([image(17, 3, 7, "float32", 5), image(18, 3, 7, "float32", 5)]))
    src = batch if case["batch"] else single
    if case["fn"] == "imrotate":
        angles = nd.array(case["angles"]) if case["batch"] else case["angles"]
        out = mx.image.imrotate(src, angles, **case["kwargs"])
    else:
        np.random.seed(3)
        out = mx.image.random_rotate(src, tuple(case["angles"]))
    np.testing.assert_allclose(out.asnumpy(), decode(case["out"]), rtol=1e-5, atol=1e-4)


def test_rotate_rejections(mx):
    with pytest.raises(TypeError, match="Only `float32` images"):
        mx.image.imrotate(nd.ones((3, 4, 4), dtype="uint8"), 10)
    with pytest.raises(ValueError, match="cannot be both True"):
        mx.image.imrotate(nd.ones((3, 4, 4)), 10, zoom_in=True, zoom_out=True)
    with pytest.raises(ValueError, match="number of images must be equal"):
        mx.image.imrotate(nd.ones((2, 3, 4, 4)), nd.array([1.0, 2.0, 3.0]))


def test_vision_rotate_transforms(mx):
    from mxnet.gluon.data.vision import transforms
    single = nd.array(image(16, 3, 6, "float32", 8))
    case = next(c for c in CASES["rotate"] if c["fn"] == "imrotate" and not c["batch"] and not c["kwargs"])
    np.testing.assert_allclose(transforms.Rotate(30.0)(single).asnumpy(), decode(case["out"]), rtol=1e-5, atol=1e-4)
    drawn = next(c for c in CASES["rotate"] if c["fn"] == "random_rotate" and not c["batch"])
    np.random.seed(3)
    np.random.random()  # RandomRotation draws its coin first, then the angle
    expected = mx.image.random_rotate(single, (-20, 20)).asnumpy()
    np.random.seed(3)
    assert np.allclose(transforms.RandomRotation((-20, 20))(single).asnumpy(), expected)
    assert transforms.RandomRotation((-20, 20), rotate_with_proba=0.0)(single) is single
    with pytest.raises(TypeError, match="only supports float32"):
        transforms.Rotate(10)(nd.ones((3, 4, 4), dtype="uint8"))
    with pytest.raises(ValueError, match="ordered tuple"):
        transforms.RandomRotation((20, -20))
    assert drawn["angles"] == [-20, 20]


def test_imdecode_without_pillow(mx, monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "PIL", None)  # an import of PIL now fails as if it were not installed
    with pytest.raises(ImportError, match="needs Pillow"):
        mx.image.imdecode(base64.b64decode(CASES["decode"][0]["png"]))
