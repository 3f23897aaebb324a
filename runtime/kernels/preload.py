"""The kernels that image models run, loaded for float32 ahead of the first forward pass.

The first Numba kernel a process runs initializes Numba's compiler context (0.3-1.5 s here,
whether the kernel's code then comes from the disk cache or not), and each kernel's first call
loads or compiles its machine code. `start()` does both in a background thread when the runtime
is imported, while the program goes on building its model; a forward pass that needs a kernel
still being loaded waits for it (Numba compiles under one lock). With an empty cache the thread
compiles the set once, and later processes load it. The first plan compiled waits for the thread
to finish (`wait`), so that it never competes with forward passes being timed or served.
HYBLINT_RUNTIME_PRELOAD=0 turns it off.
"""
from __future__ import annotations

import os
import threading

import numpy as np

_started = []


def common_kernels() -> None:
    """Runs each kernel once on tiny float32 arrays of the types a forward pass gives it."""
    from runtime.kernels import conv, nn

    f32 = np.float32
    none = conv.no_residual(f32)
    scale, shift = np.ones(1, f32), np.zeros(1, f32)
    image = np.ones((1, 1, 3, 3), f32)
    out = np.empty((1, 1, 3, 3), f32)
    conv.epilogue(out, scale, shift, none, conv.RELU, out)
    conv.place(np.ones((1, 9), f32), 0, scale, shift, none, conv.RELU, 3, out)
    conv.depthwise(image, np.ones((1, 3, 3), f32), 1, 1, 1, 1, 1, 1, scale, shift, none, conv.RELU, out)
    cols = np.empty((9, 18), f32)
    conv.columns(image, 0, 1, 3, 3, 1, 1, 1, 1, 1, 1, 3, 3, cols[:, :9])  # a slice of the buffer
    conv.columns(image, 0, 1, 3, 3, 1, 1, 1, 1, 1, 1, 3, 3, cols[:9, :])
    for kernel, stride in ((3, 2), (2, 2)):  # ResNet's, SqueezeNet's and DenseNet's pooling windows
        nn.pooling(np.ones((1, 1, 4, 4), f32), kernel=(kernel, kernel), stride=(stride, stride), pool_type="max")
        nn.pooling(np.ones((1, 1, 4, 4), f32), kernel=(kernel, kernel), stride=(stride, stride), pool_type="avg")
    nn.fully_connected(np.ones((1, 4), f32), np.ones((2, 4), f32), np.zeros(2, f32), num_hidden=2)
    nn.fully_connected(np.ones((8, 4), f32), np.ones((2, 4), f32), np.zeros(2, f32), num_hidden=2)


def _run() -> None:
    try:
        common_kernels()
    except Exception:  # a kernel that cannot be built fails again, and is reported, where it is used
        pass


def start() -> None:
    """Loads the common kernels in a background thread, once per process."""
    if _started or os.environ.get("HYBLINT_RUNTIME_PRELOAD", "1") == "0":
        return
    thread = threading.Thread(target=_run, name="hyblint-kernel-preload", daemon=True)
    _started.append(thread)
    thread.start()


def wait() -> None:
    """Returns once the background loading (if any) is over."""
    if _started and _started[0].is_alive():
        _started[0].join()
