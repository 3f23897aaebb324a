"""Choices between equivalent kernels made by timing them in place (runtime/kernels/measured.py)."""
import json

import numpy as np
import pytest

from runtime.kernels import conv, measured, tiered, winograd


@pytest.fixture
def fresh(monkeypatch, tmp_path):
    """An empty store of choices in a folder of the test's own, trials on, the kernels loaded."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(measured, "_chosen", {})
    monkeypatch.setattr(measured, "_stored", {})
    monkeypatch.setattr(measured, "_trials", {})
    monkeypatch.setattr(measured, "_loaded", False)
    monkeypatch.setattr(measured, "_measuring", True)
    monkeypatch.setattr(tiered, "loading", lambda: False)
    return tmp_path


def new_process(monkeypatch):
    for name, value in (("_chosen", {}), ("_stored", {}), ("_loaded", False)):
        monkeypatch.setattr(measured, name, value)


class Clock:
    """perf_counter for `measured`: each method's runs take the seconds given for it."""

    def __init__(self, monkeypatch, seconds):
        self.now, self.seconds, self.running = 0.0, seconds, None
        monkeypatch.setattr(measured.time, "perf_counter", self)

    def __call__(self):
        if self.running is not None:
            self.now += self.seconds[self.running]
        return self.now

    def run(self, log):
        def run(method):
            self.running = method
            log.append(method)
            return "result of " + method
        return run


def test_calls_take_turns_until_each_method_ran_its_trials_then_the_fastest_stays(fresh, monkeypatch):
    clock = Clock(monkeypatch, {"a": 3.0, "b": 1.0, "c": 2.0})
    log = []
    results = [measured.fastest(("k", 1), ["a", "b", "c"], clock.run(log)) for _ in range(3 * measured.TRIALS + 4)]
    assert log[:3 * measured.TRIALS] == ["a", "b", "c"] * measured.TRIALS  # one method per call
    assert log[3 * measured.TRIALS:] == ["b"] * 4
    assert results == ["result of " + m for m in log]  # each call's result is its own method's
    assert measured.chosen(("k", 1)) == "b"


def test_the_quickest_run_decides_not_the_average(fresh, monkeypatch):
    times = iter([5.0, 2.0, 1.0, 2.0, 9.0, 2.0])  # a: 5, 1, 9 (one quick run); b: 2, 2, 2
    monkeypatch.setattr(measured, "TRIALS", 3)
    now = [0.0]

    def clock():
        return now[0]

    def run(method):
        now[0] += next(times)
        return method
    monkeypatch.setattr(measured.time, "perf_counter", clock)
    for _ in range(6):
        measured.fastest("k", ["a", "b"], run)
    assert measured.chosen("k") == "a"


def test_a_method_that_refuses_the_arguments_leaves_the_trials_and_the_call_gets_another(fresh, monkeypatch):
    clock = Clock(monkeypatch, {"a": 1.0, "b": 2.0})
    log = []

    def run(method):
        log.append(method)
        return None if method == "a" else clock.run([])(method)
    assert measured.fastest("k", ["a", "b"], run) == "result of b"
    for _ in range(measured.TRIALS):
        measured.fastest("k", ["a", "b"], run)
    assert log.count("a") == 1 and measured.chosen("k") == "b"


def test_a_choice_is_kept_on_disk_for_the_next_process_on_the_same_machine(fresh, monkeypatch):
    clock = Clock(monkeypatch, {"a": 2.0, "b": 1.0})
    for _ in range(2 * measured.TRIALS):
        measured.fastest(("conv", (1, 2)), ["a", "b"], clock.run([]))
    new_process(monkeypatch)
    log = []
    measured.fastest(("conv", (1, 2)), ["a", "b"], clock.run(log))
    assert log == ["b"]
    saved = json.loads(measured._path().read_text())
    assert saved == {measured._machine(): {repr(("conv", (1, 2))): "b"}}
    # another machine's choices are not this one's
    new_process(monkeypatch)
    monkeypatch.setattr(measured, "_machine", lambda: "another CPU, 64 cpus, 64 blas threads")
    assert measured.chosen(("conv", (1, 2))) is None


def test_an_unreadable_store_is_measured_again_and_rewritten(fresh, monkeypatch):
    path = measured._path()
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    clock = Clock(monkeypatch, {"a": 1.0, "b": 2.0})
    for _ in range(2 * measured.TRIALS):
        measured.fastest("k", ["a", "b"], clock.run([]))
    assert json.loads(path.read_text())[measured._machine()] == {"'k'": "a"}


