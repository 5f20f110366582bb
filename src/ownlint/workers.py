"""Worker processes: a small pool that can lose one worker without losing the run.

Each worker analyses one task at a time (a list of pieces, each a list of
files analysed together) and sends back the reports, pickled. While it works
it writes into shared memory which piece it is on, so that when it dies (a
signal, `os._exit`, a crash in native code, the OOM killer) or is killed
for running past its time limit, its parent knows which piece it was
analysing; the caller (`ownlint.runner`) decides what to run again.

Two limits, the last resort against a file the engine cannot finish (the
engine's own step budgets come first, and give the same result on every
machine; these do not):

- memory: a worker may grow by `WORKER_MEMORY` (2 GiB; half the machine's
  memory where that is less) beyond what it was forked with, as
  `RLIMIT_DATA` (what malloc and Python's allocator take), so that a
  runaway analysis raises MemoryError in that worker instead of bringing
  the OOM killer to the machine (libcst's native parser aborts instead:
  SIGABRT, after one line on standard error from its allocator). Linux
  only; a normal task needs far less
  (about 2 KiB a line: a process that analysed the 51,000 lines of the
  dense benchmark corpus as one component peaked at 155 MiB);
- time: a task gets `TASK_SECONDS` plus `TASK_SECONDS_PER_LINE` for each
  of its lines (30 s + 10 ms a line, about a hundred times what the
  analysis needs), measured in the parent from when the task is sent;
  then the worker is killed.

A worker dies with the process that started it (`processes.die_with_parent`):
one stuck on a file never outlives a run that was killed. It imports
nothing from the current directory, however it was started
(`processes.clean_start`, `processes.own_import_path`).

As it works, a worker also counts in shared memory the files of its task
whose analysis is over (`analysed`, which the engine is given); its parent
reads the count every `PROGRESS_SECONDS` and passes it on, so that a
progress bar advances within one long task: one integer written per file,
no message.

`ProcessPoolExecutor` cannot kill one worker, and after one dies it fails
every task it has; hence this pool. Like the runner, it does not import
libcst.
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar

from ownlint.engine.frontend import prefilter
from ownlint.processes import clean_start, die_with_parent, interrupt_deferred, load_engine_alone, own_import_path

if TYPE_CHECKING:
    import multiprocessing.context
    import multiprocessing.process
    from collections import deque
    from ctypes import c_int
    from multiprocessing.connection import Connection

    from ownlint.diagnostics import FileReport
    from ownlint.engine.modelling.models import ModelSet
    from ownlint.engine.program.sources import EngineOptions, SourceFile

    Analyze = Callable[[list[SourceFile], ModelSet, EngineOptions], list[FileReport]]

WORKER_MEMORY = 2 << 30  # bytes a worker may grow by (see the module's docstring)
TASK_SECONDS = 30.0
TASK_SECONDS_PER_LINE = 0.010
PROGRESS_SECONDS = 0.1  # how often a parent that follows the progress looks at its workers' counts

_memory_limit: int | None = None  # in a worker: what it may grow by, once set
_finished: c_int | None = None  # in a worker: files of its task analysed so far, read by its parent


@dataclass(frozen=True, slots=True)
class Done:
    """A finished task: its reports, a list per piece, pickled by the worker
    in `_work`, where a MemoryError or another failure while pickling is
    caught as one in the analysis is; the runner unpickles them."""

    reports: bytes


@dataclass(frozen=True, slots=True)
class Stopped:
    """A task its worker did not finish: `reason` (one line) stopped it while
    it analysed piece `piece` of the task (None: not known)."""

    piece: int | None
    reason: str


@dataclass(frozen=True, slots=True)
class _Broken:
    """The worker failed outside of any piece's analysis: a bug in ownlint."""

    reason: str


class WorkerError(Exception):
    """A worker failed outside of any piece's analysis: a bug in ownlint, which
    fails the run as an exception in one process would."""


def time_limit(pieces: list[list[SourceFile]]) -> float:
    """Seconds a worker gets for a task."""
    return TASK_SECONDS + TASK_SECONDS_PER_LINE * sum(prefilter.lines(p) for p in pieces)


def out_of_memory() -> str:
    """Why an analysis stopped on a MemoryError, in the process that saw it."""
    if _memory_limit is None:
        return "ran out of memory"
    return f"ran out of memory (a worker process may use {_memory_limit / (1 << 30):.3g} GiB more than it starts with)"


def analysed(count: int) -> None:
    """In a worker, counts `count` more files of its task as analysed; elsewhere nothing."""
    if _finished is not None:
        _finished.value += count


def start_worker() -> None:
    """What a worker does first: cap its memory, load the engine (inherited
    where it was forked from a process that had it)."""
    _limit_memory()
    load_engine_alone()  # a worker runs nothing else


