"""The one record every check produces and every renderer consumes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True, order=True)
class Span:
    """A source range: 1-based lines and columns, the end column exclusive."""

    line: int
    column: int
    end_line: int
    end_column: int


@dataclass(frozen=True, slots=True)
class Related:
    """A place that tells part of a finding's story ("first freed here")."""

    path: str
    span: Span
    message: str


@dataclass(frozen=True, slots=True)
class Edit:
    """Replace the text of `span` with `content`."""

    span: Span
    content: str


@dataclass(frozen=True, slots=True)
class Fix:
    applicability: str  # "safe" or "unsafe"
    message: str
    edits: tuple[Edit, ...]


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One finding.

    `handle` is the source text naming the handle the finding is about (used by
    baselines and fingerprints); `related` is the story in source order of
    events (made, transferred, freed ...), ending before the finding itself.
    """

    code: str
    path: str
    span: Span
    message: str
    related: tuple[Related, ...] = ()
    fix: Fix | None = None
    handle: str | None = None
    help: str | None = None
    label: str | None = None  # the short label under the primary span
    reference: str | None = None  # where the API of the call involved is specified (its model's `reference`)
    reference_url: str | None = None  # the page documenting that call (its model's `reference-url`)

    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.path, self.span.line, self.span.column, self.code)


@dataclass(frozen=True, slots=True)
class FileError:
    """A file that could not be (fully) checked, with a one-line reason.

    `kind` is "error" (the file was not checked: unreadable, not decodable,
    an internal error) or "budget" (a function in it was too large or too
    branchy to analyse completely: reported, but not a failure of the run)."""

    path: str
    message: str
    kind: str = "error"


@dataclass(slots=True)
class FileReport:
    path: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    errors: list[FileError] = field(default_factory=list)


def report_to_dict(report: FileReport) -> dict[str, object]:
    """A JSON-ready form of a report (for the cache)."""

    def span(s: Span) -> list[int]:
        return [s.line, s.column, s.end_line, s.end_column]

    def diagnostic(d: Diagnostic) -> dict[str, object]:
        return {
            "code": d.code,
            "path": d.path,
            "span": span(d.span),
            "message": d.message,
            "related": [[r.path, span(r.span), r.message] for r in d.related],
            "fix": None
            if d.fix is None
            else [d.fix.applicability, d.fix.message, [[span(e.span), e.content] for e in d.fix.edits]],
            "handle": d.handle,
            "help": d.help,
            "label": d.label,
            "reference": d.reference,
            "reference_url": d.reference_url,
        }

    return {
        "path": report.path,
        "diagnostics": [diagnostic(d) for d in report.diagnostics],
        "errors": [[e.path, e.message, e.kind] for e in report.errors],
    }


def report_from_dict(data: dict[str, Any]) -> FileReport:
    """The inverse of `report_to_dict`; raises KeyError/TypeError/ValueError on bad data."""

    def span(s: list[int]) -> Span:
        line, column, end_line, end_column = (int(x) for x in s)
        return Span(line, column, end_line, end_column)

    def diagnostic(d: dict[str, Any]) -> Diagnostic:
        fix = None
        if d["fix"] is not None:
            applicability, message, edits = d["fix"]
            fix = Fix(str(applicability), str(message), tuple(Edit(span(s), str(c)) for s, c in edits))
        return Diagnostic(
            code=str(d["code"]),
            path=str(d["path"]),
            span=span(d["span"]),
            message=str(d["message"]),
            related=tuple(Related(str(p), span(s), str(m)) for p, s, m in d["related"]),
            fix=fix,
            handle=d["handle"],
            help=d["help"],
            label=d["label"],
            reference=d.get("reference"),
            reference_url=d.get("reference_url"),
        )

    return FileReport(
        str(data["path"]),
        [diagnostic(d) for d in data["diagnostics"]],
        [FileError(str(e[0]), str(e[1]), str(e[2])) for e in data["errors"]],
    )
