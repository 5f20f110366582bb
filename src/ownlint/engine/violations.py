"""What the analysis proves, before a check turns it into words."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from ownlint.diagnostics import Span


@dataclass(frozen=True, slots=True)
class StoryStep:
    """One event in a handle's history: where it happened and what it was."""

    path: str
    span: Span
    label: str  # "allocated here", "first freed here", "freed here, inside `release`"


@dataclass(frozen=True, slots=True)
class Violation:
    """A proved defect at `span`, about the handle spelled `handle` there.

    `facts` holds what the check needs for its message (the callee's name, the
    owner's name ...); `story` is the related locations in order.
    """

    code: str
    path: str
    span: Span
    handle: str | None
    facts: tuple[tuple[str, str], ...] = ()
    story: tuple[StoryStep, ...] = ()
    edits: tuple[tuple[Span, str], ...] = ()  # a fix the finding offers: replace each span
    fix_safe: bool = False

    def fact(self, key: str, default: str = "") -> str:
        return dict(self.facts).get(key, default)


@dataclass(slots=True)
class ViolationSink:
    """Collects violations; keeps one per (code, span, handle)."""

    items: dict[tuple[str, str, Span, str | None], Violation] = field(default_factory=dict)

    def add(self, v: Violation) -> None:
        self.items.setdefault((v.code, v.path, v.span, v.handle), v)

    def __iter__(self) -> Iterator[Violation]:
        return iter(self.items.values())
