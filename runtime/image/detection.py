"""`mx.image.detection` (also `mx.image.det`): augmenters for images with bounding boxes, as MXNet 1.9.1's.

A label is a NumPy array with a row per object: [class, xmin, ymin, xmax, ymax, ...], the corners
as fractions of the image's width and height. Each augmenter takes and returns (image, label).
Random choices come from Python's `random` module, as in MXNet.
"""
from __future__ import annotations

import logging
import math
import random
import warnings

import numpy as np

from runtime.image.image import (Augmenter, CastAug, ColorJitterAug, ColorNormalizeAug, _Described, ForceResizeAug,
                                 HueJitterAug, LightingAug, RandomGrayAug, ResizeAug, _IMAGENET_MEAN, _IMAGENET_STD,
                                 _PCA_EIGVAL, _PCA_EIGVEC, copyMakeBorder, fixed_crop)
from runtime.image.iterator import ImageIter
from runtime.ndarray import NDArray

__all__ = ["DetAugmenter", "DetBorrowAug", "DetRandomSelectAug", "DetHorizontalFlipAug", "DetRandomCropAug",
           "DetRandomPadAug", "CreateMultiRandCropAugmenter", "CreateDetAugmenter", "ImageDetIter"]

_numbers = (int, float, np.integer, np.floating)


class DetAugmenter(_Described):
    """An (image, label) transformation; `dumps` describes it as JSON ([lower-case name, arguments])."""

    def __call__(self, src, label):
        raise NotImplementedError("Must override implementation.")


class DetBorrowAug(DetAugmenter):
    """An image Augmenter applied to the image only (for those that move no pixel: colour, resize)."""

    def __init__(self, augmenter):
        if not isinstance(augmenter, Augmenter):
            raise TypeError("Borrowing from invalid Augmenter")
        super().__init__(augmenter=augmenter.dumps())
        self.augmenter = augmenter

    def dumps(self):
        return [self.__class__.__name__.lower(), self.augmenter.dumps()]

    def __call__(self, src, label):
        return self.augmenter(src), label


class DetRandomSelectAug(DetAugmenter):
    """One of `aug_list`, chosen at random, or none with probability `skip_prob` (always none when
    the list is empty)."""

    def __init__(self, aug_list, skip_prob=0):
        super().__init__(skip_prob=skip_prob)
        if not isinstance(aug_list, (list, tuple)):
            aug_list = [aug_list]
        for aug in aug_list:
            if not isinstance(aug, DetAugmenter):
                raise ValueError("Allow DetAugmenter in list only")
        self.aug_list = aug_list
        self.skip_prob = skip_prob if aug_list else 1

    def dumps(self):
        return [self.__class__.__name__.lower(), [a.dumps() for a in self.aug_list]]

    def __call__(self, src, label):
        if random.random() < self.skip_prob:
            return src, label
        random.shuffle(self.aug_list)
        return self.aug_list[0](src, label)


class DetHorizontalFlipAug(DetAugmenter):
    """With probability p, mirrors the image and its boxes left to right (the label in place)."""

    def __init__(self, p):
        super().__init__(p=p)
        self.p = p

    def __call__(self, src, label):
        if random.random() < self.p:
            from runtime import nd
            src = nd.flip(src, axis=1)
            self._flip_label(label)
        return src, label

    @staticmethod
    def _flip_label(label):
        left = 1.0 - label[:, 3]
        label[:, 3] = 1.0 - label[:, 1]
        label[:, 1] = left


def _areas(boxes):
    """Areas of [xmin, ymin, xmax, ymax] rows (0 for inverted boxes)."""
    return np.maximum(0, boxes[:, 3] - boxes[:, 1]) * np.maximum(0, boxes[:, 2] - boxes[:, 0])


def _as_range(value, what, name):
    if isinstance(value, (tuple, list)):
        return value
    assert isinstance(value, _numbers)
    logging.info("Using fixed %s: %s in %s", what, str(value), name)
    return (value, value)


