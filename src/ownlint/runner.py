"""Runs the engine over a set of files: prefilter, components, cache, processes.

The output does not depend on `jobs`: every component is analysed on its own
whether it runs here or in a worker, and the reports are put back in the
order of the files given. Nothing here imports libcst; a run whose results
are all cached never does.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ownlint import __version__
from ownlint.diagnostics import FileError, FileReport
from ownlint.engine import prefilter
from ownlint.engine.models import ModelSet
from ownlint.engine.sources import EngineOptions, SourceFile
from ownlint.host import EngineHost, can_fork, default_jobs, load_engine, load_engine_alone

if TYPE_CHECKING:
    import multiprocessing.context

    from ownlint.cache import Cache

# below this many lines to analyse, worker processes cost more than they save
PARALLEL_MIN_LINES = 20_000
# the smallest task sent to a worker (about 50 ms of work): below it, the round trip costs more than the balance gains
MIN_BATCH_LINES = 400


def analyze(
    files: list[SourceFile],
    models: ModelSet,
    options: EngineOptions,
    jobs: int | None = None,
    cache: Cache | None = None,
    host: EngineHost | None = None,
    first: Sequence[set[str] | None] | None = None,
) -> list[FileReport]:
    """One report per file, in the order given.

    `host`: a process started by `EngineHost.start` while the files were
    read, to analyse them (and ended here either way); `first`: the
    prefilter's test of each file on its own, if the caller ran it (see
    `prefilter.select`)."""
    try:
        return _analyze(files, models, options, jobs or default_jobs(), cache, host, first)
    finally:
        if host is not None:
            host.close()


def _analyze(
    files: list[SourceFile],
    models: ModelSet,
    options: EngineOptions,
    jobs: int,
    cache: Cache | None,
    host: EngineHost | None,
    first: Sequence[set[str] | None] | None,
) -> list[FileReport]:
    run_key = cache.key(files, "run") if cache is not None else None
    if cache is not None and run_key is not None:
        whole = cache.get(run_key)
        if whole is not None and [r.path for r in whole] == [f.path for f in files]:
            return whole
    reports = {f.path: FileReport(f.path) for f in files}
    pending: list[tuple[str | None, list[SourceFile]]] = []
    for component in prefilter.select(files, models, first):
        chosen = [files[i] for i in component]
        key = cache.key(chosen) if cache is not None else None
        hit = cache.get(key) if cache is not None and key is not None else None
        if hit is not None:
            for r in hit:
                reports[r.path] = r
        else:
            pending.append((key, chosen))
    components = [c for _, c in pending]
    results = host.analyze(components, models, options) if host is not None and components else _run(components, models, options, jobs)
    for (key, chosen), result in zip(pending, results):
        for r in result:
            reports[r.path] = r
        if cache is not None and key is not None:
            cache.put(key, result)
    out = [reports[f.path] for f in files]
    if cache is not None and run_key is not None:
        cache.put(run_key, out)
    return out


def _analyze_component(files: list[SourceFile], models: ModelSet, options: EngineOptions) -> list[FileReport]:
    project = load_engine()  # libcst is imported only when something is analysed
    return project.analyze_project(files, models, options)


_WORKER: tuple[ModelSet, EngineOptions] | None = None  # a worker process's models and options, sent once


def _start_worker(models: ModelSet, options: EngineOptions) -> None:
    global _WORKER
    load_engine_alone()  # a worker runs nothing else
    _WORKER = (models, options)


def _analyze_batch(batch: list[list[SourceFile]]) -> bytes:
    """The reports of each component of `batch`, pickled here: the pool sends
    bytes as they are, and the engine host passes them on unopened."""
    assert _WORKER is not None
    models, options = _WORKER
    return pickle.dumps([_analyze_component(c, models, options) for c in batch], pickle.HIGHEST_PROTOCOL)


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


def _context() -> "multiprocessing.context.BaseContext":
    """How worker processes start. On Linux, with no other thread running
    (a thread's locks would be copied mid-use), they are forked from this
    process after it has imported the engine, so they inherit it: importing
    libcst alone costs each fresh process about 0.2 s. Elsewhere, or with a
    thread about (the language server, a progress bar), each is spawned anew."""
    import multiprocessing

    if can_fork():
        load_engine()  # inherited by the workers
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


def _run(
    components: list[list[SourceFile]],
    models: ModelSet,
    options: EngineOptions,
    jobs: int,
    sink: Callable[[list[int], bytes], None] | None = None,
) -> list[list[FileReport]]:
    """The reports of each component, in order. With a `sink`, each finished
    task is handed to it instead, as it comes: the indices of its components
    and their reports, pickled (which the engine host sends on as they are);
    nothing is returned then."""
    total = sum(prefilter.lines(c) for c in components)
    if jobs <= 1 or len(components) <= 1 or total < PARALLEL_MIN_LINES:
        done = [_analyze_component(c, models, options) for c in components]
        if sink is None:
            return done
        sink(list(range(len(components))), pickle.dumps(done, pickle.HIGHEST_PROTOCOL))
        return []
    from concurrent.futures import ProcessPoolExecutor  # none of this is needed by a cached or small run
    from concurrent.futures.process import BrokenProcessPool

    results: list[list[FileReport] | None] = [None] * len(components)
    try:
        context = _context()
        with ProcessPoolExecutor(
            max_workers=min(jobs, len(components)), mp_context=context, initializer=_start_worker, initargs=(models, options)
        ) as pool:
            futures = [(batch, pool.submit(_analyze_batch, [components[i] for i in batch])) for batch in _batches(components, jobs)]
            for batch, future in futures:
                blob = future.result()
                if sink is not None:
                    sink(batch, blob)
                    for i in batch:
                        results[i] = []  # handed on
                else:
                    for i, result in zip(batch, pickle.loads(blob)):
                        results[i] = result
    except (BrokenProcessPool, OSError) as error:
        failed = _failed(results, components, error)
        if sink is not None:
            sink([i for i, _ in failed], pickle.dumps([r for _, r in failed], pickle.HIGHEST_PROTOCOL))
    if sink is not None:
        return []
    return [r if r is not None else [] for r in results]


def _failed(
    results: list[list[FileReport] | None], components: list[list[SourceFile]], why: BaseException | str
) -> list[tuple[int, list[FileReport]]]:
    """Fills in, for each component with no reports yet, an error entry for
    each of its files; returns what it filled in."""
    if isinstance(why, BaseException):
        why = f"worker process failed: {type(why).__name__}"
    reason = f"internal error in ownlint {__version__}: {why}"
    filled: list[tuple[int, list[FileReport]]] = []
    for i, component in enumerate(components):
        if results[i] is None:
            reports = [FileReport(f.path, errors=[FileError(f.path, reason)]) for f in component]
            results[i] = reports
            filled.append((i, reports))
    return filled
