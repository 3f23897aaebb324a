"""Recording and training modes. Gradients are not computed by this runtime: `record()` only
switches operators such as Dropout and BatchNorm into training behaviour, as MXNet does."""
from __future__ import annotations

import contextlib
import threading

class _State(threading.local):
    # class attributes are every thread's defaults: reading them costs less than getattr's default
    training = False
    recording = False


_state = _State()


def is_training() -> bool:
    return _state.training


def is_recording() -> bool:
    return _state.recording


def set_training(train_mode: bool) -> bool:
    previous = is_training()
    _state.training = bool(train_mode)
    return previous


def set_recording(is_record: bool) -> bool:
    previous = is_recording()
    _state.recording = bool(is_record)
    return previous


@contextlib.contextmanager
def _scope(recording, training):
    old = (is_recording(), is_training())
    if recording is not None:
        _state.recording = recording
    if training is not None:
        _state.training = training
    try:
        yield
    finally:
        _state.recording, _state.training = old


def record(train_mode: bool = True):
    return _scope(True, train_mode)


def pause(train_mode: bool = False):
    return _scope(False, train_mode)


def train_mode():
    return _scope(None, True)


def predict_mode():
    return _scope(None, False)
