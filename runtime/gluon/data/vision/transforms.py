"""`gluon.data.vision.transforms` on HWC images (NDArrays or NumPy arrays, uint8 or float).

Resizing follows OpenCV's arithmetic (runtime/kernels/resize.py), which MXNet's image operators use.
"""
from __future__ import annotations

import math
import random

import numpy as np

from runtime.gluon.block import Block
from runtime.gluon.nn import Sequential
from runtime.ndarray import NDArray

__all__ = ["Compose", "Cast", "ToTensor", "Normalize", "Resize", "CenterCrop", "RandomResizedCrop",
           "RandomFlipLeftRight", "RandomFlipTopBottom", "CropResize", "Rotate", "RandomRotation"]


def _unwrap(x):
    return (x.asnumpy(), True) if isinstance(x, NDArray) else (np.asarray(x), False)


def _wrap(values, was_nd):
    return NDArray(np.ascontiguousarray(values)) if was_nd else values


def _resize(image, width, height, interpolation=1):
    """HWC (or NHWC) resized to (height, width) with OpenCV's arithmetic at `interpolation` (0-4),
    as MXNet's image.resize operator calls cv::resize (runtime/kernels/resize.py)."""
    from runtime.base import MXNetError
    from runtime.kernels.resize import resize
    for name, value in (("width", width), ("height", height)):
        if value <= 0:  # the image.resize operator's check
            raise MXNetError("Input %s should be greater than 0, but got %d" % (name, value))
    if image.ndim == 4:
        return np.stack([resize(one, width, height, interpolation) for one in image])
    return resize(image, width, height, interpolation)


def _size_pair(size):
    """(width, height) from an int or a (width, height) pair."""
    return (size, size) if isinstance(size, int) else tuple(size)


class Compose(Sequential):
    """Transforms applied in order."""

    def __init__(self, transforms):
        super().__init__()
        for transform in transforms:
            self.add(transform)


class _Transform(Block):
    def forward(self, x):
        values, was_nd = _unwrap(x)
        return _wrap(self._apply(values), was_nd)

    def _apply(self, values):
        raise NotImplementedError


class Cast(_Transform):
    def __init__(self, dtype="float32"):
        super().__init__()
        self._dtype = dtype

    def _apply(self, values):
        return values.astype(self._dtype)


class ToTensor(_Transform):
    """HWC (or NHWC) uint8 in [0, 255] to CHW (NCHW) float32 in [0, 1]."""

    def _apply(self, values):
        from runtime import nd  # the image.to_tensor operator: its checks and MXNet's errors
        return nd.image.to_tensor(nd.array(values, dtype=values.dtype)).asnumpy()


class Normalize(_Transform):
    """(x - mean) / std per channel of a CHW (or NCHW) tensor."""

    def __init__(self, mean=0.0, std=1.0):
        super().__init__()
        self._mean, self._std = mean, std

    def _apply(self, values):
        from runtime import nd  # the image.normalize operator: its checks and MXNet's errors
        mean = tuple(np.asarray(self._mean, np.float64).reshape(-1).tolist())
        std = tuple(np.asarray(self._std, np.float64).reshape(-1).tolist())
        return nd.image.normalize(nd.array(values, dtype=values.dtype), mean=mean, std=std).asnumpy()


class Resize(_Transform):
    """To `size` (an int: square, or with keep_ratio the shorter side; or (width, height))."""

    def __init__(self, size, keep_ratio=False, interpolation=1):
        super().__init__()
        self._size, self._keep, self._interpolation = size, keep_ratio, interpolation

    def _apply(self, values):
        from runtime.base import MXNetError
        h, w = values.shape[-3], values.shape[-2]
        if not isinstance(self._size, int) and len(self._size) not in (1, 2):  # the image.resize operator's checks
            raise MXNetError("Input size dimension must be 1 or 2, but got %d" % len(self._size))
        if isinstance(self._size, int) and self._size <= 0:
            raise MXNetError("Input size should be greater than 0, but got %d" % self._size)
        if isinstance(self._size, int) and self._keep:
            if h > w:
                width, height = self._size, int(self._size * h / w)
            else:
                width, height = int(self._size * w / h), self._size
        else:
            width, height = _size_pair(self._size)
        return _resize(values, width, height, self._interpolation)