class DetRandomCropAug(DetAugmenter):
    """A random crop (SSD's): its area a share of the image within `area_range`, its aspect ratio
    within `aspect_ratio_range`, covering more than `min_object_covered` of every object it touches;
    objects left with no more than `min_eject_coverage` of their area are dropped. After
    `max_attempts` proposals that fail, the image stays as it is."""

    def __init__(self, min_object_covered=0.1, aspect_ratio_range=(0.75, 1.33), area_range=(0.05, 1.0),
                 min_eject_coverage=0.3, max_attempts=50):
        aspect_ratio_range = _as_range(aspect_ratio_range, "aspect ratio", "DetRandomCropAug")
        area_range = _as_range(area_range, "area range", "DetRandomCropAug")
        super().__init__(min_object_covered=min_object_covered, aspect_ratio_range=aspect_ratio_range,
                         area_range=area_range, min_eject_coverage=min_eject_coverage, max_attempts=max_attempts)
        self.min_object_covered = min_object_covered
        self.min_eject_coverage = min_eject_coverage
        self.max_attempts = max_attempts
        self.aspect_ratio_range = aspect_ratio_range
        self.area_range = area_range
        self.enabled = False
        if area_range[1] <= 0 or area_range[0] > area_range[1]:
            warnings.warn("Skip DetRandomCropAug due to invalid area_range: %s" % (area_range,))
        elif aspect_ratio_range[0] > aspect_ratio_range[1] or aspect_ratio_range[0] <= 0:
            warnings.warn("Skip DetRandomCropAug due to invalid aspect_ratio_range: %s" % (aspect_ratio_range,))
        else:
            self.enabled = True

    def __call__(self, src, label):
        crop = self._random_crop_proposal(label, src.shape[0], src.shape[1])
        if crop:
            x, y, w, h, label = crop
            src = fixed_crop(src, x, y, w, h, None)
        return src, label

    def _calculate_areas(self, label):
        return _areas(label)

    def _intersect(self, label, xmin, ymin, xmax, ymax):
        """The boxes clipped to the window (all zero where they do not meet it)."""
        left = np.maximum(label[:, 0], xmin)
        right = np.minimum(label[:, 2], xmax)
        top = np.maximum(label[:, 1], ymin)
        bottom = np.minimum(label[:, 3], ymax)
        out = label.copy()
        out[:, 0], out[:, 1], out[:, 2], out[:, 3] = left, top, right, bottom
        out[np.logical_or(left >= right, top >= bottom), :] = 0
        return out

    def _check_satisfy_constraints(self, label, xmin, ymin, xmax, ymax, width, height):
        if (xmax - xmin) * (ymax - ymin) < 2:
            return False  # a single pixel
        window = (float(xmin) / width, float(ymin) / height, float(xmax) / width, float(ymax) / height)
        object_areas = _areas(label[:, 1:])
        valid = np.where(object_areas * width * height > 2)[0]
        if valid.size < 1:
            return False
        coverages = _areas(self._intersect(label[valid, 1:], *window)) / object_areas[valid]
        coverages = coverages[coverages > 0]
        return coverages.size > 0 and np.amin(coverages) > self.min_object_covered

    def _update_labels(self, label, crop_box, height, width):
        """The label in the crop's coordinates, without objects it ejects (None when none is left)."""
        xmin, ymin = float(crop_box[0]) / width, float(crop_box[1]) / height
        w, h = float(crop_box[2]) / width, float(crop_box[3]) / height
        out = label.copy()
        out[:, (1, 3)] -= xmin
        out[:, (2, 4)] -= ymin
        out[:, (1, 3)] /= w
        out[:, (2, 4)] /= h
        out[:, 1:5] = np.minimum(1, np.maximum(0, out[:, 1:5]))
        coverage = _areas(out[:, 1:]) * w * h / _areas(label[:, 1:])
        valid = np.logical_and(out[:, 3] > out[:, 1], out[:, 4] > out[:, 2])
        valid = np.where(np.logical_and(valid, coverage > self.min_eject_coverage))[0]
        if valid.size < 1:
            return None
        return out[valid, :]

    def _random_crop_proposal(self, label, height, width):
        if not self.enabled or height <= 0 or width <= 0:
            return ()
        min_area = self.area_range[0] * height * width
        max_area = self.area_range[1] * height * width
        for _ in range(self.max_attempts):
            ratio = random.uniform(*self.aspect_ratio_range)
            if ratio <= 0:
                continue
            h = int(round(math.sqrt(min_area / ratio)))
            max_h = int(round(math.sqrt(max_area / ratio)))
            if round(max_h * ratio) > width:
                max_h = int((width + 0.4999999) / ratio)  # the widest crop that fits
            max_h = min(max_h, height)
            h = min(h, max_h)
            if h < max_h:
                h = random.randint(h, max_h)
            w = int(round(h * ratio))
            assert w <= width
            area = w * h
            if area < min_area:
                h += 1
                w = int(round(h * ratio))
                area = w * h
            if area > max_area:
                h -= 1
                w = int(round(h * ratio))
                area = w * h
            if not (min_area <= area <= max_area and 0 <= w <= width and 0 <= h <= height):
                continue
            y = random.randint(0, max(0, height - h))
            x = random.randint(0, max(0, width - w))
            if self._check_satisfy_constraints(label, x, y, x + w, y + h, width, height):
                new_label = self._update_labels(label, (x, y, w, h), height, width)
                if new_label is not None:
                    return x, y, w, h, new_label
        return ()


