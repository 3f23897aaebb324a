"""MXNet's binary NDArray list format (`nd.save`, `.params` files), read and written with NumPy."""
from __future__ import annotations

import struct
from typing import Dict, List, Union

import numpy as np

from runtime.base import MXNetError
from runtime.util import is_np_shape

LIST_MAGIC = 0x112
NDARRAY_V3_MAGIC = 0xF993FACA  # saved under NumPy shape semantics: loads only under them
NDARRAY_V2_MAGIC = 0xF993FAC9
NDARRAY_V1_MAGIC = 0xF993FAC8
_TYPE_FLAGS = {0: np.float32, 1: np.float64, 2: np.float16, 3: np.uint8, 4: np.int32, 5: np.int8, 6: np.int64,
               7: np.bool_}
_FLAG_OF = {np.dtype(v): k for k, v in _TYPE_FLAGS.items()}


# MXNet 1.9.1's messages when a file is loaded under the other shape semantics than it was saved in
_SAVED_NP_SHAPE = ("ndarray was saved in np shape semantics, must be loaded in the same semantics. Please turn on "
                   "np shape semantics in Python using `with np_shape(True)` or decorator `use_np_shape` to scope "
                   "the code of loading the ndarray.")
_SAVED_LEGACY_SHAPE = ("ndarray was not saved in np shape semantics, but being loaded in np shape semantics. Please "
                       "turn off np shape semantics in Python using `with np_shape(False)` to scope the code of "
                       "loading the ndarray.")


def type_flag(dtype) -> int:
    """MXNet's number for a dtype (0 float32, 1 float64, 2 float16, 3 uint8, 4 int32, 5 int8, 6 int64)."""
    return _FLAG_OF[np.dtype(dtype)]


def _encode(array: np.ndarray) -> bytes:
    array = np.asarray(array, order="C")  # (ascontiguousarray would make a 0-d array 1-d)
    if array.dtype not in _FLAG_OF:
        raise MXNetError("cannot save an array of dtype %s" % array.dtype)
    # as MXNet 1.9.1: under NumPy shape semantics the V3 format, where a 0-d array is a scalar with
    # its value; outside them V2, where no dimensions means an empty (none) array and nothing follows
    np_shape = is_np_shape()
    head = struct.pack("<Iii", NDARRAY_V3_MAGIC if np_shape else NDARRAY_V2_MAGIC, 0, array.ndim) + \
        struct.pack("<%dq" % array.ndim, *array.shape)
    if array.ndim == 0 and not np_shape:
        return head
    return head + struct.pack("<iii", 1, 0, _FLAG_OF[array.dtype]) + array.tobytes()


def save_arrays(path: str, arrays: Union[Dict[str, np.ndarray], List[np.ndarray]]) -> None:
    names = list(arrays.keys()) if isinstance(arrays, dict) else []
    values = list(arrays.values()) if isinstance(arrays, dict) else list(arrays)
    parts = [struct.pack("<QQQ", LIST_MAGIC, 0, len(values))]
    parts.extend(_encode(np.asarray(v)) for v in values)
    parts.append(struct.pack("<Q", len(names)))
    for name in names:
        raw = name.encode("utf-8")
        parts.append(struct.pack("<Q", len(raw)) + raw)
    with open(path, "wb") as handle:
        handle.write(b"".join(parts))


class _Reader:
    def __init__(self, data: bytes, path: str):
        self.data, self.offset, self.path = data, 0, path

    def take(self, fmt: str):
        size = struct.calcsize(fmt)
        if self.offset + size > len(self.data):
            raise MXNetError("%s: truncated NDArray file" % self.path)
        values = struct.unpack_from(fmt, self.data, self.offset)
        self.offset += size
        return values

    def array(self) -> np.ndarray:
        (magic,) = self.take("<I")
        np_shape = is_np_shape()
        if magic == NDARRAY_V3_MAGIC and not np_shape:
            raise MXNetError(_SAVED_NP_SHAPE)
        if magic != NDARRAY_V3_MAGIC and np_shape:
            raise MXNetError(_SAVED_LEGACY_SHAPE)
        if magic in (NDARRAY_V2_MAGIC, NDARRAY_V3_MAGIC):
            (stype,) = self.take("<i")
            if stype != 0:
                raise MXNetError("%s: sparse arrays are not supported" % self.path)
            (ndim,) = self.take("<i")
            shape = self.take("<%dq" % ndim) if ndim > 0 else ()
            if ndim < 0 or (ndim == 0 and magic == NDARRAY_V2_MAGIC) or -1 in shape:
                return np.zeros((), np.float32)  # an array of unknown shape: nothing follows
        else:
            if magic == NDARRAY_V1_MAGIC:
                (ndim,) = self.take("<I")
                shape = self.take("<%dq" % ndim) if ndim else ()
            else:  # the oldest format: the magic word was the number of dimensions
                ndim = magic
                shape = self.take("<%dI" % ndim) if ndim else ()
            if ndim == 0:
                return np.zeros((), np.float32)
        self.take("<ii")  # device type and id: everything loads on the CPU
        (flag,) = self.take("<i")
        if flag not in _TYPE_FLAGS:
            raise MXNetError("%s: unknown dtype flag %d" % (self.path, flag))
        dtype = np.dtype(_TYPE_FLAGS[flag])
        count = int(np.prod(shape))
        end = self.offset + count * dtype.itemsize
        if end > len(self.data):
            raise MXNetError("%s: truncated NDArray file" % self.path)
        value = np.frombuffer(self.data, dtype, count, self.offset).reshape(shape).copy()
        self.offset = end
        return value


def load_arrays(path: str) -> Union[Dict[str, np.ndarray], List[np.ndarray]]:
    with open(path, "rb") as handle:
        return arrays_from_bytes(handle.read(), path)


def arrays_from_bytes(data: bytes, where: str = "buffer") -> Union[Dict[str, np.ndarray], List[np.ndarray]]:
    """The arrays (a list, or a dict by name) of an NDArray file's bytes; `where` names them in errors."""
    reader = _Reader(bytes(data), where)
    magic, _, count = reader.take("<QQQ")
    if magic != LIST_MAGIC:
        raise MXNetError("%s: not an MXNet NDArray file (bad magic number)" % path)
    values = [reader.array() for _ in range(count)]
    (names_count,) = reader.take("<Q")
    names = []
    for _ in range(names_count):
        (length,) = reader.take("<Q")
        if reader.offset + length > len(reader.data):
            raise MXNetError("%s: truncated NDArray file" % where)
        names.append(reader.data[reader.offset:reader.offset + length].decode("utf-8"))
        reader.offset += length
    if names and len(names) != len(values):
        raise MXNetError("%s: %d names for %d arrays" % (where, len(names), len(values)))
    return dict(zip(names, values)) if names else values
