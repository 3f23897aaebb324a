"""Record, with real MXNet 1.9.1, what `mxnet.image` gives: decoding of PNG bytes (colour, grayscale,
BGR), OpenCV's resize at each interpolation on uint8 and float32 images (enlarging, shrinking by
whole and fractional factors), border padding of each kind, the crops and resizes built on them,
and every augmenter (those of `mx.image.det` with boxes) with Python's `random` and NumPy's legacy
generator seeded (the augmenters draw
from those only, so the same seeds give the runtime the same draws).

    python tools/record_image_cases.py tests/data/image_cases.json

(a venv with mxnet==1.9.1)
"""
import base64
import json
import random
import struct
import sys
import zlib

import mxnet as mx
import numpy as np


def png_bytes(pixels: np.ndarray) -> bytes:
    """A PNG file holding `pixels` (HxW gray or HxWx3 RGB, uint8): lossless, so every decoder agrees."""
    height, width = pixels.shape[:2]
    colour = 2 if pixels.ndim == 3 else 0
    rows = b"".join(b"\x00" + pixels[y].tobytes() for y in range(height))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, colour, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def encode(array) -> dict:
    array = array.asnumpy() if hasattr(array, "asnumpy") else np.asarray(array)
    if array.dtype == np.uint8:  # images: their bytes, in base64
        return {"dtype": "uint8", "shape": list(array.shape), "b64": base64.b64encode(array.tobytes()).decode()}
    if array.dtype.kind == "f":  # the shortest decimal that reads back as the same value of the dtype
        data = [float(repr(value)) for value in array.ravel()]
    else:
        data = array.ravel().tolist()
    return {"dtype": str(array.dtype), "shape": list(array.shape), "data": data}


def image(seed, height, width, dtype="uint8", channels=3):
    """A seeded random image (tests/test_image.py makes the same ones)."""
    rng = np.random.RandomState(seed)
    shape = (height, width, channels) if channels else (height, width)
    if dtype == "uint8":
        return rng.randint(0, 256, shape).astype("uint8")
    return rng.uniform(0, 255, shape).astype(dtype)


def decode_cases():
    rgb = image(1, 5, 7)
    gray = image(2, 4, 6, channels=0)
    out = []
    for name, pixels in (("rgb", rgb), ("gray", gray)):
        data = png_bytes(pixels)
        for kwargs in ({}, {"flag": 0}, {"to_rgb": 0}, {"flag": 0, "to_rgb": 0}):
            out.append({"png": base64.b64encode(data).decode(), "source": name, "kwargs": kwargs,
                        "out": encode(mx.image.imdecode(data, **kwargs))})
    return out


def resize_cases():
    out = []
    # each source by the arguments of image() that make it again
    sources = [(3, 6, 8, "uint8", 3), (4, 6, 8, "float32", 3), (5, 9, 12, "uint8", 1), (6, 17, 23, "uint8", 3),
               (7, 75, 64, "uint8", 3)]
    sizes = [(16, 12), (4, 3), (5, 4), (11, 7), (3, 5), (8, 6), (2, 2)]
    # 75x64 to 47x40 lands some rows exactly on a source row (a weight of 1 and three of 0), where
    # rounding half to even or up tells the arithmetic apart
    for source in sources:
        src = image(*source)
        for interp in (0, 1, 2, 3, 4):
            for w, h in (sizes if source[1] < 20 else [(40, 47), (101, 90)]):
                try:
                    result = encode(mx.image.imresize(mx.nd.array(src, dtype=src.dtype), w, h, interp=interp))
                except mx.base.MXNetError as error:
                    result = {"error": str(error).splitlines()[0]}
                out.append({"src": list(source), "w": w, "h": h, "interp": interp, "out": result})
    return out


def border_cases():
    out = []
    src = image(7, 4, 5)
    for kind in range(5):
        for margins in ((1, 2, 3, 1), (0, 3, 0, 4), (2, 0, 1, 0)):
            kwargs = {"type": kind}
            if kind == 0:
                kwargs["values"] = (10.0, 20.0, 30.0)
            out.append({"src": encode(src), "margins": margins, "kwargs": kwargs,
                        "out": encode(mx.image.copyMakeBorder(mx.nd.array(src, dtype="uint8"), *margins, **kwargs))})
    out.append({"src": encode(src), "margins": (1, 1, 1, 1), "kwargs": {"value": 7},
                "out": encode(mx.image.copyMakeBorder(mx.nd.array(src, dtype="uint8"), 1, 1, 1, 1, value=7))})
    return out


