"""Worker processes hold a second job while they work on one; large jobs and large results in
both directions at once must not deadlock the two ends of the pipe."""
import signal

import pytest

from hyblint.workers import Worker, start_context, wait_for_any


def _echo_twice(text):
    return text + text  # a result larger than what was sent


def _nothing():
    pass


@pytest.fixture
def deadline():
    """Ends a worker that is still at it after a minute (both ends blocked on each other), so that
    the test fails instead of hanging."""
    workers = []

    def timed_out(*_):
        for worker in workers:
            worker.process.kill()
        raise TimeoutError("the worker and this process blocked each other")
    previous = signal.signal(signal.SIGALRM, timed_out)
    signal.alarm(60)
    yield workers
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_two_large_jobs_in_flight_and_large_results_do_not_deadlock(method, monkeypatch, deadline):
    monkeypatch.setenv("HYBLINT_START_METHOD", method)
    worker = Worker(start_context(), _nothing, "check", capacity=2)
    deadline.append(worker)
    try:
        assert not worker.has_room  # starting
        assert wait_for_any([worker]) == [worker] and worker.receive()[1] is None
        texts = ["a" * 4_000_000, "b" * 4_000_000, "c" * 10]
        sent = []
        answers = []
        while texts or worker.job is not None:
            while worker.has_room and texts:
                text = texts.pop(0)
                sent.append(text[0])
                worker.send(_echo_twice, text, text[0])
            assert len(worker.jobs) <= 2
            for ready in wait_for_any([worker]):
                job, value = ready.receive()
                answers.append((job, len(value)))
        assert answers == [("a", 8_000_000), ("b", 8_000_000), ("c", 20)]
    finally:
        worker.stop()