def _limit_memory() -> None:
    """Sets `RLIMIT_DATA` to what this process uses now plus `WORKER_MEMORY`
    (or half the machine's memory, if less), unless a lower limit is set
    already. Linux only (elsewhere the limit counts other things, or
    nothing); quietly nothing where it cannot be set."""
    global _memory_limit
    if not sys.platform.startswith("linux"):
        return
    import resource

    try:
        machine = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        grow = min(WORKER_MEMORY, machine // 2)
        limit = _data_size() + grow
        soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        if soft != resource.RLIM_INFINITY and soft <= limit:
            return  # someone set a lower limit: theirs holds
        resource.setrlimit(resource.RLIMIT_DATA, (limit, hard))
    except (OSError, ValueError):
        return
    _memory_limit = grow


def _data_size() -> int:
    """This process's data segment, in bytes (`VmData`: what `RLIMIT_DATA` counts)."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmData:"):
                return int(line.split()[1]) * 1024
    raise ValueError("no VmData in /proc/self/status")


def _worker_main(
    conn: Connection,
    parents: Connection,
    piece: c_int,
    finished: c_int,
    analyze: Analyze,
    models: ModelSet,
    options: EngineOptions,
) -> None:
    """A worker's life: tasks in, answers out, until it is sent None, its
    parent is gone, or a task stops it (then it ends: a fresh worker takes
    the next task). Before each piece it writes the piece's index into
    `piece`, which its parent reads if it dies; `finished` counts the files
    of the task analysed so far (`analysed`). `parents`: the parent's end
    of the pipe, closed here, or this end would never see the parent go."""
    global _finished
    _finished = finished
    sys.path[:] = own_import_path(sys.path)  # forked from a process started with the current directory on its path
    parents.close()
    die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C is for the parent, which ends its workers
    try:
        start_worker()
    except Exception as error:  # one line, never a traceback: the parent reports the files this worker had
        print(f"ownlint worker: could not start: {type(error).__name__}: {error}", file=sys.stderr)
        sys.stderr.flush()
        os._exit(1)
    with conn:
        while True:
            try:
                task: list[list[SourceFile]] | None = conn.recv()
            except EOFError:
                return  # the parent is gone
            if task is None:
                return
            answer = _work(task, piece, analyze, models, options)
            try:
                conn.send(answer)
            except OSError:
                return  # the parent is gone
            if not isinstance(answer, Done):
                return


def _work(
    task: list[list[SourceFile]], piece: c_int, analyze: Analyze, models: ModelSet, options: EngineOptions
) -> Done | Stopped | _Broken:
    reports: list[list[FileReport]] = []
    try:
        before = 0  # files of the pieces before this one
        for i, files in enumerate(task):
            piece.value = i
            if _finished is not None:
                _finished.value = before  # whatever the engine told of the last piece, it is all done
            reports.append(analyze(files, models, options))
            before += len(files)
        piece.value = -1
        return Done(pickle.dumps(reports, pickle.HIGHEST_PROTOCOL))
    except MemoryError:
        pass  # said below, once the exception and what its frames held are gone
    except Exception as error:  # not one file's failure: sent on, as ProcessPoolExecutor would
        return _Broken(" ".join(f"{type(error).__name__}: {error}".split()))
    del reports
    at = piece.value
    return Stopped(at if at >= 0 else None, out_of_memory())


class _Worker:
    """One worker process, the pipe to it, and its task's time limit."""

    def __init__(
        self, context: multiprocessing.context.BaseContext, args: tuple[Analyze, ModelSet, EngineOptions]
    ) -> None:
        self.conn, there = context.Pipe()
        self.piece = context.RawValue("i", -1)  # written by the worker (see `_worker_main`)
        self.finished = context.RawValue("i", 0)  # likewise
        self.told = 0  # what the parent last read of `finished`
        self.process: multiprocessing.process.BaseProcess = context.Process(  # type: ignore[attr-defined]  # typeshed: only each concrete context (fork, spawn) has a Process
            target=_worker_main,
            args=(there, self.conn, self.piece, self.finished, *args),
            name="ownlint worker",
            daemon=True,
        )
        if context.get_start_method() == "fork":
            self.process.start()
        else:
            with clean_start():  # a fresh interpreter: nothing from the current directory
                self.process.start()
        there.close()
        self.limit = 0.0
        self.deadline = 0.0

    def give(self, task: list[list[SourceFile]]) -> None:
        """Sends a task (OSError if the worker is gone)."""
        self.limit = time_limit(task)
        self.piece.value = -1
        self.finished.value = self.told = 0
        self.deadline = time.monotonic() + self.limit
        self.conn.send(task)

    def ending(self) -> Done | Stopped | _Broken | None:
        """How its task ended, if it has; after its time limit, it is killed."""
        alive = self.process.is_alive()  # before looking in the pipe: what it sent before it died is there
        if self.conn.poll():
            try:
                answer: Done | Stopped | _Broken = self.conn.recv()
                return answer
            except (EOFError, OSError):
                return self._died()
        if not alive:
            return self._died()
        if time.monotonic() >= self.deadline:
            self.end()
            return Stopped(self._at(), f"ran past the time limit of {self.limit:.3g} s")
        return None

    def _died(self) -> Stopped:
        self.process.join(5)  # its end of the pipe is closed: it is ending, if not ended
        if self.process.exitcode is None:
            self.end()
            return Stopped(self._at(), "the worker process closed its pipe but did not end")
        return Stopped(self._at(), _death(self.process.exitcode))

    def _at(self) -> int | None:
        at = int(self.piece.value)
        return at if at >= 0 else None

    def end(self) -> None:
        """Kills the process (if it still runs) and waits for it."""
        if self.process.exitcode is None:
            self.process.kill()
        self.process.join()
        self.conn.close()


def _death(exitcode: int) -> str:
    """Why a worker process ended, from its exit status."""
    if exitcode >= 0:
        return f"the worker process exited with status {exitcode}"
    number = -exitcode
    try:
        about = [signal.Signals(number).name]
    except ValueError:
        about = []
    if number in (signal.SIGKILL, signal.SIGABRT):  # the OOM killer's signal; libcst's parser aborts when malloc fails
        about.append("out of memory?")
    return f"the worker process was killed by signal {number}" + (f" ({'; '.join(about)})" if about else "")


T = TypeVar("T")


class Pool(Generic[T]):
    """Up to `jobs` worker processes, started as tasks need them: each runs
    `analyze(files, models, options)` on each piece of the tasks it is given,
    one task at a time. A worker whose task stopped is ended; another takes
    the next task."""

    def __init__(
        self,
        context: multiprocessing.context.BaseContext,
        jobs: int,
        analyze: Analyze,
        models: ModelSet,
        options: EngineOptions,
    ) -> None:
        self.context = context
        self.jobs = jobs
        self.args = (analyze, models, options)
        self.workers: list[_Worker] = []  # every worker started and not yet ended
        self.busy: dict[_Worker, T] = {}  # those with a task, and their tasks

    def __enter__(self) -> Pool[T]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def run(
        self,
        tasks: deque[T],
        files: Callable[[T], list[list[SourceFile]]],
        progress: Callable[[T, int], None] | None = None,
    ) -> Iterator[tuple[T, Done | Stopped]]:
        """Runs `tasks`, first come first served, and yields each with how it
        ended, as they end; the caller may add tasks to `tasks` meanwhile.
        `files(task)`: the files of each of its pieces. `progress(task, n)`:
        told, every `PROGRESS_SECONDS` at most, how many files of a running
        task are analysed so far, when that has grown (its pieces in order).
        Raises WorkerError if a worker fails outside of any piece's analysis."""
        from multiprocessing.connection import wait

        busy = self.busy
        while tasks or busy:
            while tasks and len(busy) < self.jobs:
                worker = self._idle_worker()
                task = tasks.popleft()
                try:
                    worker.give(files(task))
                except OSError:  # it died after it was last seen alive
                    self._end(worker)
                    yield task, Stopped(None, _death(worker.process.exitcode or 0))
                    continue
                busy[worker] = task
            if not busy:
                continue
            timeout = max(0.0, min(w.deadline for w in busy) - time.monotonic())
            if progress is not None:
                timeout = min(timeout, PROGRESS_SECONDS)
            wait([w.conn for w in busy] + [w.process.sentinel for w in busy], timeout)
            for worker in list(busy):
                ending = worker.ending()
                if ending is None:
                    if progress is not None and worker.finished.value > worker.told:
                        worker.told = worker.finished.value
                        progress(busy[worker], worker.told)
                    continue
                task = busy.pop(worker)
                if isinstance(ending, _Broken):
                    raise WorkerError(ending.reason)
                if isinstance(ending, Stopped):
                    self._end(worker)
                yield task, ending

    def _idle_worker(self) -> _Worker:
        """A worker that is alive and has no task: one already started, or a new one."""
        for worker in [w for w in self.workers if w not in self.busy]:
            if worker.process.is_alive():
                return worker
            self._end(worker)
        with interrupt_deferred():  # a Ctrl-C now would leave multiprocessing's bookkeeping half made
            worker = _Worker(self.context, self.args)
            self.workers.append(worker)
        return worker

    def _end(self, worker: _Worker) -> None:
        worker.end()
        self.workers.remove(worker)

    def close(self) -> None:
        """Ends every worker: one with a task (the run was interrupted) is
        killed; an idle one is told to stop, and killed if it has not
        within a second."""
        idle = [w for w in self.workers if w not in self.busy]
        for worker in idle:
            try:
                worker.conn.send(None)
            except OSError:
                pass
        for worker in idle:
            worker.process.join(1)
        for worker in self.workers:
            worker.end()
        self.workers = []
        self.busy = {}
