"""Runs the engine over a set of files: prefilter, components, cache, processes.

The output does not depend on `jobs`: every component is analysed on its own
whether it runs here or in a worker, and the reports are put back in the
order of the files given. Nothing here imports libcst; a run whose results
are all cached never does.

Every analysis runs in a worker process (`_run`), never in this one. A
worker that dies (a crash of libcst's native parser, a signal), runs out of
memory or runs past its time limit (`ownlint.workers`) loses only the file
it was analysing, which gets an
`analysis stopped: <reason>` entry; the other files of its task are
analysed again (`_Results`). Such an entry, like an unreadable file's, makes
the exit status 1, not 2: the file could not be checked, ownlint did not fail.
"""

from __future__ import annotations

import pickle
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ownlint import __version__, workers
from ownlint.diagnostics import FileError, FileReport
from ownlint.engine.frontend import prefilter
from ownlint.engine.modelling.models import ModelSet
from ownlint.engine.program.sources import EngineOptions, SourceFile
from ownlint.processes import can_fork, default_jobs, load_engine

if TYPE_CHECKING:
    import multiprocessing.context

    from ownlint.cache import Cache

# below this many lines to analyse, more than one worker process costs more than it saves (see `_run`)
PARALLEL_MIN_LINES = 20_000
# the smallest task sent to a worker (about 50 ms of work): below it, the round trip costs more than the balance gains
MIN_BATCH_LINES = 400

STOPPED = "analysis stopped"  # the start of the entry of a file whose analysis a worker's death, its memory or its time limit stopped
_ENGINE_MEMORY_ERROR = f"internal error in ownlint {__version__}: MemoryError:"  # as `analyze_project` says it


def analyze(
    files: list[SourceFile],
    models: ModelSet,
    options: EngineOptions,
    jobs: int | None = None,
    cache: Cache | None = None,
    done: Callable[[int], None] | None = None,
) -> list[FileReport]:
    """One report per file, in the order given. `done(n)` is told as `n` more
    files are known (analysed, found in the cache, or needing no analysis), so
    that a progress bar advances as the run goes."""
    done = done or _told_nobody
    jobs = jobs or default_jobs()
    run_key = cache.key(files, "run") if cache is not None else None
    if cache is not None and run_key is not None:
        whole = cache.get(run_key)
        if whole is not None and [r.path for r in whole] == [f.path for f in files]:
            done(len(files))
            return whole
    reports = {f.path: FileReport(f.path) for f in files}
    pending: list[tuple[str | None, list[SourceFile]]] = []
    components = prefilter.select(files, models)
    done(len(files) - sum(map(len, components)))  # those no component holds need no analysis
    for component in components:
        chosen = [files[i] for i in component]
        key = cache.key(chosen) if cache is not None else None
        hit = cache.get(key) if cache is not None and key is not None else None
        if hit is not None:
            for r in hit:
                reports[r.path] = r
            done(len(chosen))
        else:
            pending.append((key, chosen))
    results = _run([c for _, c in pending], models, options, jobs, done)
    stopped = False
    for (key, _), result in zip(pending, results, strict=True):
        for r in result:
            reports[r.path] = r
        if _was_stopped(result):
            stopped = True  # the limits are of this run and this machine: the next run tries again
        elif cache is not None and key is not None:
            cache.put(key, result)
    out = [reports[f.path] for f in files]
    if cache is not None and run_key is not None and not stopped:
        cache.put(run_key, out)
    return out


def _told_nobody(count: int) -> None:
    pass


def _was_stopped(reports: list[FileReport]) -> bool:
    return any(e.message.startswith(STOPPED) for r in reports for e in r.errors)


def _analyze_component(files: list[SourceFile], models: ModelSet, options: EngineOptions) -> list[FileReport]:
    """The engine's reports on one component. The engine reports a MemoryError
    in one file's analysis as an internal error; it is a limit of this run
    (see `ownlint.workers`), not a bug, and is said so here."""
    project = load_engine()  # libcst is imported only when something is analysed
    reports: list[FileReport] = project.analyze_project(files, models, options, analysed=workers.analysed)
    for report in reports:
        for i, error in enumerate(report.errors):
            if error.message.startswith(_ENGINE_MEMORY_ERROR):
                report.errors[i] = FileError(error.path, f"{STOPPED}: {workers.out_of_memory()}")
    return reports


