"""The command line: a thin shell over `ownlint.api` and `ownlint.render`.

This module only declares the commands and their options; what they do is
in `ownlint.commands`, imported when a command runs, so `ownlint --version`
and `ownlint --help` load nothing but click. See `ownlint.commands` for the
exit statuses.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import click

from ownlint import __version__

if TYPE_CHECKING:
    from rich.console import Console


def make_console(stream: TextIO | None = None) -> Console:
    from ownlint import commands

    return commands.make_console(stream)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="ownlint", message="%(prog)s %(version)s")
def cli() -> None:
    """ownlint: finds ownership bugs where Python hands native GPU runtime handles across a boundary."""


@cli.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "concise", "json", "sarif", "github"]),
    default="text",
    show_default=True,
    help="Output format.",
)
@click.option(
    "--select",
    metavar="CODES",
    multiple=True,
    help="Comma-separated codes or prefixes to check; replaces `select` (repeat to add more).",
)
@click.option(
    "--extend-select", metavar="CODES", multiple=True, help="Comma-separated codes or prefixes to add to `select`."
)
@click.option(
    "--ignore", metavar="CODES", multiple=True, help="Comma-separated codes or prefixes to skip; adds to `ignore`."
)
@click.option(
    "--exclude", metavar="PATTERNS", multiple=True, help="Comma-separated gitignore-style patterns; replace `exclude`."
)
@click.option("--extend-exclude", metavar="PATTERNS", multiple=True, help="Patterns to add to `exclude`.")
@click.option(
    "--force-exclude",
    is_flag=True,
    help="Apply `exclude` and .gitignore to paths given explicitly too (for pre-commit and editors).",
)
@click.option("--show-files", is_flag=True, help="List the files checked and skipped (and why), then exit.")
@click.option("--show-settings", is_flag=True, help="Print the configuration that governs each path, then exit.")
@click.option(
    "--config",
    "config_file",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Use this configuration file instead of looking for one.",
)
@click.option("--no-cache", is_flag=True, help="Neither read nor write the result cache (.ownlint_cache/).")
@click.option(
    "--jobs",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes for large runs (default: every core). The output does not depend on it.",
)
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
@click.option(
    "--baseline",
    "baseline_file",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Hide the findings this baseline file records (only new findings are reported).",
)
@click.option(
    "--write-baseline",
    "write_baseline_file",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Record every finding of this run in a baseline file (then report against it).",
)
@click.option("--fix", is_flag=True, help="Apply the safe fixes rules offer to the files, then check again.")
@click.option("--unsafe-fixes", is_flag=True, help="With --fix or --diff, apply unsafe fixes too.")
@click.option("--diff", is_flag=True, help="Print the fixes --fix would apply as a unified diff; write nothing.")
@click.option("--show-fixes", is_flag=True, help="With --fix, list the findings that were fixed.")
def check(**options: Any) -> None:
    """Check PATHS (default: the current directory) for ownership bugs; `-` reads standard input."""
    from ownlint import commands

    commands.check(**options)


@cli.command()
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "markdown", "docs"]),
    default="text",
    show_default=True,
    help="A table for the terminal, the Markdown table of the README, or docs/rules.md (every rule in full).",
)
def rules(**options: Any) -> None:
    """List every rule: code, name, severity and summary."""
    from ownlint import commands

    commands.rules(**options)


@cli.command()
@click.argument("code")
def explain(**options: Any) -> None:
    """Show the documentation of one rule, by code (OWN201) or name (double-free)."""
    from ownlint import commands

    commands.explain(**options)


@cli.command("lsp")
def lsp_command() -> None:
    """Run the language server on standard input and output (for editors)."""
    from ownlint import commands

    commands.lsp_command()


def main() -> None:
    """The console script (click itself turns a closed pipe or Ctrl-C into a quiet exit).

    Once the command is done and its output flushed, the process ends at once,
    as mypy's does: tearing down the interpreter (freeing every object of a
    large run one by one) costs tens of milliseconds and does nothing for the
    user. Every file ownlint writes (the cache, a baseline) is complete and
    closed before the command returns."""
    try:
        cli.main(prog_name="ownlint")
    except SystemExit as done:
        status = done.code
    else:  # pragma: no cover - click's standalone mode always exits
        status = 0
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream: nothing more can be said
            pass
    if status is None:
        status = 0
    elif not isinstance(status, int):  # click exits with a message only through its own printing; be safe
        print(status, file=sys.stderr)
        status = 1
    os._exit(status)
