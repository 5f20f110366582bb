"""What the language server (`ownlint.lsp`) sends, in LSP's terms: positions
converted between ownlint's code points and the client's units (UTF-8, UTF-16
or UTF-32, as negotiated), and findings as `lsp.Diagnostic`s.

Every message taken into a diagnostic goes through `ownlint.lines.printable`
(see `ownlint.lsp`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from lsprotocol import types as lsp
from pygls.uris import from_fs_path

from ownlint.diagnostics import Diagnostic, Span
from ownlint.lines import printable
from ownlint.registry import all_rules

SOURCE = "ownlint"


class Positions:
    """Converts columns between code points (ownlint) and the client's units (`encoding`) on the lines of a text."""

    def __init__(self, lines: Sequence[str], encoding: str) -> None:
        self.lines = lines
        self.encoding = encoding

    def to_client(self, line: int, column: int) -> lsp.Position:
        """An LSP position for 1-based `line` and code-point `column`."""
        text = self.lines[line - 1] if 1 <= line <= len(self.lines) else ""
        index = max(column - 1, 0)
        units = _units(text[:index], self.encoding) + max(index - len(text), 0)
        return lsp.Position(line=max(line - 1, 0), character=units)

    def range(self, span: Span) -> lsp.Range:
        return lsp.Range(
            start=self.to_client(span.line, span.column), end=self.to_client(span.end_line, span.end_column)
        )

    def from_client(self, position: lsp.Position) -> tuple[int, int]:
        """1-based line and code-point column of an LSP position."""
        text = self.lines[position.line] if 0 <= position.line < len(self.lines) else ""
        units = 0
        for index, char in enumerate(text):
            if units >= position.character:
                return position.line + 1, index + 1
            units += _units(char, self.encoding)
        return position.line + 1, len(text) + 1 + max(position.character - units, 0)


def _units(text: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(text.encode("utf-8"))
    if encoding == "utf-32":
        return len(text)
    return len(text.encode("utf-16-le")) // 2


def to_lsp_diagnostic(diagnostic: Diagnostic, positions: Positions, document_path: str) -> lsp.Diagnostic:
    """The editor's view of one finding; `document_path` is the finding's own (displayed) path."""
    rule = all_rules().get(diagnostic.code)
    severity = (
        lsp.DiagnosticSeverity.Warning
        if rule is not None and rule.severity == "warning"
        else lsp.DiagnosticSeverity.Error
    )
    related = [
        lsp.DiagnosticRelatedInformation(
            location=lsp.Location(
                uri=from_fs_path(os.path.abspath(r.path)) or r.path,
                range=positions.range(r.span) if r.path == document_path else _plain_range(r.span),
            ),
            message=printable(r.message),
        )
        for r in diagnostic.related
    ]
    return lsp.Diagnostic(
        range=positions.range(diagnostic.span),
        message=printable(diagnostic.message),
        severity=severity,
        code=diagnostic.code,
        code_description=lsp.CodeDescription(href=rule.help_uri) if rule is not None else None,
        source=SOURCE,
        related_information=related or None,
    )


def _plain_range(span: Span) -> lsp.Range:
    """A range in a file whose text the server does not have: columns taken as they are."""
    return lsp.Range(
        start=lsp.Position(line=span.line - 1, character=span.column - 1),
        end=lsp.Position(line=span.end_line - 1, character=span.end_column - 1),
    )
