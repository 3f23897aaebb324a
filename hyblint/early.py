"""The console script's first step: a check of a large tree starts its checker processes at once.

A checker imports libcst and the check's own modules before it has any work. Started before this
process imports anything of its own (the command line's parser, the configuration, discovery,
triage), it does so while this process does the same, on the other CPU: only `workers` and
multiprocessing are imported first, and this module is kept to what that needs. Whether the
command line is such a check is guessed from its words before it is parsed: a run that turns out
small, or that a cache answers, stops the checkers unused (`lint.lint_files` takes them).
"""
from __future__ import annotations

import gc
import os
import sys
TYPE_CHECKING = False  # (typing itself is not imported: see below)

if TYPE_CHECKING:  # (nothing but what starting a worker needs is imported before it starts)
    from typing import List, Sequence
COMMANDS = ("check", "rule", "verify", "lsp", "clean")
# The results cache's folder, and the variable that moves it (`hyblint.cache` reads them here).
CACHE_FOLDER = ".hyblint_cache"
CACHE_DIR_VARIABLE = "HYBLINT_CACHE_DIR"
# What makes a command line anything but a check of files on disk.
_NOT_A_TREE = ("-", "--stdin-filename", "--show-files", "--show-settings", "-h", "--help", "--version")
# Options with which a check reads no cache.
_UNCACHED = ("--no-cache", "-n", "--fix", "--fix-only", "--diff", "--add-noqa")

_CHECKERS: "List" = []  # the checker processes started here, until a check takes them


def entry() -> None:
    """The console script and `python -m hyblint`."""
    if workers_pay(sys.argv[1:]):
        # a check: the process ends with it (`cli.main` turns the cycle collector off for the same
        # reason), and its imports and the checkers', a few thousand classes and functions, would
        # only be scanned by it again and again
        gc.disable()
        start_checkers()
    from hyblint import compiled_once
    compiled_once.begin("main")  # (ended by `cli.entry`, before the process exits)
    from hyblint.cli import entry as run_command
    run_command()


def workers_pay(argv: Sequence[str]) -> bool:
    """Whether the command line (before parsing) looks like a check of a directory that no cache
    answers: its checkers may then start at once. A guess, which a small run undoes; a cache that
    exists may be warm, and a warm run needs no worker at all."""
    if argv and argv[0] in COMMANDS and argv[0] != "check":
        return False
    if any(arg in _NOT_A_TREE or arg.startswith("--stdin-filename=") for arg in argv):
        return False
    named = [arg for arg in argv[1 if argv and argv[0] == "check" else 0:] if not arg.startswith("-")]
    folders = [os.path.abspath(arg) for arg in named if os.path.isdir(arg)] if named else [os.getcwd()]
    if not folders:
        return False
    if any(arg in _UNCACHED for arg in argv):
        return True
    if os.environ.get(CACHE_DIR_VARIABLE) or any(arg.startswith("--cache-dir") for arg in argv):
        return False
    # (a project's cache is in its root, above the folders checked, or else in the current one)
    for folder in folders + [os.getcwd()]:
        while True:
            if os.path.isdir(os.path.join(folder, CACHE_FOLDER)):
                return False
            parent = os.path.dirname(folder)
            if parent == folder:
                break
            folder = parent
    return True


def checker_count() -> int:
    """Checkers for a run on this machine: half of its CPUs (at most eight in all), at least one;
    none on one CPU, where a check runs in this process."""
    count = min(os.cpu_count() or 1, 8)
    return max(1, count // 2) if count > 1 else 0


def start_checkers() -> None:
    if _CHECKERS:
        return
    from hyblint.workers import Worker, start_context
    context = start_context()
    try:
        for _ in range(checker_count()):
            _CHECKERS.append(Worker(context, start_checker, "check"))
    except OSError:  # no process to be had now (a limit reached): the check starts its own, or says why
        stop_checkers()


def start_checker() -> None:
    """A checker's start: everything a check needs imported, libcst first of all (module-level,
    so that a spawned process can be given it)."""
    # Checking builds many short-lived trees without reference cycles; the cycle collector would
    # only scan them again and again. A worker lives for one run.
    gc.disable()
    from hyblint.compiled_once import compiled_once
    with compiled_once("checker"):
        import hyblint.engine  # noqa: F401
        import hyblint.lint  # noqa: F401


def take_checkers() -> List:
    """The checkers started here (the caller runs or stops them), or none."""
    taken = list(_CHECKERS)
    _CHECKERS.clear()
    return taken


def stop_checkers() -> None:
    for checker in take_checkers():
        checker.stop()
