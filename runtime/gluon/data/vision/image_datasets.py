"""`gluon.data.vision.ImageRecordDataset` and `ImageFolderDataset`: datasets of encoded images, each
item decoded by `mx.image` when it is read, as (image, label)."""
from __future__ import annotations

import os
import warnings

from runtime import recordio
from runtime.gluon.data.dataset import Dataset, RecordFileDataset


class ImageRecordDataset(RecordFileDataset):
    """The images of a RecordIO file (with its .idx index), packed with `recordio.pack`: the label
    comes from the record's header; `flag` 0 decodes to gray, 1 to colour."""

    def __init__(self, filename, flag=1, transform=None):
        super().__init__(filename)
        self._flag = flag
        self._transform = transform

    def __getitem__(self, idx):
        from runtime.image import imdecode
        header, data = recordio.unpack(super().__getitem__(idx))
        picture = imdecode(data, self._flag)
        if self._transform is not None:
            return self._transform(picture, header.label)
        return picture, header.label


class ImageFolderDataset(Dataset):
    """The .jpg/.jpeg/.png images under `root`, one folder per class (labels by the folders' sorted
    names, which `synsets` lists); `items` holds (path, label) pairs."""

    def __init__(self, root, flag=1, transform=None):
        self._root = os.path.expanduser(root)
        self._flag = flag
        self._transform = transform
        self._exts = [".jpg", ".jpeg", ".png"]
        self._list_images(self._root)

    def _list_images(self, root):
        self.synsets = []
        self.items = []
        for folder in sorted(os.listdir(root)):
            path = os.path.join(root, folder)
            if not os.path.isdir(path):
                warnings.warn("Ignoring %s, which is not a directory." % path, stacklevel=3)
                continue
            label = len(self.synsets)
            self.synsets.append(folder)
            for name in sorted(os.listdir(path)):
                filename = os.path.join(path, name)
                extension = os.path.splitext(filename)[1]
                if extension.lower() not in self._exts:
                    warnings.warn("Ignoring %s of type %s. Only support %s" % (filename, extension, ", ".join(self._exts)))
                    continue
                self.items.append((filename, label))

    def __getitem__(self, idx):
        from runtime.image import imread
        picture = imread(self.items[idx][0], self._flag)
        label = self.items[idx][1]
        if self._transform is not None:
            return self._transform(picture, label)
        return picture, label

    def __len__(self):
        return len(self.items)
