"""An MXNet 1.x compatible NDArray/Symbol/Gluon runtime built on NumPy and Numba.

`runtime.nd` (eager) and `runtime.sym` (deferred) are generated from one operator registry
(`runtime.registry`, declarations in `runtime.ops`, kernels in `runtime.kernels`).
`runtime.as_mxnet()` makes `import mxnet` resolve to this runtime.
"""
from runtime import ops as _ops  # noqa: F401  (fills the registry)
from runtime import autograd, random
from runtime.base import MXNetError, NotImplementedForSymbol
from runtime.context import Context, cpu, cpu_pinned, current_context, gpu, num_gpus
from runtime.kernels import preload as _preload
from runtime.ndarray import NDArray
from runtime.ndarray_namespace import build_module as _build_nd
from runtime.symbol import Symbol
from runtime.symbol_namespace import build_module as _build_sym
from runtime.heap import keep_heap
from runtime.threads import limit_blas_threads

nd = ndarray = _build_nd("runtime.nd")
sym = symbol = _build_sym("runtime.sym")
limit_blas_threads()
keep_heap()  # the arrays of one step reuse the last step's pages (see runtime.heap)
_preload.start()  # Numba's set-up and the common kernels, while the program builds its model


def as_mxnet():
    """Make `import mxnet` (and its submodules) resolve to this runtime; usable as a context manager."""
    from runtime.shim import install
    return install()


__all__ = ["nd", "ndarray", "sym", "symbol", "NDArray", "Symbol", "Context", "cpu", "gpu", "cpu_pinned",
           "current_context", "num_gpus", "MXNetError", "NotImplementedForSymbol", "autograd", "random", "as_mxnet"]