def crop_cases():
    src = mx.nd.array(image(8, 20, 30), dtype="uint8")
    out = []
    for size, interp in ((12, 1), (25, 2), (10, 0)):
        out.append({"fn": "resize_short", "args": [size], "interp": interp,
                    "out": encode(mx.image.resize_short(src, size, interp=interp))})
    out.append({"fn": "fixed_crop", "args": [3, 4, 10, 8], "interp": 2,
                "out": encode(mx.image.fixed_crop(src, 3, 4, 10, 8))})
    out.append({"fn": "fixed_crop", "args": [3, 4, 10, 8, [5, 4]], "interp": 1,
                "out": encode(mx.image.fixed_crop(src, 3, 4, 10, 8, (5, 4), interp=1))})
    for size in ((10, 8), (40, 10), (7, 15)):
        result, box = mx.image.center_crop(src, size, interp=1)
        out.append({"fn": "center_crop", "args": [list(size)], "interp": 1, "out": encode(result), "box": list(box)})
    for seed in (0, 1):
        random.seed(seed)
        result, box = mx.image.random_crop(src, (9, 7), interp=1)
        out.append({"fn": "random_crop", "args": [[9, 7]], "interp": 1, "seed": seed, "out": encode(result),
                    "box": list(box)})
        random.seed(seed)
        result, box = mx.image.random_size_crop(src, (9, 7), (0.3, 0.9), (0.75, 1.33), interp=1)
        out.append({"fn": "random_size_crop", "args": [[9, 7], [0.3, 0.9], [0.75, 1.33]], "interp": 1, "seed": seed,
                    "out": encode(result), "box": list(box)})
    for src_size, size in (((640, 480), (720, 120)), ((640, 480), (100, 700)), ((100, 100), (50, 40))):
        out.append({"fn": "scale_down", "args": [list(src_size), list(size)], "out": list(mx.image.scale_down(src_size, size))})
    return out


AUGMENTERS = [
    ("ResizeAug", [10, 1]), ("ForceResizeAug", [[9, 13], 1]), ("RandomCropAug", [[9, 7], 1]),
    ("RandomSizedCropAug", [[9, 7], 0.2, [0.75, 1.33], 1]), ("CenterCropAug", [[11, 9], 1]),
    ("BrightnessJitterAug", [0.4]), ("ContrastJitterAug", [0.4]), ("SaturationJitterAug", [0.4]),
    ("HueJitterAug", [0.3]), ("ColorJitterAug", [0.3, 0.3, 0.3]),
    ("LightingAug", [0.1, [55.46, 4.794, 1.148], [[-0.5675, 0.7192, 0.4009], [-0.5808, -0.0045, -0.8140],
                                                  [-0.5836, -0.6948, 0.4203]]]),
    ("ColorNormalizeAug", [[123.68, 116.28, 103.53], [58.395, 57.12, 57.375]]),
    ("RandomGrayAug", [0.5]), ("HorizontalFlipAug", [0.5]), ("CastAug", []), ("CastAug", ["float16"]),
]
FLOAT_INPUT = {"BrightnessJitterAug", "ContrastJitterAug", "SaturationJitterAug", "HueJitterAug", "ColorJitterAug",
               "LightingAug", "ColorNormalizeAug", "RandomGrayAug"}
NDARRAY_ARGS = {"LightingAug", "ColorNormalizeAug"}


def augmenter_cases():
    src_u8 = image(9, 14, 18)
    out = []
    for name, args in AUGMENTERS:
        call_args = [np.array(a) if name in NDARRAY_ARGS and isinstance(a, list) else a for a in args]
        for seed in (0, 3):
            random.seed(seed)
            np.random.seed(seed)
            aug = getattr(mx.image, name)(*call_args)
            src = src_u8.astype("float32") if name in FLOAT_INPUT else src_u8
            result = aug(mx.nd.array(src, dtype=src.dtype))
            out.append({"name": name, "args": args, "seed": seed, "float_input": name in FLOAT_INPUT,
                        "dumps": aug.dumps(), "out": encode(result)})
    return out


