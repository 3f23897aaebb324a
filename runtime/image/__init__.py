"""`mx.image`: image decoding, resizing, cropping and augmentation (image.py), and the same for
images with bounding boxes (detection.py, also `mx.image.det`), as MXNet 1.9.1's `mxnet.image`."""
from runtime.image import detection, image
from runtime.image import detection as det
from runtime.image.detection import *  # noqa: F401,F403
from runtime.image.detection import __all__ as _detection_names
from runtime.image.image import *  # noqa: F401,F403
from runtime.image.image import __all__ as _image_names

__all__ = list(_image_names) + list(_detection_names)
