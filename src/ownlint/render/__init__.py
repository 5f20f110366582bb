"""One module per output format; this module holds the lines they share.

Renderers only turn a `RunResult` into text: they read no files (source lines
come from `RunResult.sources`) and decide no exit status. The human-readable
ones (text, concise, statistics) show what they take from the analysed files
(paths, messages, source lines) through `ownlint.lines.printable`, so that no
control character reaches the terminal; JSON, SARIF and GitHub escape in
their own syntax.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from ownlint.api import RunResult
from ownlint.diagnostics import FileError
from ownlint.lines import printable
from ownlint.notebook import NotebookIndex
from ownlint.registry import Rule, all_rules
from ownlint.suppress import UnusedSuppression


def rule_of(code: str) -> Rule | None:
    """The registry's rule for `code`, or None for a code the registry does not know."""
    return all_rules().get(code)


def severity_of(code: str) -> str:
    """ "error" or "warning"; a code the registry does not know counts as an error."""
    rule = rule_of(code)
    return rule.severity if rule is not None else "error"


def name_of(code: str) -> str:
    rule = rule_of(code)
    return rule.name if rule is not None else ""


def error_line(error: FileError) -> str:
    """`error: path: reason` (`warning:` for a budget note), control characters escaped."""
    level = "warning" if error.kind == "budget" else "error"
    return printable(f"{level}: {error.path}: {error.message}")


def location(path: str, line: int, column: int, notebooks: Mapping[str, NotebookIndex]) -> str:
    """`path:line:col`, or in a notebook `path:cell 4:1:1` (the cell, the line in it, the column), as Ruff
    shows it; `notebooks`: `RunResult.notebooks`. Not escaped."""
    index = notebooks.get(path)
    if index is None:
        return f"{path}:{line}:{column}"
    cell, in_cell = index.cell_of(line)
    return f"{path}:cell {cell}:{in_cell}:{column}"


def unused_line(unused: UnusedSuppression, notebooks: Mapping[str, NotebookIndex] | None = None) -> str:
    """`path:line:col: unused suppression 'OWN203'`, control characters escaped."""
    where = location(unused.path, unused.line, unused.column, notebooks or {})
    return printable(f"{where}: unused suppression '{unused.what}'")


def plural(count: int, word: str) -> str:
    """`1 file`, `2 files`."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def summary_line(result: RunResult, *, show_unused: bool = False) -> str:
    """`Found 3 findings (2 errors, 1 warning) in 2 files.` or `All checked! 12 files, no findings.`

    Paths that could not be checked (file errors) are counted in a second
    sentence; functions analysed only in part (budget notes: their files were
    checked) in another; findings a baseline hid in another, unused
    suppressions (when shown) in another; fixes applied come first.
    """
    unchecked = len({e.path for e in result.errors if e.kind != "budget"})
    partial = sum(1 for e in result.errors if e.kind == "budget")
    tail = f" {plural(unchecked, 'path')} could not be checked." if unchecked else ""
    if partial:
        tail += " 1 function was" if partial == 1 else f" {partial} functions were"
        tail += " analysed only in part."
    if result.baselined:
        tail += f" {plural(result.baselined, 'known finding')} hidden by the baseline."
    if show_unused and result.unused_suppressions:  # they fail the run: say so
        tail += f" {plural(len(result.unused_suppressions), 'suppression')} silenced nothing."
    head = f"Fixed {plural(result.fixed, 'finding')}. " if result.fixed else ""
    if not result.findings:
        if unchecked:
            return f"{head}No findings in {plural(len(result.files), 'file')};{tail}"
        return f"{head}All checked! {plural(len(result.files), 'file')}, no findings.{tail}"
    severities = Counter(severity_of(d.code) for d in result.findings)
    parts = [plural(severities[s], s) for s in ("error", "warning") if severities[s]]
    files = len({d.path for d in result.findings})
    found = f"Found {plural(len(result.findings), 'finding')} ({', '.join(parts)}) in {plural(files, 'file')}."
    return head + found + tail