def create_cases():
    out = []
    for kwargs in ({"data_shape": (3, 8, 8)},
                   {"data_shape": (3, 8, 8), "resize": 10, "rand_crop": True, "rand_mirror": True, "mean": True,
                    "std": True},
                   {"data_shape": (3, 6, 9), "rand_crop": True, "rand_resize": True, "brightness": 0.2,
                    "contrast": 0.2, "saturation": 0.2, "hue": 0.1, "pca_noise": 0.1, "rand_gray": 0.3,
                    "inter_method": 1}):
        random.seed(5)
        np.random.seed(5)
        augs = mx.image.CreateAugmenter(**kwargs)
        value = mx.nd.array(image(10, 14, 18), dtype="uint8")
        for aug in augs:
            value = aug(value)
        out.append({"kwargs": {k: list(v) if isinstance(v, tuple) else v for k, v in kwargs.items()},
                    "augmenters": [type(a).__name__ for a in augs], "out": encode(value)})
    return out


def detection_label():
    """Boxes [class, xmin, ymin, xmax, ymax] as fractions of the image, one touching the border."""
    return np.array([[0, 0.1, 0.2, 0.5, 0.6], [1, 0.4, 0.3, 0.9, 0.95], [2, 0.0, 0.7, 0.2, 1.0]], "float32")


DETECTION = [
    ("DetHorizontalFlipAug", {"p": 1.0}),
    ("DetRandomCropAug", {"min_object_covered": 0.1, "area_range": [0.3, 1.0]}),
    ("DetRandomCropAug", {"min_object_covered": 0.5, "aspect_ratio_range": 1.0, "min_eject_coverage": 0.5}),
    ("DetRandomPadAug", {"area_range": [1.0, 2.5], "pad_val": [10, 20, 30]}),
    ("CreateMultiRandCropAugmenter", {"min_object_covered": [0.1, 0.5, 0.9], "area_range": [0.2, 1.0]}),
]


def detection_cases():
    out = []
    src = image(11, 24, 32)
    for name, kwargs in DETECTION:
        for seed in (0, 1, 2):
            random.seed(seed)
            aug = getattr(mx.image.det, name)(**{k: tuple(v) if isinstance(v, list) and "range" in k and
                                                 not isinstance(v[0], list) else v for k, v in kwargs.items()})
            result, label = aug(mx.nd.array(src, dtype="uint8"), detection_label())
            out.append({"name": name, "kwargs": kwargs, "seed": seed, "out": encode(result), "label": encode(label),
                        "dumps": aug.dumps()})
    for kwargs in ({"data_shape": (3, 16, 16), "rand_crop": 0.8, "rand_pad": 0.5, "rand_mirror": True,
                    "mean": True, "std": True, "inter_method": 1},
                   {"data_shape": (3, 12, 20), "resize": 30, "rand_crop": 1, "brightness": 0.2, "hue": 0.1,
                    "pca_noise": 0.05, "rand_gray": 0.2, "inter_method": 1}):
        random.seed(4)
        np.random.seed(4)
        augs = mx.image.det.CreateDetAugmenter(**kwargs)
        value, label = mx.nd.array(src, dtype="uint8"), detection_label()
        for aug in augs:
            value, label = aug(value, label)
        out.append({"name": "CreateDetAugmenter", "kwargs": {k: list(v) if isinstance(v, tuple) else v
                                                             for k, v in kwargs.items()},
                    "augmenters": [type(a).__name__ for a in augs], "out": encode(value), "label": encode(label)})
    return out


def iterator_cases():
    """ImageIter over an image list (files) and over an indexed RecordIO file, at each way of
    handling the last batch: 5 images of 6x8, batches of 2."""
    import os
    import tempfile
    folder = tempfile.mkdtemp()
    images = [image(20 + i, 6, 8) for i in range(5)]
    imglist = []
    writer = mx.recordio.MXIndexedRecordIO(os.path.join(folder, "d.idx"), os.path.join(folder, "d.rec"), "w")
    for i, pixels in enumerate(images):
        with open(os.path.join(folder, "%d.png" % i), "wb") as handle:
            handle.write(png_bytes(pixels))
        imglist.append([float(i), 10.0 + i, "%d.png" % i])
        writer.write_idx(i, mx.recordio.pack(mx.recordio.IRHeader(0, float(i) * 2, i, 0), png_bytes(pixels)))
    writer.close()
    out = []
    for source in ("list", "rec"):
        for handle in ("pad", "discard", "roll_over"):
            if source == "list":
                it = mx.image.ImageIter(2, (3, 4, 4), label_width=2, imglist=imglist, path_root=folder,
                                        last_batch_handle=handle)
            else:
                it = mx.image.ImageIter(2, (3, 4, 4), path_imgrec=os.path.join(folder, "d.rec"),
                                        path_imgidx=os.path.join(folder, "d.idx"), last_batch_handle=handle, resize=5)
            epochs = []
            for _ in range(2):
                epochs.append([{"data": encode(b.data[0]), "label": encode(b.label[0]), "pad": b.pad} for b in it])
                it.reset()
            out.append({"source": source, "last_batch_handle": handle, "epochs": epochs,
                        "provide_data": [list(d) for d in it.provide_data],
                        "provide_label": [list(d) for d in it.provide_label]})
    return out