def _batches(components: list[list[SourceFile]], jobs: int) -> list[list[int]]:
    """Component indices grouped into tasks, largest components first, by
    guided scheduling: each task takes about 1/(2 * jobs) of the lines not yet
    handed out, and at least `MIN_BATCH_LINES`. The first tasks are big (a
    real tree has hundreds of small components, and each task is a round trip
    to a worker); the last are small, so that no worker sits idle for long
    while another finishes a big one. (Tasks of one fixed size left one of two
    cores idle for a quarter of a second at the end of the dense benchmark.)"""
    sizes = [prefilter.lines(c) for c in components]
    left = sum(sizes)

    def share() -> int:
        return max(MIN_BATCH_LINES, left // (2 * jobs))

    target = share()
    batches: list[list[int]] = []
    current: list[int] = []
    filled = 0
    for i in sorted(range(len(components)), key=lambda i: -sizes[i]):
        current.append(i)
        filled += sizes[i]
        if filled >= target:
            batches.append(current)
            left -= filled
            current, filled = [], 0
            target = share()
    if current:
        batches.append(current)
    return batches


def _context() -> multiprocessing.context.BaseContext:
    """How worker processes start. On Linux, with no other thread running
    (a thread's locks would be copied mid-use), they are forked from this
    process after it has imported the engine, so they inherit it: importing
    libcst alone costs each fresh process about 0.2 s. Elsewhere, or with a
    thread about (the language server, a progress bar), each is spawned anew
    (and this process never imports libcst). Either way a worker imports
    nothing from the current directory (`ownlint.workers`)."""
    import multiprocessing

    if can_fork():
        load_engine()  # inherited by the workers
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


ISOLATE = True
"""Whether the analysis runs in worker processes (always, for ownlint's
command line and language server). False only for tests that watch the
engine from this process; then a crash of the parser ends this process."""


def _run(
    components: list[list[SourceFile]],
    models: ModelSet,
    options: EngineOptions,
    jobs: int,
    done: Callable[[int], None],
) -> list[list[FileReport]]:
    """The reports of each component, in order (`done` told of each task's files as it ends).

    Every analysis runs in a worker process, whatever the size of the run,
    `jobs` or the caller, so that a file that makes the analysis die (libcst's
    native parser crashes on some inputs), hang or exhaust the memory costs
    that file, not the run nor the editor. A small run, or `jobs` 1, has one
    worker. Forked from a process that has the engine loaded, the worker
    costs about 25 ms (measured on three fixture files: 0.20 s analysed
    here, 0.23 s in a worker); spawned (with a thread about), it costs a
    fresh interpreter, less the import of libcst this process then does
    not do. The language server and standard input (`options.incremental`)
    keep one worker between runs (`_Resident`), where the engine's caches
    of earlier versions of a document live."""
    if not components:
        return []
    total = sum(prefilter.lines(c) for c in components)
    small = len(components) <= 1 or total < PARALLEL_MIN_LINES
    workers_wanted = 1 if small or jobs <= 1 else jobs
    results = _Results(components, done)
    tasks = deque(results.whole(batch) for batch in _batches(components, workers_wanted))
    if not ISOLATE:
        _run_here(results, tasks, models, options)
    elif options.incremental:
        _RESIDENT.run(results, tasks, models, options)
    else:
        pool: workers.Pool[list[_Piece]] = workers.Pool(
            _context(), min(workers_wanted, len(tasks)), _analyze_component, models, options
        )
        try:
            with pool:
                _drive(pool, tasks, results)
        except OSError as error:  # a worker could not be started (no memory or processes left to fork)
            _failed(results.reports, components, error)
    return [r if r is not None else [] for r in results.reports]


def _drive(pool: workers.Pool[list[_Piece]], tasks: deque[list[_Piece]], results: _Results) -> None:
    """Runs `tasks` in `pool` until every component has its reports."""
    for task, ending in pool.run(tasks, results.files, results.progress):
        if isinstance(ending, workers.Done):
            again = results.took(task, pickle.loads(ending.reports))
        else:
            again = results.stopped(task, ending.piece, ending.reason)
        tasks.extendleft(reversed(again))  # before the rest: they are what is left of earlier tasks


class _Resident:
    """The worker kept from one incremental run to the next (the language
    server's checks, standard input), for the models and options it was
    started with: another pair starts another. A worker that died, or was
    killed for its time, is replaced at the next run (`workers.Pool`); a run
    that ends on an exception (a Ctrl-C, a bug) ends the worker with it."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.pool: workers.Pool[list[_Piece]] | None = None
        self.key: tuple[ModelSet, EngineOptions] | None = None

    def run(self, results: _Results, tasks: deque[list[_Piece]], models: ModelSet, options: EngineOptions) -> None:
        with self.lock:
            if self.pool is None or self.key != (models, options):
                self.close()
                self.pool = workers.Pool(_context(), 1, _analyze_component, models, options)
                self.key = (models, options)
            try:
                _drive(self.pool, tasks, results)
            except BaseException as error:
                self.close()
                if isinstance(error, OSError):  # a worker could not be started
                    _failed(results.reports, results.components, error)
                    return
                raise

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()
        self.pool = self.key = None


_RESIDENT = _Resident()


def _run_here(results: _Results, tasks: deque[list[_Piece]], models: ModelSet, options: EngineOptions) -> None:
    """`_run` in this process (`ISOLATE` off), one piece after another: as in
    a worker, a MemoryError stops only what it was analysing."""
    tasks = deque([piece] for task in tasks for piece in task)
    while tasks:
        task = tasks.popleft()  # of one piece, as is each task `_Results` makes of a task of one piece
        try:
            reports = [_analyze_component(results.files_of(piece), models, options) for piece in task]
        except MemoryError:
            again = results.stopped(task, 0, workers.out_of_memory())
        else:
            again = results.took(task, reports)
        tasks.extendleft(reversed(again))


@dataclass(slots=True)
class _Piece:
    """Files of one component analysed together: all of them (the usual
    case), or those left once the files that stopped the analysis are taken
    out, or one file `alone`, to learn whether it stops the analysis.
    `files` are positions in the component."""

    component: int
    files: list[int]
    alone: bool = False


class _Results:
    """The reports of each component as tasks (lists of pieces) end, and what
    to run again when one stops.

    A stopped task loses only the file it was analysing: that file gets an
    `analysis stopped: <reason>` entry, the other pieces of the task run
    again, and so does the rest of the culprit's component, without it. The
    worker says which piece it was on, not which file: a piece of one file
    names its file; for a larger one, each of its files is analysed alone,
    then those that did not stop are analysed together again. If that stops
    too (only the files together stop it), each keeps what it gave alone,
    with an entry saying so. Each step runs fewer files, or marks the
    component as tried alone, so this ends."""

    def __init__(self, components: list[list[SourceFile]], done: Callable[[int], None] = _told_nobody) -> None:
        self.components = components
        self.done = done  # told of a component's files when its reports are complete
        self.reports: list[list[FileReport] | None] = [None] * len(components)
        self.got: dict[int, dict[int, FileReport]] = {}  # component -> file position -> its final report
        self.alone: dict[int, dict[int, FileReport]] = {}  # component -> file position -> its report alone
        self.probes: dict[int, int] = {}  # component -> files being analysed alone
        self.told: dict[int, int] = {}  # component -> its files `done` was told of before it was complete

    def whole(self, indices: list[int]) -> list[_Piece]:
        """A task of whole components."""
        return [_Piece(i, list(range(len(self.components[i])))) for i in indices]

    def files_of(self, piece: _Piece) -> list[SourceFile]:
        component = self.components[piece.component]
        return [component[i] for i in piece.files]

    def files(self, task: list[_Piece]) -> list[list[SourceFile]]:
        return [self.files_of(piece) for piece in task]

    def took(self, task: list[_Piece], reports: list[list[FileReport]]) -> list[list[_Piece]]:
        """Takes a finished task's reports, a list per piece; returns the tasks to run next."""
        again: list[list[_Piece]] = []
        for piece, found in zip(task, reports, strict=True):
            if piece.alone:
                self.alone[piece.component][piece.files[0]] = found[0]
                again += self._probed(piece.component)
            else:
                self.got.setdefault(piece.component, {}).update(zip(piece.files, found, strict=True))
                self._complete(piece.component)
        return again

    def progress(self, task: list[_Piece], analysed: int) -> None:
        """Takes how many files of a running task are analysed (its pieces in
        order), and tells `done` of those of whole components not told of yet.
        Only whole components count: what a piece run again after a stop
        analyses is told of when its component is complete."""
        for piece in task:
            n = min(analysed, len(piece.files))
            analysed -= n
            c = piece.component
            if len(piece.files) == len(self.components[c]) and self.reports[c] is None and n > self.told.get(c, 0):
                self.done(n - self.told.get(c, 0))
                self.told[c] = n

    def stopped(self, task: list[_Piece], at: int | None, reason: str) -> list[list[_Piece]]:
        """Takes a task that stopped (`reason`) while its worker analysed piece
        `at` (None: not known); returns the tasks to run instead."""
        if at is None:
            if len(task) > 1:
                return [[piece] for piece in task]  # each alone: if one stops again, it is known
            at = 0
        piece = task[at]
        rest = task[:at] + task[at + 1 :]
        again = [rest] if rest else []
        c = piece.component
        if len(piece.files) == 1:  # the culprit
            culprit = self.components[c][piece.files[0]]
            error = FileError(culprit.path, f"{STOPPED}: {reason}")
            self.got.setdefault(c, {})[piece.files[0]] = FileReport(culprit.path, errors=[error])
            if piece.alone:
                again += self._probed(c)
            else:
                self._complete(c)
        elif c not in self.alone:  # which file? each alone, then the others together
            self.alone[c] = {}
            self.probes[c] = len(piece.files)
            again += [[_Piece(c, [i], alone=True)] for i in piece.files]
        else:  # it stops only with these files together
            others = len(piece.files) - 1
            why = f"{STOPPED}: {reason} when analysed with {others} other file{'s' if others > 1 else ''}"
            for i in piece.files:
                alone = self.alone[c][i]
                note = FileError(alone.path, f"{why}; its findings are those of the file alone")
                self.got.setdefault(c, {})[i] = FileReport(alone.path, alone.diagnostics, [*alone.errors, note])
            self._complete(c)
        return again

    def _probed(self, c: int) -> list[list[_Piece]]:
        """One more file of component `c` analysed alone; once all are, the
        tasks to run next: the files that did not stop, together."""
        self.probes[c] -= 1
        if self.probes[c]:
            return []
        got = self.got.setdefault(c, {})
        left = [i for i in range(len(self.components[c])) if i not in got]
        if len(left) > 1:
            return [[_Piece(c, left)]]
        for i in left:
            got[i] = self.alone[c][i]  # alone is all there is to it
        self._complete(c)
        return []

    def _complete(self, c: int) -> None:
        """Sets component `c`'s reports if every file of it has one."""
        got = self.got[c]
        if len(got) < len(self.components[c]) or self.reports[c] is not None:
            return
        self.reports[c] = [got[i] for i in range(len(self.components[c]))]
        left = len(self.components[c]) - self.told.pop(c, 0)
        if left:
            self.done(left)


def _failed(results: list[list[FileReport] | None], components: list[list[SourceFile]], error: OSError) -> None:
    """Fills in, for each component with no reports yet, an error entry for
    each of its files: a worker could not be started (`error`)."""
    reason = f"internal error in ownlint {__version__}: worker process failed: {type(error).__name__}"
    for i, component in enumerate(components):
        if results[i] is None:
            results[i] = [FileReport(f.path, errors=[FileError(f.path, reason)]) for f in component]
