"""The command line: a thin shell over `ownlint.api` and `ownlint.render`.

Exit status of `ownlint check`: 0 when nothing was found, 1 when there are
findings or files that could not be checked (unreadable, not UTF-8, a missing
path), 2 for a usage, configuration or model error or an internal error
(with a one-line reason on standard error). `--exit-zero` turns 1 into 0,
never 2. Errors never end in a traceback.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

import click
from rich.console import Console
from rich.markdown import Markdown
from rich.table import Table

from ownlint import __version__, api
from ownlint.config import Config, ConfigError, discover_config, load_config
from ownlint.discovery import display_path
from ownlint.engine.models import ModelError
from ownlint.registry import Rule, all_rules, rules_markdown_table
from ownlint.render import concise, json_, statistics, text

EXIT_CLEAN = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2


class UsageError(Exception):
    """A command line ownlint cannot run; str() is the one-line reason."""


def fail(reason: str) -> NoReturn:
    """Print `ownlint: error: reason` on standard error and exit with status 2."""
    click.echo(f"ownlint: error: {reason}", err=True)
    sys.exit(EXIT_ERROR)


def make_console() -> Console:
    """A console on standard output: colour only on a terminal and when `NO_COLOR` is unset or empty."""
    on_terminal = sys.stdout.isatty()
    colour = on_terminal and not os.environ.get("NO_COLOR")
    return Console(
        file=sys.stdout,
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


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="ownlint", message="%(prog)s %(version)s")
def cli() -> None:
    """ownlint: finds ownership bugs where Python hands native GPU runtime handles across a boundary."""


@cli.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "concise", "json"]),
    default="text",
    show_default=True,
    help="Output format.",
)
@click.option("--select", metavar="CODES", help="Comma-separated codes or prefixes to check; replaces `select`.")
@click.option("--ignore", metavar="CODES", help="Comma-separated codes or prefixes to skip; adds to `ignore`.")
@click.option(
    "--config",
    "config_file",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Use this configuration file instead of looking for one.",
)
@click.option("--no-cache", is_flag=True, help="Accepted for the future: ownlint has no cache yet.")
@click.option("--exit-zero", is_flag=True, help="Exit with 0 even when there are findings (2 still means an error).")
@click.option(
    "--stdin-filename",
    metavar="PATH",
    help="Read the source from standard input and report it as PATH (give no PATHS).",
)
@click.option("--statistics", is_flag=True, help="Print how many findings of each code instead of the findings.")
@click.option(
    "--report-unused-suppressions",
    is_flag=True,
    help="Also print suppression comments that silenced nothing (does not change the exit status).",
)
def check(
    paths: tuple[Path, ...],
    output_format: str,
    select: str | None,
    ignore: str | None,
    config_file: Path | None,
    no_cache: bool,
    exit_zero: bool,
    stdin_filename: str | None,
    statistics: bool,
    report_unused_suppressions: bool,
) -> None:
    """Check PATHS (default: the current directory) for ownership bugs."""
    try:
        result = _run(paths, select, ignore, config_file, stdin_filename, report_unused_suppressions)
    except (ConfigError, ModelError, UsageError) as error:
        fail(str(error))
    _print(result, output_format, statistics, report_unused_suppressions)
    if result.has_internal_error:
        fail("ownlint failed on some files (internal error); see the error entries above")
    if (result.findings or result.errors) and not exit_zero:
        sys.exit(EXIT_FINDINGS)
    sys.exit(EXIT_CLEAN)


def _run(
    paths: Sequence[Path],
    select: str | None,
    ignore: str | None,
    config_file: Path | None,
    stdin_filename: str | None,
    report_unused: bool,
) -> api.RunResult:
    if stdin_filename is not None and paths:
        raise UsageError("--stdin-filename reads the source from standard input; give no PATHS with it")
    start = stdin_filename if stdin_filename is not None else (paths[0] if paths else None)
    config = _config(config_file, start, select, ignore)
    if stdin_filename is None:
        return api.check_paths(list(paths) or [Path(".")], config, report_unused_suppressions=report_unused)
    data = sys.stdin.buffer.read()
    shown = display_path(stdin_filename)
    source = api.decode_source(data, shown)
    if isinstance(source, str):
        return api.check_source(source, stdin_filename, config, report_unused_suppressions=report_unused)
    return api.RunResult(findings=[], errors=[source], files=[shown], seconds=0.0)


def _config(config_file: Path | None, start: str | Path | None, select: str | None, ignore: str | None) -> Config:
    config = load_config(config_file) if config_file is not None else discover_config(start)
    return config.with_overrides(select=_codes(select), ignore=_codes(ignore) or ())


def _print(result: api.RunResult, output_format: str, show_statistics: bool, show_unused: bool) -> None:
    if show_statistics:
        click.echo(statistics.render(result, as_json=output_format == "json"), nl=False)
    elif output_format == "json":
        click.echo(json_.render(result, show_unused=show_unused), nl=False)
    elif output_format == "concise":
        click.echo(concise.render(result, show_unused=show_unused), nl=False)
    else:
        text.render(result, make_console(), show_unused=show_unused)


@cli.command()
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "markdown"]),
    default="text",
    show_default=True,
    help="A table for the terminal, or the Markdown table of the README.",
)
def rules(output_format: str) -> None:
    """List every rule: code, name, severity and summary."""
    if output_format == "markdown":
        click.echo(rules_markdown_table(), nl=False)
        return
    table = Table("code", "name", "severity", "summary", box=None, pad_edge=False)
    for rule in all_rules().values():
        table.add_row(rule.code, rule.name, rule.severity, rule.summary)
    console = make_console()
    console.soft_wrap = False
    console.print(table)


@cli.command()
@click.argument("code")
def explain(code: str) -> None:
    """Show the documentation of one rule, by code (OWN201) or name (double-free)."""
    rule = find_rule(code)
    if rule is None:
        fail(f"unknown rule {code!r}; `ownlint rules` lists them")
    if sys.stdout.isatty():
        make_console().print(Markdown(rule.markdown()))
    else:
        click.echo(rule.markdown(), nl=False)


def find_rule(code_or_name: str) -> Rule | None:
    """The rule with this code (any case) or kebab-case name."""
    wanted = code_or_name.strip()
    for rule in all_rules().values():
        if wanted.upper() == rule.code or wanted.lower() == rule.name:
            return rule
    return None


def main() -> None:
    """The console script (click itself turns a closed pipe or Ctrl-C into a quiet exit)."""
    cli.main(prog_name="ownlint")
