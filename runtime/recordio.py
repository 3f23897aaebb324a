"""`mx.recordio`: MXNet's RecordIO container (dmlc-core's format) and its image record header.

A record is a 4-byte magic word, a 4-byte word holding a continuation flag (top 3 bits) and the
payload length (low 29 bits), then the payload padded to a multiple of 4 bytes. Where the payload
itself contains the magic word at a 4-byte boundary the writer splits it there (flags 1 start,
2 middle, 3 end) and the reader puts the magic word back between the parts.
An index file beside it lists `key<TAB>byte offset` per line.
"""
from __future__ import annotations

import numbers
import os
import struct
from collections import namedtuple

import numpy as np

__all__ = ["MXRecordIO", "MXIndexedRecordIO", "IRHeader", "pack", "unpack", "pack_img", "unpack_img"]

_MAGIC = 0xCED7230A
_MAGIC_BYTES = struct.pack("<I", _MAGIC)
_LENGTH_MASK = (1 << 29) - 1


def _padding(length):
    return (4 - length % 4) % 4


def _parts(payload: bytes):
    """The payload cut at each 4-byte-aligned occurrence of the magic word (which is dropped)."""
    parts, start = [], 0
    for offset in range(0, len(payload) - 3, 4):
        if payload[offset:offset + 4] == _MAGIC_BYTES:
            parts.append(payload[start:offset])
            start = offset + 4
    parts.append(payload[start:])
    return parts


class MXRecordIO:
    """Sequential reading ('r') or writing ('w') of records."""

    def __init__(self, uri, flag):
        self.uri = str(uri)
        self.flag = flag
        self.handle = None
        self.is_open = False
        self.open()

    def open(self):
        if self.flag not in ("r", "w"):
            raise ValueError("Invalid flag %s" % self.flag)
        self.handle = open(self.uri, "rb" if self.flag == "r" else "wb")
        self.writable = self.flag == "w"
        self.is_open = True
        self.pid = os.getpid()

    def __del__(self):
        self.close()

    def __getstate__(self):
        # a pickled reader (sent to a DataLoader worker) reopens the file on the other side
        return {"uri": self.uri, "flag": self.flag, "position": self.handle.tell() if self.is_open else 0}

    def __setstate__(self, state):
        self.uri, self.flag = state["uri"], state["flag"]
        self.is_open = False
        self.open()
        if self.flag == "r":
            self.handle.seek(state["position"])

    def close(self):
        if getattr(self, "is_open", False):
            self.handle.close()
            self.is_open = False

    def reset(self):
        self.close()
        self.open()

    def _check_pid(self, allow_reset=False):
        if self.pid != os.getpid():  # a forked worker must not share the parent's file position
            if not allow_reset:
                raise RuntimeError("Forbidden operation in multiple processes")
            self.reset()

    def write(self, buf):
        assert self.writable
        self._check_pid(allow_reset=False)
        parts = _parts(bytes(buf))
        out = []
        for i, part in enumerate(parts):
            if len(parts) == 1:
                flag = 0
            else:
                flag = 1 if i == 0 else (3 if i == len(parts) - 1 else 2)
            out.append(struct.pack("<II", _MAGIC, (flag << 29) | len(part)) + part + b"\0" * _padding(len(part)))
        self.handle.write(b"".join(out))

    def tell(self):
        assert self.writable
        return self.handle.tell()

    def read(self):
        """The next record's payload, or None at the end of the file."""
        assert not self.writable
        self._check_pid(allow_reset=True)
        pieces = []
        while True:
            head = self.handle.read(8)
            if len(head) < 8:
                if pieces:
                    raise RuntimeError("%s: the file ends inside a record" % self.uri)
                return None
            magic, word = struct.unpack("<II", head)
            if magic != _MAGIC:
                raise RuntimeError("%s: invalid RecordIO magic number at byte %d" % (self.uri, self.handle.tell() - 8))
            flag, length = word >> 29, word & _LENGTH_MASK
            data = self.handle.read(length)
            self.handle.read(_padding(length))
            if flag == 0:
                return data
            if flag != 1:
                pieces.append(_MAGIC_BYTES)
            pieces.append(data)
            if flag == 3:
                return b"".join(pieces)


class MXIndexedRecordIO(MXRecordIO):
    """Random access by key through an index file (`key\\toffset` lines)."""

    def __init__(self, idx_path, uri, flag, key_type=int):
        self.idx_path = str(idx_path)
        self.idx = {}
        self.keys = []
        self.key_type = key_type
        self.fidx = None
        super().__init__(uri, flag)

    def open(self):
        super().open()
        self.idx, self.keys = {}, []
        self.fidx = open(self.idx_path, self.flag)
        if not self.writable:
            for line in iter(self.fidx.readline, ""):
                fields = line.strip().split("\t")
                if len(fields) < 2:
                    continue
                key = self.key_type(fields[0])
                self.idx[key] = int(fields[1])
                self.keys.append(key)

    def close(self):
        if not getattr(self, "is_open", False):
            return
        super().close()
        self.fidx.close()

    def __getstate__(self):
        state = super().__getstate__()
        state.update(idx_path=self.idx_path, key_type=self.key_type)
        return state

    def __setstate__(self, state):
        self.idx_path, self.key_type = state["idx_path"], state["key_type"]
        super().__setstate__(state)

    def seek(self, idx):
        assert not self.writable
        self._check_pid(allow_reset=True)
        self.handle.seek(self.idx[idx])

    def tell(self):
        return super().tell()

    def read_idx(self, idx):
        self.seek(idx)
        return self.read()

    def write_idx(self, idx, buf):
        key = self.key_type(idx)
        position = self.tell()
        self.write(buf)
        self.fidx.write("%s\t%d\n" % (str(key), position))
        self.idx[key] = position
        self.keys.append(key)


IRHeader = namedtuple("HEADER", ["flag", "label", "id", "id2"])
_IR_FORMAT = "IfQQ"
_IR_SIZE = struct.calcsize(_IR_FORMAT)


def pack(header, s):
    """An image record: the header (a vector label stored after it, its length in `flag`), then `s`."""
    header = IRHeader(*header)
    if isinstance(header.label, numbers.Number):
        header = header._replace(flag=0)
        extra = b""
    else:
        label = np.asarray(header.label, dtype=np.float32)
        header = header._replace(flag=label.size, label=0)
        extra = label.tobytes()
    return struct.pack(_IR_FORMAT, *header) + extra + s


def unpack(s):
    header = IRHeader(*struct.unpack(_IR_FORMAT, s[:_IR_SIZE]))
    s = s[_IR_SIZE:]
    if header.flag > 0:
        header = header._replace(label=np.frombuffer(s, np.float32, header.flag))
        s = s[header.flag * 4:]
    return header, s


def _cv2():
    try:
        import cv2
    except ImportError:
        raise ImportError("pack_img and unpack_img encode and decode images with OpenCV: pip install "
                          "opencv-python-headless") from None
    return cv2


def unpack_img(s, iscolor=-1):
    header, s = unpack(s)
    return header, _cv2().imdecode(np.frombuffer(s, dtype=np.uint8), iscolor)


def pack_img(header, img, quality=95, img_fmt=".jpg"):
    cv2 = _cv2()
    fmt = img_fmt.upper()
    params = [cv2.IMWRITE_JPEG_QUALITY, quality] if fmt in (".JPG", ".JPEG") else \
        [cv2.IMWRITE_PNG_COMPRESSION, quality] if fmt == ".PNG" else []
    ok, buf = cv2.imencode(img_fmt, img, params)
    assert ok, "failed to encode image"
    return pack(header, buf.tobytes())