def _center_crop(values, width, height, interpolation):
    h, w = values.shape[-3], values.shape[-2]
    x0, y0 = int((w - width) / 2), int((h - height) / 2)
    if x0 < 0 or y0 < 0:  # larger than the image: resize the whole image instead
        return _resize(values, width, height, interpolation)
    return values[..., y0:y0 + height, x0:x0 + width, :].copy()


class CenterCrop(_Transform):
    def __init__(self, size, interpolation=1):
        super().__init__()
        self._size, self._interpolation = _size_pair(size), interpolation

    def _apply(self, values):
        return _center_crop(values, self._size[0], self._size[1], self._interpolation)


class CropResize(_Transform):
    def __init__(self, x, y, width, height, size=None, interpolation=None):
        super().__init__()
        self._box = (x, y, width, height)
        self._size = _size_pair(size) if size is not None else None
        self._interpolation = 1 if interpolation is None else interpolation

    def _apply(self, values):
        x, y, width, height = self._box
        crop = values[..., y:y + height, x:x + width, :].copy()
        return _resize(crop, self._size[0], self._size[1], self._interpolation) if self._size else crop


class RandomResizedCrop(_Transform):
    """A random crop of `scale` of the area and `ratio` of aspect (ten tries, then a centre crop),
    resized to `size`."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0), interpolation=1):
        super().__init__()
        self._size, self._scale, self._ratio = _size_pair(size), scale, ratio
        self._interpolation = interpolation

    def _apply(self, values):
        h, w = values.shape[-3], values.shape[-2]
        area = h * w
        for _ in range(10):
            target = random.uniform(*self._scale) * area
            log_ratio = (math.log(self._ratio[0]), math.log(self._ratio[1]))
            aspect = math.exp(random.uniform(*log_ratio))
            cw, ch = int(round(math.sqrt(target * aspect))), int(round(math.sqrt(target / aspect)))
            if cw <= w and ch <= h:
                x0, y0 = random.randint(0, w - cw), random.randint(0, h - ch)
                crop = values[..., y0:y0 + ch, x0:x0 + cw, :]
                return _resize(crop, self._size[0], self._size[1], self._interpolation)
        return _center_crop(values, self._size[0], self._size[1], self._interpolation)


class RandomFlipLeftRight(_Transform):
    """Mirror the width axis with probability 0.5."""

    def _apply(self, values):
        return values[..., :, ::-1, :].copy() if random.random() < 0.5 else values


class RandomFlipTopBottom(_Transform):
    def _apply(self, values):
        return values[..., ::-1, :, :].copy() if random.random() < 0.5 else values


class Rotate(Block):
    """Turns CHW (NCHW) float32 tensors by `rotation_degrees` (mx.image.imrotate)."""

    def __init__(self, rotation_degrees, zoom_in=False, zoom_out=False):
        super().__init__()
        self._args = (rotation_degrees, zoom_in, zoom_out)

    def forward(self, x):
        from runtime.image import imrotate
        if x.dtype is not np.float32:
            raise TypeError("This transformation only supports float32. Consider calling it after ToTensor")
        return imrotate(x, *self._args)


class RandomRotation(Block):
    """Turns by an angle drawn within `angle_limits` (mx.image.random_rotate), with probability
    `rotate_with_proba` (NumPy's global generator, as MXNet's)."""

    def __init__(self, angle_limits, zoom_in=False, zoom_out=False, rotate_with_proba=1.0):
        super().__init__()
        lower, upper = angle_limits
        if lower >= upper:
            raise ValueError("`angle_limits` must be an ordered tuple")
        if rotate_with_proba < 0 or rotate_with_proba > 1:
            raise ValueError("Probability of rotating the image should be between 0 and 1")
        self._args = (angle_limits, zoom_in, zoom_out)
        self._rotate_with_proba = rotate_with_proba

    def forward(self, x):
        from runtime.image import random_rotate
        if np.random.random() > self._rotate_with_proba:
            return x
        if x.dtype is not np.float32:
            raise TypeError("This transformation only supports float32. Consider calling it after ToTensor")
        return random_rotate(x, *self._args)
