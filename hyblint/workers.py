"""Worker processes of two kinds, fed one job at a time over pipes.

A check has two halves: triage (syntax, screening) needs no libcst, the rest does, and importing
libcst costs a process as much as screening a whole corpus. So a run keeps screeners, which never
import it, and checkers, which import it once when they start, and forks all of them before any
thread exists in this process (forking a threaded process can deadlock the child, which is why
this is not a concurrent.futures pool: those start a thread per pool).

A worker may hold several jobs, so that the next one is there the moment it finishes one (this
process answers only between jobs of its own). Jobs and replies travel on two pipes, each wide
enough for what a worker holds (`JOB_PIPE_BYTES`), and a thread in the worker takes the jobs off
theirs: a send here does not wait on the worker's work, nor a reply on this process's, and neither
side waits on the other's full pipe.
"""
from __future__ import annotations

import os
import pickle
import queue
import signal
import sys
import threading
from collections import deque
TYPE_CHECKING = False  # (typing itself is not imported: see below)

if TYPE_CHECKING:  # (the console script imports this module before anything else: kept light)
    from typing import Any, Callable, Dict, List, Optional, Tuple


class WorkerError(RuntimeError):
    """A job failed in a worker; the message holds the worker's traceback."""


def _read_jobs(connection, inbox: "queue.SimpleQueue") -> None:
    """Takes every job off the pipe as it comes, unread: unpickling a job may import its function's
    module, which the worker's own thread does, after its initializer (what the initializer imports
    under a cache role of `compiled_once` would otherwise be imported by this thread meanwhile,
    under whichever role is in place)."""
    try:
        while True:
            inbox.put(connection.recv_bytes())
    except (EOFError, OSError):
        inbox.put(None)


def _serve(connections, initializer: Callable[[], None]) -> None:
    # Ctrl-C is the parent's to handle: it stops the workers; a worker whose parent is gone sees
    # its pipe closed and ends
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    jobs, connection = connections
    inbox: "queue.SimpleQueue" = queue.SimpleQueue()
    threading.Thread(target=_read_jobs, args=(jobs, inbox), daemon=True).start()
    initializer()
    try:
        connection.send((True, None))  # ready: what a job costs from now on is its own
        while True:
            data = inbox.get()
            message = None if data is None else pickle.loads(data)
            if message is None:
                return
            function, argument = message
            try:
                reply = (True, function(argument))
            except Exception:
                import traceback
                reply = (False, traceback.format_exc())
            connection.send(reply)
    except (EOFError, OSError):
        return


STARTING = "starting"
# The size of a worker's job pipe: Linux lets any process widen a pipe to 1 MiB, which holds all
# the work a worker is given ahead (`lint.QUEUED_WORK`). The worker's reading thread runs only
# when its own thread lets go of the interpreter, which a long parse does not: with the default
# 64 KiB, sending a large file waited for it (on the public corpus, up to 60 ms of this process's
# time in one run).
JOB_PIPE_BYTES = 1 << 20


class Worker:
    def __init__(self, context, initializer: Callable[[], None], kind: str):
        self.kind = kind
        jobs_end, self.jobs_connection = context.Pipe(duplex=False)  # (receiving, sending)
        self.connection, replies_end = context.Pipe(duplex=False)
        _widen(self.jobs_connection)
        _widen(self.connection)  # (and a worker's reply waits no more for this process's work)
        self.process = context.Process(target=_serve, args=((jobs_end, replies_end), initializer), daemon=True)
        self.process.start()
        jobs_end.close()
        replies_end.close()
        # the jobs sent and not yet answered, oldest first; it starts busy with its initializer
        self.jobs: deque = deque([STARTING])

    @property
    def job(self) -> Optional[Any]:
        """The job it is working on (STARTING while it starts), None when idle."""
        return self.jobs[0] if self.jobs else None

    def send(self, function: Callable, argument: Any, job: Any) -> None:
        self.jobs.append(job)
        self.jobs_connection.send((function, argument))

    def receive(self) -> Tuple[Any, Any]:
        """(the job, its result) of the oldest job sent; raises WorkerError for a failed job."""
        try:
            ok, value = self.connection.recv()
        except (EOFError, OSError) as exc:
            raise WorkerError("a worker process ended unexpectedly (%s)" % exc) from None
        job = self.jobs.popleft()
        if not ok:
            raise WorkerError(value)
        return job, value

    def stop(self) -> None:
        if self.job is STARTING:
            self.process.terminate()  # still importing, for a run that turned out not to need it
        else:
            try:
                self.jobs_connection.send(None)
            except OSError:
                pass
        self.jobs_connection.close()
        self.connection.close()
        self.process.join(timeout=1)
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(timeout=1)


def _widen(connection) -> None:
    try:
        import fcntl
        fcntl.fcntl(connection.fileno(), fcntl.F_SETPIPE_SZ, JOB_PIPE_BYTES)
    except (ImportError, AttributeError, OSError):
        pass  # not Linux, or a lower limit set for this machine: a send may wait a little


# Overrides how workers start ("fork", "spawn", "forkserver"), to test spawn where fork is the default.
START_METHOD_VARIABLE = "HYBLINT_START_METHOD"


def start_method() -> str:
    """fork on Linux: a worker starts with what this process has imported, in milliseconds. spawn
    elsewhere: macOS's system libraries are not safe to use in a forked child, and Windows has no
    fork; everything a worker needs then travels to it pickled."""
    import multiprocessing
    methods = multiprocessing.get_all_start_methods()
    chosen = os.environ.get(START_METHOD_VARIABLE, "")
    if chosen in methods:
        return chosen
    if chosen:
        print("hyblint: warning: %s=%s is not a start method here (%s); using the default"
              % (START_METHOD_VARIABLE, chosen, ", ".join(methods)), file=sys.stderr)
    return "fork" if sys.platform.startswith("linux") and "fork" in methods else "spawn"


def start_context():
    # multiprocessing is imported here, when workers start: a warm run that needs none would
    # spend a tenth of its time importing it
    import multiprocessing
    return multiprocessing.get_context(start_method())


def run_all(initializers) -> None:
    """Several initializers as one (a module-level function, so that spawn can pickle it)."""
    for initializer in initializers:
        initializer()


def wait_for_any(workers: List[Worker], timeout: Optional[float] = None) -> List[Worker]:
    """The busy workers that have finished their job (blocks until one has, or `timeout` passes)."""
    from multiprocessing.connection import wait
    busy: Dict[Any, Worker] = {w.connection: w for w in workers if w.job is not None}
    return [busy[connection] for connection in wait(list(busy), timeout)] if busy else []
