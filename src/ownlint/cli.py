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
    from ownlint import report

    return report.make_console(stream)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="ownlint", message="%(prog)s %(version)s")
def cli() -> None:
    """ownlint: finds ownership bugs where Python hands native GPU runtime handles across a boundary."""


@cli.command()
# readable=False: an unreadable path is an error entry of the run (README), not a usage error
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path, readable=False))
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "concise", "json", "sarif", "github", "gitlab", "junit"]),
    default="text",
    show_default=True,
    help="Output format (gitlab: GitLab Code Quality; junit: JUnit XML).",
)
@click.option(
    "-o",
    "--output-file",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Write the report to this file instead of standard output.",
)
@click.option("-q", "--quiet", is_flag=True, help="Print the findings and nothing else (no summary, no progress).")
@click.option(
    "-v", "--verbose", is_flag=True, help="Also say on standard error which configuration and files were used."
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
@click.option("--no-cache", is_flag=True, help="Neither read nor write the result cache.")
@click.option(
    "--cache-dir",
    type=click.Path(path_type=Path),
    metavar="DIR",
    help="Keep the result cache here (default: $OWNLINT_CACHE_DIR, else the user's cache directory).",
)
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
    help="Also report suppression comments that silenced nothing, and fail the run on them (exit 1).",
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
    type=click.Choice(["text", "markdown", "docs", "json"]),
    default="text",
    show_default=True,
    help="A table, the Markdown table of the README, docs/rules.md (every rule in full), or JSON.",
)
def rules(**options: Any) -> None:
    """List every rule: code, name, severity and summary."""
    from ownlint import rule_commands

    rule_commands.rules(**options)


@cli.command()
@click.argument("code")
def explain(**options: Any) -> None:
    """Show the documentation of one rule, by code (OWN201) or name (double-free)."""
    from ownlint import rule_commands

    rule_commands.explain(**options)


@cli.command()
@click.option(
    "--cache-dir", type=click.Path(path_type=Path), metavar="DIR", help="The cache directory to clean (as for check)."
)
@click.option("--all", "every_project", is_flag=True, help="Remove the cached results of every project.")
def clean(**options: Any) -> None:
    """Remove this project's cached results (the configuration's directory, or the current one)."""
    from ownlint import commands

    commands.clean(**options)


@cli.command("lsp")
def lsp_command() -> None:
    """Run the language server on standard input and output (for editors)."""
    from ownlint import commands

    commands.lsp_command()


EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report a command ended by Ctrl-C
EXIT_CRASHED = 2  # ownlint's own failure: never 1, which means findings


def main() -> None:
    """The console script. Exit statuses beyond the commands' own
    (`ownlint.commands`): a Ctrl-C (SIGINT, KeyboardInterrupt) exits 130,
    and a failure of ownlint itself (an exception no command caught) exits
    2 with one line on standard error, never a traceback; neither is ever
    1, which means findings. Click's usage errors keep their status (2),
    a closed output pipe its quiet exit.

    Once the command is done and its output flushed, the process ends at once,
    as mypy's does: tearing down the interpreter (freeing every object of a
    large run one by one) costs tens of milliseconds and does nothing for the
    user. Every file ownlint writes (the cache, a baseline) is complete and
    closed before the command returns."""
    try:
        status = _run_cli()
    except KeyboardInterrupt:
        status = EXIT_INTERRUPTED
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream: nothing more can be said
            pass
    os._exit(status)


def _run_cli() -> int:
    """Runs the command line; its exit status."""
    try:
        cli.main(prog_name="ownlint", standalone_mode=False)
    except SystemExit as done:
        return _status(done.code)
    except click.exceptions.Abort as abort:  # click's word for a KeyboardInterrupt (or end of input at a prompt)
        if isinstance(abort.__context__, KeyboardInterrupt):
            return EXIT_INTERRUPTED
        click.echo("ownlint: error: aborted", err=True)
        return EXIT_CRASHED
    except click.exceptions.ClickException as error:
        error.show()
        return error.exit_code
    except click.exceptions.Exit as done:
        return _status(done.exit_code)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except Exception as error:  # ownlint itself failed: one line, status 2, never a traceback
        from ownlint.lines import printable

        reason = " ".join(f"{type(error).__name__}: {error}".split())
        click.echo(printable(f"ownlint: error: internal error in ownlint {__version__}: {reason}"), err=True)
        return EXIT_CRASHED
    return 0


def _status(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)  # an exit with a message: said, and a failure
    return EXIT_CRASHED
