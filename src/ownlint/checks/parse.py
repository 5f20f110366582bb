"""Files that are not Python (OWN001)."""

from __future__ import annotations

from ownlint.diagnostics import Span
from ownlint.engine.events import Checker, Unparsable
from ownlint.engine.violations import Violation


class ParseChecker(Checker):
    def on_unparsable(self, e: Unparsable) -> None:
        span = Span(e.line, e.column, e.line, e.column + 1)
        e.out.append(Violation("OWN001", e.path, span, None, (("reason", e.reason),)))
