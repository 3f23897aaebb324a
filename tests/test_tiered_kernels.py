"""Image kernels run their NumPy twins while the kernels load in the background (a new process
with an empty cache): each twin gives the compiled kernel's bits, and the dispatch hands the
types the twins met to the loading thread."""
import itertools
import os
import subprocess
import sys
import threading

import numba
import numpy as np
import pytest
from numba.core import event as numba_event

from runtime.kernels import conv, nn, preload, tiered

RNG = np.random.RandomState(5)


def values(*shape):
    """float32 values with NaN, -0.0, and values near 0 and 6 (where the activations decide)."""
    x = RNG.uniform(-8, 8, shape).astype(np.float32)
    flat = x.reshape(-1)
    picks = RNG.choice(flat.size, size=min(flat.size, max(4, flat.size // 10)), replace=False)
    flat[picks[0::4]] = np.nan
    flat[picks[1::4]] = -0.0
    flat[picks[2::4]] = 6.0
    flat[picks[3::4]] = RNG.uniform(-1e-3, 1e-3, len(picks[3::4]))
    return x


def same_bits(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
    ok = ~np.isnan(a)
    np.testing.assert_array_equal(a[ok].view(np.uint32), b[ok].view(np.uint32))


def both(kernel, *args, out_index=None):
    """(the compiled kernel's result, the twin's) on copies of the same arguments."""
    results = []
    for run in (kernel.compiled, kernel.twin):
        copied = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        value = run(*copied)
        results.append(value if out_index is None else copied[out_index])
    return results


EPILOGUES = list(itertools.product([conv.NONE, conv.RELU, conv.RELU6, conv.RELU_OP], [False, True], [False, True]))


@pytest.mark.parametrize("act,scaled,added", EPILOGUES)
def test_the_epilogue_kernels_twins_give_their_bits(act, scaled, added):
    n, filters, oh, ow = 2, 3, 4, 5
    scale = values(filters) if scaled else np.empty(0, np.float32)
    shift = values(filters)
    residual = values(n, filters, oh, ow) if added else conv.no_residual(np.float32)
    src = values(n, filters, oh, ow)
    compiled, twin = both(conv.epilogue, src, scale, shift, residual, act, np.empty_like(src), out_index=5)
    same_bits(compiled, twin)
    # in place: the same bits as from another array
    same_bits(*both(conv.epilogue_in_place, src, scale, shift, residual, act, out_index=0))
    same_bits(both(conv.epilogue_in_place, src, scale, shift, residual, act, out_index=0)[0], compiled)
    width = ow + 2  # wide rows: each output row takes the first ow of `width` products
    for lo, y0, y1 in ((0, 0, oh), (1, 0, oh), (0, 1, 3), (1, 3, 4)):  # all rows, or a band of them
        products = values(filters, (n - lo) * (y1 - y0) * width)
        same_bits(*both(conv.place, products, lo, y0, y1, scale, shift, residual, act, width,
                        np.zeros((n, filters, oh, ow), np.float32), out_index=9))


@pytest.mark.parametrize("geometry", [(3, 3, 1, 1, 1, 1, 1, 1), (3, 3, 2, 2, 1, 1, 1, 1), (7, 7, 2, 2, 3, 3, 1, 1),
                                      (3, 3, 1, 1, 2, 2, 2, 2), (1, 3, 1, 2, 0, 1, 1, 1)])
def test_the_column_kernels_twin_gives_its_bits(geometry):
    kh, kw, sh, sw, ph, pw, dh, dw = geometry
    x = values(3, 2, 9, 8)
    oh = (9 + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    ow = (8 + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    for lo, hi, y0, y1 in ((0, 3, 0, oh), (1, 3, 0, oh), (0, 1, 1, oh - 1), (2, 3, oh - 1, oh)):
        buffer = np.full((2 * kh * kw, 3 * oh * ow + 5), 7, np.float32)  # a slice of a wider buffer
        compiled, twin = both(conv.columns, x, lo, hi, kh, kw, sh, sw, ph, pw, dh, dw, y0, y1, ow,
                              buffer[:, :(hi - lo) * (y1 - y0) * ow], out_index=14)
        same_bits(compiled, twin)


@pytest.mark.parametrize("act,scaled,added", EPILOGUES[::3])
def test_the_shifted_product_kernels_twins_give_their_bits(act, scaled, added):
    n, c, h, w, filters, kh, kw, ph, pw = 2, 3, 5, 6, 4, 3, 3, 1, 1
    hp, wp = h + 2 * ph, w + 2 * pw
    x = values(n, c, h, w)
    padded = np.full((c, n * hp * wp + kw - 1 + (kh - 1) * wp), 3, np.float32)
    same_bits(*both(conv._pad_images, x, ph, pw, padded, out_index=3))
    products = values(kh * kw * filters, padded.shape[1])
    scale = values(filters) if scaled else np.empty(0, np.float32)
    residual = values(n, filters, h, w) if added else conv.no_residual(np.float32)
    same_bits(*both(conv._sum_taps, products, filters, kh, kw, hp, wp, scale, values(filters), residual, act,
                    np.empty((n, filters, h, w), np.float32), out_index=10))


@pytest.mark.parametrize("window", [(3, 3, 2, 2), (2, 2, 2, 2), (3, 2, 1, 2)])
def test_the_average_pooling_kernels_twin_gives_its_bits(window):
    kh, kw, sh, sw = window
    x = values(2, 3, 9, 8)
    oh, ow = (9 - kh) // sh + 1, (8 - kw) // sw + 1
    compiled, twin = both(nn._average_pool2d, x, (0,) * kh, (0,) * kw, (0,) * sh, (0,) * sw, oh, ow, float(kh * kw))
    same_bits(compiled, twin)


# (kh, kw, sh, sw, ph, pw, oh, ow) over (9, 8) inputs: valid, padded, and "full" windows past the far edge
@pytest.mark.parametrize("geometry", [(3, 3, 2, 2, 1, 1, 5, 4), (2, 2, 2, 2, 0, 0, 5, 4), (3, 2, 1, 2, 1, 0, 9, 4),
                                      (3, 3, 2, 2, 0, 0, 4, 4), (2, 3, 3, 1, 1, 1, 4, 8), (1, 1, 3, 3, 0, 0, 3, 3)])
def test_the_max_pooling_kernels_twin_gives_its_bits(geometry):
    kh, kw, sh, sw, ph, pw, oh, ow = geometry
    x = values(2, 3, 9, 8)
    compiled, twin = both(nn._max_pool2d, x, (0,) * kh, (0,) * kw, sh, sw, ph, pw,
                          np.full((2, 3, oh, ow), 7, np.float32), out_index=7)
    same_bits(compiled, twin)


# (kh, kw, sh, sw, ph, pw, oh, ow) over (9, 8) inputs, for the general loop: "full" windows past
# the far edge, padded ones, and SqueezeNet's whole-map average (a window the others do not take)
@pytest.mark.parametrize("geometry", [(3, 3, 2, 2, 1, 1, 5, 5), (2, 3, 2, 2, 0, 1, 5, 4), (9, 8, 1, 1, 0, 0, 1, 1),
                                      (3, 3, 3, 2, 1, 1, 4, 5), (1, 2, 2, 3, 0, 1, 5, 3)])
@pytest.mark.parametrize("kind", ["max", "avg", "avg_without_padding", "sum"])
def test_the_general_pooling_loops_twin_gives_its_bits(geometry, kind):
    x = values(2, 3, 9, 8)
    x[0, 1] = -0.0  # a whole window of -0.0 sums to 0.0 in both
    flags = (kind == "max", kind != "avg_without_padding", kind == "sum")
    same_bits(*both(nn._pool2d, x, *geometry, *flags))
    integers = RNG.randint(-2 ** 20, 2 ** 20, (2, 3, 9, 8)).astype(np.int32)  # (the loop takes any type)
    if kind == "max":
        integers[1, 2, :3] = np.iinfo(np.int32).min
    compiled, twin = both(nn._pool2d, integers, *geometry, *flags)
    np.testing.assert_array_equal(compiled, twin)


def _double(a, out):
    for i in range(a.shape[0]):
        out[i] = a[i] * 2


@pytest.fixture
def no_loading_thread():
    """The tests below play the loading thread's part: the real one, if it still compiles (a
    kernel missing from the cache), would end their loading under them."""
    for thread in preload._started:
        thread.join()


@pytest.mark.usefixtures("no_loading_thread")
def test_while_the_kernels_compile_a_call_without_machine_code_runs_the_twin_and_leaves_its_types():
    calls = []

    def twin(a, out):
        calls.append("twin")
        out[:] = a * 2

    a, out = np.arange(3.0), np.empty(3)
    tiered.loading_started()
    try:
        loaded = tiered.Tiered(numba.njit(_double), twin)
        loaded(a, out)  # loading from the cache, milliseconds: the compiled kernel, as any
        assert calls == [] and loaded.compiled.overloads
        tiered.compiling_started()  # the loading missed the cache
        kernel = tiered.Tiered(numba.njit(_double), twin)
        kernel(a, out)
        assert calls == ["twin"] and list(out) == [0, 2, 4] and not kernel.compiled.overloads
        kernel(a, out)  # the same types: asked for once
        assert len([k for k, _ in tiered._wanted if k is kernel]) == 1
    finally:
        tiered.compile_wanted()  # as the loading thread does at its end
    assert kernel.compiled.overloads and not tiered._loading.is_set()
    kernel(a + 1, out)
    assert calls == ["twin", "twin"] and list(out) == [2, 4, 6] and kernel.settled


@pytest.mark.usefixtures("no_loading_thread")
def test_a_child_forked_while_the_kernels_load_compiles_where_it_calls():
    tiered.loading_started()
    try:
        pid = os.fork()
        if pid == 0:  # the child: no loading thread
            os._exit(0 if not tiered._loading.is_set() else 1)
        _, status = os.waitpid(pid, 0)
        assert os.WEXITSTATUS(status) == 0
    finally:
        tiered.compile_wanted()


def _triple(a, out):
    for i in range(a.shape[0]):
        out[i] = a[i] * 3


@pytest.mark.usefixtures("no_loading_thread")
def test_once_the_program_exits_the_loading_thread_begins_no_compilation(monkeypatch):
    monkeypatch.setattr(preload, "_exiting", threading.Event())
    preload._exiting.set()
    kernel = numba.njit(_triple)
    with numba_event.install_listener("numba:compile", preload._CompileStarts()):
        with pytest.raises(preload._Exiting):
            kernel(np.arange(3.0), np.empty(3))
    out = np.empty(3)
    kernel(np.arange(3.0), out)  # Numba's compiler lock was released: compiling goes on elsewhere
    assert list(out) == [0, 3, 6]


@pytest.mark.usefixtures("no_loading_thread")
def test_once_the_program_exits_the_kernels_the_twins_met_are_left_uncompiled():
    kernel = tiered.Tiered(numba.njit(_triple), lambda a, out: None)
    tiered.loading_started()
    tiered.compiling_started()
    kernel(np.arange(3.0), np.empty(3))  # the twin runs; the types are wanted
    stop = threading.Event()
    stop.set()
    tiered.compile_wanted(stop=stop)
    assert not kernel.compiled.overloads and not tiered._wanted and not tiered._loading.is_set()


def test_a_program_ending_while_the_kernels_compile_exits_cleanly(tmp_path):
    """A new process with an empty kernel cache runs one forward pass and ends while the loading
    thread still compiles (LLVM aborted such processes at exit, 2 runs in 8 of DenseNet)."""
    script = ("import numpy as np, runtime\n"
              "from runtime.gluon import nn\n"
              "net = nn.HybridSequential()\n"
              "net.add(nn.Conv2D(4, 3, padding=1), nn.BatchNorm(), nn.Activation('relu'), nn.MaxPool2D(2, 2))\n"
              "net.initialize()\n"
              "net.hybridize(static_alloc=True, static_shape=True)\n"
              "net(runtime.nd.array(np.ones((1, 3, 8, 8), np.float32))).wait_to_read()\n")
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path), XDG_CACHE_HOME=str(tmp_path))
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
