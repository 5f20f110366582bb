"""The one record every check produces and every renderer consumes."""

from __future__ import annotations

from dataclasses import dataclass, field


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

    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.path, self.span.line, self.span.column, self.code)


@dataclass(frozen=True, slots=True)
class FileError:
    """A file that could not be checked, with a one-line reason."""

    path: str
    message: str


@dataclass(slots=True)
class FileReport:
    path: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    errors: list[FileError] = field(default_factory=list)
