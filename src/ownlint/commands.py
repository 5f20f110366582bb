"""What the commands do (`ownlint.cli` declares them; this module is imported
only when one runs, so that `ownlint --version` loads nothing else).

Exit status of `ownlint check`: 0 when nothing was found, 1 when there are
findings or files that could not be checked (unreadable, not UTF-8, a missing
path), 2 for a usage, configuration or model error or an internal error
(with a one-line reason on standard error). `--exit-zero` turns 1 into 0,
never 2. Errors never end in a traceback.
"""

from __future__ import annotations

import contextlib
import os
import sys
import warnings
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, TextIO

import click

from ownlint import api, baseline, fixes
from ownlint.baseline import BaselineError
from ownlint.config import Config, ConfigError, discover_config, load_config
from ownlint.diagnostics import FileError
from ownlint.discovery import display_path
from ownlint.engine.models import ModelError
from ownlint.fingerprint import FindingKey
from ownlint.lines import printable
from ownlint.progress import progress_for

if TYPE_CHECKING:
    from rich.console import Console

EXIT_CLEAN = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2
MAX_FIX_ROUNDS = 10
"""How often `--fix` checks again and fixes what is left (an overlapping fix waits for the next round)."""


class UsageError(Exception):
    """A command line ownlint cannot run; str() is the one-line reason."""


def fail(reason: str) -> NoReturn:
    """Print `ownlint: error: reason` on standard error (control characters escaped: a reason may quote
    a path or a configuration's text) and exit with status 2."""
    click.echo(printable(f"ownlint: error: {reason}"), err=True)
    sys.exit(EXIT_ERROR)


def make_console(stream: TextIO | None = None) -> Console:
    """A console on `stream` (default standard output): colour only on a terminal and when `NO_COLOR` is unset
    or empty."""
    from rich.console import Console  # rich only for the outputs that use it (not JSON, SARIF, ...)

    stream = stream if stream is not None else sys.stdout
    on_terminal = stream.isatty()
    colour = on_terminal and not os.environ.get("NO_COLOR")
    return Console(
        file=stream,
        force_terminal=on_terminal,
        no_color=not colour,
        color_system="auto" if colour else None,
        highlight=False,
        markup=False,
        emoji=False,
        soft_wrap=True,
    )


def _codes(value: str | None) -> list[str] | None:
    if value is None:
        return None
    return [c for c in (part.strip() for part in value.split(",")) if c]


def check(
    paths: tuple[Path, ...],
    output_format: str,
    output_file: Path | None,
    quiet: bool,
    verbose: bool,
    select: str | None,
    ignore: str | None,
    config_file: Path | None,
    no_cache: bool,
    cache_dir: Path | None,
    jobs: int | None,
    exit_zero: bool,
    stdin_filename: str | None,
    statistics: bool,
    report_unused_suppressions: bool,
    baseline_file: Path | None,
    write_baseline_file: Path | None,
    fix: bool,
    unsafe_fixes: bool,
) -> None:
    """Check PATHS (default: the current directory) for ownership bugs."""
    options = _CheckOptions(
        paths=paths,
        stdin_filename=stdin_filename,
        report_unused=report_unused_suppressions,
        baseline_file=baseline_file,
        write_baseline_file=write_baseline_file,
        fix=fix,
        unsafe_fixes=unsafe_fixes,
        jobs=jobs,
        use_cache=not no_cache,
        cache_dir=cache_dir,
        quiet=quiet,
    )
    try:
        if quiet and verbose:
            raise UsageError("-q/--quiet and -v/--verbose say opposite things; give one")
        config = _checked_options(options, config_file, select, ignore)
        known = baseline.read(baseline_file) if baseline_file is not None and write_baseline_file is None else None
        if stdin_filename is not None:
            result, fixed_input = _run_stdin(options, config, known)
        else:
            result, fixed_input = _run_files(options, config, known), None
        if write_baseline_file is not None:
            result = _write_baseline(write_baseline_file, result)
    except (ConfigError, ModelError, UsageError, BaselineError) as error:
        fail(str(error))
    report_stream = sys.stdout
    if fixed_input is not None:  # like Ruff: the fixed source on standard output, the report on standard error
        sys.stdout.buffer.write(fixed_input)
        sys.stdout.flush()
        report_stream = sys.stderr
    if verbose:
        _say_what_was_used(config, result)
    shown = _Shown(output_format, statistics, report_unused_suppressions, summary=not quiet)
    if output_file is None:
        _print(result, shown, report_stream)
    else:
        _write_report(output_file, result, shown)
    if result.has_internal_error:
        fail("ownlint failed on some files (internal error); see the error entries above")
    failed = [e for e in result.errors if e.kind != "budget"]  # a budget note does not fail the run
    if (result.findings or failed or result.unused_suppressions) and not exit_zero:
        sys.exit(EXIT_FINDINGS)
    sys.exit(EXIT_CLEAN)


