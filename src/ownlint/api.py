"""The one entry point the command line and the language server share.

`check_paths` discovers files, reads them, groups them by the configuration
that governs each (resolver.py), and hands each group to the runner (which
analyses the components of files that can affect each other in worker
processes, from the result cache where it can: runner.py, cache.py), then
keeps the findings the configuration enables and no comment suppresses.
Files given explicitly are checked with the project modules they import
(closure.py), findings reported in the given files only. `check_source` does
the same for one buffer (standard input, an editor), with the other files the
caller gives. Neither prints nor exits: a
`ModelError` from the model files propagates to the caller; a file that
cannot be read becomes a `FileError` and the run goes on.

Not here: rendering (`ownlint.render`), exit statuses (`ownlint.cli`),
baselines (`ownlint.baseline`) and fixes (`ownlint.fixes`), which work on a
`RunResult` afterwards.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ownlint import __version__, closure, notebook, outside, runner
from ownlint.checks import CHECKERS, to_diagnostic
from ownlint.config import Config
from ownlint.diagnostics import Diagnostic, FileError, FileReport, Span
from ownlint.discovery import Skipped, discover, display_path
from ownlint.engine.frontend import prefilter
from ownlint.engine.modelling.models import ModelSet, load_models
from ownlint.engine.program.sources import EngineOptions, SourceFile
from ownlint.engine.violations import Violation
from ownlint.notebook import NotebookIndex
from ownlint.resolver import Resolver

# reading a file to check is part of this API (the CLI, the language server and the closure use it)
from ownlint.source_files import decode_source as decode_source
from ownlint.source_files import module_name as module_name
from ownlint.source_files import read_source as read_source
from ownlint.suppress import (
    FileSuppressions,
    UnusedSuppression,
    apply_suppressions,
    parse_suppressions,
    unused_suppressions,
)

if TYPE_CHECKING:
    from ownlint.cache import Cache

INTERNAL_ERROR_PREFIX = "internal error in ownlint"
_BOM = "\ufeff"


@dataclass(slots=True)
class RunResult:
    """What one run found.

    `files` are the displayed paths of every file the run tried to check;
    `sources` maps the displayed path of every file that was read to its text
    (the text renderer shows source lines from it): for a notebook, its code
    cells joined (`ownlint.notebook`), which the positions of its findings are
    in; `notebooks` maps the displayed path of each notebook read to where
    each line of that source comes from (cell and line in the cell).
    """

    findings: list[Diagnostic]
    errors: list[FileError]
    files: list[str]
    seconds: float
    sources: dict[str, str] = field(default_factory=dict)
    unused_suppressions: list[UnusedSuppression] = field(default_factory=list)
    skipped: tuple[Skipped, ...] = ()  # paths discovery left out, and why (`--show-files`)
    baselined: int = 0  # findings a baseline hid (`ownlint.baseline.apply`)
    fixed: int = 0  # findings whose fixes were applied before this result was computed
    fixed_findings: list[Diagnostic] = field(default_factory=list)  # those findings (`--show-fixes`)
    notebooks: dict[str, NotebookIndex] = field(default_factory=dict)

    @property
    def has_internal_error(self) -> bool:
        """Whether ownlint itself failed on some file (as opposed to the file being unreadable)."""
        return any(e.message.startswith(INTERNAL_ERROR_PREFIX) for e in self.errors)


class Progress(Protocol):
    """Told how a run advances, so that the command line can draw a bar; the caller ends the bar."""

    def start(self, total: int) -> None:
        """`total` files are to be analysed."""

    def advance(self, count: int) -> None:
        """`count` more files have been analysed."""


class _NoProgress:
    def start(self, total: int) -> None:
        pass

    def advance(self, count: int) -> None:
        pass


def check_paths(
    paths: Sequence[str | os.PathLike[str]],
    config: Config | Resolver,
    *,
    report_unused_suppressions: bool = False,
    progress: Progress | None = None,
    jobs: int | None = None,
    use_cache: bool = False,
    cache_dir: Path | None = None,
    force_exclude: bool = False,
) -> RunResult:
    """Check the files under `paths` (see `ownlint.discovery` for which) as one project.

    `config`: one configuration for every file, or a `Resolver` that gives
    each file the closest one. Files whose configurations agree on what the
    engine reads (models, interop modules, page size, checkers) are analysed together.
    `jobs`: worker processes (default: every core); `use_cache`: reuse and
    store results in `cache_dir` (default: `$OWNLINT_CACHE_DIR`, else the
    user's cache directory; see `ownlint.cachedir`); a cache that cannot be
    used safely gives a `CacheWarning` and the run goes on without it."""
    progress = progress or _NoProgress()
    started = time.perf_counter()
    resolver = Resolver.of(config)
    found = discover(paths, resolver, force_exclude=force_exclude)
    groups: dict[tuple[object, ...], list[Path]] = {}
    for file in found.files:
        governing = resolver.for_path(file)
        engine_settings = (governing.models, governing.interop_modules, governing.page_size, governing.checkers)
        groups.setdefault(engine_settings, []).append(file)
    progress.start(len(found.files))
    advanced = [0]

    def done(count: int) -> None:  # told as files are read and components analysed
        count = min(count, len(found.files) - advanced[0])  # files read only for their summaries are not counted
        if count > 0:
            advanced[0] += count
            progress.advance(count)

    results = [
        _check_group(paths, files, resolver, report_unused_suppressions, jobs, use_cache, cache_dir, done)
        for files in (groups.values() or [[]])
    ]
    done(len(found.files) - advanced[0])  # whatever the runner did not count (none, normally)
    result = results[0] if len(results) == 1 else _merged(results)
    result.errors = sorted([*found.errors, *result.errors], key=lambda e: e.path)
    result.files = [display_path(f) for f in found.files]
    result.skipped = found.skipped
    result.seconds = time.perf_counter() - started
    return result


def _check_group(
    paths: Sequence[str | os.PathLike[str]],
    found: list[Path],
    resolver: Resolver,
    report_unused: bool,
    jobs: int | None,
    use_cache: bool,
    cache_dir: Path | None,
    done: Callable[[int], None],
) -> RunResult:
    """The findings of files whose configurations agree on the engine's settings (those of `found[0]`'s);
    `done` is told as files are known (read and not checkable, or analysed)."""
    config = resolver.for_path(found[0] if found else Path.cwd())
    models = load_models(config.models)
    errors: list[FileError] = []
    sources: list[SourceFile] = []
    files = []
    notebooks: dict[str, NotebookIndex] = {}
    for file in found:
        shown = display_path(file)
        files.append(shown)
        read = notebook.load(file, shown) if notebook.is_notebook(file) else read_source(file, shown)
        if isinstance(read, FileError):
            errors.append(read)
            continue
        if isinstance(read, notebook.Notebook):
            notebooks[shown] = read.index
        sources.append(SourceFile(shown, read if isinstance(read, str) else read.source, module_name(file)))
    done(len(found) - len(sources))  # those that could not be read are done
    context = _imported_context(paths, found, resolver)
    # in the order `ownlint check .` gives the same files (by displayed path), so that
    # a component both runs share has one cache key
    together = sorted(sources + context, key=lambda f: f.path) if context else sources
    result = _analyze(
        together,
        errors,
        files,
        config,
        models,
        0.0,
        report_unused,
        jobs,
        use_cache,
        cache_dir=cache_dir,
        done=done,
        resolver=resolver,
    )
    _in_notebooks(result, notebooks)
    return _only(result, set(files)) if context else result


def _merged(results: list[RunResult]) -> RunResult:
    merged = RunResult([], [], [], 0.0)
    for result in results:
        merged.findings += result.findings
        merged.errors += result.errors
        merged.sources.update(result.sources)
        merged.unused_suppressions += result.unused_suppressions
        merged.notebooks.update(result.notebooks)
    merged.findings.sort(key=Diagnostic.sort_key)
    merged.unused_suppressions.sort(key=lambda u: (u.path, u.line, u.column, u.what))
    return merged


def _imported_context(
    paths: Sequence[str | os.PathLike[str]], found: Sequence[Path], config: Config | Resolver
) -> list[SourceFile]:
    """The project modules that the files given explicitly import, transitively, and that are not checked
    themselves: analysed with them so that summaries cross into them (`ownlint.closure`), never reported."""
    checked = {os.path.normcase(f) for f in found}
    explicit = [f for p in paths if os.path.normcase(f := Path(os.path.abspath(p))) in checked]
    if not explicit:
        return []
    context: list[SourceFile] = []
    for file in closure.imported_files(explicit, config):
        if os.path.normcase(file) in checked:
            continue
        text = read_source(file, display_path(file))
        if isinstance(text, str):
            context.append(SourceFile(display_path(file), text, module_name(file)))
    return context


def _in_notebooks(result: RunResult, notebooks: dict[str, NotebookIndex]) -> None:
    """Marks the notebooks of `result`, and takes the fixes off their findings: a fix's edits are positions
    in the joined cells, and writing them back into cells is not done (yet)."""
    result.notebooks = notebooks
    if notebooks:
        result.findings = [
            replace(f, fix=None) if f.fix is not None and f.path in notebooks else f for f in result.findings
        ]


def _only(result: RunResult, shown: set[str]) -> RunResult:
    """`result` reduced to the files displayed as `shown` (the others were read for their summaries)."""
    result.findings = [f for f in result.findings if f.path in shown]
    result.errors = [e for e in result.errors if e.path in shown]
    result.unused_suppressions = [u for u in result.unused_suppressions if u.path in shown]
    result.sources = {path: text for path, text in result.sources.items() if path in shown}
    return result


def check_source(
    source: str | notebook.Notebook,
    path: str | os.PathLike[str],
    config: Config,
    *,
    report_unused_suppressions: bool = False,
    others: Sequence[tuple[Path, str]] = (),
) -> RunResult:
    """Check one buffer as if it were the file at `path` (which need not exist); no other file is read.

    `others` (path and text of other files, as the language server finds them)
    are analysed with it where `ownlint check` would: those of its prefilter
    component, so that summaries cross into them. Only the buffer's findings
    and errors are reported. A buffer whose path ends in `.ipynb` is a
    notebook's JSON text: its code cells are checked (`ownlint.notebook`);
    a `Notebook` is a notebook's cells already joined (an editor's notebook
    document)."""
    started = time.perf_counter()
    models = load_models(config.models)
    shown = display_path(path)
    notebooks: dict[str, NotebookIndex] = {}
    if isinstance(source, notebook.Notebook):
        text, notebooks[shown] = source.source, source.index
    elif notebook.is_notebook(path):
        loaded = notebook.decode(source.removeprefix(_BOM), shown)
        if isinstance(loaded, FileError):
            return RunResult([], [loaded], [shown], time.perf_counter() - started)
        text, notebooks[shown] = loaded.source, loaded.index
    else:
        text = source.removeprefix(_BOM)
    files = [SourceFile(shown, text, module_name(Path(os.path.abspath(path))))]
    for other, other_text in others:
        other_shown = display_path(other)
        if other_shown != shown:
            files.append(SourceFile(other_shown, other_text.removeprefix(_BOM), module_name(Path(other))))
    if len(files) > 1:
        component = next((c for c in prefilter.select(files, models) if c[0] == 0), [0])
        files = [files[i] for i in component]
    result = _analyze(files, [], [shown], config, models, started, report_unused_suppressions, incremental=True)
    _in_notebooks(result, notebooks)
    return _only(result, {shown}) if len(files) > 1 else result


# A component of fewer characters is analysed whole, every function of it
# (EngineOptions.sections_from): reading it with CPython's parser to cut it,
# and finding the functions no caller needs, costs about what skipping its few
# sections saves. Measured in one process: the dense corpus (files of 48 lines
# on average) 7.7 s -> 7.0 s; TensorRT, numba-cuda and cuda-python, whose
# components are large, unchanged within the noise (51-53 s, 35-36 s, 7 s).
SECTIONS_FROM = 6_000


def _analyze(
    sources: list[SourceFile],
    errors: list[FileError],
    files: list[str],
    config: Config,
    models: ModelSet,
    started: float,
    report_unused: bool,
    jobs: int | None = None,
    use_cache: bool = False,
    incremental: bool = False,
    cache_dir: Path | None = None,
    done: Callable[[int], None] | None = None,
    resolver: Resolver | None = None,
) -> RunResult:
    options = EngineOptions(
        interop_modules=config.interop_modules,
        page_size=config.page_size,
        incremental=incremental,
        checkers=CHECKERS + config.checkers,
        sections=True,
        demand=True,
        sections_from=SECTIONS_FROM,
    )
    cache = None
    if use_cache:
        from ownlint.cache import Cache  # tempfile and the like: not for a run without a cache

        # the checkers' own modules are hashed like the models: a changed checker gives other results
        cache = Cache.open(config.root, (*models.files, *outside.source_files(config.checkers)), options, cache_dir)
    reports = _isolated_analysis(sources, models, options, jobs, cache, done)
    if cache is not None:
        cache.finish()
    texts = {f.path: f.source for f in sources}
    by_path: dict[str, list[Diagnostic]] = {}
    enabled: dict[tuple[str, str], bool] = {}  # per code and file: a file has many findings of few codes
    for report in reports:
        errors.extend(report.errors)
        for diagnostic in report.diagnostics:
            key = (diagnostic.code, diagnostic.path)
            on = enabled.get(key)
            if on is None:
                governing = resolver.for_path(diagnostic.path) if resolver is not None else config
                on = enabled[key] = governing.is_enabled(*key)
            if on:
                by_path.setdefault(diagnostic.path, []).append(diagnostic)
    findings: list[Diagnostic] = []
    unused: list[UnusedSuppression] = []
    for path in sorted(by_path.keys() | texts.keys()):  # every file read: its comments may be invalid
        diagnostics = by_path.get(path, [])
        if path not in texts:
            findings.extend(diagnostics)
            continue
        suppressions = parse_suppressions(texts[path])
        diagnostics += _invalid_suppressions(path, suppressions, config)
        kept, used = apply_suppressions(diagnostics, suppressions)
        findings.extend(kept)
        if report_unused:
            governing = resolver.for_path(path) if resolver is not None else config
            unused.extend(unused_suppressions(path, suppressions, used, _enabled_in(governing, path)))
    findings.sort(key=Diagnostic.sort_key)
    errors.sort(key=lambda e: e.path)
    unused.sort(key=lambda u: (u.path, u.line, u.column, u.what))
    seconds = time.perf_counter() - started
    return RunResult(findings, errors, files, seconds, texts, unused)


def _invalid_suppressions(path: str, suppressions: FileSuppressions, config: Config) -> list[Diagnostic]:
    """OWN002 for each comment of the file that cannot silence what it says (if the rule is enabled there)."""
    code = "OWN002"
    if not suppressions.invalid or not config.is_enabled(code, path):
        return []
    return [
        to_diagnostic(
            Violation(code, path, Span(i.line, i.column, i.line, i.end_column), None, (("reason", i.reason),))
        )
        for i in suppressions.invalid
    ]


def _enabled_in(config: Config, path: str) -> Callable[[str], bool]:
    def enabled(code: str) -> bool:
        return config.is_enabled(code, path)

    return enabled


def _isolated_analysis(
    sources: list[SourceFile],
    models: ModelSet,
    options: EngineOptions,
    jobs: int | None,
    cache: Cache | None,
    done: Callable[[int], None] | None = None,
) -> list[FileReport]:
    """The engine's reports; if the engine itself raises, an internal error entry for every file of the batch."""
    try:
        return runner.analyze(sources, models, options, jobs, cache, done)
    except Exception as error:  # the one place where a failure is isolated from the rest of the run
        reason = " ".join(f"{type(error).__name__}: {error}".split())
        message = f"{INTERNAL_ERROR_PREFIX} {__version__}: {reason}"
        return [FileReport(f.path, errors=[FileError(f.path, message)]) for f in sources]
