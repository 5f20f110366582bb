"""The engine's host: a process that loads the engine early, then runs the
workers of a big run (see `EngineHost`).

This module imports nothing of the engine, nor libcst: the command line
imports it before it has read its configuration.
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
import warnings
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import multiprocessing.process
    from multiprocessing.connection import Connection

    from ownlint.diagnostics import FileReport
    from ownlint.engine.models import ModelSet
    from ownlint.engine.sources import EngineOptions, SourceFile


# files naming modelled calls, read so far, that make `api.check_paths` start a
# host when it was given none: any run that analyses something needs the
# engine, and the host loads it while the rest of the files are read
HOST_MIN_LINES = 2_000


def can_fork() -> bool:
    """Whether worker processes may be forked from this one: on Linux, with no
    other thread running (a thread's locks would be copied mid-use)."""
    import sys
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
    """`load_engine`, in a process that runs nothing but the engine (the host,
    a worker). Nothing more than `load_engine`: libcst is used as it comes."""
    load_engine()


def die_with_parent() -> None:
    """Asks Linux to kill this process when the one that started it ends
    (`PR_SET_PDEATHSIG`), so that a host or a worker still busy with a file
    never outlives its run: whatever kills the run kills them. Ends this
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


class EngineHost:
    """A head start for a big run. Importing the engine (libcst above all)
    takes about 0.2 s, which the workers inherit when they are forked from a
    process that has it. Instead of the main process importing it after
    reading and prefiltering the files, and only then starting the workers,
    a host process is forked early (`start`): it imports the engine while the
    main process still reads and prefilters, then analyses the components it
    is given (`analyze`) in worker processes forked from itself (one, for a
    small set: a file that kills or hangs its worker then costs that file,
    not the host and the run; see `ownlint.workers`), and sends back each
    task's reports as they come. The main process never imports the engine
    then.

    Two places start one, for a run without a cache: `ownlint check
    --no-cache` as soon as it has parsed its options, before it reads its
    configuration (`ownlint.cli`); `ownlint.api.check_paths`, when called
    without a host, once the files it has read name enough modelled calls.
    A host given no work is killed (it has no children yet): on a tree with
    no interop code, the command line's costs up to 0.2 s of CPU time on
    another core, and no wall time. Measured on the dense benchmark corpus:
    without a host, the workers started 0.41 s after the start of the run;
    with one from `check_paths`, 0.33 s; with one from the command line,
    0.23 to 0.28 s, and the run's four processes do 6% fewer instructions
    (cachegrind, 41.2 against 38.9 G; the host and the workers inherit a
    smaller heap then, which is the likely reason, not a proven one).

    Only where workers would be forked anyway (Linux, no other thread
    running: `can_fork`)."""

    def __init__(self, process: "multiprocessing.process.BaseProcess", conn: "Connection") -> None:
        self.process = process
        self.conn = conn
        self.given = False

    @classmethod
    def start(cls, jobs: int | None = None) -> EngineHost | None:
        """A host for `jobs` workers (default: every core), or None where
        workers are not forked."""
        import multiprocessing

        jobs = jobs or default_jobs()
        if jobs <= 1 or not can_fork():
            return None
        context = multiprocessing.get_context("fork")
        here, there = context.Pipe()
        process = context.Process(target=_host_main, args=(there, jobs), name="ownlint engine")
        try:
            process.start()
        except OSError:
            here.close()
            return None
        finally:
            there.close()
        return cls(process, here)

    def analyze(
        self, components: list[list[SourceFile]], models: ModelSet, options: EngineOptions
    ) -> list[list[FileReport]]:
        """What `runner._run` returns, computed by the host; error entries
        for the components it did not report on, if it failed."""
        from ownlint.runner import _failed

        self.given = True
        results: list[list[FileReport] | None] = [None] * len(components)
        try:
            self.conn.send((components, models, options))
            while (finished := self.conn.recv()) is not None:
                if isinstance(finished, str):  # the host failed: why
                    _failed(results, components, finished)
                    break
                indices, blob = finished
                for i, result in zip(indices, pickle.loads(blob)):
                    results[i] = result
        except (EOFError, OSError) as error:
            _failed(results, components, error)
        return [r if r is not None else [] for r in results]

    def close(self) -> None:
        """Ends the host (again: nothing): at once if it was given no work
        (it has no children yet); else when its workers have (seeing this
        end of the pipe closed, if it is still sending)."""
        if not self.given:
            self.process.kill()
            self.given = True
        self.conn.close()
        self.process.join()


class _ParentGone(Exception):
    """The host could not send: the process that started it is gone or stopping."""


def _host_main(conn: "Connection", jobs: int) -> None:
    def send(message: object) -> None:
        try:
            conn.send(message)
        except OSError as error:  # not a worker's failure (which `_run` reports as such)
            raise _ParentGone() from error

    die_with_parent()
    try:
        load_engine_alone()  # inherited by the workers
        import multiprocessing.connection  # noqa: F401  # and what the pool needs
        from ownlint.runner import _run

        components, models, options = conn.recv()
        try:
            _run(components, models, options, jobs, lambda indices, blob: send((indices, blob)))
        except _ParentGone:
            raise
        except Exception as error:  # said as `api._isolated_analysis` would say it
            send(" ".join(f"{type(error).__name__}: {error}".split()))
        send(None)
    except (_ParentGone, EOFError, OSError, KeyboardInterrupt):
        pass  # the parent is gone or stopping: so is the host
