"""`mx.image`: decoding, resizing, cropping and the augmenters of MXNet 1.9.1's image module.

Images are HxWxC NDArrays (uint8 when decoded; the colour augmenters want float). Decoding uses
Pillow (MXNet uses OpenCV; for lossless formats the pixels are the same); resizing and padding
follow OpenCV's arithmetic (runtime/kernels/resize.py). The random choices come from Python's
`random` module, and LightingAug's from NumPy's global generator, as in MXNet: seeding those gives
the same crops and jitters there and here.
"""
from __future__ import annotations

import io
import json
import numbers
import random
import warnings

import numpy as np

from runtime.base import MXNetError
from runtime.kernels import resize as _resize
from runtime.ndarray import NDArray

__all__ = ["imread", "imresize", "imdecode", "scale_down", "copyMakeBorder", "resize_short", "fixed_crop",
           "random_crop", "center_crop", "color_normalize", "random_size_crop", "imrotate", "random_rotate", "Augmenter", "SequentialAug",
           "ResizeAug", "ForceResizeAug", "RandomCropAug", "RandomSizedCropAug", "CenterCropAug",
           "RandomOrderAug", "BrightnessJitterAug", "ContrastJitterAug", "SaturationJitterAug",
           "HueJitterAug", "ColorJitterAug", "LightingAug", "ColorNormalizeAug", "RandomGrayAug",
           "HorizontalFlipAug", "CastAug", "CreateAugmenter", "ImageIter"]


def _nd():
    from runtime import nd
    return nd


def _pixels(src) -> np.ndarray:
    return src.asnumpy() if isinstance(src, NDArray) else np.asarray(src)


def _result(pixels: np.ndarray, out=None):
    value = _nd().array(pixels, dtype=pixels.dtype)
    if out is not None:
        out[:] = value
        return out
    return value


def _image_3d(src, what: str) -> np.ndarray:
    pixels = _pixels(src)
    if pixels.ndim != 3:
        raise MXNetError("%s takes an image of shape (height, width, channels), got shape %s"
                         % (what, tuple(pixels.shape)))
    return pixels


# MXNet's OpenCV has libpng turn colour into gray while decoding a PNG: weights 0.299, 0.587 and
# the rest, in 15-bit fixed point, truncated (recorded: rounding differs in half the pixels)
_GRAY_WEIGHTS = (9797, 19234, 3737)  # R, G, B


def _to_gray(rgb: np.ndarray) -> np.ndarray:
    r, g, b = (rgb[..., i].astype(np.int64) for i in range(3))
    weights = _GRAY_WEIGHTS
    return ((r * weights[0] + g * weights[1] + b * weights[2]) >> 15).astype(np.uint8)


def _decode(data: bytes, flag: int, to_rgb: bool) -> np.ndarray:
    try:
        from PIL import Image
    except ImportError:
        raise ImportError("mx.image.imdecode needs Pillow on this runtime (pip install Pillow)") from None
    try:
        picture = Image.open(io.BytesIO(data))
        picture.load()
    except Exception as error:  # Pillow raises several kinds for bytes it cannot read
        raise MXNetError("Decoding failed. Invalid image file: %s" % error) from None
    if picture.mode in ("L", "1", "P", "LA") and flag == 0:
        return np.asarray(picture.convert("L"), np.uint8)[:, :, None]
    rgb = np.asarray(picture.convert("RGB"), np.uint8)
    if flag == 0:
        return _to_gray(rgb)[:, :, None]
    return np.ascontiguousarray(rgb if to_rgb else rgb[:, :, ::-1])


def imdecode(buf, flag=1, to_rgb=1, out=None):
    """The image the bytes `buf` encode, as an HxWx3 uint8 NDArray (RGB; BGR with to_rgb=0), or
    HxWx1 gray with flag=0."""
    if isinstance(buf, NDArray):
        data = buf.asnumpy().astype(np.uint8).tobytes()
    elif isinstance(buf, (bytes, bytearray, np.ndarray)):
        data = bytes(buf) if not isinstance(buf, np.ndarray) else buf.astype(np.uint8).tobytes()
    else:
        raise ValueError("buf must be of type bytes, bytearray or numpy.ndarray,"
                         "if you would like to input type str, please convert to bytes")
    return _result(_decode(data, int(flag), bool(to_rgb)), out)


