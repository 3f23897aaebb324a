"""DLPack exchange (`nd.to_dlpack_for_read`, `nd.to_dlpack_for_write`, `nd.from_dlpack`), as MXNet 1.9.1.

A capsule named "dltensor" carries an array's memory out; `from_dlpack` makes an NDArray over that
memory (writes reach the exporter's array, as in MXNet) and marks the capsule used, so that it is
consumed only once. NumPy does the DLPack work itself: its arrays export capsules, and it imports
from an object whose `__dlpack__` hands the capsule over.
"""
from __future__ import annotations

import ctypes

import numpy as np

_USED = "Invalid DLPack Tensor. DLTensor capsules can be consumed only once."

_capsule_is_valid = ctypes.pythonapi.PyCapsule_IsValid
_capsule_is_valid.restype = ctypes.c_int
_capsule_is_valid.argtypes = [ctypes.py_object, ctypes.c_char_p]


def to_dlpack_for_read(data):
    """A capsule over the array's memory, for a reader (MXNet waits for pending writes first; here
    nothing is pending)."""
    return data._data.__dlpack__()


def to_dlpack_for_write(data):
    return data._data.__dlpack__()


class _Exported:
    """What NumPy's from_dlpack asks of a producer, around a capsule already made."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, stream=None, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)  # the CPU


def from_dlpack(dlpack):
    from runtime.composites import _writable_alias
    from runtime.ndarray import NDArray
    if not _capsule_is_valid(dlpack, b"dltensor"):
        raise AssertionError(_USED)
    imported = np.from_dlpack(_Exported(dlpack))  # renames the capsule "used_dltensor"
    # NumPy imports read-only; the memory is the exporter's, which MXNet lets the new array write
    return NDArray(_writable_alias(imported) if imported.flags.c_contiguous else np.array(imported))