class DetRandomPadAug(DetAugmenter):
    """Places the image at a random spot of a larger canvas filled with `pad_val` (SSD's zoom out):
    the canvas's area `area_range` times the image's, its aspect ratio within `aspect_ratio_range`."""

    def __init__(self, aspect_ratio_range=(0.75, 1.33), area_range=(1.0, 3.0), max_attempts=50,
                 pad_val=(128, 128, 128)):
        if not isinstance(pad_val, (list, tuple)):
            assert isinstance(pad_val, _numbers)
        aspect_ratio_range = _as_range(aspect_ratio_range, "aspect ratio", "DetRandomPadAug")
        area_range = _as_range(area_range, "area range", "DetRandomPadAug")
        super().__init__(aspect_ratio_range=aspect_ratio_range, area_range=area_range, max_attempts=max_attempts,
                         pad_val=pad_val)
        self.pad_val = pad_val
        self.aspect_ratio_range = aspect_ratio_range
        self.area_range = area_range
        self.max_attempts = max_attempts
        self.enabled = False
        if area_range[1] <= 1.0 or area_range[0] > area_range[1]:
            warnings.warn("Skip DetRandomPadAug due to invalid parameters: %s" % (area_range,))
        elif aspect_ratio_range[0] <= 0 or aspect_ratio_range[0] > aspect_ratio_range[1]:
            warnings.warn("Skip DetRandomPadAug due to invalid aspect_ratio_range: %s" % (aspect_ratio_range,))
        else:
            self.enabled = True

    def __call__(self, src, label):
        height, width, _ = src.shape
        pad = self._random_pad_proposal(label, height, width)
        if pad:
            x, y, w, h, label = pad
            values = self.pad_val if isinstance(self.pad_val, (list, tuple)) else (self.pad_val,)
            src = copyMakeBorder(src, y, h - y - height, x, w - x - width, 0, values=values)
        return src, label

    def _update_labels(self, label, pad_box, height, width):
        out = label.copy()
        out[:, (1, 3)] = (out[:, (1, 3)] * width + pad_box[0]) / pad_box[2]
        out[:, (2, 4)] = (out[:, (2, 4)] * height + pad_box[1]) / pad_box[3]
        return out

    def _random_pad_proposal(self, label, height, width):
        if not self.enabled or height <= 0 or width <= 0:
            return ()
        min_area = self.area_range[0] * height * width
        max_area = self.area_range[1] * height * width
        for _ in range(self.max_attempts):
            ratio = random.uniform(*self.aspect_ratio_range)
            if ratio <= 0:
                continue
            h = int(round(math.sqrt(min_area / ratio)))
            max_h = int(round(math.sqrt(max_area / ratio)))
            if round(h * ratio) < width:
                h = int((width + 0.499999) / ratio)  # at least as wide as the image
            h = max(h, height)
            h = min(h, max_h)
            if h < max_h:
                h = random.randint(h, max_h)
            w = int(round(h * ratio))
            if (h - height) < 2 or (w - width) < 2:
                continue  # a marginal pad does not help
            y = random.randint(0, max(0, h - height))
            x = random.randint(0, max(0, w - width))
            return x, y, w, h, self._update_labels(label, (x, y, w, h), height, width)
        return ()


def CreateMultiRandCropAugmenter(min_object_covered=0.1, aspect_ratio_range=(0.75, 1.33),  # noqa: N802
                                 area_range=(0.05, 1.0), min_eject_coverage=0.3, max_attempts=50, skip_prob=0):
    """DetRandomCropAugs, one per value where a parameter is a list (one-value parameters shared),
    under a DetRandomSelectAug that picks one (or none with probability skip_prob)."""
    params = [min_object_covered, aspect_ratio_range, area_range, min_eject_coverage, max_attempts]
    params = [p if isinstance(p, list) else [p] for p in params]
    count = max(len(p) for p in params)
    for index, values in enumerate(params):
        if len(values) != count:
            assert len(values) == 1
            params[index] = values * count
    augs = [DetRandomCropAug(min_object_covered=moc, aspect_ratio_range=arr, area_range=ar, min_eject_coverage=mec,
                             max_attempts=ma) for moc, arr, ar, mec, ma in zip(*params)]
    return DetRandomSelectAug(augs, skip_prob=skip_prob)