def imread(filename, flag=1, to_rgb=1, out=None):
    """The image in the file `filename` (see imdecode)."""
    try:
        with open(filename, "rb") as handle:
            data = handle.read()
    except OSError as error:
        raise MXNetError("Imread failed to open file %s: %s" % (filename, error)) from None
    return imdecode(data, flag, to_rgb, out)


def imresize(src, w, h, interp=1, out=None):
    """`src` (HxWxC) resized to width `w` and height `h` with OpenCV's interpolation `interp`:
    0 nearest, 1 bilinear, 2 bicubic, 3 area, 4 Lanczos."""
    pixels = _image_3d(src, "imresize")
    if int(interp) not in (0, 1, 2, 3, 4):
        raise MXNetError("imresize: unknown interpolation %d (0 to 4)" % interp)
    return _result(_resize.resize(pixels, int(w), int(h), int(interp)), out)


def copyMakeBorder(src, top, bot, left, right, type=0, value=0.0, values=(), out=None):  # noqa: A002 (MXNet's name)
    """`src` padded by the margins: type 0 constant (`values` per channel, or `value` in all),
    1 replicate, 2 reflect, 3 wrap, 4 reflect without repeating the edge (OpenCV's numbering)."""
    pixels = _image_3d(src, "copyMakeBorder")
    fill = tuple(values) if len(values) else (float(value),) * pixels.shape[2]
    return _result(_resize.copy_make_border(pixels, int(top), int(bot), int(left), int(right), int(type), fill), out)


def scale_down(src_size, size):
    """The crop `size` (w, h) shrunk, keeping its aspect ratio, to fit `src_size` (w, h)."""
    w, h = size
    sw, sh = src_size
    if sh < h:
        w, h = float(w * sh) / h, sh
    if sw < w:
        w, h = sw, float(h * sw) / w
    return int(w), int(h)


def _get_interp_method(interp, sizes=()):
    """`interp` made concrete: 9 picks by the sizes (old h, old w, new h, new w): cubic to enlarge,
    area to shrink, bilinear otherwise (cubic without sizes); 10 picks one of 0-4 at random."""
    if interp == 9:
        if sizes:
            assert len(sizes) == 4
            oh, ow, nh, nw = sizes
            if nh > oh and nw > ow:
                return 2
            if nh < oh and nw < ow:
                return 3
            return 1
        return 2
    if interp == 10:
        return random.randint(0, 4)
    if interp not in (0, 1, 2, 3, 4):
        raise ValueError("Unknown interp method %d" % interp)
    return interp


def resize_short(src, size, interp=2):
    """`src` resized so that its shorter side is `size`, keeping the aspect ratio."""
    h, w, _ = src.shape
    if h > w:
        new_h, new_w = size * h // w, size
    else:
        new_h, new_w = size, size * w // h
    return imresize(src, new_w, new_h, interp=_get_interp_method(interp, (h, w, new_h, new_w)))


def fixed_crop(src, x0, y0, w, h, size=None, interp=2):
    """The region of `src` at (x0, y0) of width w and height h, resized to `size` (w, h) if given."""
    out = src[y0:y0 + h, x0:x0 + w]
    if size is not None and (w, h) != tuple(size):
        sizes = (h, w, size[1], size[0])
        out = imresize(out, *size, interp=_get_interp_method(interp, sizes))
    return out


def random_crop(src, size, interp=2):
    """A crop of `size` (w, h) at a random place (scaled down to fit, then resized to `size`);
    returns the crop and its (x0, y0, w, h)."""
    h, w, _ = src.shape
    new_w, new_h = scale_down((w, h), size)
    x0 = random.randint(0, w - new_w)
    y0 = random.randint(0, h - new_h)
    return fixed_crop(src, x0, y0, new_w, new_h, size, interp), (x0, y0, new_w, new_h)


