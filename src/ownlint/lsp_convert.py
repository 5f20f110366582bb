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

from ownlint.diagnostics import Diagnostic, Edit, Span
from ownlint.lines import printable
from ownlint.registry import Rule, all_rules
from ownlint.suppress import suppression_edit

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
    message = printable(diagnostic.message)
    if diagnostic.help:  # most clients show the message only: the advice goes with it
        message += "\nhelp: " + printable(diagnostic.help)
    return lsp.Diagnostic(
        range=positions.range(diagnostic.span),
        message=message,
        data={"help": printable(diagnostic.help)} if diagnostic.help else None,
        severity=severity,
        code=diagnostic.code,
        code_description=_code_description(diagnostic, rule),
        source=SOURCE,
        related_information=related or None,
    )


def finding_hover(findings: Sequence[Diagnostic]) -> str:
    """Markdown for a hover over `findings`: for each, its rule's code, name and summary, the message,
    the `help:` advice and the link to the rule's documentation."""
    parts: list[str] = []
    for finding in findings:
        rule = all_rules().get(finding.code)
        head = f"**{finding.code}** `{rule.name}`: {rule.summary}" if rule is not None else f"**{finding.code}**"
        part = [head, "", printable(finding.message)]
        if finding.help:
            part += ["", f"help: {printable(finding.help)}"]
        if rule is not None:
            part += ["", f"[{finding.code} documentation]({rule.help_uri})"]
        parts.append("\n".join(part))
    return "\n\n---\n\n".join(parts)


def _code_description(diagnostic: Diagnostic, rule: Rule | None) -> lsp.CodeDescription | None:
    """The page the editor links from the code: the documentation of the call
    involved where its model gives one, else the rule's weakness."""
    href = diagnostic.reference_url or (rule.help_uri if rule is not None else None)
    return lsp.CodeDescription(href=href) if href else None


def _plain_range(span: Span) -> lsp.Range:
    """A range in a file whose text the server does not have: columns taken as they are."""
    return lsp.Range(
        start=lsp.Position(line=span.line - 1, character=span.column - 1),
        end=lsp.Position(line=span.end_line - 1, character=span.end_column - 1),
    )


def quick_fixes(
    uri: str,
    source: str,
    version: int | None,
    findings: Sequence[Diagnostic],
    positions: Positions,
    lines: tuple[int, int],
    shown: Sequence[lsp.Diagnostic],
) -> list[lsp.CodeAction]:
    """The quick fixes for the findings on `lines` (first, last) of a document:
    the rule's fix where it offers one, and a suppression comment. `shown` is
    what the client sent as the diagnostics in context."""
    first, last = lines
    actions: list[lsp.CodeAction] = []
    for finding in findings:
        if finding.span.end_line < first or finding.span.line > last:
            continue
        matching = [
            d
            for d in shown
            if d.source == SOURCE and d.code == finding.code and d.range.start.line == finding.span.line - 1
        ] or [to_lsp_diagnostic(finding, positions, finding.path)]
        if finding.fix is not None:
            safe = finding.fix.applicability == "safe"
            title = printable(finding.fix.message if safe else f"{finding.fix.message} (unsafe)")
            actions.append(_action(uri, title, finding.fix.edits, positions, matching, version, safe))
        edit = suppression_edit(source, finding.span.line, finding.code)
        if edit is not None:
            title = f"Ignore {finding.code} on this line"
            actions.append(_action(uri, title, (edit,), positions, matching, version, False))
    return actions


def _action(
    uri: str,
    title: str,
    edits: Sequence[Edit],
    positions: Positions,
    diagnostics: list[lsp.Diagnostic],
    version: int | None,
    preferred: bool,
) -> lsp.CodeAction:
    text_edits: list[lsp.TextEdit | lsp.AnnotatedTextEdit | lsp.SnippetTextEdit] = [
        lsp.TextEdit(range=positions.range(e.span), new_text=e.content) for e in edits
    ]
    change = lsp.TextDocumentEdit(
        text_document=lsp.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version), edits=text_edits
    )
    return lsp.CodeAction(
        title=title,
        kind=lsp.CodeActionKind.QuickFix,
        diagnostics=diagnostics,
        edit=lsp.WorkspaceEdit(document_changes=[change]),
        is_preferred=preferred or None,
    )