def test_while_the_kernels_load_and_with_measuring_off_the_preferred_method_runs(fresh, monkeypatch):
    log = []
    run = Clock(monkeypatch, {"a": 2.0, "b": 1.0}).run(log)
    monkeypatch.setattr(tiered, "loading", lambda: True)
    for _ in range(4):
        measured.fastest("k", ["a", "b"], run)
    monkeypatch.setattr(tiered, "loading", lambda: False)
    monkeypatch.setattr(measured, "_measuring", False)
    measured.fastest("k", ["a", "b"], run)
    assert log == ["a"] * 5 and measured.chosen("k") is None and not measured._path().exists()


def test_a_convolution_gets_each_methods_result_and_they_agree(fresh):
    rng = np.random.RandomState(0)
    x = rng.uniform(-1, 1, (1, 64, 9, 9)).astype(np.float32)
    weight = rng.uniform(-1, 1, (32, 64 * 9)).astype(np.float32)
    none, empty, shift = conv.no_residual(np.float32), np.empty(0, np.float32), np.zeros(32, np.float32)
    geometry = (3, 3, 1, 1, 1, 1, 1, 1, 9, 9)
    outputs = [conv.conv2d(x, weight, geometry, 1, empty, shift, none, conv.NONE).copy()
               for _ in range(3 * measured.TRIALS)]
    assert measured.chosen(conv._key(x, 32, geometry)) in ("winograd", "shifted", "columns")
    for out in outputs[1:]:
        np.testing.assert_allclose(out, outputs[0], rtol=1e-4, atol=1e-4)
    assert len({out.tobytes() for out in outputs[:3]}) > 1  # three methods: three roundings


def test_the_methods_tried_on_a_layer(fresh, monkeypatch):
    tried = {}
    monkeypatch.setattr(measured, "fastest", lambda key, methods, run: tried.setdefault(key[1:5], list(methods)))
    none = conv.no_residual(np.float32)
    for n, c, size, filters, k in ((1, 128, 14, 32, 3), (1, 64, 14, 64, 3), (1, 8, 14, 64, 3), (1, 512, 14, 512, 3),
                                   (1, 64, 14, 64, 5), (64, 64, 56, 256, 3)):
        x = np.ones((n, c, size, size), np.float32)
        conv.conv2d(x, np.ones((filters, c * k * k), np.float32), (k, k, 1, 1, 1, 1, 1, 1, size + 2 - k + 1,
                    size + 2 - k + 1), 1, np.empty(0, np.float32), np.zeros(filters, np.float32), none, conv.NONE)
    assert tried == {
        ((1, 128, 14, 14), "f", 32, 3): ["winograd", "shifted", "columns"],  # few filters
        ((1, 64, 14, 14), "f", 64, 3): ["winograd", "columns", "shifted"],
        ((1, 8, 14, 14), "f", 64, 3): ["columns", "shifted"],  # too few channels for Winograd
        ((1, 512, 14, 14), "f", 512, 3): ["columns", "shifted"],  # too many filters to keep
        ((1, 64, 14, 14), "f", 64, 5): ["columns", "shifted"],
        ((64, 64, 56, 56), "f", 256, 3): ["winograd", "columns"],  # shifted: too much memory
    }
    assert winograd.takes(64, 64) and not winograd.takes(8, 64)
    # the order before measuring: Winograd first where it paid on a Zen 4, last where it did not
    assert winograd.pays(1, 128, 32, 14, 14) and not winograd.pays(1, 64, 64, 7, 7)


def test_while_the_kernels_load_the_column_method_goes_first(fresh, monkeypatch):
    tried = []
    monkeypatch.setattr(measured, "fastest", lambda key, methods, run: tried.append(list(methods)))
    monkeypatch.setattr(tiered, "loading", lambda: True)  # twins run: columns' are the cheapest
    x = np.ones((1, 64, 14, 14), np.float32)
    conv.conv2d(x, np.ones((64, 64 * 9), np.float32), (3, 3, 1, 1, 1, 1, 1, 1, 14, 14), 1, np.empty(0, np.float32),
                np.zeros(64, np.float32), conv.no_residual(np.float32), conv.NONE)
    assert tried == [["columns", "winograd", "shifted"]]