def center_crop(src, size, interp=2):
    """The central crop of `size` (w, h) (scaled down to fit, then resized to `size`), and its box."""
    h, w, _ = src.shape
    new_w, new_h = scale_down((w, h), size)
    x0 = int((w - new_w) / 2)
    y0 = int((h - new_h) / 2)
    return fixed_crop(src, x0, y0, new_w, new_h, size, interp), (x0, y0, new_w, new_h)


def color_normalize(src, mean, std=None):
    """`src` less `mean`, over `std` (each optional), in place."""
    if mean is not None:
        src -= mean
    if std is not None:
        src /= std
    return src


def random_size_crop(src, size, area, ratio, interp=2, **kwargs):
    """A crop of random area (a share of the image in `area`) and aspect ratio (within `ratio`, drawn
    uniformly in log space), resized to `size`; the central crop after 10 draws that do not fit."""
    h, w, _ = src.shape
    src_area = h * w
    if "min_area" in kwargs:
        warnings.warn("`min_area` is deprecated. Please use `area` instead.", DeprecationWarning)
        area = kwargs.pop("min_area")
    assert not kwargs, "unexpected keyword arguments for `random_size_crop`."
    if isinstance(area, (int, float)):
        area = (area, 1.0)
    for _ in range(10):
        target_area = random.uniform(area[0], area[1]) * src_area
        log_ratio = (np.log(ratio[0]), np.log(ratio[1]))
        new_ratio = np.exp(random.uniform(*log_ratio))
        new_w = int(round(np.sqrt(target_area * new_ratio)))
        new_h = int(round(np.sqrt(target_area / new_ratio)))
        if 0 < new_w <= w and 0 < new_h <= h:
            x0 = random.randint(0, w - new_w)
            y0 = random.randint(0, h - new_h)
            return fixed_crop(src, x0, y0, new_w, new_h, size, interp), (x0, y0, new_w, new_h)
    return center_crop(src, size, interp)


def _rotation_grid(height, width, radians, zoom_in, zoom_out):
    """BilinearSampler's grid (N, 2, H, W) turning each image by its angle about the centre, in
    float32; zoom_in scales so that no border shows, zoom_out so that no corner is cut."""
    f32 = np.float32
    rows = np.arange(height, dtype=f32)[:, None] - f32((height - 1) / 2)
    cols = np.arange(width, dtype=f32)[None, :] - f32((width - 1) / 2)
    cos, sin = np.cos(radians).astype(f32)[:, None, None], np.sin(radians).astype(f32)[:, None, None]
    x = (cols * cos - rows * sin) / f32((width - 1) / 2)
    y = (cols * sin + rows * cos) / f32((height - 1) / 2)
    scale = f32(1)
    if zoom_in or zoom_out:
        h, w = f32(height), f32(width)
        radius, corner = np.sqrt(h * h + w * w), np.arctan(h / w)
        turn = np.abs(radians).astype(f32)
        reach_x = np.maximum(np.abs(radius * np.cos(corner + turn)), np.abs(radius * np.cos(corner - turn)))
        reach_y = np.maximum(np.abs(radius * np.sin(corner + turn)), np.abs(radius * np.sin(corner - turn)))
        if zoom_out:
            scale = np.maximum(reach_x / w, reach_y / h)
        else:
            scale = np.minimum(w / reach_x, h / reach_y)
        scale = scale.astype(f32)[:, None, None, None]
    return (np.stack([x, y], axis=1) * scale).astype(f32)


def imrotate(src, rotation_degrees, zoom_in=False, zoom_out=False):
    """`src` (CHW, or NCHW with an angle per image) turned by `rotation_degrees` about its centre
    (bilinear sampling, zeros beyond the image); float32 images only."""
    nd = _nd()
    if zoom_in and zoom_out:
        raise ValueError("`zoom_in` and `zoom_out` cannot be both True")
    if src.dtype is not np.float32:
        raise TypeError("Only `float32` images are supported by this function")
    single = src.ndim == 3
    if single:
        src = src.expand_dims(axis=0)
        if not isinstance(rotation_degrees, numbers.Number):
            raise TypeError("When a single image is passed the rotation angle is required to be a scalar.")
    elif src.ndim != 4:
        raise ValueError("Only 3D and 4D are supported by this function")
    if isinstance(rotation_degrees, numbers.Number):
        rotation_degrees = [rotation_degrees] * len(src)
    degrees = _pixels(rotation_degrees).astype(np.float32).reshape(-1)
    if len(src) != len(degrees):
        raise ValueError("The number of images must be equal to the number of rotation angles")
    radians = (np.float32(np.pi) * degrees / np.float32(180)).astype(np.float32)
    grid = _rotation_grid(src.shape[2], src.shape[3], radians, zoom_in, zoom_out)
    turned = nd.BilinearSampler(src, nd.array(grid))
    return turned[0] if single else turned


