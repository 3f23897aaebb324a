"""`mxnet.ndarray.sparse`: this runtime stores every array densely. The module resolves so that code
importing it loads; creating a sparse array raises MXNetError saying so."""
from __future__ import annotations

from runtime.base import MXNetError


def _unsupported(kind: str):
    def create(*args, **kwargs):
        raise MXNetError("%s storage is not supported by this runtime: arrays are dense" % kind)
    create.__name__ = kind
    return create


csr_matrix = _unsupported("csr_matrix")
row_sparse_array = _unsupported("row_sparse_array")
zeros = _unsupported("sparse zeros")
empty = _unsupported("sparse empty")
array = _unsupported("sparse array")


class BaseSparseNDArray:
    """No instance exists: sparse arrays cannot be created here."""


class CSRNDArray(BaseSparseNDArray):
    pass


class RowSparseNDArray(BaseSparseNDArray):
    pass
