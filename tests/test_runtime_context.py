"""Contexts: the current one per thread, and MXNet 1.9.1's deprecated Context.default_ctx (read by
its own tests and older code) answering the current context with a DeprecationWarning."""
import threading

import pytest

from runtime.context import Context, cpu, current_context


def test_default_ctx_is_the_current_context_with_a_warning():
    with pytest.warns(DeprecationWarning, match="default_ctx has been deprecated"):
        assert Context.default_ctx == cpu(0)
    with cpu(3):
        with pytest.warns(DeprecationWarning):
            assert Context.default_ctx == cpu(3) == current_context()


def test_the_current_context_is_per_thread():
    seen = []
    with cpu(5):
        thread = threading.Thread(target=lambda: seen.append(current_context()))
        thread.start()
        thread.join()
        assert current_context() == cpu(5)
    assert seen == [cpu(0)]
