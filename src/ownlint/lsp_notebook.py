"""Notebook documents in the language server (`ownlint.lsp`): a notebook the editor syncs cell by
cell (`notebookDocument/didOpen`, `didChange`, `didSave`, `didClose`, as VS Code does) is checked
as `ownlint check` checks the `.ipynb` file, its code cells joined (`ownlint.notebook`), and each
finding is published on its cell's document, at the line in that cell; a related place in another
cell points at that cell.

An `.ipynb` file opened as a text document (an editor without notebooks,
such as Neovim, shows its JSON) is checked the same way, and each finding
sits where the JSON text holds its source (`notebook.JsonPlaces`), its
message, and each related place's, starting with the cell and the line
(`cell 4, line 1, column 1: ...`) (`text_diagnostics`).

Not here: quick fixes and hover in notebooks (they get diagnostics only).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from lsprotocol import types as lsp

from ownlint.diagnostics import Diagnostic, Span
from ownlint.lines import printable, split_lines
from ownlint.lsp_convert import Positions, to_lsp_diagnostic
from ownlint.notebook import JsonPlaces, Notebook, NotebookIndex, join


@dataclass(frozen=True, slots=True)
class Cells:
    """One version of a notebook document: each cell's document URI and its text (None: not code)."""

    version: int
    uris: tuple[str, ...]
    texts: tuple[str | None, ...]

    def joined(self) -> Notebook:
        return join(self.texts)


def cells_of(workspace: Any, uri: str) -> Cells | None:
    """The cells of the notebook document `uri` as the editor has them; None when it is not open."""
    document = workspace.get_notebook_document(notebook_uri=uri)
    if document is None:
        return None
    uris: list[str] = []
    texts: list[str | None] = []
    for cell in document.cells:
        uris.append(cell.document)
        code = cell.kind == lsp.NotebookCellKind.Code
        texts.append(workspace.get_text_document(cell.document).source if code else None)
    return Cells(document.version, tuple(uris), tuple(texts))


def cell_diagnostics(
    findings: Sequence[Diagnostic], notebook: Notebook, cells: Cells, encoding: str
) -> dict[str, list[lsp.Diagnostic]]:
    """The diagnostics of each code cell's document (an empty list for a cell with none)."""
    positions = {
        uri: Positions(split_lines(text), encoding)
        for uri, text in zip(cells.uris, cells.texts, strict=True)
        if text is not None
    }
    out: dict[str, list[lsp.Diagnostic]] = {uri: [] for uri in positions}

    def place(span: Span) -> tuple[str, Span]:
        """The cell document a span of the joined source lies in, and the span in that cell."""
        cell, line = notebook.index.cell_of(span.line)
        shift = span.line - line
        return cells.uris[cell - 1], Span(line, span.column, span.end_line - shift, span.end_column)

    for finding in findings:
        uri, span = place(finding.span)
        elsewhere = tuple(r for r in finding.related if r.path != finding.path)
        diagnostic = to_lsp_diagnostic(replace(finding, span=span, related=elsewhere), positions[uri], finding.path)
        others = iter(diagnostic.related_information or [])
        related: list[lsp.DiagnosticRelatedInformation] = []
        for r in finding.related:
            if r.path != finding.path:
                related.append(next(others))
                continue
            cell_uri, cell_span = place(r.span)
            location = lsp.Location(uri=cell_uri, range=positions[cell_uri].range(cell_span))
            related.append(lsp.DiagnosticRelatedInformation(location=location, message=printable(r.message)))
        diagnostic.related_information = related or None
        out[uri].append(diagnostic)
    return out


def text_diagnostics(
    findings: Sequence[Diagnostic], index: NotebookIndex, text: str, encoding: str
) -> list[lsp.Diagnostic]:
    """The diagnostics of an `.ipynb` file opened as `text`: each on the place in the JSON text that holds
    its source (`JsonPlaces`; the top of the file where that is not found), its message naming cell and line."""
    places = JsonPlaces(text)
    positions = Positions(split_lines(text), encoding)

    def in_json(span: Span) -> Span:
        cell, line = index.cell_of(span.line)
        end_cell, end_line = index.cell_of(span.end_line)
        start = places.at(cell, line, span.column)
        end = places.at(end_cell, end_line, span.end_column)
        if start is None or end is None or end < start:
            return Span(1, 1, 1, 1)
        return Span(*start, *end)

    def where(span: Span) -> str:
        cell, line = index.cell_of(span.line)
        return f"cell {cell}, line {line}, column {span.column}: "

    out: list[lsp.Diagnostic] = []
    for finding in findings:
        related = tuple(
            replace(r, span=in_json(r.span), message=where(r.span) + r.message) if r.path == finding.path else r
            for r in finding.related
        )
        moved = replace(finding, span=in_json(finding.span), message=where(finding.span) + finding.message)
        out.append(to_lsp_diagnostic(replace(moved, related=related), positions, finding.path))
    return out
