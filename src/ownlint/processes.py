"""What the runner and its worker processes need of the operating system:
whether workers may be forked (`can_fork`), how many (`default_jobs`),
the engine loaded quietly (`load_engine`), a worker that ends with its
parent (`die_with_parent`), a Ctrl-C that waits until a worker has started
(`interrupt_deferred`), and workers that never import from the
checked tree (`own_import_path`, `clean_start`).

Analysed code never runs: a process of ownlint imports only from ownlint's
own environment, never from the current directory (which is usually the
checked tree, and may hold a `multiprocessing.py` or a `threading.py`).
`python -m ownlint` drops the current directory from its path before it
imports anything (`ownlint.__main__`); a forked worker drops it again
(`own_import_path`, in case ownlint was started another way); a fresh
interpreter (spawn, and multiprocessing's resource tracker) is started
under `clean_start`, which is what keeps the current directory off its
path before its first import: `-c`, as multiprocessing starts it, would
put it first.

This module imports nothing of the engine, nor libcst, until asked to.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import warnings
from collections.abc import Iterator, Sequence
from types import ModuleType

_STARTING = threading.Lock()  # `clean_start` changes the process's path and environment for a moment
_STDLIB = os.path.dirname(os.__file__)


def own_import_path(path: Sequence[str]) -> list[str]:
    """`path` without the entries that stand for the current directory: `""`
    (as `python -c` puts first) and the directory itself (as `python -m`
    and `PYTHONPATH=.` put it). The other entries (the standard library,
    site-packages, an editable install of ownlint) are ownlint's own
    environment and stay, in their order."""
    here = os.path.realpath(os.getcwd())
    return [entry for entry in path if entry and os.path.realpath(entry) != here]


@contextlib.contextmanager
def clean_start() -> Iterator[None]:
    """While it lasts, a Python interpreter started from this process by
    multiprocessing (a spawned worker, its resource tracker) imports nothing
    from the current directory. Multiprocessing starts one as `python -c
    "from multiprocessing.spawn import spawn_main; ..."`, which puts the
    current directory first on its path for that very import; then it sets
    the path to this process's (`sys.path`). So, for the moment of the
    start: this process's path is `own_import_path`'s, and the new
    interpreter does not put the current directory on its path
    (`PYTHONSAFEPATH`, Python 3.11 and later; on 3.10, which lacks it, this
    process waits in the standard library's directory instead, so that what
    `-c` puts first is the standard library itself).

    Not for a forked process (nothing is started afresh; `own_import_path`
    is applied in the worker). One start at a time (a lock): the path, the
    environment and, on 3.10, the working directory are the process's."""
    with _STARTING:
        path = sys.path[:]
        safe = os.environ.get("PYTHONSAFEPATH")
        here = os.getcwd() if sys.version_info < (3, 11) else None
        sys.path[:] = own_import_path(path)
        os.environ["PYTHONSAFEPATH"] = "1"
        if here is not None:
            os.chdir(_STDLIB)
        try:
            yield
        finally:
            if here is not None:
                os.chdir(here)
            if safe is None:
                del os.environ["PYTHONSAFEPATH"]
            else:
                os.environ["PYTHONSAFEPATH"] = safe
            sys.path[:] = path


@contextlib.contextmanager
def interrupt_deferred() -> Iterator[None]:
    """A Ctrl-C (SIGINT) while it lasts takes effect when it ends, as a
    KeyboardInterrupt raised there. For starting a process: multiprocessing
    makes its bookkeeping of a new process (a `Finalize` for its pipe, its
    shared memory) in steps, and an interrupt between two of them leaves one
    half made, which prints "Exception ignored in: <Finalize object, dead>"
    and a traceback when it dies. Python runs signal handlers in the main
    thread only; in another thread, or where SIGINT is not Python's default
    handler (someone else's), this does nothing."""
    if threading.current_thread() is not threading.main_thread() or (
        signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    ):
        yield
        return
    seen: list[int] = []
    signal.signal(signal.SIGINT, lambda number, frame: seen.append(number))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if seen:
        raise KeyboardInterrupt


def can_fork() -> bool:
    """Whether worker processes may be forked from this one: on Linux, with no
    other thread running (a thread's locks would be copied mid-use)."""
    return sys.platform.startswith("linux") and threading.active_count() == 1


def load_engine() -> ModuleType:
    """`ownlint.engine.program.project`, imported (libcst with it) without libcst's
    import-time DeprecationWarnings, which are not the user's concern."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from ownlint.engine.program import project
    return project


def load_engine_alone() -> None:
    """`load_engine`, in a process that runs nothing but the engine (a
    worker). Nothing more than `load_engine`: libcst is used as it comes."""
    load_engine()


def die_with_parent() -> None:
    """Asks Linux to kill this process when the one that started it ends
    (`PR_SET_PDEATHSIG`), so that a worker still busy with a file never
    outlives its run: whatever kills the run kills it. Ends this
    process at once if its parent is already gone. Nothing elsewhere."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes
    import multiprocessing

    try:
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # 1: PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    parent = multiprocessing.parent_process()
    if parent is not None and os.getppid() != parent.pid:  # it ended before the call
        os._exit(0)


def default_jobs() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)
