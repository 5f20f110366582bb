"""Checkers from outside ownlint, as a user would write them (README, "Writing your own checker").

The suite names them in configurations (`checkers = ["handle_checks:ReleaseNoted"]`) with this directory
on the import path, as a user's installed package or `PYTHONPATH` would be: ownlint knows nothing of them.
"""

from __future__ import annotations

from ownlint.engine.events import Checker, Findings, Release
from ownlint.rule import Rule

NOTED = Rule(
    code="XRL100",
    name="release-noted",
    severity="warning",
    summary="A handle is released here.",
    what_it_does="Reports every release of a tracked handle (a checker of the test suite).",
    why_bad="It is not bad: it shows that a checker from outside ownlint runs.",
    invalid=("\nfrom ze import *\n\n\ndef f(ctx, p):\n    zeMemFree(ctx, p)  # E: XRL100\n",),
    valid=("\nfrom ze import *\n\n\ndef f(ctx, p):\n    return p\n",),
    known_limits="",
    references="",
)

NOTED_IN_PREVIEW = Rule(
    code="XRL101",
    name="release-noted-in-preview",
    severity="warning",
    summary="A handle is released here (a preview rule).",
    what_it_does="Reports every release of a tracked handle, when it is selected by its code.",
    why_bad="It is not bad: it shows that a preview rule is off unless selected.",
    invalid=(),
    valid=(),
    known_limits="",
    references="",
    preview=True,
)


class ReleaseNoted(Checker):
    rules = (NOTED, NOTED_IN_PREVIEW)

    def on_release(self, e: Release, out: Findings) -> None:
        out.report("XRL100", e.node, e.spelled, (("message", "`{handle}` is released here"),))
        out.report("XRL101", e.node, e.spelled)


class NotAChecker:
    rules = (NOTED,)


class NoRules(Checker):
    pass


class OwnCode(Checker):
    rules = (Rule("OWN999", "not-ours", "error", "s", "w", "b", (), (), "", ""),)


class BadCode(Checker):
    rules = (Rule("xrl-1", "bad-code", "error", "s", "w", "b", (), (), "", ""),)


class TakesArguments(Checker):
    rules = (Rule("XRL900", "takes-arguments", "error", "s", "w", "b", (), (), "", ""),)

    def __init__(self, level: int) -> None:
        self.level = level