def detection_iterator_cases():
    """ImageDetIter over an image list with 1 to 3 objects per image (one with an empty box), plain
    and with a random mirror and crop (Python's random seeded); labels padded with -1."""
    import os
    import tempfile
    folder = tempfile.mkdtemp()
    objects = [[[0, 0.1, 0.1, 0.5, 0.6]], [[1, 0.2, 0.3, 0.9, 0.8], [2, 0.0, 0.0, 0.3, 0.3]],
               [[0, 0.5, 0.5, 0.9, 0.9], [1, 0.3, 0.3, 0.3, 0.6], [2, 0.1, 0.6, 0.4, 0.95]]]
    imglist = []
    for i, boxes in enumerate(objects):
        with open(os.path.join(folder, "%d.png" % i), "wb") as handle:
            handle.write(png_bytes(image(30 + i, 12, 16)))
        imglist.append([2.0, 5.0] + [v for box in boxes for v in box] + ["%d.png" % i])
    out = []
    for kwargs in ({}, {"rand_mirror": True, "rand_crop": 0.5, "inter_method": 1}):
        random.seed(7)
        it = mx.image.ImageDetIter(2, (3, 8, 8), imglist=imglist, path_root=folder, **kwargs)
        batches = [{"data": encode(b.data[0]), "label": encode(b.label[0]), "pad": b.pad} for b in it]
        out.append({"kwargs": kwargs, "batches": batches, "provide_label": [list(d) for d in it.provide_label]})
    return out


def transform_cases():
    """gluon.data.vision.transforms.Resize (MXNet's image.resize operator: OpenCV) on one image and a
    batch, each interpolation, keeping the aspect ratio or not."""
    from mxnet.gluon.data.vision import transforms
    out = []
    for source, size, keep, interp in (((12, 75, 64, "uint8", 3), 40, True, 1), ((12, 75, 64, "uint8", 3), (47, 40), False, 2),
                                       ((13, 30, 20, "uint8", 3), (33, 41), False, 1),
                                       ((14, 30, 20, "float32", 3), 14, True, 3),
                                       ((15, 30, 20, "uint8", 3), (9, 17), False, 0)):
        src = mx.nd.array(image(*source), dtype=source[3])
        batch = mx.nd.stack(src, src[::-1])
        transform = transforms.Resize(size, keep_ratio=keep, interpolation=interp)
        out.append({"src": list(source), "size": size, "keep_ratio": keep, "interpolation": interp,
                    "out": encode(transform(src)), "batch": encode(transform(batch))})
    return out


def rotate_cases():
    """imrotate of a CHW image and an NCHW batch (an angle each), plain, zoomed in and out, and
    random_rotate with NumPy's generator seeded."""
    out = []
    single = mx.nd.array(image(16, 3, 6, "float32", 8))
    batch = mx.nd.array(np.stack([image(17, 3, 7, "float32", 5), image(18, 3, 7, "float32", 5)]))
    for zoom in ({}, {"zoom_in": True}, {"zoom_out": True}):
        out.append({"fn": "imrotate", "batch": False, "angles": 30.0, "kwargs": zoom,
                    "out": encode(mx.image.imrotate(single, 30.0, **zoom))})
        out.append({"fn": "imrotate", "batch": True, "angles": [-45.0, 100.0], "kwargs": zoom,
                    "out": encode(mx.image.imrotate(batch, mx.nd.array([-45.0, 100.0]), **zoom))})
    for is_batch in (False, True):
        np.random.seed(3)
        out.append({"fn": "random_rotate", "batch": is_batch, "angles": [-20, 20], "kwargs": {},
                    "out": encode(mx.image.random_rotate(batch if is_batch else single, (-20, 20)))})
    return out


def main(path):
    cases = {"decode": decode_cases(), "resize": resize_cases(), "border": border_cases(), "crop": crop_cases(),
             "augmenter": augmenter_cases(), "create": create_cases(), "detection": detection_cases(),
             "iterator": iterator_cases(), "detection_iterator": detection_iterator_cases(),
             "transforms": transform_cases(), "rotate": rotate_cases()}
    with open(path, "w") as handle:
        json.dump(cases, handle, separators=(",", ":"))
        handle.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
