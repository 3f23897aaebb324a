"""`mx.image`: image decoding, resizing, cropping and augmentation (image.py), and the same for
images with bounding boxes (detection.py), as MXNet 1.9.1's `mxnet.image` package."""
from runtime.image import image
from runtime.image.image import *  # noqa: F401,F403
from runtime.image.image import __all__ as _image_names

__all__ = list(_image_names)
