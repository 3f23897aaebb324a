"""The kernels that image models run, loaded for float32 ahead of the first forward pass.

The first Numba kernel a process runs initializes Numba's compiler context (0.3-1.5 s here,
whether the kernel's code then comes from the disk cache or not), and each kernel's first call
loads or compiles its machine code. `start()` does both in a background thread when the runtime
is imported, while the program goes on building its model; a forward pass that needs a kernel
still being loaded runs the kernel's NumPy twin if it has one (`tiered`), else waits for it
(Numba compiles under one lock). With an empty cache the thread compiles the set once (seconds),
and later processes load it. The first plan compiled waits for the thread (`wait`) while it loads
the set from the cache, so that the loading never competes with forward passes being timed or
served; not once it compiles, which takes seconds that the twins save.
HYBLINT_RUNTIME_PRELOAD=0 turns it off.

A program that ends while the thread still compiles (a short script's one forward pass, in a new
process with an empty cache) would end it inside LLVM, which then aborts the process at exit
(seen: an LLVM assertion, SIGABRT or SIGSEGV after the script's last line). At exit the thread
therefore compiles nothing more and is waited for: at most the kernel it is compiling.
"""
from __future__ import annotations

import atexit
import os
import threading

import numpy as np
from numba.core import event as numba_event

from runtime.kernels import tiered

_started = []
_settled = threading.Event()  # the loading ended, or a kernel missed the cache and is compiling
_exiting = threading.Event()


class _Exiting(Exception):
    """Raised in the loading thread where it would begin a compilation once the program exits."""


class _CompileStarts(numba_event.Listener):
    def on_start(self, event) -> None:
        if _exiting.is_set():
            raise _Exiting()
        tiered.compiling_started()
        _settled.set()

    def on_end(self, event) -> None:
        pass


def common_kernels() -> None:
    """Runs each kernel once on tiny float32 arrays of the types a forward pass gives it."""
    from runtime.kernels import conv, nn, winograd

    f32 = np.float32

    def dense():
        nn.fully_connected(np.ones((1, 4), f32), np.ones((2, 4), f32), np.zeros(2, f32), num_hidden=2)
        nn.fully_connected(np.ones((8, 4), f32), np.ones((2, 4), f32), np.zeros(2, f32), num_hidden=2)

    none = conv.no_residual(f32)
    scale, shift = np.ones(1, f32), np.zeros(1, f32)
    image = np.ones((1, 1, 3, 3), f32)
    out = np.empty((1, 1, 3, 3), f32)
    conv.epilogue_in_place(out, scale, shift, none, conv.RELU)
    compiling = tiered.compiling()
    if compiling:  # the dense kernels have no twin: a forward pass would wait for them, so next
        dense()
    conv.epilogue(np.ones((1, 1, 3, 3), f32), scale, shift, none, conv.RELU, out)
    conv.place(np.ones((1, 9), f32), 0, 0, 3, scale, shift, none, conv.RELU, 3, out)
    conv.depthwise(image, np.ones((1, 3, 3), f32), 1, 1, 1, 1, 1, 1, scale, shift, none, conv.RELU, out)
    conv.depthwise_channels_last(image, np.ones((1, 3, 3), f32), 1, 1, 1, 1, 1, 1, scale, shift, none, conv.RELU, out)
    cols = np.empty((9, 18), f32)
    conv.columns(image, 0, 1, 3, 3, 1, 1, 1, 1, 1, 1, 0, 3, 3, cols[:, :9])  # a slice of the buffer
    conv.columns(image, 0, 1, 3, 3, 1, 1, 1, 1, 1, 1, 0, 3, 3, cols[:9, :])
    weights = np.ones((1, 1, 3, 3), f32)  # Winograd's 3x3 layers, the second call finding the filters kept
    for _ in range(2):
        winograd.convolve(image, weights, 1, 1, scale, shift, none, conv.RELU, out)
    for kernel, stride in ((3, 2), (2, 2)):  # ResNet's, SqueezeNet's and DenseNet's pooling windows
        nn.pooling(np.ones((1, 1, 4, 4), f32), kernel=(kernel, kernel), stride=(stride, stride), pool_type="max")
        nn.pooling(np.ones((1, 1, 4, 4), f32), kernel=(kernel, kernel), stride=(stride, stride), pool_type="avg")
    # the general loop: windows the kernels above do not take (SqueezeNet's 13x13 average)
    nn.pooling(np.ones((1, 1, 4, 4), f32), kernel=(3, 3), stride=(2, 2), pool_type="avg", pooling_convention="full")
    if not compiling:
        dense()
    # a convolution with the max pooling after it, fused (LeNet's, VGG's, SqueezeNet's stem): no
    # twin, last; while these compile, forward passes take the two operators apart
    for geometry in ((3, 3, 1, 1, 0, 0, 1, 1, 4, 4), (3, 3, 2, 2, 1, 1, 1, 1, 3, 3)):  # wide columns, columns
        for kernel, stride in ((3, 2), (2, 2)):
            nn._conv2d(np.ones((1, 1, 6, 6), f32), np.ones((1, 9), f32), np.zeros(1, f32), geometry, 1, True,
                       (kernel, kernel, stride, stride))


def _run() -> None:
    tiered.load_in_this_thread()
    try:
        with numba_event.install_listener("numba:compile", _CompileStarts()):
            common_kernels()
    except Exception:  # a kernel that cannot be built fails again, and is reported, where it is used
        pass
    finally:
        tiered.compile_wanted(stop=_exiting)  # what forward passes met meanwhile, then the loading ends
        _settled.set()


def _finish_at_exit() -> None:
    _exiting.set()
    for thread in _started:
        thread.join()


def start() -> None:
    """Loads the common kernels in a background thread, once per process."""
    if _started or os.environ.get("HYBLINT_RUNTIME_PRELOAD", "1") == "0":
        return
    thread = threading.Thread(target=_run, name="hyblint-kernel-preload", daemon=True)
    _started.append(thread)
    tiered.loading_started()
    atexit.register(_finish_at_exit)
    thread.start()


def wait() -> None:
    """Returns once the background loading (if any) is over, or has begun to compile (the kernels
    then load on, their twins running meanwhile)."""
    if _started:
        _settled.wait()