def random_rotate(src, angle_limits, zoom_in=False, zoom_out=False):
    """imrotate by angles drawn uniformly within `angle_limits` (NumPy's global generator; one per image)."""
    if src.ndim == 3:
        degrees = np.random.uniform(*angle_limits)
    else:
        degrees = _nd().array(np.random.uniform(*angle_limits, size=src.shape[0]))
    return imrotate(src, degrees, zoom_in=zoom_in, zoom_out=zoom_out)


class _Described:
    """A transformation that `dumps` itself as JSON ([lower-case class name, arguments]): what the
    image augmenters and the detection augmenters share (MXNet keeps them apart: neither kind is
    the other)."""

    def __init__(self, **kwargs):
        self._kwargs = kwargs
        for key, value in self._kwargs.items():
            if isinstance(value, NDArray):
                value = value.asnumpy()
            if isinstance(value, np.ndarray):
                self._kwargs[key] = value.tolist()

    def dumps(self):
        return json.dumps([self.__class__.__name__.lower(), self._kwargs])


class Augmenter(_Described):
    """An image transformation; `dumps` describes it as JSON ([lower-case class name, arguments])."""

    def __call__(self, src):
        raise NotImplementedError("Must override implementation.")


class SequentialAug(Augmenter):
    """The augmenters `ts` one after another."""

    def __init__(self, ts):
        super().__init__()
        self.ts = ts

    def dumps(self):
        return [self.__class__.__name__.lower(), [t.dumps() for t in self.ts]]

    def __call__(self, src):
        for aug in self.ts:
            src = aug(src)
        return src


class ResizeAug(Augmenter):
    """Resizes the shorter side to `size`."""

    def __init__(self, size, interp=2):
        super().__init__(size=size, interp=interp)
        self.size = size
        self.interp = interp

    def __call__(self, src):
        return resize_short(src, self.size, self.interp)


class ForceResizeAug(Augmenter):
    """Resizes to `size` (w, h), whatever the aspect ratio."""

    def __init__(self, size, interp=2):
        super().__init__(size=size, interp=interp)
        self.size = size
        self.interp = interp

    def __call__(self, src):
        sizes = (src.shape[0], src.shape[1], self.size[1], self.size[0])
        return imresize(src, *self.size, interp=_get_interp_method(self.interp, sizes))


class RandomCropAug(Augmenter):
    """A random crop of `size` (w, h)."""

    def __init__(self, size, interp=2):
        super().__init__(size=size, interp=interp)
        self.size = size
        self.interp = interp

    def __call__(self, src):
        return random_crop(src, self.size, self.interp)[0]


class RandomSizedCropAug(Augmenter):
    """A crop of random area and aspect ratio, resized to `size` (see random_size_crop)."""

    def __init__(self, size, area, ratio, interp=2, **kwargs):
        super().__init__(size=size, area=area, ratio=ratio, interp=interp)
        self.size = size
        if "min_area" in kwargs:
            warnings.warn("`min_area` is deprecated. Please use `area` instead.", DeprecationWarning)
            self.area = kwargs.pop("min_area")
        else:
            self.area = area
        self.ratio = ratio
        self.interp = interp
        assert not kwargs, "unexpected keyword arguments for `RandomSizedCropAug`."

    def __call__(self, src):
        return random_size_crop(src, self.size, self.area, self.ratio, self.interp)[0]


class CenterCropAug(Augmenter):
    """The central crop of `size` (w, h)."""

    def __init__(self, size, interp=2):
        super().__init__(size=size, interp=interp)
        self.size = size
        self.interp = interp

    def __call__(self, src):
        return center_crop(src, self.size, self.interp)[0]