@dataclass(frozen=True, slots=True)
class _CheckOptions:
    paths: tuple[Path, ...]
    stdin_filename: str | None
    report_unused: bool
    baseline_file: Path | None
    write_baseline_file: Path | None
    fix: bool
    unsafe_fixes: bool
    jobs: int | None = None
    use_cache: bool = True
    cache_dir: Path | None = None
    quiet: bool = False


def _checked_options(
    options: _CheckOptions, config_file: Path | None, select: str | None, ignore: str | None
) -> Config:
    """The run's configuration, after the checks of option combinations."""
    if options.stdin_filename is not None and options.paths:
        raise UsageError("--stdin-filename reads the source from standard input; give no PATHS with it")
    if options.unsafe_fixes and not options.fix:
        raise UsageError("--unsafe-fixes only applies together with --fix")
    start: str | Path | None = options.stdin_filename
    if start is None and options.paths:
        start = options.paths[0]
    return _config(config_file, start, select, ignore)


def _run_files(options: _CheckOptions, config: Config, known: Counter[FindingKey] | None) -> api.RunResult:
    """Check the files; with --fix, fix them and check again while fixes apply."""

    from ownlint.cache import CacheWarning

    paths = list(options.paths) or [Path(".")]
    warned: set[str] = set()

    def check_once() -> api.RunResult:
        bar = None if options.quiet else progress_for(sys.stderr)  # None unless standard error is a terminal
        with bar if bar is not None else contextlib.nullcontext(), warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", CacheWarning)
            result = api.check_paths(
                paths,
                config,
                report_unused_suppressions=options.report_unused,
                progress=bar,
                jobs=options.jobs,
                use_cache=options.use_cache,
                cache_dir=options.cache_dir,
            )
        for warning in caught:
            if issubclass(warning.category, CacheWarning) and str(warning.message) not in warned:
                warned.add(str(warning.message))
                click.echo(printable(f"ownlint: warning: {warning.message}"), err=True)
            elif not issubclass(warning.category, CacheWarning):
                warnings.warn_explicit(warning.message, warning.category, warning.filename, warning.lineno)
        return _against_baseline(result, known, options.baseline_file)

    result = check_once()
    if not options.fix:
        return result
    fixed = 0
    write_errors: list[FileError] = []
    for _ in range(MAX_FIX_ROUNDS):
        outcome = fixes.fix_files(result, unsafe=options.unsafe_fixes)
        write_errors += outcome.errors
        if outcome.applied == 0:
            break
        fixed += outcome.applied
        result = check_once()
    result.fixed = fixed
    result.errors = sorted([*result.errors, *write_errors], key=lambda e: e.path)
    return result


def _run_stdin(
    options: _CheckOptions, config: Config, known: Counter[FindingKey] | None
) -> tuple[api.RunResult, bytes | None]:
    """Check standard input; with --fix, also the fixed source to write to standard output."""
    assert options.stdin_filename is not None
    name = options.stdin_filename
    data = sys.stdin.buffer.read()
    shown = display_path(name)
    source = api.decode_source(data, shown)
    if isinstance(source, FileError):
        result = api.RunResult(findings=[], errors=[source], files=[shown], seconds=0.0)
        return result, (data if options.fix else None)

    def check_once(text: str) -> api.RunResult:
        result = api.check_source(text, name, config, report_unused_suppressions=options.report_unused)
        return _against_baseline(result, known, options.baseline_file)

    result = check_once(source)
    if not options.fix:
        return result, None
    fixed = 0
    for _ in range(MAX_FIX_ROUNDS):
        outcome = fixes.apply_fixes(source, result.findings, unsafe=options.unsafe_fixes)
        if outcome.applied == 0 or outcome.source == source:
            break
        fixed += outcome.applied
        source = outcome.source
        result = check_once(source)
    result.fixed = fixed
    encoded = fixes.encode_like(data, source)
    return result, encoded if encoded is not None else data


