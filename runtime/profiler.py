"""`mxnet.profiler` with MXNet's API. This runtime records no profile: configuration and state are
kept (so code that sets and reads them runs), and the dumps are empty tables."""
from __future__ import annotations

import contextlib

_settings = {"state": "stop", "paused": False, "config": {}}


def set_config(**kwargs) -> None:
    _settings["config"].update(kwargs)


def profiler_set_config(mode="symbolic", filename="profile.json") -> None:
    set_config(profile_symbolic=mode in ("symbolic", "all"), profile_all=mode == "all", filename=filename)


def set_state(state="stop", profile_process="worker") -> None:
    if state not in ("run", "stop"):
        raise ValueError("state must be 'run' or 'stop', got %r" % (state,))
    _settings["state"] = state


profiler_set_state = set_state


def state() -> str:
    return _settings["state"]


def dump(finished=True, profile_process="worker") -> None:
    """Nothing was profiled: no file is written."""


def dump_profile() -> None:
    dump(True)


def dumps(reset=False, format="table", sort_by="total", ascending=False) -> str:
    if format not in ("table", "json"):
        raise ValueError("format must be 'table' or 'json', got %r" % (format,))
    return "{}" if format == "json" else ""


def pause(profile_process="worker") -> None:
    _settings["paused"] = True


def resume(profile_process="worker") -> None:
    _settings["paused"] = False


class Domain:
    def __init__(self, name):
        self.name = name

    def __str__(self) -> str:
        return self.name

    def new_task(self, name):
        return Task(self, name)

    def new_frame(self, name):
        return Frame(self, name)

    def new_counter(self, name, value=None):
        return Counter(self, name, value)

    def new_marker(self, name):
        return Marker(self, name)


class _Span:
    """A named interval: start()/stop(), or a context manager."""

    def __init__(self, domain, name):
        self.domain, self.name = domain, name

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()

    def __str__(self) -> str:
        return self.name


class Task(_Span):
    pass


class Frame(_Span):
    pass


class Event(_Span):
    def __init__(self, name):
        super().__init__(None, name)


class Counter:
    def __init__(self, domain, name, value=None):
        self.domain, self.name = domain, name
        self.value = value or 0

    def set_value(self, value) -> None:
        self.value = value

    def increment(self, delta=1) -> None:
        self.value += delta

    def decrement(self, delta=1) -> None:
        self.value -= delta

    def __iadd__(self, delta):
        self.increment(delta)
        return self

    def __isub__(self, delta):
        self.decrement(delta)
        return self

    def __str__(self) -> str:
        return self.name


class Marker:
    def __init__(self, domain, name):
        self.domain, self.name = domain, name

    def mark(self, scope="process") -> None:
        pass


@contextlib.contextmanager
def scope(name="<unk>:", append_mode=False):
    yield