class RandomOrderAug(Augmenter):
    """The augmenters `ts` in a random order (shuffled in place at each call)."""

    def __init__(self, ts):
        super().__init__()
        self.ts = ts

    def dumps(self):
        return [self.__class__.__name__.lower(), [t.dumps() for t in self.ts]]

    def __call__(self, src):
        random.shuffle(self.ts)
        for aug in self.ts:
            src = aug(src)
        return src


# luminance weights of R, G and B
_LUMA = [[[0.299, 0.587, 0.114]]]


class BrightnessJitterAug(Augmenter):
    """Scales every value by 1 + a uniform draw in [-brightness, brightness]."""

    def __init__(self, brightness):
        super().__init__(brightness=brightness)
        self.brightness = brightness

    def __call__(self, src):
        alpha = 1.0 + random.uniform(-self.brightness, self.brightness)
        src *= alpha
        return src


class ContrastJitterAug(Augmenter):
    """Blends the image with its mean luminance: weight 1 + a uniform draw in [-contrast, contrast]."""

    def __init__(self, contrast):
        super().__init__(contrast=contrast)
        self.contrast = contrast
        self.coef = _nd().array(_LUMA)

    def __call__(self, src):
        alpha = 1.0 + random.uniform(-self.contrast, self.contrast)
        gray = src * self.coef
        gray = (3.0 * (1.0 - alpha) / gray.size) * _nd().sum(gray)
        src *= alpha
        src += gray
        return src


class SaturationJitterAug(Augmenter):
    """Blends each pixel with its luminance: weight 1 + a uniform draw in [-saturation, saturation]."""

    def __init__(self, saturation):
        super().__init__(saturation=saturation)
        self.saturation = saturation
        self.coef = _nd().array(_LUMA)

    def __call__(self, src):
        alpha = 1.0 + random.uniform(-self.saturation, self.saturation)
        gray = src * self.coef
        gray = _nd().sum(gray, axis=2, keepdims=True)
        gray *= (1.0 - alpha)
        src *= alpha
        src += gray
        return src


class HueJitterAug(Augmenter):
    """Rotates the hue by a uniform draw in [-hue, hue] half-turns, in YIQ space."""

    def __init__(self, hue):
        super().__init__(hue=hue)
        self.hue = hue
        self.tyiq = np.array([[0.299, 0.587, 0.114], [0.596, -0.274, -0.321], [0.211, -0.523, 0.311]])
        self.ityiq = np.array([[1.0, 0.956, 0.621], [1.0, -0.272, -0.647], [1.0, -1.107, 1.705]])

    def __call__(self, src):
        alpha = random.uniform(-self.hue, self.hue)
        u, w = np.cos(alpha * np.pi), np.sin(alpha * np.pi)
        rotation = np.array([[1.0, 0.0, 0.0], [0.0, u, -w], [0.0, w, u]])
        transform = np.dot(np.dot(self.ityiq, rotation), self.tyiq).T
        return _nd().dot(src, _nd().array(transform))


class ColorJitterAug(RandomOrderAug):
    """Brightness, contrast and saturation jitters (those above 0) in a random order."""

    def __init__(self, brightness, contrast, saturation):
        ts = []
        if brightness > 0:
            ts.append(BrightnessJitterAug(brightness))
        if contrast > 0:
            ts.append(ContrastJitterAug(contrast))
        if saturation > 0:
            ts.append(SaturationJitterAug(saturation))
        super().__init__(ts)


class LightingAug(Augmenter):
    """AlexNet's PCA lighting noise: adds eigvec . (eigval * normal(0, alphastd)) to every pixel."""

    def __init__(self, alphastd, eigval, eigvec):
        super().__init__(alphastd=alphastd, eigval=eigval, eigvec=eigvec)
        self.alphastd = alphastd
        self.eigval = eigval
        self.eigvec = eigvec

    def __call__(self, src):
        alpha = np.random.normal(0, self.alphastd, size=(3,))
        rgb = np.dot(self.eigvec * alpha, self.eigval)
        src += _nd().array(rgb)
        return src