def _against_baseline(result: api.RunResult, known: Counter[FindingKey] | None, file: Path | None) -> api.RunResult:
    if known is None or file is None:
        return result
    return baseline.apply(result, known, file)


def _write_baseline(file: Path, result: api.RunResult) -> api.RunResult:
    """Record the findings of `result` in `file`; the result reported against that new baseline."""
    keys = baseline.write(file, result)
    click.echo(printable(f"ownlint: wrote {_count(sum(keys.values()), 'finding')} to the baseline {file}"), err=True)
    return baseline.apply(result, keys, file)


def _count(number: int, word: str) -> str:
    return f"{number} {word}" if number == 1 else f"{number} {word}s"


def _config(config_file: Path | None, start: str | Path | None, select: str | None, ignore: str | None) -> Config:
    config = load_config(config_file) if config_file is not None else discover_config(start)
    return config.with_overrides(select=_codes(select), ignore=_codes(ignore) or ())


@dataclass(frozen=True, slots=True)
class _Shown:
    """What the report shows: its format, statistics instead of findings, unused suppressions, the summary line."""

    output_format: str
    statistics: bool
    unused: bool
    summary: bool


def _say_what_was_used(config: Config, result: api.RunResult) -> None:
    """-v: the configuration and the number of files, on standard error (never in the report)."""
    source = config.source if config.source is not None else "none (the defaults)"
    click.echo(printable(f"ownlint: configuration: {source} (root {config.root})"), err=True)
    click.echo(f"ownlint: checked {_count(len(result.files), 'file')} in {result.seconds:.2f} s", err=True)


def _write_report(file: Path, result: api.RunResult, shown: _Shown) -> None:
    """-o: the report in `file` (its directory made if needed), never coloured."""
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        with file.open("w", encoding="utf-8", newline="") as stream:
            _print(result, shown, stream)
    except OSError as error:
        fail(f"cannot write {file}: {error.strerror or error}")


def _print(result: api.RunResult, shown: _Shown, stream: TextIO) -> None:
    from ownlint.render import concise, github, gitlab, json_, junit, sarif, statistics

    show_unused = shown.unused
    if shown.statistics:
        out = statistics.render(result, as_json=shown.output_format == "json")
    elif shown.output_format == "json":
        out = json_.render(result, show_unused=show_unused)
    elif shown.output_format == "sarif":
        out = sarif.render(result)
    elif shown.output_format == "gitlab":
        out = gitlab.render(result)
    elif shown.output_format == "junit":
        out = junit.render(result)
    elif shown.output_format == "github":
        out = github.render(result, show_unused=show_unused)
    elif shown.output_format == "concise":
        out = concise.render(result, show_unused=show_unused, summary=shown.summary)
    else:
        from ownlint.render import text

        text.render(result, make_console(stream), show_unused=show_unused, summary=shown.summary)
        return
    click.echo(out, nl=False, file=stream)


def clean(cache_dir: Path | None, every_project: bool) -> None:
    """Remove this project's cached results (of every project with --all) and say what was removed."""
    from ownlint import cacheclean, cachedir

    try:
        root = None if every_project else discover_config().root
        done = cacheclean.clean(cache_dir, root)
    except (ConfigError, cachedir.CacheUnusable) as error:
        fail(f"cannot clean the cache: {error}")
    except OSError as error:
        fail(f"cannot clean the cache: {error.filename}: {error.strerror or error}")
    whose = "any project" if root is None else str(root)
    if done.entries == 0:  # at most empty directories were removed
        click.echo(printable(f"ownlint: nothing to remove: no cached results of {whose} in {done.directory}"), err=True)
        return
    entries = "1 cache entry" if done.entries == 1 else f"{done.entries} cache entries"
    of = _count(done.projects, "project") if root is None else str(root)
    click.echo(
        printable(f"ownlint: removed {entries} ({done.size / 1024:.1f} KiB) of {of} from {done.directory}"), err=True
    )


_LSP_PACKAGES = frozenset({"pygls", "lsprotocol", "cattrs", "attrs"})


def lsp_command() -> None:
    """Run the language server on standard input and output (for editors)."""
    try:
        from ownlint import lsp
    except ModuleNotFoundError as error:
        missing = (error.name or "").split(".")[0]
        if missing not in _LSP_PACKAGES:
            raise
        fail(
            f"the language server needs pygls and lsprotocol ({missing} is missing): "
            "pip install 'pygls>=1.3' lsprotocol"
        )
    lsp.serve()
