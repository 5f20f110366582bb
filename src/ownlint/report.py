"""The report of a check: which format, where it goes (standard output, a file
with `-o`), whether it ends with the summary line (not with `-q`), and what
`-v` says on standard error. The renderers (`ownlint.render`) make the text;
this module only picks one and writes what it makes."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import click

from ownlint import api
from ownlint.config import Config
from ownlint.lines import printable
from ownlint.render import plural

if TYPE_CHECKING:
    from rich.console import Console


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


@dataclass(frozen=True, slots=True)
class Shown:
    """What the report shows: its format, statistics instead of findings, unused suppressions, the summary line."""

    output_format: str
    statistics: bool
    unused: bool
    summary: bool


def say_what_was_used(config: Config, result: api.RunResult) -> None:
    """-v: the configuration and the number of files, on standard error (never in the report)."""
    source = config.source if config.source is not None else "none (the defaults)"
    click.echo(printable(f"ownlint: configuration: {source} (root {config.root})"), err=True)
    click.echo(f"ownlint: checked {plural(len(result.files), 'file')} in {result.seconds:.2f} s", err=True)


def write_report(file: Path, result: api.RunResult, shown: Shown) -> None:
    """-o: the report in `file` (its directory made if needed), never coloured; OSError when it cannot be written."""
    file.parent.mkdir(parents=True, exist_ok=True)
    with file.open("w", encoding="utf-8", newline="") as stream:
        print_report(result, shown, stream)


def print_report(result: api.RunResult, shown: Shown, stream: TextIO) -> None:
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
