"""What the runner and its worker processes need of the operating system:
whether workers may be forked (`can_fork`), how many (`default_jobs`),
the engine loaded quietly (`load_engine`), and a worker that ends with its
parent (`die_with_parent`).

This module imports nothing of the engine, nor libcst, until asked to.
"""

from __future__ import annotations

import os
import signal
import sys
import warnings
from types import ModuleType


def can_fork() -> bool:
    """Whether worker processes may be forked from this one: on Linux, with no
    other thread running (a thread's locks would be copied mid-use)."""
    import threading

    return sys.platform.startswith("linux") and threading.active_count() == 1


def load_engine() -> ModuleType:
    """`ownlint.engine.project`, imported (libcst with it) without libcst's
    import-time DeprecationWarnings, which are not the user's concern."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from ownlint.engine import project
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
