"""`--format concise`: one line per finding, `path:line:col: OWN201 [double-free] message`
(in a notebook `path:cell 4:1:1: ...`, the cell, the line in it and the column, as Ruff).

Control characters in a path or a message are shown escaped (`ownlint.lines.printable`):
each finding stays on one line, and nothing from the file drives the terminal.
"""

from __future__ import annotations

from collections.abc import Mapping

from ownlint.api import RunResult
from ownlint.diagnostics import Diagnostic
from ownlint.lines import printable
from ownlint.notebook import NotebookIndex
from ownlint.render import error_line, location, name_of, summary_line, unused_line


def finding_line(diagnostic: Diagnostic, notebooks: Mapping[str, NotebookIndex] | None = None) -> str:
    span = diagnostic.span
    code = diagnostic.code
    where = location(diagnostic.path, span.line, span.column, notebooks or {})
    return printable(f"{where}: {code} [{name_of(code)}] {diagnostic.message}")


def render(result: RunResult, *, show_unused: bool = False, summary: bool = True) -> str:
    """File errors, then findings, then (on request) unused suppressions, then the summary line."""
    lines = [error_line(e) for e in result.errors]
    lines += [finding_line(d, result.notebooks) for d in result.findings]
    if show_unused:
        lines += [unused_line(u, result.notebooks) for u in result.unused_suppressions]
    if summary:
        lines.append(summary_line(result, show_unused=show_unused))
    return "\n".join(lines) + "\n" if lines else ""
