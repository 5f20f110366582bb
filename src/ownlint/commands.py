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
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, TextIO

import click

from ownlint import api, baseline, fixes, listing, notebook
from ownlint.baseline import BaselineError
from ownlint.config import ConfigError, load_config
from ownlint.diagnostics import Diagnostic, FileError
from ownlint.discovery import Skipped, display_path, excluded_reason
from ownlint.engine.models import ModelError
from ownlint.fingerprint import FindingKey
from ownlint.lines import printable
from ownlint.progress import progress_for
from ownlint.registry import Rule, all_rules, rules_document, rules_markdown_table
from ownlint.render import concise, github, json_, sarif, statistics
from ownlint.resolver import Overrides, Resolver

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


def check(
    paths: tuple[Path, ...],
    output_format: str,
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
    )
    try:
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
    _print(result, output_format, statistics, report_unused_suppressions, report_stream)
    if result.has_internal_error:
        fail("ownlint failed on some files (internal error); see the error entries above")
    failed = [e for e in result.errors if e.kind != "budget"]  # a budget note does not fail the run
    if (result.findings or failed) and not exit_zero:
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
        click.echo(f"Would fix {_count(count, 'finding')}.", err=True)
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

    paths = list(options.paths) or [Path(".")]

    def check_once() -> api.RunResult:
        bar = progress_for(sys.stderr)  # None unless standard error is a terminal
        with bar if bar is not None else contextlib.nullcontext():
            result = api.check_paths(
                paths,
                resolver,
                report_unused_suppressions=options.report_unused,
                progress=bar,
                jobs=options.jobs,
                use_cache=options.use_cache,
                force_exclude=options.force_exclude,
            )
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
    click.echo(printable(f"ownlint: wrote {_count(sum(keys.values()), 'finding')} to the baseline {file}"), err=True)
    return baseline.apply(result, keys, file)


def _count(number: int, word: str) -> str:
    return f"{number} {word}" if number == 1 else f"{number} {word}s"


def _print(result: api.RunResult, output_format: str, show_statistics: bool, show_unused: bool, stream: TextIO) -> None:
    err = stream is sys.stderr
    if show_statistics:
        click.echo(statistics.render(result, as_json=output_format == "json"), nl=False, err=err)
    elif output_format == "json":
        click.echo(json_.render(result, show_unused=show_unused), nl=False, err=err)
    elif output_format == "sarif":
        click.echo(sarif.render(result), nl=False, err=err)
    elif output_format == "github":
        click.echo(github.render(result, show_unused=show_unused), nl=False, err=err)
    elif output_format == "concise":
        click.echo(concise.render(result, show_unused=show_unused), nl=False, err=err)
    else:
        from ownlint.render import text

        text.render(result, make_console(stream), show_unused=show_unused)


def rules(output_format: str) -> None:
    """List every rule: code, name, severity and summary."""
    if output_format == "markdown":
        click.echo(rules_markdown_table(), nl=False)
        return
    if output_format == "docs":
        click.echo(rules_document(), nl=False)
        return
    from rich.table import Table

    table = Table("code", "name", "severity", "summary", box=None, pad_edge=False)
    for rule in all_rules().values():
        table.add_row(rule.code, rule.name, rule.severity, rule.summary)
    console = make_console()
    console.soft_wrap = False
    console.print(table)


def explain(code: str) -> None:
    """Show the documentation of one rule, by code (OWN201) or name (double-free)."""
    rule = find_rule(code)
    if rule is None:
        fail(f"unknown rule {code!r}; `ownlint rules` lists them")
    if sys.stdout.isatty():
        from rich.markdown import Markdown  # only here: its import costs more than a cached run

        make_console().print(Markdown(rule.markdown()))
    else:
        click.echo(rule.markdown(), nl=False)


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


def find_rule(code_or_name: str) -> Rule | None:
    """The rule with this code (any case) or kebab-case name."""
    wanted = code_or_name.strip()
    for rule in all_rules().values():
        if wanted.upper() == rule.code or wanted.lower() == rule.name:
            return rule
    return None
