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
from typing import NoReturn

import click

from ownlint import api, baseline, fixes, listing, notebook
from ownlint.baseline import BaselineError
from ownlint.config import ConfigError, discover_config, load_config
from ownlint.diagnostics import Diagnostic, FileError
from ownlint.discovery import Skipped, display_path, excluded_reason
from ownlint.engine.modelling.models import ModelError
from ownlint.fingerprint import FindingKey
from ownlint.lines import printable
from ownlint.progress import progress_for
from ownlint.render import plural
from ownlint.report import Shown, print_report, say_what_was_used, write_report
from ownlint.resolver import Overrides, Resolver

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


def check(
    paths: tuple[Path, ...],
    output_format: str,
    output_file: Path | None,
    quiet: bool,
    verbose: bool,
    select: tuple[str, ...],
    extend_select: tuple[str, ...],
    ignore: tuple[str, ...],
    exclude: tuple[str, ...],
    extend_exclude: tuple[str, ...],
    force_exclude: bool,
    show_files: bool,
    show_settings: bool,
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
    diff: bool,
    show_fixes: bool,
) -> None:
    """Check PATHS (default: the current directory) for ownership bugs; `-` reads standard input."""
    dash = Path("-")
    if dash in paths and len(paths) == 1:  # as Ruff: `-` is standard input, named by --stdin-filename if given
        paths, stdin_filename = (), stdin_filename or "-"
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
        force_exclude=force_exclude,
        show_fixes=show_fixes,
        cache_dir=cache_dir,
        quiet=quiet,
    )
    try:
        if quiet and verbose:
            raise UsageError("-q/--quiet and -v/--verbose say opposite things; give one")
        if dash in paths:
            raise UsageError("`-` reads the source from standard input; give no other PATHS with it")
        overrides = Overrides.from_command_line(select, extend_select, ignore, exclude, extend_exclude)
        resolver = _checked_options(options, config_file, overrides)
        if show_files or show_settings:
            _show(options, resolver, output_format, show_files)
        known = baseline.read(baseline_file) if baseline_file is not None and write_baseline_file is None else None
        if stdin_filename is not None:
            result, fixed_input = _run_stdin(options, resolver, known)
        else:
            result, fixed_input = _run_files(options, resolver, known), None
        if write_baseline_file is not None:
            result = _write_baseline(write_baseline_file, result)
    except (ConfigError, ModelError, UsageError, BaselineError) as error:
        fail(str(error))
    for skipped in result.skipped:
        if skipped.explicit:
            click.echo(
                printable(f"ownlint: warning: {display_path(skipped.path)}: {skipped.reason}; not checked"), err=True
            )
    if diff:
        _print_diff(result, unsafe_fixes)
    report_stream = sys.stdout
    if fixed_input is not None:  # like Ruff: the fixed source on standard output, the report on standard error
        sys.stdout.buffer.write(fixed_input)
        sys.stdout.flush()
        report_stream = sys.stderr
    if options.show_fixes and result.fixed_findings:
        click.echo(listing.fixed_lines(result.fixed_findings), nl=False, err=report_stream is sys.stderr)
    if verbose:
        say_what_was_used(resolver.for_path(Path.cwd()), result)
    shown = Shown(output_format, statistics, report_unused_suppressions, summary=not quiet)
    if output_file is None:
        print_report(result, shown, report_stream)
    else:
        try:
            write_report(output_file, result, shown)
        except OSError as error:
            fail(f"cannot write {output_file}: {error.strerror or error}")
    if result.has_internal_error:
        fail("ownlint failed on some files (internal error); see the error entries above")
    failed = [e for e in result.errors if e.kind != "budget"]  # a budget note does not fail the run
    if (result.findings or failed or result.unused_suppressions) and not exit_zero:
        sys.exit(EXIT_FINDINGS)
    sys.exit(EXIT_CLEAN)


def _show(options: _CheckOptions, resolver: Resolver, output_format: str, files: bool) -> NoReturn:
    """`--show-files` or `--show-settings`: print, exit 0."""
    paths = list(options.paths) or ([Path(options.stdin_filename)] if options.stdin_filename else [Path(".")])
    if files:
        click.echo(listing.show_files(paths, resolver, options.force_exclude, output_format == "json"), nl=False)
    else:
        click.echo(listing.show_settings(paths, resolver), nl=False)
    sys.exit(EXIT_CLEAN)


def _print_diff(result: api.RunResult, unsafe: bool) -> NoReturn:
    """`--diff`: the fixes as a unified diff on standard output; exit 1 when there are some (as Ruff)."""
    text, count = listing.diff(result, unsafe)
    click.echo(text, nl=False)
    if count:
        click.echo(f"Would fix {plural(count, 'finding')}.", err=True)
    sys.exit(EXIT_FINDINGS if count else EXIT_CLEAN)


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
    force_exclude: bool = False
    show_fixes: bool = False
    cache_dir: Path | None = None
    quiet: bool = False


def _checked_options(options: _CheckOptions, config_file: Path | None, overrides: Overrides) -> Resolver:
    """How the run's files are configured, after the checks of option combinations."""
    if options.stdin_filename is not None and options.paths:
        raise UsageError("--stdin-filename reads the source from standard input; give no PATHS with it")
    if options.unsafe_fixes and not options.fix:
        raise UsageError("--unsafe-fixes only applies together with --fix")
    fixed = load_config(config_file) if config_file is not None else None
    resolver = Resolver(fixed, overrides)
    resolver.for_path(Path.cwd())  # a configuration error is reported before anything runs
    return resolver