def CreateDetAugmenter(data_shape, resize=0, rand_crop=0, rand_pad=0, rand_gray=0, rand_mirror=False,  # noqa: N802
                       mean=None, std=None, brightness=0, contrast=0, saturation=0, pca_noise=0, hue=0,
                       inter_method=2, min_object_covered=0.1, aspect_ratio_range=(0.75, 1.33),
                       area_range=(0.05, 3.0), min_eject_coverage=0.3, max_attempts=50, pad_val=(127, 127, 127)):
    """The usual detection training augmenters for images of `data_shape` (C, H, W): resize, random
    crop (with probability rand_crop), mirror, random pad (rand_pad), forced resize to the data
    shape, cast, colour jitter, lighting noise, gray, normalization (mean=True / std=True: ImageNet's)."""
    auglist = []
    if resize > 0:
        auglist.append(DetBorrowAug(ResizeAug(resize, inter_method)))
    if rand_crop > 0:
        auglist.append(CreateMultiRandCropAugmenter(min_object_covered, aspect_ratio_range, area_range,
                                                    min_eject_coverage, max_attempts, skip_prob=(1 - rand_crop)))
    if rand_mirror > 0:
        auglist.append(DetHorizontalFlipAug(0.5))
    if rand_pad > 0:
        pad = DetRandomPadAug(aspect_ratio_range, (1.0, area_range[1]), max_attempts, pad_val)
        auglist.append(DetRandomSelectAug([pad], 1 - rand_pad))
    auglist.append(DetBorrowAug(ForceResizeAug((data_shape[2], data_shape[1]), inter_method)))
    auglist.append(DetBorrowAug(CastAug()))
    if brightness or contrast or saturation:
        auglist.append(DetBorrowAug(ColorJitterAug(brightness, contrast, saturation)))
    if hue:
        auglist.append(DetBorrowAug(HueJitterAug(hue)))
    if pca_noise > 0:
        auglist.append(DetBorrowAug(LightingAug(pca_noise, np.array(_PCA_EIGVAL), np.array(_PCA_EIGVEC))))
    if rand_gray > 0:
        auglist.append(DetBorrowAug(RandomGrayAug(rand_gray)))
    if mean is True:
        mean = np.array(_IMAGENET_MEAN)
    elif mean is not None:
        assert isinstance(mean, np.ndarray) and mean.shape[0] in [1, 3]
    if std is True:
        std = np.array(_IMAGENET_STD)
    elif std is not None:
        assert isinstance(std, np.ndarray) and std.shape[0] in [1, 3]
    if mean is not None or std is not None:
        auglist.append(DetBorrowAug(ColorNormalizeAug(mean, std)))
    return auglist


