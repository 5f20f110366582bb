"""`--format github`: GitHub Actions workflow commands, which show as annotations on a pull request.

One line per finding:
`::error file=a.py,line=12,col=9,endLine=12,endColumn=31,title=OWN201 double-free::message`
(`::warning` for a rule whose severity is warning), and `::error file=...::reason`
for a file that could not be checked. Escaping follows the workflow-command
rules: in the message `%`, `\\r` and `\\n` become `%25`, `%0D` and `%0A`; in a
property also `:` and `,` become `%3A` and `%2C`. Other control characters
in a message are shown as `cat -v` shows them (`ownlint.lines.printable`):
a log viewer renders ANSI sequences, and the lines are often read in a
terminal too. A file path is left as it is (escaped only as a property), so
that the annotation still lands on its file; only a name that is not UTF-8
shows its undecodable bytes as `\\xff` (`ownlint.lines.escape_undecodable`). With
`--report-unused-suppressions`, each unused suppression is a `::notice`.
A finding in a notebook (`ownlint.notebook`) annotates the `.ipynb` file as
a whole (`file=` without `line=`: a line of its code cells joined is no line
of the JSON file), and its message starts with `cell 4, line 1, column 1: `.
There is no summary line: every line is a command.
"""

from __future__ import annotations

from collections.abc import Mapping

from ownlint.api import RunResult
from ownlint.diagnostics import Diagnostic, FileError
from ownlint.lines import escape_undecodable, printable
from ownlint.notebook import NotebookIndex
from ownlint.render import name_of, severity_of
from ownlint.suppress import UnusedSuppression


def _percent(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_data(text: str) -> str:
    return printable(_percent(text))


def escape_property(text: str) -> str:
    return _percent(escape_undecodable(text)).replace(":", "%3A").replace(",", "%2C")


def command(kind: str, message: str, **properties: str | int) -> str:
    """`::kind name=value,...::message`, escaped."""
    listed = ",".join(f"{name}={escape_property(str(value))}" for name, value in properties.items())
    return f"::{kind} {listed}::{escape_data(message)}" if listed else f"::{kind}::{escape_data(message)}"


def finding_line(diagnostic: Diagnostic, notebooks: Mapping[str, NotebookIndex] | None = None) -> str:
    span = diagnostic.span
    kind = "warning" if severity_of(diagnostic.code) == "warning" else "error"
    title = f"{diagnostic.code} {name_of(diagnostic.code)}".rstrip()
    index = (notebooks or {}).get(diagnostic.path)
    if index is not None:
        cell, line = index.cell_of(span.line)
        where = f"cell {cell}, line {line}, column {span.column}: "
        return command(kind, where + diagnostic.message, file=diagnostic.path, title=title)
    return command(
        kind,
        diagnostic.message,
        file=diagnostic.path,
        line=span.line,
        col=span.column,
        endLine=span.end_line,
        endColumn=span.end_column,
        title=title,
    )


def error_line(error: FileError) -> str:
    return command("warning" if error.kind == "budget" else "error", error.message, file=error.path)


def unused_line(unused: UnusedSuppression, notebooks: Mapping[str, NotebookIndex] | None = None) -> str:
    index = (notebooks or {}).get(unused.path)
    if index is not None:
        cell, line = index.cell_of(unused.line)
        where = f"cell {cell}, line {line}, column {unused.column}: "
        return command(
            "notice", f"{where}unused suppression '{unused.what}'", file=unused.path, title="unused suppression"
        )
    return command(
        "notice",
        f"unused suppression '{unused.what}'",
        file=unused.path,
        line=unused.line,
        col=unused.column,
        title="unused suppression",
    )


def render(result: RunResult, *, show_unused: bool = False) -> str:
    lines = [error_line(e) for e in result.errors]
    lines += [finding_line(d, result.notebooks) for d in result.findings]
    if show_unused:
        lines += [unused_line(u, result.notebooks) for u in result.unused_suppressions]
    return "".join(line + "\n" for line in lines)