class ColorNormalizeAug(Augmenter):
    """Subtracts `mean` and divides by `std` (see color_normalize)."""

    def __init__(self, mean, std):
        super().__init__(mean=mean, std=std)
        self.mean = mean if mean is None or isinstance(mean, NDArray) else _nd().array(mean)
        self.std = std if std is None or isinstance(std, NDArray) else _nd().array(std)

    def __call__(self, src):
        return color_normalize(src, self.mean, self.std)


class RandomGrayAug(Augmenter):
    """With probability p, replaces every channel by the same weighted sum of them."""

    def __init__(self, p):
        super().__init__(p=p)
        self.p = p
        self.mat = _nd().array([[0.21, 0.21, 0.21], [0.72, 0.72, 0.72], [0.07, 0.07, 0.07]])

    def __call__(self, src):
        if random.random() < self.p:
            src = _nd().dot(src, self.mat)
        return src


class HorizontalFlipAug(Augmenter):
    """With probability p, mirrors the image left to right."""

    def __init__(self, p):
        super().__init__(p=p)
        self.p = p

    def __call__(self, src):
        if random.random() < self.p:
            src = _nd().flip(src, axis=1)
        return src


class CastAug(Augmenter):
    """Casts to `typ`."""

    def __init__(self, typ="float32"):
        super().__init__(type=typ)
        self.typ = typ

    def __call__(self, src):
        return src.astype(self.typ)


# ImageNet's channel means and deviations, and its PCA lighting basis (AlexNet's)
_IMAGENET_MEAN = [123.68, 116.28, 103.53]
_IMAGENET_STD = [58.395, 57.12, 57.375]
_PCA_EIGVAL = [55.46, 4.794, 1.148]
_PCA_EIGVEC = [[-0.5675, 0.7192, 0.4009], [-0.5808, -0.0045, -0.8140], [-0.5836, -0.6948, 0.4203]]


def CreateAugmenter(data_shape, resize=0, rand_crop=False, rand_resize=False, rand_mirror=False,  # noqa: N802
                    mean=None, std=None, brightness=0, contrast=0, saturation=0, hue=0,
                    pca_noise=0, rand_gray=0, inter_method=2):
    """The usual training (or, with no randomness asked for, evaluation) augmenters for images of
    `data_shape` (C, H, W): resize, crop, mirror, cast to float32, colour jitter, lighting noise,
    gray, normalization (mean=True / std=True: ImageNet's)."""
    auglist = []
    if resize > 0:
        auglist.append(ResizeAug(resize, inter_method))
    crop_size = (data_shape[2], data_shape[1])
    if rand_resize:
        assert rand_crop
        auglist.append(RandomSizedCropAug(crop_size, 0.08, (3.0 / 4.0, 4.0 / 3.0), inter_method))
    elif rand_crop:
        auglist.append(RandomCropAug(crop_size, inter_method))
    else:
        auglist.append(CenterCropAug(crop_size, inter_method))
    if rand_mirror:
        auglist.append(HorizontalFlipAug(0.5))
    auglist.append(CastAug())
    if brightness or contrast or saturation:
        auglist.append(ColorJitterAug(brightness, contrast, saturation))
    if hue:
        auglist.append(HueJitterAug(hue))
    if pca_noise > 0:
        auglist.append(LightingAug(pca_noise, np.array(_PCA_EIGVAL), np.array(_PCA_EIGVEC)))
    if rand_gray > 0:
        auglist.append(RandomGrayAug(rand_gray))
    if mean is True:
        mean = _nd().array(_IMAGENET_MEAN)
    elif mean is not None:
        assert isinstance(mean, (np.ndarray, NDArray)) and mean.shape[0] in [1, 3]
    if std is True:
        std = _nd().array(_IMAGENET_STD)
    elif std is not None:
        assert isinstance(std, (np.ndarray, NDArray)) and std.shape[0] in [1, 3]
    if mean is not None or std is not None:
        auglist.append(ColorNormalizeAug(mean, std))
    return auglist


from runtime.image.iterator import ImageIter  # noqa: E402  (it builds on the functions above)