class ImageDetIter(ImageIter):
    """ImageIter for detection: a raw label is [header width, object width, header..., objects...]
    (each object [class, xmin, ymin, xmax, ymax, ...]); batches of labels are (batch, most objects
    of any image, object width), rows beyond an image's objects -1. Augmenters are DetAugmenters
    (CreateDetAugmenter(data_shape, **kwargs) unless `aug_list`)."""

    def __init__(self, batch_size, data_shape, path_imgrec=None, path_imglist=None, path_root=None, path_imgidx=None,
                 shuffle=False, part_index=0, num_parts=1, aug_list=None, imglist=None, data_name="data",
                 label_name="label", last_batch_handle="pad", **kwargs):
        super().__init__(batch_size=batch_size, data_shape=data_shape, path_imgrec=path_imgrec,
                         path_imglist=path_imglist, path_root=path_root, path_imgidx=path_imgidx, shuffle=shuffle,
                         part_index=part_index, num_parts=num_parts, aug_list=[], imglist=imglist,
                         data_name=data_name, label_name=label_name, last_batch_handle=last_batch_handle)
        self.auglist = CreateDetAugmenter(data_shape, **kwargs) if aug_list is None else aug_list
        label_shape = self._estimate_label_shape()  # a pass over every label
        self.provide_label = [(label_name, (self.batch_size, label_shape[0], label_shape[1]))]
        self.label_shape = label_shape

    def _check_valid_label(self, label):
        if len(label.shape) != 2 or label.shape[1] < 5:
            raise RuntimeError("Label with shape (1+, 5+) required, %s received." % str(label))
        valid = np.logical_and(label[:, 0] >= 0, np.logical_and(label[:, 3] > label[:, 1], label[:, 4] > label[:, 2]))
        if not valid.any():
            raise RuntimeError("Invalid label occurs.")

    def _estimate_label_shape(self):
        most = 0
        label = None
        self.reset()
        try:
            while True:
                label = self._parse_label(self.next_sample()[0])
                most = max(most, label.shape[0])
        except StopIteration:
            pass
        self.reset()
        return (most, label.shape[1])

    def _parse_label(self, label):
        """The objects of a raw label, without those whose box is empty."""
        raw = (label.asnumpy() if isinstance(label, NDArray) else np.asarray(label)).ravel()
        if raw.size < 7:
            raise RuntimeError("Label shape is invalid: " + str(raw.shape))
        header_width, object_width = int(raw[0]), int(raw[1])
        if (raw.size - header_width) % object_width != 0:
            raise RuntimeError("Label shape %s inconsistent with annotation width %d." % (str(raw.shape), object_width))
        objects = np.reshape(raw[header_width:], (-1, object_width))
        valid = np.where(np.logical_and(objects[:, 3] > objects[:, 1], objects[:, 4] > objects[:, 2]))[0]
        if valid.size < 1:
            raise RuntimeError("Encounter sample with no valid label.")
        return objects[valid, :]

    def reshape(self, data_shape=None, label_shape=None):
        """Another data shape (C, H, W) and/or label shape (objects, width: no fewer objects)."""
        if data_shape is not None:
            self.check_data_shape(data_shape)
            self.provide_data = [(self.provide_data[0][0], (self.batch_size,) + tuple(data_shape))]
            self.data_shape = data_shape
        if label_shape is not None:
            self.check_label_shape(label_shape)
            self.provide_label = [(self.provide_label[0][0], (self.batch_size,) + tuple(label_shape))]
            self.label_shape = label_shape

    def _label_batch(self):
        labels = super()._label_batch()
        labels[:] = -1
        return labels

    def _batchify(self, batch_data, batch_label, start=0):
        from runtime import nd
        i = start
        try:
            while i < self.batch_size:
                label, encoded = self.next_sample()
                data = self.imdecode(encoded)
                try:
                    self.check_valid_image([data])
                    label = self._parse_label(label)
                    data, label = self.augmentation_transform(data, label)
                    self._check_valid_label(label)
                except RuntimeError as error:
                    logging.debug("Invalid image, skipping:  %s", str(error))
                    continue
                batch_data[i] = self.postprocess_data(data)
                count = label.shape[0]
                batch_label[i][0:count] = nd.array(label)
                if count < batch_label[i].shape[0]:
                    batch_label[i][count:] = -1
                i += 1
        except StopIteration:
            if not i:
                raise
        return i

    def augmentation_transform(self, data, label):  # noqa: D401 (takes the label too)
        for aug in self.auglist:
            data, label = aug(data, label)
        return data, label

    def check_label_shape(self, label_shape):
        if not len(label_shape) == 2:
            raise ValueError("label_shape should have length 2")
        if label_shape[0] < self.label_shape[0]:
            raise ValueError("Attempts to reduce label count from %d to %d, not allowed."
                             % (self.label_shape[0], label_shape[0]))
        if label_shape[1] != self.provide_label[0][1][2]:
            raise ValueError("label_shape object width inconsistent: %d vs %d."
                             % (self.provide_label[0][1][2], label_shape[1]))

    def sync_label_shape(self, it, verbose=False):
        """Both iterators' label shapes raised to the larger object count; returns `it`."""
        assert isinstance(it, ImageDetIter), "Synchronize with invalid iterator."
        mine, theirs = self.label_shape, it.label_shape
        assert mine[1] == theirs[1], "object width mismatch."
        most = max(mine[0], theirs[0])
        if most > mine[0]:
            self.reshape(None, (most, mine[1]))
        if most > theirs[0]:
            it.reshape(None, (most, theirs[1]))
        if verbose and most > min(mine[0], theirs[0]):
            logging.info("Resized label_shape to (%d, %d).", most, mine[1])
        return it
