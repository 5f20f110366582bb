"""An engine that fails on purpose, for the tests of worker isolation (test_isolation.py).

`install(how)` wraps the real `analyze_project`: a call whose files include
one holding `# STOP`, or two holding `# TOGETHER`, fails as `how` says
(`FAILURES`); any other call is the real engine's. The scripts of those
tests run in a fresh interpreter (workers are forked only from a process
with one thread) and import this module from the tests directory.
"""

from __future__ import annotations

import ctypes
import os
import signal
import time

from ownlint.diagnostics import FileReport
from ownlint.engine.program import project
from ownlint.engine.program.sources import SourceFile


def _allocate() -> None:
    hoard = []
    while True:  # until the worker's memory limit says no
        hoard.append(bytearray(16 << 20))


def _raise_memory_error() -> None:
    raise MemoryError()


FAILURES = {
    "exit": lambda: os._exit(3),
    "kill": lambda: os.kill(os.getpid(), signal.SIGKILL),
    "segfault": lambda: ctypes.string_at(0),
    "hang": lambda: time.sleep(3600),
    "allocate": _allocate,
    "raise": _raise_memory_error,
}


def fails(files: list[SourceFile]) -> bool:
    return any("# STOP" in f.source for f in files) or sum("# TOGETHER" in f.source for f in files) > 1


def install(how: str) -> None:
    real = project.analyze_project

    def failing(files: list[SourceFile], *args: object, **kwargs: object) -> list[FileReport]:
        if fails(files):
            FAILURES[how]()
        return real(files, *args, **kwargs)  # type: ignore[arg-type]

    project.analyze_project = failing  # type: ignore[assignment]
