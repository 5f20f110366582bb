"""The shape every check module fills in."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ownlint.diagnostics import Fix
from ownlint.engine.violations import Violation
from ownlint.rule import Rule


def _no_fix(v: Violation) -> Fix | None:
    return None


def _as_told(label: str) -> str:
    return label


@dataclass(frozen=True, slots=True)
class Check:
    rule: Rule
    # (message, label under the primary span, help line)
    describe: Callable[[Violation], tuple[str, str, str]]
    fix: Callable[[Violation], Fix | None] = _no_fix
    # how the rule words a step of the story the engine told (OWN201: the
    # release before the second one is "first freed here"; alone, "freed here")
    story_label: Callable[[str], str] = _as_told


def via_suffix(v: Violation) -> str:
    """ " (inside `release`)" when the finding comes through a helper."""
    via = v.fact("via")
    return f" (through `{via}`)" if via else ""