def _run_files(options: _CheckOptions, resolver: Resolver, known: Counter[FindingKey] | None) -> api.RunResult:
    """Check the files; with --fix, fix them and check again while fixes apply."""

    from ownlint.cache import CacheWarning
    from ownlint.engine.modelling.models import ModelWarning

    paths = list(options.paths) or [Path(".")]
    warned: set[str] = set()

    def check_once() -> api.RunResult:
        bar = None if options.quiet else progress_for(sys.stderr)  # None unless standard error is a terminal
        with bar if bar is not None else contextlib.nullcontext(), warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", CacheWarning)
            warnings.simplefilter("always", ModelWarning)
            result = api.check_paths(
                paths,
                resolver,
                report_unused_suppressions=options.report_unused,
                progress=bar,
                jobs=options.jobs,
                use_cache=options.use_cache,
                cache_dir=options.cache_dir,
                force_exclude=options.force_exclude,
            )
        shown = (CacheWarning, ModelWarning)  # one line each, once per run
        for warning in caught:
            if issubclass(warning.category, shown) and str(warning.message) not in warned:
                warned.add(str(warning.message))
                click.echo(printable(f"ownlint: warning: {warning.message}"), err=True)
            elif not issubclass(warning.category, shown):
                warnings.warn_explicit(warning.message, warning.category, warning.filename, warning.lineno)
        return _against_baseline(result, known, options.baseline_file)

    result = check_once()
    if not options.fix:
        return result
    fixed = 0
    write_errors: list[FileError] = []
    fixed_findings: list[Diagnostic] = []
    for _ in range(MAX_FIX_ROUNDS):
        outcome = fixes.fix_files(result, unsafe=options.unsafe_fixes)
        write_errors += outcome.errors
        if outcome.applied == 0:
            break
        fixed += outcome.applied
        fixed_findings += [
            f
            for f in result.findings
            if f.path in outcome.files and f.fix is not None and fixes.is_applicable(f.fix, options.unsafe_fixes)
        ]
        result = check_once()
    result.fixed = fixed
    result.fixed_findings = fixed_findings
    result.errors = sorted([*result.errors, *write_errors], key=lambda e: e.path)
    return result


def _run_stdin(
    options: _CheckOptions, resolver: Resolver, known: Counter[FindingKey] | None
) -> tuple[api.RunResult, bytes | None]:
    """Check standard input; with --fix, also the fixed source to write to standard output."""
    assert options.stdin_filename is not None
    name = options.stdin_filename
    data = sys.stdin.buffer.read()
    shown = display_path(name) if name != "-" else "-"
    config = resolver.for_path(name)
    why = excluded_reason(Path(name), resolver) if options.force_exclude and name != "-" else None
    if why is not None:  # as Ruff: an excluded file given on standard input is passed through unchecked
        skipped = (Skipped(Path(os.path.abspath(name)), why, explicit=True),)
        result = api.RunResult(findings=[], errors=[], files=[], seconds=0.0, skipped=skipped)
        return result, (data if options.fix else None)
    source = api.decode_source(data, shown)
    if isinstance(source, FileError):
        result = api.RunResult(findings=[], errors=[source], files=[shown], seconds=0.0)
        return result, (data if options.fix else None)

    others = _imported_by(Path(name), _python_of(source, shown, name), resolver) if name != "-" else []

    def check_once(text: str) -> api.RunResult:
        result = api.check_source(text, name, config, report_unused_suppressions=options.report_unused, others=others)
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


def _python_of(source: str, shown: str, name: str) -> str:
    """The Python of standard input: the text itself, or for a notebook (`name` ends in `.ipynb`) its code cells
    joined ("" when it is no notebook: `api.check_source` reports why)."""
    if not notebook.is_notebook(name):
        return source
    parsed = notebook.decode(source, shown)
    return parsed.source if isinstance(parsed, notebook.Notebook) else ""


def _imported_by(path: Path, source: str, config: Resolver) -> list[tuple[Path, str]]:
    """The project modules (path, text) that standard input, reported as `path`, imports, transitively."""
    from ownlint import closure

    found: list[tuple[Path, str]] = []
    for file in closure.imported_files([path], config, sources={path: source}):
        text = api.read_source(file, display_path(file))
        if isinstance(text, str):
            found.append((file, text))
    return found


def _against_baseline(result: api.RunResult, known: Counter[FindingKey] | None, file: Path | None) -> api.RunResult:
    if known is None or file is None:
        return result
    return baseline.apply(result, known, file)


def _write_baseline(file: Path, result: api.RunResult) -> api.RunResult:
    """Record the findings of `result` in `file`; the result reported against that new baseline."""
    keys = baseline.write(file, result)
    click.echo(printable(f"ownlint: wrote {plural(sum(keys.values()), 'finding')} to the baseline {file}"), err=True)
    return baseline.apply(result, keys, file)


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
    of = plural(done.projects, "project") if root is None else str(root)
    click.echo(
        printable(f"ownlint: removed {entries} ({done.size / 1024:.1f} KiB) of {of} from {done.directory}"), err=True
    )
