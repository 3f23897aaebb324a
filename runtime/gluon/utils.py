"""`gluon.utils`: the helpers that training scripts and model code import."""
from __future__ import annotations

from runtime.base import MXNetError
from runtime.ndarray import NDArray


def split_data(data: NDArray, num_slice: int, batch_axis: int = 0, even_split: bool = True):
    """`num_slice` slices along `batch_axis`; when uneven, the first `size % num_slice` slices are one longer."""
    size = data.shape[batch_axis]
    if even_split and size % num_slice:
        raise ValueError("data with shape %s cannot be evenly split into %d slices along axis %d. Use a batch size "
                         "that's multiple of %d or set even_split=False to allow uneven partitioning of data."
                         % (str(data.shape), num_slice, batch_axis, num_slice))
    step, extras = divmod(size, num_slice)
    bounds = [0]
    for i in range(num_slice):
        bounds.append(bounds[-1] + step + (1 if i < extras else 0))
    if batch_axis != 0:
        return [data.slice_axis(axis=batch_axis, begin=bounds[i], end=bounds[i + 1]) for i in range(num_slice)]
    # along the first axis MXNet 1.9.1 indexes: dense slices are views of the batch, and a CSR
    # batch gives CSR slices
    return [data[bounds[i]:bounds[i + 1]] for i in range(num_slice)]


def split_and_load(data, ctx_list, batch_axis: int = 0, even_split: bool = True):
    from runtime.ndarray import array
    if not isinstance(data, NDArray):
        data = array(data, ctx=ctx_list[0])
    if len(ctx_list) == 1:
        return [data.as_in_context(ctx_list[0])]
    return [part.as_in_context(ctx) for part, ctx in zip(split_data(data, len(ctx_list), batch_axis, even_split),
                                                        ctx_list)]


def clip_global_norm(arrays, max_norm, check_isfinite=True):
    """Scale `arrays` in place so that their joint 2-norm is at most `max_norm`; the norm before
    scaling is returned (a float, or a (1,) NDArray when check_isfinite is False)."""
    import warnings

    import numpy as np
    assert len(arrays) > 0
    ctx = arrays[0].context
    squares = [np.dot(a._data.reshape(-1), a._data.reshape(-1)) for a in arrays]
    total = np.sqrt(np.sum(np.array(squares, dtype=arrays[0]._data.dtype), keepdims=True)).reshape(1)
    if check_isfinite and not np.isfinite(total[0]):
        warnings.warn(UserWarning("nan or inf is detected. Clipping results will be undefined."), stacklevel=2)
    scale = min(np.float32(max_norm) / (total[0] + np.float32(1e-8)), np.float32(1.0))
    for a in arrays:
        a._data *= scale.astype(a._data.dtype)
    if check_isfinite:
        return total[0]
    return NDArray(total, ctx)


def check_sha1(filename: str, sha1_hash: str) -> bool:
    import hashlib
    digest = hashlib.sha1()
    with open(filename, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest() == sha1_hash


def download(url, path=None, overwrite=False, sha1_hash=None, retries=5, verify_ssl=True):
    raise MXNetError("this runtime does not download files (%s): load them from disk instead" % url)


def replace_file(src: str, dst: str) -> None:
    """Move `src` over `dst` in one step (a reader never sees half a file)."""
    import os
    os.replace(src, dst)


def _get_repo_url() -> str:
    """The base address of the Gluon model and data set repository ($MXNET_GLUON_REPO, with a
    trailing slash), as model stores build their download addresses from it."""
    import os
    url = os.environ.get("MXNET_GLUON_REPO", "https://apache-mxnet.s3-accelerate.dualstack.amazonaws.com/")
    return url if url.endswith("/") else url + "/"


def _get_repo_file_url(namespace: str, filename: str) -> str:
    return "%s%s/%s" % (_get_repo_url(), namespace, filename)


def _brief_print_list(items, limit: int = 7) -> str:
    """At most `limit` quoted items, the middle ones replaced by '...'."""
    items = list(items)
    if len(items) > limit:
        return _brief_print_list(items[:limit // 2], limit) + ", ..., " + _brief_print_list(items[-limit // 2:], limit)
    return ", ".join("'%s'" % str(item) for item in items)


def _indent(text: str, num_spaces: int) -> str:
    """`text` with every line after the first indented by `num_spaces` (a child block's repr
    inside its parent's); MXNet's gluon modules import it from here."""
    first, *rest = text.split("\n")
    return "\n".join([first] + [" " * num_spaces + line for line in rest])
