"""`gluon.utils`: the helpers that training scripts and model code import."""
from __future__ import annotations

from runtime.base import MXNetError
from runtime.ndarray import NDArray


def split_data(data: NDArray, num_slice: int, batch_axis: int = 0, even_split: bool = True):
    size = data.shape[batch_axis]
    if even_split and size % num_slice:
        raise ValueError("data with shape %s cannot be evenly split into %d slices along axis %d"
                         % (data.shape, num_slice, batch_axis))
    step = size // num_slice
    return [data.slice_axis(axis=batch_axis, begin=i * step, end=size if i == num_slice - 1 else (i + 1) * step)
            for i in range(num_slice)]


def split_and_load(data, ctx_list, batch_axis: int = 0, even_split: bool = True):
    from runtime.ndarray import array
    if not isinstance(data, NDArray):
        data = array(data)
    if len(ctx_list) == 1:
        return [data.as_in_context(ctx_list[0])]
    return [part.as_in_context(ctx) for part, ctx in zip(split_data(data, len(ctx_list), batch_axis, even_split),
                                                        ctx_list)]


def check_sha1(filename: str, sha1_hash: str) -> bool:
    import hashlib
    digest = hashlib.sha1()
    with open(filename, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest() == sha1_hash


def download(url, path=None, overwrite=False, sha1_hash=None, retries=5, verify_ssl=True):
    raise MXNetError("this runtime does not download files (%s): load them from disk instead" % url)
